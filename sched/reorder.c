/* isl's scheduler for nests that are not in stencil form: the Pluto-style algorithm PPCG
 * uses, on the exact dependences as validity, coincidence and proximity constraints. It
 * interchanges loops so that parallel ones come out (gemm's j from inside k), fuses and
 * shifts; where a permutable band has no parallel member at all (seidel-2d, nussinov), the
 * band is turned into a wavefront: its first member becomes the sum of all members, and the
 * others, now parallel, stay. The scheduler has a budget of isl operations of its own; when
 * it gives up, the compile goes on with the original order. */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/schedule.h>
#include <isl/space.h>
#include <isl/union_map.h>

#include "base/buf.h"

/* isl operations each run of the scheduler may use, and at most this share of the
 * compile's own budget (a compile that its user keeps small falls back to the C order
 * before it fails). */
#define REORDER_OPS 3000000ul
#define REORDER_SHARE 16
/* Index-set splitting: at most this many hyperplanes per statement (3^2 pieces). */
#define MAX_CUTS 2

/* The wavefront of a permutable band none of whose members is parallel: every dependence
 * the band carries has non-negative distances along each member and a positive one along
 * some, so along the sum of the members it is at least 1, and at a fixed sum the remaining
 * members carry nothing. One member is dropped to keep the transformation unimodular (the
 * sum has coefficient 1 in each): the one with the largest range, so that the parallel
 * members cover few idle points per wavefront. */
static __isl_give isl_schedule_node *wavefront(__isl_take isl_schedule_node *band, sj_buf *note) {
  int n = isl_schedule_node_band_n_member(band), drop = 0;
  long best = -1;
  for (int k = 0; k < n; k++) {
    long lo, hi;
    if (sj_member_range(band, k, &lo, &hi)) return isl_schedule_node_free(band);
    if (hi - lo > best) best = hi - lo, drop = k;
  }
  isl_multi_union_pw_aff *partial = isl_schedule_node_band_get_partial_schedule(band);
  isl_ctx *ctx = isl_multi_union_pw_aff_get_ctx(partial);
  isl_union_pw_aff *sum = isl_multi_union_pw_aff_get_union_pw_aff(partial, 0);
  for (int k = 1; k < n; k++)
    sum = isl_union_pw_aff_add(sum, isl_multi_union_pw_aff_get_union_pw_aff(partial, k));
  isl_union_pw_aff_list *list = isl_union_pw_aff_list_alloc(ctx, n);
  list = isl_union_pw_aff_list_add(list, sum);
  for (int k = 0; k < n; k++)
    if (k != drop)
      list = isl_union_pw_aff_list_add(list, isl_multi_union_pw_aff_get_union_pw_aff(partial, k));
  isl_multi_union_pw_aff_free(partial);
  isl_multi_union_pw_aff *wave =
      isl_multi_union_pw_aff_from_union_pw_aff_list(isl_space_set_alloc(ctx, 0, n), list);
  isl_schedule_node *node = isl_schedule_node_delete(band);
  node = isl_schedule_node_insert_partial_schedule(node, wave);
  for (int k = 1; k < n; k++) node = isl_schedule_node_band_member_set_coincident(node, k, 1);
  sj_buf_printf(note, ", a wavefront of %d loops (their sum outside, %d parallel inside)", n,
                n - 1);
  return node;
}

static __isl_give isl_schedule_node *wavefronts(void *user, __isl_take isl_schedule_node *node) {
  if (isl_schedule_node_get_type(node) == isl_schedule_node_band) {
    int n = isl_schedule_node_band_n_member(node), any = 0;
    for (int k = 0; k < n; k++) any |= isl_schedule_node_band_member_get_coincident(node, k) > 0;
    if (!any && n > 1 && isl_schedule_node_band_get_permutable(node) > 0)
      return wavefront(node, user); /* what lies below is carried by the wavefront's sum */
  }
  return sj_each_child(node, wavefronts, user);
}

/* --- index-set splitting --- */

/* A statement that reads the array it writes through another iterator at some subscript
 * (floyd-warshall's path[i][k] and path[k][j] beside path[i][j]) depends on the instances
 * on the hyperplane where the two subscripts meet, and those on the other instances: split
 * there, each piece can get a schedule of its own (the hyperplane first, the rest parallel
 * after it). The pieces are statements of the scheduler's only; a pullback takes the
 * result back to the model's statements. */
typedef struct cut_list {
  isl_aff *cut[MAX_CUTS];
  int n;
} cut_list;

