/* What the tile model reads of a stencil (sched/tile_model.h): the folded space's extents, the
 * dependence cone, and per statement its loads, stores and operations and the shape of its
 * accesses. An access index is a plane (no space loop in it: A[t % 2]), a space dimension
 * plus a constant (A[i - 1]) or anything else, which the staged model cannot box. */
#include "sched/tile_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "stenciljit.h"

static long lmax(long a, long b) {
  return a > b ? a : b;
}

/* Arithmetic of a value (not of indices: that is addressing). */
static double ops_of(const sj_expr *e) {
  if (!e || e->kind == SJ_E_INDEX || e->kind == SJ_E_VAR || e->kind == SJ_E_INT ||
      e->kind == SJ_E_FLOAT)
    return 0;
  double n = e->kind == SJ_E_CALL ? 8 : 1; /* a math function: a short sequence */
  for (int i = 0; i < e->nargs; i++) n += ops_of(e->args[i]);
  return n;
}

enum { MAX_RANK = 8, UNSEEN = -3, NONE = -4 };

/* What the accesses read so far say, by array: the offsets along each folded dimension (of
 * every access, and of the writes), and what each array dimension is (UNSEEN, -1 a plane, or
 * the folded dimensions it follows, a flat index's terms in turn, NONE past them): an array
 * dimension that is a plane in one access and a space dimension in another (fdtd-2d's ey[0][j]) is
 * not boxed. */
typedef struct reader {
  sj_tm_stencil *out;
  const sj_model *m;
  int sym_of[SJ_TM_MAX_ARRAYS];
  long lo[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE], hi[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE];
  long wlo[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE], whi[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE];
  int seen[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE], wseen[SJ_TM_MAX_ARRAYS][SJ_HYBRID_MAX_SPACE];
  int kind[SJ_TM_MAX_ARRAYS][MAX_RANK][SJ_HYBRID_MAX_SPACE];
} reader;

/* Widens [*lo, *hi] (*seen: not empty) to v. */
static void widen(long *lo, long *hi, int *seen, long v) {
  if (!*seen || v < *lo) *lo = v;
  if (!*seen || v > *hi) *hi = v;
  *seen = 1;
}

/* The model's array for sym (added on first sight); -1 beyond SJ_TM_MAX_ARRAYS. */
static int array_of(reader *r, const sj_sym *sym) {
  sj_tm_stencil *s = r->out;
  for (int a = 0; a < s->narrays; a++)
    if (r->sym_of[a] == sym->id) return a;
  if (s->narrays == SJ_TM_MAX_ARRAYS) return -1;
  int a = s->narrays++;
  r->sym_of[a] = sym->id;
  for (int k = 0; k < MAX_RANK; k++)
    for (int t = 0; t < SJ_HYBRID_MAX_SPACE; t++) r->kind[a][k][t] = UNSEEN;
  s->arrays[a].elem = sj_type_size(sym->type);
  s->arrays[a].temp = sym->id >= r->m->fn->narrays;
  s->arrays[a].planes = 1;
  double bytes = s->arrays[a].elem;
  for (int d = 0; d < sym->rank; d++) bytes *= (double)sj_model_extents(r->m, sym->id)[d];
  s->footprint += bytes;
  return a;
}

/* The terms of a row-major flat index over the folded space dimensions (A[i * M + j - 1]: i with
 * stride M, j with stride 1): each term a dimension (dim), its stride and offset, outermost first,
 * strides decreasing, each a multiple of the next and the last 1; the constant split over them
 * by rounding (-1 is j - 1, -M is i - 1). A plain index is one term of stride 1. How many terms;
 * 0 when the index is not of that form. */
