/* What the tile model reads of a stencil (sched/tile_model.h): the folded space's extents, the
 * dependence cone, and per statement its loads, stores and operations and the shape of its
 * accesses. An access index is a plane (no space loop in it: A[t % 2]), a space dimension
 * plus a constant (A[i - 1]) or anything else, which the staged model cannot box. */
#include "sched/tile_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/val.h>

#include "stenciljit.h"

/* Arithmetic of a value (not of indices: that is addressing). */
static double ops_of(const sj_expr *e) {
  if (!e || e->kind == SJ_E_INDEX || e->kind == SJ_E_VAR || e->kind == SJ_E_INT ||
      e->kind == SJ_E_FLOAT)
    return 0;
  double n = e->kind == SJ_E_CALL ? 8 : 1; /* a math function: a short sequence */
  for (int i = 0; i < e->nargs; i++) n += ops_of(e->args[i]);
  return n;
}

/* Where the accesses of one statement go, by array, while they are read. */
typedef struct reader {
  sj_tm_stencil *out;
  const sj_model *m;
  int sym_of[SJ_TM_MAX_ARRAYS];
  long off_lo[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE], off_hi[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE];
  int seen[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE];
} reader;

/* The model's array for sym (added on first sight); -1 beyond SJ_TM_MAX_ARRAYS. */
static int array_of(reader *r, const sj_sym *sym) {
  sj_tm_stencil *s = r->out;
  for (int a = 0; a < s->narrays; a++)
    if (r->sym_of[a] == sym->id) return a;
  if (s->narrays == SJ_TM_MAX_ARRAYS) return -1;
  int a = s->narrays++;
  r->sym_of[a] = sym->id;
  s->arrays[a].elem = sj_type_size(sym->type);
  s->arrays[a].planes = 1;
  double bytes = s->arrays[a].elem;
  for (int d = 0; d < sym->rank; d++) bytes *= (double)r->m->extents[sym->id][d];
  s->footprint += bytes;
  return a;
}

/* Index k of access ma of a statement with `space` space loops whose folded dimensions start at
 * pad: its folded dimension (*dim) and offset, or -1 for a plane (*timed: it follows t), or
 * -2 for anything else. */
static int classify(__isl_keep isl_multi_aff *ma, int k, int space, int pad, int *dim, long *off,
                    int *timed) {
  isl_aff *aff = isl_multi_aff_get_aff(ma, k);
  int kind = -2;
  if (isl_aff_involves_dims(aff, isl_dim_in, 1, (unsigned)space) == isl_bool_false) {
    kind = -1;
    *timed = isl_aff_involves_dims(aff, isl_dim_in, 0, 1) == isl_bool_true;
  } else if (isl_aff_dim(aff, isl_dim_div) == 0 &&
             isl_aff_involves_dims(aff, isl_dim_in, 0, 1) == isl_bool_false) {
    int unit = -1, others = 0;
    for (int j = 1; j <= space; j++) {
      isl_val *v = isl_aff_get_coefficient_val(aff, isl_dim_in, j);
      if (isl_val_is_one(v) == isl_bool_true && unit < 0)
        unit = j;
      else if (isl_val_is_zero(v) != isl_bool_true)
        others = 1;
      isl_val_free(v);
    }
    isl_val *c = isl_aff_get_constant_val(aff);
    if (unit > 0 && !others && isl_val_is_int(c) == isl_bool_true) {
      kind = 0;
      *dim = pad + unit - 1;
      *off = isl_val_get_num_si(c);
    }
    isl_val_free(c);
  }
  isl_aff_free(aff);
  return kind;
}

static isl_stat only_piece(__isl_take isl_set *set, __isl_take isl_multi_aff *ma, void *user) {
  isl_set_free(set);
  *(isl_multi_aff **)user = ma;
  return isl_stat_ok;
}

/* Reads access acc of statement st (space loops, pad) into r; the plane of the access as a text
 * in key (for the distinct planes a step reads). */
static void read_access(reader *r, const sj_access *acc, int space, int pad, sj_buf *key) {
  sj_tm_stencil *s = r->out;
  int a = array_of(r, acc->ref->sym);
  isl_pw_multi_aff *pma = isl_pw_multi_aff_from_map(isl_map_copy(acc->rel));
  isl_multi_aff *ma = NULL;
  if (isl_pw_multi_aff_n_piece(pma) == 1) isl_pw_multi_aff_foreach_piece(pma, only_piece, &ma);
  isl_pw_multi_aff_free(pma);
  sj_buf_printf(key, "%d:", acc->ref->sym->id);
  if (!ma || a < 0) {
    s->stageable = 0;
    sj_buf_printf(key, "%p", (const void *)acc);
    isl_multi_aff_free(ma);
    return;
  }
  sj_tm_array *arr = &s->arrays[a];
  arr->written |= acc->is_write;
  int rank = (int)isl_multi_aff_dim(ma, isl_dim_out);
  for (int k = 0; k < rank; k++) {
    int dim, timed;
    long off;
    int kind = classify(ma, k, space, pad, &dim, &off, &timed);
    if (kind == -1) {
      isl_aff *aff = isl_multi_aff_get_aff(ma, k);
      char *text = isl_aff_to_str(aff);
      sj_buf_printf(key, "%s,", text);
      free(text);
      isl_aff_free(aff);
      arr->time_planes |= timed;
      /* a plane that follows time may be any of the dimension's; a fixed one is one */
      if (timed && arr->planes < r->m->extents[acc->ref->sym->id][k])
        arr->planes = r->m->extents[acc->ref->sym->id][k];
    } else if (kind == 0) {
      arr->dims |= 1u << dim;
      if (!r->seen[a][dim] || off < r->off_lo[a][dim]) r->off_lo[a][dim] = off;
      if (!r->seen[a][dim] || off > r->off_hi[a][dim]) r->off_hi[a][dim] = off;
      r->seen[a][dim] = 1;
      arr->halo[dim] = r->off_hi[a][dim] - r->off_lo[a][dim];
    } else {
      s->stageable = 0;
    }
  }
  isl_multi_aff_free(ma);
}