/* Adds f - g to cuts when it is no constant and not there yet (nor its negation). */
static void add_cut(cut_list *cuts, __isl_take isl_aff *d) {
  int keep = d && cuts->n < MAX_CUTS && isl_aff_is_cst(d) == isl_bool_false;
  for (int i = 0; keep && i < cuts->n; i++) {
    isl_aff *neg = isl_aff_neg(isl_aff_copy(d));
    keep = !isl_aff_plain_is_equal(cuts->cut[i], d) && !isl_aff_plain_is_equal(cuts->cut[i], neg);
    isl_aff_free(neg);
  }
  if (keep)
    cuts->cut[cuts->n++] = d;
  else
    isl_aff_free(d);
}

static isl_stat take_piece(__isl_take isl_set *set, __isl_take isl_multi_aff *ma, void *user) {
  isl_set_free(set);
  *(isl_multi_aff **)user = ma;
  return isl_stat_ok;
}

/* The subscripts of an access as affine functions of the instance; NULL unless affine. */
static __isl_give isl_multi_aff *subscripts(__isl_keep isl_map *rel) {
  isl_pw_multi_aff *pma = isl_pw_multi_aff_from_map(isl_map_copy(rel));
  isl_multi_aff *ma = NULL;
  if (pma && isl_pw_multi_aff_n_piece(pma) == 1)
    isl_pw_multi_aff_foreach_piece(pma, take_piece, &ma);
  isl_pw_multi_aff_free(pma);
  return ma;
}

static void find_cuts(const sj_model *m, const sj_pstmt *s, cut_list *cuts) {
  for (int w = 0; w < m->naccesses; w++) {
    const sj_access *wa = &m->accesses[w];
    if (wa->stmt != s || !wa->is_write) continue;
    isl_multi_aff *f = subscripts(wa->rel);
    for (int r = 0; f && r < m->naccesses; r++) {
      const sj_access *ra = &m->accesses[r];
      if (ra->stmt != s || ra->is_write || ra->ref->sym != wa->ref->sym) continue;
      isl_multi_aff *g = subscripts(ra->rel);
      int rank = g ? (int)isl_multi_aff_dim(g, isl_dim_out) : 0;
      for (int p = 0; p < rank; p++)
        add_cut(cuts, isl_aff_sub(isl_multi_aff_get_aff(f, p), isl_multi_aff_get_aff(g, p)));
      isl_multi_aff_free(g);
    }
    isl_multi_aff_free(f);
  }
}

/* The pieces of domain cut by each hyperplane into < 0, = 0 and > 0, the empty ones left
 * out; added to *pieces with names NAME_0, NAME_1, ... Returns their number. */
static int cut_domain(const sj_pstmt *s, const cut_list *cuts, isl_union_set **pieces) {
  int n = 1, made = 0;
  for (int i = 0; i < cuts->n; i++) n *= 3;
  for (int code = 0; code < n; code++) {
    isl_set *piece = isl_set_copy(s->domain);
    for (int i = 0, c = code; i < cuts->n; i++, c /= 3) {
      isl_aff *d = isl_aff_copy(cuts->cut[i]);
      isl_basic_set *side = c % 3 == 0   ? isl_aff_neg_basic_set(d)
                            : c % 3 == 1 ? isl_aff_zero_basic_set(d)
                                         : isl_aff_neg_basic_set(isl_aff_neg(d));
      piece = isl_set_intersect(piece, isl_set_from_basic_set(side));
    }
    if (isl_set_is_empty(piece) != isl_bool_false) {
      isl_set_free(piece);
      continue;
    }
    char name[40];
    snprintf(name, sizeof name, "%s_%d", s->name, made++);
    piece = isl_set_set_tuple_name(piece, name);
    *pieces = isl_union_set_add_set(*pieces, piece);
  }
  return made;
}

/* The pieces of every statement worth splitting, or NULL when there is none. */
static __isl_give isl_union_set *split_pieces(const sj_model *m) {
  isl_union_set *pieces = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
  int any = 0;
  for (int i = 0; i < m->nstmts; i++) {
    cut_list cuts = {{NULL}, 0};
    find_cuts(m, m->stmts[i], &cuts);
    isl_union_set *mine = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
    if (cuts.n && cut_domain(m->stmts[i], &cuts, &mine) > 1) {
      pieces = isl_union_set_union(pieces, mine);
      any = 1;
    } else {
      isl_union_set_free(mine);
    }
    for (int k = 0; k < cuts.n; k++) isl_aff_free(cuts.cut[k]);
  }
  if (!any) return isl_union_set_free(pieces);
  return pieces;
}