static int flat_terms(__isl_keep isl_aff *aff, int space, const sj_place *place, int *dim,
                      long *stride, long *off) {
  int n = 0;
  for (int j = 1; j <= space; j++) {
    isl_val *v = isl_aff_get_coefficient_val(aff, isl_dim_in, j);
    long c = isl_val_is_int(v) == isl_bool_true ? isl_val_get_num_si(v) : -1;
    isl_val_free(v);
    if (c < 0) return 0;
    if (c == 0) continue;
    int f = 0; /* the folded dimension of loop j */
    while (f < SJ_PLACE_MAX && place->dim_of[f] != j) f++;
    if (f == SJ_PLACE_MAX) return 0;
    int at = n++; /* insertion by decreasing stride */
    for (; at > 0 && stride[at - 1] < c; at--) dim[at] = dim[at - 1], stride[at] = stride[at - 1];
    dim[at] = f, stride[at] = c;
  }
  if (n == 0 || stride[n - 1] != 1) return 0;
  for (int t = 0; t + 1 < n; t++)
    if (stride[t] == stride[t + 1] || stride[t] % stride[t + 1]) return 0;
  isl_val *c = isl_aff_get_constant_val(aff);
  long rest = isl_val_is_int(c) == isl_bool_true ? isl_val_get_num_si(c) : 0;
  int whole = isl_val_is_int(c) == isl_bool_true;
  isl_val_free(c);
  if (!whole) return 0;
  for (int t = 0; t < n; t++) {
    long half = stride[t] / 2,
         q = rest >= 0 ? (rest + half) / stride[t] : -((half - rest) / stride[t]);
    off[t] = q;
    rest -= q * stride[t];
  }
  off[n - 1] += rest;
  return n;
}

/* Index k of access ma of a statement with `space` space loops at place: 0 for folded
 * dimensions plus offsets (*terms of flat_terms into dim, stride, off), -1 for
 * a plane (*timed: it follows t; *off: its value when constant, *dim -2 when not), -2 for
 * anything else. */
static int classify(__isl_keep isl_multi_aff *ma, int k, int space, const sj_place *place,
                    int *terms, int *dim, long *stride, long *off, int *timed) {
  isl_aff *aff = isl_multi_aff_get_aff(ma, k);
  int kind = -2;
  *terms = 1;
  if (isl_aff_involves_dims(aff, isl_dim_in, 1, (unsigned)space) == isl_bool_false) {
    kind = -1;
    *timed = isl_aff_involves_dims(aff, isl_dim_in, 0, 1) == isl_bool_true;
    isl_val *c = isl_aff_is_cst(aff) == isl_bool_true ? isl_aff_get_constant_val(aff) : NULL;
    if (c && isl_val_is_int(c) == isl_bool_true)
      *off = isl_val_get_num_si(c);
    else
      *dim = -2;
    isl_val_free(c);
  } else if (isl_aff_dim(aff, isl_dim_div) == 0 &&
             isl_aff_involves_dims(aff, isl_dim_in, 0, 1) == isl_bool_false &&
             (*terms = flat_terms(aff, space, place, dim, stride, off)) > 0) {
    kind = 0;
  }
  isl_aff_free(aff);
  return kind;
}

static isl_stat only_piece(__isl_take isl_set *set, __isl_take isl_multi_aff *ma, void *user) {
  isl_set_free(set);
  *(isl_multi_aff **)user = ma;
  return isl_stat_ok;
}

/* Reads access acc of statement st (space loops, place) into r; the plane of the access as a
 * text in key (for the distinct planes a step reads). */