/* The statement's points per step (the product of its space loops' ranges); -1 when isl fails. */
static double points_per_step(const sj_pstmt *p) {
  double n = 1;
  for (int j = 1; j < p->depth; j++) {
    long lo, hi;
    if (sj_set_dim_range(p->domain, j, &lo, &hi)) return -1;
    n *= hi >= lo ? (double)(hi - lo + 1) : 0;
  }
  return n;
}

/* The reads (write 0) or writes of statement p into r: how many, their bytes, and the bytes of
 * the distinct planes they touch (a step moves each once between DRAM and the chip). */
static void read_accesses(reader *r, const sj_pstmt *p, int write, int pad, char **keys,
                          double *count, double *bytes, double *planes) {
  const sj_model *m = r->m;
  int nkeys = 0;
  *count = *bytes = *planes = 0;
  for (int a = 0; a < m->naccesses; a++) {
    const sj_access *acc = &m->accesses[a];
    if (acc->stmt != p || acc->is_write != write) continue;
    sj_buf key = {0};
    read_access(r, acc, p->depth - 1, pad, &key);
    int size = sj_type_size(acc->ref->sym->type), first = 1;
    for (int k = 0; k < nkeys && first; k++) first = strcmp(keys[k], key.data) != 0;
    keys[nkeys++] = sj_buf_take(&key);
    *count += 1;
    *bytes += size;
    if (first) *planes += size;
  }
  for (int k = 0; k < nkeys; k++) free(keys[k]);
}

/* Loads, stores, operations and planes per update, averaged over the statements by their
 * points per step. */
static int read_statements(const sj_model *m, sj_tm_stencil *s) {
  reader r;
  memset(&r, 0, sizeof r);
  r.out = s, r.m = m;
  s->stageable = 1;
  double weight = 0;
  char **keys = calloc((size_t)m->naccesses + 1, sizeof *keys);
  if (!keys) abort();
  for (int i = 0; i < m->nstmts; i++) {
    const sj_pstmt *p = m->stmts[i];
    double w = points_per_step(p), ops = 0, n[2], bytes[2], planes[2];
    if (w < 0) {
      free(keys);
      return -1;
    }
    for (int b = 0; b < p->nbody; b++) ops += ops_of(p->body[b]->rhs);
    for (int write = 0; write <= 1; write++)
      read_accesses(&r, p, write, s->n + 2 - p->depth, keys, &n[write], &bytes[write],
                    &planes[write]);
    s->loads += w * n[0], s->stores += w * n[1], s->ops += w * ops;
    s->access_bytes += w * (bytes[0] + bytes[1]);
    s->read_bytes += w * planes[0], s->write_bytes += w * planes[1];
    weight += w;
  }
  free(keys);
  if (weight > 0) {
    s->loads /= weight, s->stores /= weight, s->ops /= weight, s->access_bytes /= weight;
    s->read_bytes /= weight, s->write_bytes /= weight;
  }
  return 0;
}

int sj_tm_read(sj_model *m, const sj_stencil *st, sj_tm_stencil *out, sj_buf *why, sj_error *err) {
  memset(out, 0, sizeof *out);
  out->nests = st->nests;
  isl_union_map *fold = sj_fold_space(m, st, &out->n);
  if (!fold) {
    sj_buf_printf(why, "the statements do not have 1 to %d space loops", SJ_HYBRID_MAX_SPACE);
    return -1;
  }
  isl_set *points = isl_set_from_union_set(
      isl_union_set_apply(isl_union_set_copy(m->domain), isl_union_map_copy(fold)));
  int rc = 0;
  for (int d = 0; d <= out->n + 1 && !rc; d++) {
    long lo, hi;
    rc = sj_set_dim_range(points, d, &lo, &hi);
    if (d == 0)
      out->t0 = lo, out->steps = hi - lo + 1;
    else
      out->lo[d - 1] = lo, out->ext[d - 1] = hi - lo + 1;
  }
  isl_set_free(points);
  if (!rc) rc = read_statements(m, out);
  if (rc) {
    isl_union_map_free(fold);
    return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed reading the stencil for the tile model");
  }
  isl_union_map *deps = sj_fold_deps(m, fold, out->n);
  isl_union_map_free(fold);
  out->tileable = sj_hybrid_cone(deps, out->n, &out->cone, why) == 0;
  isl_union_map_free(deps);
#ifdef TM_DEBUG_INPUT
  fprintf(stderr,
          "n %d lo %ld %ld %ld ext %ld %ld %ld t0 %ld steps %ld loads %g stores %g ops %g acc %g "
          "rd %g wr %g foot %g stage %d arrays %d\n",
          out->n, out->lo[0], out->lo[1], out->lo[2], out->ext[0], out->ext[1], out->ext[2],
          out->t0, out->steps, out->loads, out->stores, out->ops, out->access_bytes,
          out->read_bytes, out->write_bytes, out->footprint, out->stageable, out->narrays);
  for (int a = 0; a < out->narrays; a++)
    fprintf(stderr, "  array elem %d written %d planes %ld timed %d dims %x halo %ld %ld %ld\n",
            out->arrays[a].elem, out->arrays[a].written, out->arrays[a].planes,
            out->arrays[a].time_planes, out->arrays[a].dims, out->arrays[a].halo[0],
            out->arrays[a].halo[1], out->arrays[a].halo[2]);
#endif
  return 0;
}