/* --- the scheduler in a context of its own --- */

/* The pieces as functions to their statement: NAME_k[x] -> NAME[x] on the piece. */
static isl_stat piece_to_stmt(__isl_take isl_set *piece, void *user) {
  isl_union_pw_multi_aff **to = user;
  const char *name = isl_set_get_tuple_name(piece);
  char stmt[40];
  snprintf(stmt, sizeof stmt, "%.*s", (int)(strrchr(name, '_') - name), name);
  isl_multi_aff *ma = isl_multi_aff_identity(isl_space_map_from_set(isl_set_get_space(piece)));
  ma = isl_multi_aff_set_tuple_name(ma, isl_dim_out, stmt);
  isl_pw_multi_aff *pma = isl_pw_multi_aff_alloc(piece, ma);
  *to = isl_union_pw_multi_aff_add_pw_multi_aff(*to, pma);
  return isl_stat_ok;
}

/* One run of isl's scheduler; NULL when it fails (counted in *failed: over its budget, mostly,
 * though isl does not always leave isl_error_quota behind). */
static __isl_give isl_schedule *run_scheduler(__isl_keep isl_union_set *domain,
                                              __isl_keep isl_union_map *deps, int outer,
                                              int *failed) {
  isl_ctx *ctx = isl_union_set_get_ctx(domain);
  isl_ctx_reset_error(ctx);
  isl_ctx_reset_operations(ctx);
  isl_options_set_schedule_outer_coincidence(ctx, outer);
  isl_schedule_constraints *sc = isl_schedule_constraints_on_domain(isl_union_set_copy(domain));
  sc = isl_schedule_constraints_set_validity(sc, isl_union_map_copy(deps));
  sc = isl_schedule_constraints_set_coincidence(sc, isl_union_map_copy(deps));
  sc = isl_schedule_constraints_set_proximity(sc, isl_union_map_copy(deps));
  isl_schedule *s = isl_schedule_constraints_compute_schedule(sc);
  if (!s) ++*failed;
  return s;
}

/* The text of s, for the model's context. */
static char *take_text(__isl_take isl_schedule *s) {
  char *text = s ? isl_schedule_to_str(s) : NULL;
  isl_schedule_free(s);
  return text;
}

/* Copies of the model's objects in ctx, through their text; NULL when isl fails. */
static __isl_give isl_union_set *set_in(isl_ctx *ctx, __isl_keep isl_union_set *set) {
  char *text = isl_union_set_to_str(set);
  isl_union_set *copy = text ? isl_union_set_read_from_str(ctx, text) : NULL;
  free(text);
  return copy;
}

static __isl_give isl_union_map *map_in(isl_ctx *ctx, __isl_keep isl_union_map *map) {
  char *text = isl_union_map_to_str(map);
  isl_union_map *copy = text ? isl_union_map_read_from_str(ctx, text) : NULL;
  free(text);
  return copy;
}

/* The exact dependences of m's accesses (flow, anti and output together), computed in ctx:
 * on some nests they cost more than every run of the scheduler (a heat-3d whose reads no
 * longer alternate between the buffers: seconds), so they have a budget of isl operations
 * like a run, and the same deadline. Not by reference: the budget was set for isl's
 * operations of the whole reads (by reference heat-3d's fit it, and which nests isl's
 * scheduler then reorders is untested). NULL when isl fails. */
static __isl_give isl_union_map *dependences_apart(isl_ctx *ctx, const sj_model *m) {
  isl_ctx_reset_operations(ctx);
  char *text = isl_schedule_to_str(m->original);
  isl_schedule *order = text ? isl_schedule_read_from_str(ctx, text) : NULL;
  free(text);
  isl_union_map *reads = map_in(ctx, m->reads), *writes = map_in(ctx, m->writes);
  isl_union_map *dep[3], *all = NULL;
  if (order && reads && writes && sj_exact_dependences(reads, writes, order, 0, dep) == 0)
    all = isl_union_map_union(isl_union_map_union(dep[0], dep[1]), dep[2]);
  isl_schedule_free(order);
  isl_union_map_free(reads);
  isl_union_map_free(writes);
  return all;
}

/* How the work apart went, for the explanation. */
typedef struct apart {
  unsigned long budget; /* isl operations of the dependences and of each run */
  int no_deps;          /* the dependences are missing: 1 over their budget, 2 isl failed */
  int failed;           /* runs that gave no schedule */
  int late;             /* the deadline passed */
} apart;