static void read_access(reader *r, const sj_access *acc, int space, const sj_place *place,
                        sj_buf *key) {
  sj_tm_stencil *s = r->out;
  int a = array_of(r, acc->ref->sym);
  isl_pw_multi_aff *pma = isl_pw_multi_aff_from_map(isl_map_copy(acc->rel));
  isl_multi_aff *ma = NULL;
  if (isl_pw_multi_aff_n_piece(pma) == 1) isl_pw_multi_aff_foreach_piece(pma, only_piece, &ma);
  isl_pw_multi_aff_free(pma);
  sj_buf_printf(key, "%d:", acc->ref->sym->id);
  int rank = ma ? (int)isl_multi_aff_dim(ma, isl_dim_out) : 0;
  if (!ma || a < 0 || rank > MAX_RANK) {
    s->stageable = 0;
    sj_buf_printf(key, "%p", (const void *)acc);
    isl_multi_aff_free(ma);
    return;
  }
  sj_tm_array *arr = &s->arrays[a];
  arr->written |= acc->is_write;
  for (int k = 0; k < rank; k++) {
    int dim[SJ_HYBRID_MAX_SPACE] = {-1, NONE, NONE}, timed = 0, terms;
    long off[SJ_HYBRID_MAX_SPACE] = {0}, stride[SJ_HYBRID_MAX_SPACE] = {1};
    int kind = classify(ma, k, space, place, &terms, dim, stride, off, &timed);
    int *seen = r->kind[a][k];
    /* a constant index along a dimension the statement lacks (fdtd-2d's ey[0][j]) is that
     * dimension plus the constant's distance from the statement's place there */
    if (kind == -1 && dim[0] == -1 && seen[0] >= 0 && seen[0] < SJ_PLACE_MAX &&
        !place->dim_of[seen[0]] && seen[1] == NONE)
      kind = 0, dim[0] = seen[0], off[0] -= place->cst[seen[0]];
    if (dim[0] == -2 || kind == -2) dim[0] = -1;
    for (int t = 0; t < SJ_HYBRID_MAX_SPACE; t++) {
      if (kind != 0 || t >= terms) dim[t] = t ? NONE : dim[0];
      if (kind != -2 && seen[0] != UNSEEN && seen[t] != dim[t]) kind = -2;
    }
    /* a flat index's dimensions keep their strides across accesses */
    for (int t = 0; kind == 0 && terms > 1 && t < terms; t++)
      if ((arr->dims >> dim[t] & 1) && arr->stride[dim[t]] != stride[t]) kind = -2;
    memcpy(seen, dim, sizeof dim);
    if (kind == -1) {
      isl_aff *aff = isl_multi_aff_get_aff(ma, k);
      char *text = isl_aff_to_str(aff);
      sj_buf_printf(key, "%s,", text);
      free(text);
      isl_aff_free(aff);
      arr->time_planes |= timed;
      /* a plane that follows time may be any of the dimension's; a fixed one is one */
      if (timed && arr->planes < sj_model_extents(r->m, acc->ref->sym->id)[k])
        arr->planes = sj_model_extents(r->m, acc->ref->sym->id)[k];
    } else if (kind == 0) {
      for (int t = 0; t < terms; t++) {
        int d = dim[t];
        arr->dims |= 1u << d;
        arr->stride[d] = terms > 1 ? stride[t] : 0;
        widen(&r->lo[a][d], &r->hi[a][d], &r->seen[a][d], off[t]);
        if (acc->is_write) widen(&r->wlo[a][d], &r->whi[a][d], &r->wseen[a][d], off[t]);
        arr->halo[d] = r->hi[a][d] - r->lo[a][d];
      }
    } else {
      s->stageable = 0;
      arr->opaque = 1;
    }
  }
  isl_multi_aff_free(ma);
}

/* The statement's range along each of its loops into lo, hi; 0, or -1 when isl fails. */
static int ranges(const sj_pstmt *p, long *lo, long *hi) {
  for (int j = 0; j < p->depth; j++)
    if (sj_set_dim_range(p->domain, j, &lo[j], &hi[j])) return -1;
  return 0;
}

/* The reads (write 0) or writes of statement p into r: how many, their bytes, and the bytes of
 * the distinct planes they touch (a step moves each once between DRAM and the chip). */