/* Runs the scheduler apart: an isl_ctx of its own bounds its operations without touching
 * the compile's count, and has options of its own; a watchdog stops it at the deadline (a
 * time of sj_clock_ms). The domain and the accesses go there as text, the schedules come
 * back as text. texts[i] NULL where it gave up. */
static void schedule_apart(const sj_model *m, __isl_keep isl_union_set *pieces, double deadline,
                           char **texts, apart *a) {
  unsigned long ops = REORDER_OPS, compile = isl_ctx_get_max_operations(m->ctx);
  if (compile && compile / REORDER_SHARE < ops) ops = compile / REORDER_SHARE;
  a->budget = ops;
  long ms = (long)(deadline - sj_clock_ms());
  isl_ctx *ctx = ms > 0 ? isl_ctx_alloc() : NULL;
  a->late = ms <= 0;
  if (!ctx) return;
  sj_watchdog *dog = sj_watchdog_start(ctx, ms);
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(ctx, ops);
  /* bounded shifts: a much smaller ILP, and the concrete sizes no longer slow it down */
  isl_options_set_schedule_max_constant_term(ctx, 4);
  isl_union_set *domain = set_in(ctx, m->domain);
  isl_union_map *deps = domain ? dependences_apart(ctx, m) : NULL;
  if (!deps) a->no_deps = isl_ctx_last_error(ctx) == isl_error_quota ? 1 : 2;
  if (deps) {
    texts[0] = take_text(run_scheduler(domain, deps, 1, &a->failed));
    texts[1] = take_text(run_scheduler(domain, deps, 0, &a->failed));
  }
  isl_union_set *split = pieces && deps ? set_in(ctx, pieces) : NULL;
  if (split) {
    isl_union_pw_multi_aff *to = isl_union_pw_multi_aff_empty(isl_space_params_alloc(ctx, 0));
    isl_union_set_foreach_set(split, piece_to_stmt, &to);
    /* statements not split stay as they are */
    isl_union_set *cut_stmts =
        isl_union_set_apply(isl_union_set_copy(split),
                            isl_union_map_from_union_pw_multi_aff(isl_union_pw_multi_aff_copy(to)));
    isl_union_set *whole = isl_union_set_subtract(isl_union_set_copy(domain), cut_stmts);
    isl_union_set *all = isl_union_set_union(isl_union_set_copy(split), isl_union_set_copy(whole));
    to = isl_union_pw_multi_aff_union_add(to, isl_union_set_identity_union_pw_multi_aff(whole));
    isl_union_map *cut = isl_union_map_preimage_domain_union_pw_multi_aff(
        isl_union_map_copy(deps), isl_union_pw_multi_aff_copy(to));
    cut = isl_union_map_preimage_range_union_pw_multi_aff(cut, to);
    /* each piece a component of its own: fused, the pieces share a band whose second
     * member carries their dependences, and one parallel loop is left */
    isl_options_set_schedule_serialize_sccs(ctx, 1);
    texts[2] = take_text(run_scheduler(all, cut, 1, &a->failed));
    isl_union_set_free(all);
    isl_union_map_free(cut);
  }
  isl_union_set_free(split);
  isl_union_set_free(domain);
  isl_union_map_free(deps);
  a->late |= sj_watchdog_stop(dog);
  isl_ctx_free(ctx);
}

/* --- back in the model's context --- */

/* The function from the model's statements (ids with user data) to the scheduler's: the
 * same name with a plain id, or the piece of a split statement. */
static __isl_give isl_union_pw_multi_aff *to_scheduled(const sj_model *m,
                                                       __isl_keep isl_union_set *pieces) {
  isl_union_pw_multi_aff *to = isl_union_pw_multi_aff_empty(isl_space_params_alloc(m->ctx, 0));
  for (int i = 0; i < m->nstmts; i++) {
    isl_space *space = isl_set_get_space(m->stmts[i]->domain);
    isl_set *mine = pieces ? isl_union_set_extract_set(pieces, isl_space_copy(space)) : NULL;
    int split = 0;
    for (int k = 0; pieces; k++) { /* the pieces NAME_0, NAME_1, ... */
      char name[40];
      snprintf(name, sizeof name, "%s_%d", m->stmts[i]->name, k);
      isl_space *ps = isl_space_set_tuple_name(isl_space_copy(space), isl_dim_set, name);
      isl_set *piece = isl_union_set_extract_set(pieces, ps);
      if (isl_set_is_empty(piece) != isl_bool_false) {
        isl_set_free(piece);
        break;
      }
      split = 1;
      isl_multi_aff *ma = isl_multi_aff_identity(isl_space_map_from_set(isl_space_copy(space)));
      ma = isl_multi_aff_set_tuple_name(ma, isl_dim_out, name);
      piece = isl_set_set_tuple_id(piece, isl_space_get_tuple_id(space, isl_dim_set));
      to = isl_union_pw_multi_aff_add_pw_multi_aff(to, isl_pw_multi_aff_alloc(piece, ma));
    }
    isl_set_free(mine);
    if (!split) {
      isl_multi_aff *ma = isl_multi_aff_identity(isl_space_map_from_set(isl_space_copy(space)));
      ma = isl_multi_aff_set_tuple_name(ma, isl_dim_out, m->stmts[i]->name);
      to = isl_union_pw_multi_aff_add_pw_multi_aff(to, isl_pw_multi_aff_from_multi_aff(ma));
    }
    isl_space_free(space);
  }
  return to;
}

/* The tree of src rebuilt at the leaf dst of a tree on the model's statements: back maps
 * the scheduler's statements to the model's. isl's own pullback cannot do it: a band may
 * hold several pieces of one statement, which it refuses to merge. */
static __isl_give isl_schedule_node *rebuild(__isl_keep isl_schedule_node *src,
                                             __isl_take isl_schedule_node *dst,
                                             __isl_keep isl_union_map *back);

static __isl_give isl_union_set *back_set(__isl_take isl_union_set *set,
                                          __isl_keep isl_union_map *back) {
  return isl_union_set_apply(set, isl_union_map_copy(back));
}

static __isl_give isl_schedule_node *rebuild_child(__isl_keep isl_schedule_node *src, int i,
                                                   __isl_take isl_schedule_node *dst,
                                                   __isl_keep isl_union_map *back) {
  isl_schedule_node *c = isl_schedule_node_get_child(src, i);
  dst = rebuild(c, dst, back);
  isl_schedule_node_free(c);
  return dst;
}

static __isl_give isl_schedule_node *rebuild_band(__isl_keep isl_schedule_node *src,
                                                  __isl_take isl_schedule_node *dst,
                                                  __isl_keep isl_union_map *back) {
  int n = isl_schedule_node_band_n_member(src);
  isl_union_map *map =
      isl_union_map_from_multi_union_pw_aff(isl_schedule_node_band_get_partial_schedule(src));
  map = isl_union_map_apply_domain(map, isl_union_map_copy(back));
  dst = isl_schedule_node_insert_partial_schedule(dst, isl_multi_union_pw_aff_from_union_map(map));
  dst = isl_schedule_node_band_set_permutable(dst, isl_schedule_node_band_get_permutable(src) > 0);
  for (int k = 0; k < n; k++)
    dst = isl_schedule_node_band_member_set_coincident(
        dst, k, isl_schedule_node_band_member_get_coincident(src, k) > 0);
  dst = rebuild_child(src, 0, isl_schedule_node_child(dst, 0), back);
  return isl_schedule_node_parent(dst);
}

/* A sequence or set node: its children are filters. */
static __isl_give isl_schedule_node *rebuild_list(__isl_keep isl_schedule_node *src,
                                                  __isl_take isl_schedule_node *dst,
                                                  __isl_keep isl_union_map *back) {
  int n = isl_schedule_node_n_children(src);
  isl_ctx *ctx = isl_schedule_node_get_ctx(src);
  isl_union_set_list *filters = isl_union_set_list_alloc(ctx, n);
  for (int i = 0; i < n; i++) {
    isl_schedule_node *f = isl_schedule_node_get_child(src, i);
    filters =
        isl_union_set_list_add(filters, back_set(isl_schedule_node_filter_get_filter(f), back));
    isl_schedule_node_free(f);
  }
  dst = isl_schedule_node_get_type(src) == isl_schedule_node_set
            ? isl_schedule_node_insert_set(dst, filters)
            : isl_schedule_node_insert_sequence(dst, filters);
  for (int i = 0; i < n; i++) {
    isl_schedule_node *f = isl_schedule_node_get_child(src, i);
    dst = isl_schedule_node_child(isl_schedule_node_child(dst, i), 0);
    dst = rebuild_child(f, 0, dst, back);
    dst = isl_schedule_node_parent(isl_schedule_node_parent(dst));
    isl_schedule_node_free(f);
  }
  return dst;
}