static void read_accesses(reader *r, const sj_pstmt *p, int write, const sj_place *place,
                          char **keys, double *count, double *bytes, double *planes) {
  const sj_model *m = r->m;
  int nkeys = 0;
  *count = *bytes = *planes = 0;
  for (int a = 0; a < m->naccesses; a++) {
    const sj_access *acc = &m->accesses[a];
    if (acc->stmt != p || acc->is_write != write) continue;
    sj_buf key = {0};
    read_access(r, acc, p->depth - 1, place, &key);
    int size = sj_type_size(acc->ref->sym->type), first = 1;
    for (int k = 0; k < nkeys && first; k++) first = strcmp(keys[k], key.data) != 0;
    keys[nkeys++] = sj_buf_take(&key);
    *count += 1;
    *bytes += size;
    if (first) *planes += size;
  }
  for (int k = 0; k < nkeys; k++) free(keys[k]);
}

/* The time steps at which instances (taken) lie, or -1 where isl fails. */
static long steps_of(__isl_take isl_union_set *instances) {
  isl_set_list *sets = isl_union_set_get_set_list(instances);
  isl_union_set_free(instances);
  isl_size n = isl_set_list_size(sets);
  isl_set *steps = isl_set_empty(isl_space_set_alloc(isl_set_list_get_ctx(sets), 0, 1));
  for (int i = 0; i < n; i++) {
    isl_set *one = isl_set_list_get_at(sets, i);
    steps = isl_set_union(steps, sj_steps_of(one));
    isl_set_free(one);
  }
  isl_set_list_free(sets);
  isl_val *count = n < 0 ? NULL : isl_set_count_val(steps);
  long c = count && isl_val_is_int(count) ? isl_val_get_num_si(count) : -1;
  isl_val_free(count);
  isl_set_free(steps);
  return c;
}

/* The folded extents (a statement with fewer space loops where sj_place_of puts it),
 * and loads, stores, operations and planes per update, averaged over the statements by their
 * points over the run (a nest of a stencil that swaps arrays by pointers runs every other
 * step, a source at some steps only). */
static int read_statements(const sj_model *m, reader *r) {
  sj_tm_stencil *s = r->out;
  double weight = 0;
  long flo[SJ_HYBRID_MAX_SPACE + 1] = {0}, fhi[SJ_HYBRID_MAX_SPACE + 1] = {0};
  int fseen[SJ_HYBRID_MAX_SPACE + 1] = {0};
  char **keys = calloc((size_t)m->naccesses + 1, sizeof *keys);
  if (!keys) abort();
  /* the statements with every space loop first: what their indices are tells the others' */
  for (int i = 0; i < 2 * m->nstmts; i++) {
    const sj_pstmt *p = m->stmts[i % m->nstmts];
    if ((p->depth == s->n + 2) != (i < m->nstmts)) continue;
    long lo[SJ_HYBRID_MAX_SPACE + 1], hi[SJ_HYBRID_MAX_SPACE + 1];
    if (ranges(p, lo, hi)) {
      free(keys);
      return -1;
    }
    sj_place place;
    if (sj_place_of(m, p, s->n, &place)) {
      free(keys);
      return -1;
    }
    double w = 1, ops = 0, n[2], bytes[2], planes[2];
    widen(&flo[0], &fhi[0], &fseen[0], lo[0]), widen(&flo[0], &fhi[0], &fseen[0], hi[0]);
    for (int f = 0; f <= s->n; f++) {
      int j = place.dim_of[f]; /* the statement's loop along folded dimension f, if any */
      widen(&flo[f + 1], &fhi[f + 1], &fseen[f + 1], j >= 1 ? lo[j] : place.cst[f]);
      widen(&flo[f + 1], &fhi[f + 1], &fseen[f + 1], j >= 1 ? hi[j] : place.cst[f]);
      if (j >= 1) w *= hi[j] >= lo[j] ? (double)(hi[j] - lo[j] + 1) : 0;
    }
    long steps = steps_of(isl_union_set_from_set(isl_set_copy(p->domain)));
    if (steps < 0) {
      free(keys);
      return -1;
    }
    w *= (double)steps; /* its points over the run */
    for (int b = 0; b < p->nbody; b++) ops += ops_of(p->body[b]->rhs);
    for (int write = 0; write <= 1; write++)
      read_accesses(r, p, write, &place, keys, &n[write], &bytes[write], &planes[write]);
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
  /* folded time: nest i of step t at nests t + i */
  s->t0 = s->nests * flo[0];
  s->steps = fhi[0] >= flo[0] ? s->nests * (fhi[0] - flo[0] + 1) : 0;
  double box = s->nests;
  for (int f = 0; f <= s->n; f++) {
    s->lo[f] = flo[f + 1], s->ext[f] = fhi[f + 1] - flo[f + 1] + 1;
    box *= (double)s->ext[f];
  }
  double per_step = fhi[0] >= flo[0] ? weight / (double)(fhi[0] - flo[0] + 1) : 0;
  s->empty = box > 0 && per_step < box ? 1 - per_step / box : 0;
  s->per_point = box > 0 && per_step > box ? per_step / box : 1;
  s->loads *= s->per_point, s->stores *= s->per_point, s->ops *= s->per_point;
  s->access_bytes *= s->per_point;
  s->read_bytes *= s->per_point, s->write_bytes *= s->per_point;
  return 0;
}

/* Whether a statement other than r writes sym earlier in each of r's steps. */
static int written_before(const sj_model *m, const sj_pstmt *r, const sj_sym *sym) {
  for (int k = 0; k < m->naccesses; k++) {
    const sj_access *w = &m->accesses[k];
    const sj_pstmt *const writer = w->stmt;
    if (w->is_write && w->ref->sym->id == sym->id && writer != r &&
        sj_steps_before(m, &writer, 1, &r, 1, 0))
      return 1;
  }
  return 0;
}

/* Each array's shares of the steps at which it is read, and read as the step before left it
 * (sj_tm_array.read_steps, from_before), of 2-D kernels: the model weighs them there only (the
 * flow-in of arrays without planes, sched/flow_in.c); -1 where isl fails. */
static int read_shares(const sj_model *m, reader *r) {
  sj_tm_stencil *s = r->out;
  long range = s->nests && s->n == 1 ? s->steps / s->nests : 0;
  for (int i = 0; i < m->nstmts && range > 0; i++) {
    const sj_pstmt *p = m->stmts[i];
    long steps = -1;
    char counted[SJ_TM_MAX_ARRAYS] = {0};
    for (int k = 0; k < m->naccesses; k++) {
      const sj_access *acc = &m->accesses[k];
      int a = 0;
      while (a < s->narrays && r->sym_of[a] != acc->ref->sym->id) a++;
      if (acc->stmt != p || acc->is_write || a == s->narrays || counted[a]++) continue;
      if (steps < 0 && (steps = steps_of(isl_union_set_from_set(isl_set_copy(p->domain)))) < 0)
        return -1;
      sj_tm_array *arr = &s->arrays[a];
      double share = (double)steps / (double)range;
      arr->read_steps = fmin(1, arr->read_steps + share);
      if (!written_before(m, p, acc->ref->sym))
        arr->from_before = fmin(1, arr->from_before + share);
    }
  }
  return 0;
}

/* A bound of the cone from the offsets: a dependence joins a write at offset w to an access at
 * offset r of the same array, at least one folded step later, so its slope along each
 * dimension is at most |w - r|. 0 when that does not hold: an array written but not indexed
 * along some dimension joins instances any distance apart along it. */
static int cone_bound(const reader *r, sj_tm_stencil *s) {
  sj_cone *c = &s->cone;
  memset(c, 0, sizeof *c);
  c->n = s->n;
  c->up_den = c->down_den = 1;
  /* a flat index's neighbours along one dimension are also the ends of rows along another */
  for (int a = 0; a < s->narrays; a++)
    for (int d = 0; d <= s->n; d++)
      if (s->arrays[a].stride[d]) return 0;
  for (int a = 0; a < s->narrays; a++)
    if (s->arrays[a].written && s->arrays[a].dims != (2u << s->n) - 1) return 0;
  for (int d = 0; d <= s->n; d++) {
    long slope = 0;
    for (int a = 0; a < s->narrays; a++)
      if (r->wseen[a][d])
        slope = lmax(slope, lmax(r->whi[a][d] - r->lo[a][d], r->hi[a][d] - r->wlo[a][d]));
    if (d == 0) c->up_num = c->down_num = slope;
    c->skew_num[d] = c->lead_num[d] = slope;
    c->skew_den[d] = c->lead_den[d] = 1;
  }
  return 1;
}

int sj_tm_exact_cone(sj_model *m, const sj_stencil *st, sj_tm_stencil *s, sj_buf *why) {
  int n;
  isl_union_map *fold = sj_fold_space(m, st, &n);
  if (!fold) return s->tileable = 0;
  isl_union_map *deps = sj_fold_deps(m, fold, n);
  isl_union_map_free(fold);
  s->tileable = sj_hybrid_cone(deps, n, &s->cone, why) == 0;
  s->exact_cone = 1;
  isl_union_map_free(deps);
  return s->tileable;
}

/* The per-step mapping's launches over the run (sj_tm_stencil.step_launches): the groups of
 * sj_stencil.launch, else the C order's nests in the time loop; -1 where isl fails. */
static long step_launches(const sj_model *m, const sj_stencil *st) {
  long total = 0;
  if (st->launch) {
    for (int l = 0; l < st->launches && total >= 0; l++) {
      isl_union_set *mine = isl_union_set_empty(isl_union_set_get_space(m->domain));
      for (int i = 0; i < m->nstmts; i++)
        if (st->launch[m->stmts[i]->id] == l)
          mine = isl_union_set_add_set(mine, isl_set_copy(m->stmts[i]->domain));
      long n = steps_of(mine);
      total = n < 0 ? -1 : total + n;
    }
    return total;
  }
  isl_schedule_node *node = isl_schedule_node_child(isl_schedule_get_root(m->original), 0);
  node = isl_schedule_node_child(node, 0);
  if (isl_schedule_node_get_type(node) != isl_schedule_node_sequence) {
    isl_schedule_node_free(node);
    return steps_of(isl_union_set_copy(m->domain));
  }
  isl_size nests = isl_schedule_node_n_children(node);
  for (int k = 0; k < nests && total >= 0; k++) {
    isl_schedule_node *nest = isl_schedule_node_get_child(node, k);
    isl_union_set *filter = isl_schedule_node_filter_get_filter(nest);
    isl_schedule_node_free(nest);
    long n = steps_of(isl_union_set_intersect(filter, isl_union_set_copy(m->domain)));
    total = n < 0 ? -1 : total + n;
  }
  isl_schedule_node_free(node);
  return nests < 0 ? -1 : total;
}

int sj_tm_read(sj_model *m, const sj_stencil *st, int exact, sj_tm_stencil *out, sj_buf *why,
               sj_error *err) {
  memset(out, 0, sizeof *out);
  out->nests = st->nests;
  out->n = m->max_depth - 2;
  if (out->n < 0 || out->n >= SJ_HYBRID_MAX_SPACE) {
    sj_buf_printf(why, "the statements do not have 1 to %d space loops", SJ_HYBRID_MAX_SPACE);
    return -1;
  }
  reader r;
  memset(&r, 0, sizeof r);
  r.out = out, r.m = m;
  out->stageable = 1;
  if (read_statements(m, &r) || read_shares(m, &r) ||
      (out->step_launches = step_launches(m, st)) < 0)
    return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed reading the stencil for the tile model");
  /* the exact cone costs as much as the rest of a compile: a bound does to weigh the mappings */
  if (exact || !out->stageable || !cone_bound(&r, out))
    sj_tm_exact_cone(m, st, out, why);
  else
    out->tileable = 1;
  return 0;
}