static __isl_give isl_schedule_node *rebuild(__isl_keep isl_schedule_node *src,
                                             __isl_take isl_schedule_node *dst,
                                             __isl_keep isl_union_map *back) {
  switch (isl_schedule_node_get_type(src)) {
  case isl_schedule_node_leaf:
    return dst;
  case isl_schedule_node_band:
    return rebuild_band(src, dst, back);
  case isl_schedule_node_sequence:
  case isl_schedule_node_set:
    return rebuild_list(src, dst, back);
  case isl_schedule_node_filter:
    dst = isl_schedule_node_insert_filter(dst,
                                          back_set(isl_schedule_node_filter_get_filter(src), back));
    dst = rebuild_child(src, 0, isl_schedule_node_child(dst, 0), back);
    return isl_schedule_node_parent(dst);
  case isl_schedule_node_domain:
    return rebuild_child(src, 0, dst, back);
  default: /* the scheduler makes nothing else */
    return isl_schedule_node_free(dst);
  }
}

/* A schedule of the scheduler's, read back on the model's statements, with wavefronts. */
static __isl_give isl_schedule *read_back(const sj_model *m, const char *text,
                                          __isl_keep isl_union_set *pieces, sj_buf *note) {
  isl_schedule *s = text ? isl_schedule_read_from_str(m->ctx, text) : NULL;
  if (!s && text) isl_ctx_reset_error(m->ctx); /* a text cut short by the deadline: no order */
  if (!s) return NULL;
  isl_union_map *back =
      isl_union_map_reverse(isl_union_map_from_union_pw_multi_aff(to_scheduled(m, pieces)));
  isl_schedule_node *src = isl_schedule_get_root(s);
  isl_schedule *built = isl_schedule_from_domain(isl_union_set_copy(m->domain));
  isl_schedule_node *root = isl_schedule_node_child(isl_schedule_get_root(built), 0);
  isl_schedule_free(built);
  isl_schedule_free(s);
  root = rebuild(src, root, back);
  isl_schedule_node_free(src);
  isl_union_map_free(back);
  root = isl_schedule_node_root(wavefronts(note, root));
  s = isl_schedule_node_get_schedule(root);
  isl_schedule_node_free(root);
  return s;
}

int sj_schedule_reorder(sj_model *m, double deadline, isl_schedule **out, char **label,
                        sj_buf *note) {
  static const char *const labels[SJ_REORDER_MAX] = {
      "outer parallelism first", "outermost bands as deep as possible",
      "statements split where they read what they write through another iterator"};
  if (m->nstmts > SJ_REORDER_MAX_STMTS) {
    sj_buf_printf(note, "isl's scheduler not tried: %d statements (at most %d)", m->nstmts,
                  SJ_REORDER_MAX_STMTS);
    return 0;
  }
  char *texts[SJ_REORDER_MAX] = {NULL, NULL, NULL};
  apart a = {0, 0, 0, 0};
  int n = 0;
  isl_union_set *pieces = split_pieces(m);
  schedule_apart(m, pieces, deadline, texts, &a);
  for (int i = 0; i < SJ_REORDER_MAX; i++) {
    sj_buf what = {0};
    sj_buf_puts(&what, labels[i]);
    isl_schedule *s = read_back(m, texts[i], i == 2 ? pieces : NULL, &what);
    free(texts[i]);
    if (s) {
      out[n] = s;
      label[n++] = sj_buf_take(&what);
    }
    sj_buf_free(&what);
  }
  isl_union_set_free(pieces);
  if (!n && a.late)
    sj_buf_printf(note,
                  "isl's scheduler stopped after %d ms (its time budget): the original "
                  "order is kept",
                  SJ_REORDER_MS);
  else if (!n && a.no_deps == 1)
    sj_buf_printf(note,
                  "the exact dependences isl's scheduler needs take more than its budget of "
                  "%lu isl operations: the original order is kept",
                  a.budget);
  else if (!n && a.failed)
    sj_buf_printf(note,
                  "isl's scheduler gave no schedule within its budget of %lu isl operations: "
                  "the original order is kept",
                  a.budget);
  else if (!n)
    sj_buf_printf(note, "isl's scheduler gave up (isl failed%s): the original order is kept",
                  a.no_deps ? " computing the exact dependences" : "");
  else if (a.failed)
    sj_buf_printf(note,
                  "%d of isl's runs gave no schedule within its budget of %lu isl operations%s",
                  a.failed, a.budget, a.late ? " and of time" : "");
  return n;
}
