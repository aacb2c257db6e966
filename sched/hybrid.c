/* The time-tiled GPU schedules, hybrid (thesis §5, §11.4; geometry in sched/hybrid_shape.c)
 * and split (sched/split_shape.c), one tree for both:
 *
 *   domain                                 instances with their tile coordinates appended
 *   └─ band [L]                            host: one wavefront per iteration
 *      └─ sequence                         its colors (hybrid: two phases), a kernel each
 *         └─ filter (color c)
 *            └─ mark "kernel"              grid: the tiles along s0, s1, s2
 *               └─ context                 block and thread ids bounded
 *                  └─ filter               the tile of this block (S_k = min_k + b_k)
 *                     └─ mark "full_tiles" - sequence of two versions (full tiles', any
 *                        tile's), or mark "unroll" - one (sched/full_tiles.c), each:
 *                        band [a]          the tile's time steps from 0, in sequence
 *                        └─ sequence
 *                           ├─ mark "threads" - per space dimension, x last:
 *                           │    mark "spread" (dim) - band [s] - mark "spread_end"
 *                           └─ extension: a barrier after each time step
 *
 * The tile's points of one step are spread over the block's threads (the innermost space
 * dimension along x: coalesced), each thread looping over its share: the lowering gives each
 * thread the iterations of a `spread` loop congruent to its id modulo the block size (the
 * space coordinates are offsets in the tile where that keeps the AST generation cheap,
 * sj_hybrid_local). A dimension whose tiles are as wide as the block has a filter binding the
 * offset to the thread id instead. The lowering unrolls the loops of constant windows below
 * the full tiles' and unroll marks (astgen/lower_full.c). */
#include "sched/hybrid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/local_space.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "stenciljit.h"

/* Each statement's instances as points of the folded space [k t + i, s0, .., sn], n + 1 the
 * largest number of space dimensions, a statement with fewer space loops (fdtd-2d's boundary
 * row) where sj_place_of puts it. NULL when n + 1 is not between 1 and SJ_HYBRID_MAX_SPACE. */
__isl_give isl_union_map *sj_fold_space(const sj_model *m, const sj_stencil *st, int *n) {
  *n = m->max_depth - 2;
  if (*n < 0 || *n >= SJ_HYBRID_MAX_SPACE) return NULL;
  isl_union_map *out = isl_union_map_empty(isl_union_set_get_space(m->domain));
  for (int i = 0; i < m->nstmts && out; i++) {
    const sj_pstmt *s = m->stmts[i];
    isl_multi_aff *at = sj_place_aff(m, s, *n);
    if (!at) return isl_union_map_free(out);
    isl_space *space = isl_set_get_space(s->domain);
    isl_map *time = isl_union_map_extract_map(
        st->folded, isl_space_map_from_domain_and_range(space, isl_space_set_alloc(m->ctx, 0, 1)));
    out = isl_union_map_add_map(out, isl_map_flat_range_product(time, isl_map_from_multi_aff(at)));
  }
  return out;
}

/* The dependences in the folded space: conflicts of distinct instances, oriented forward in
 * the folded time (in stencil form no two instances of one step conflict). */
__isl_give isl_union_map *sj_fold_deps(const sj_model *m, __isl_keep isl_union_map *fold, int n) {
  isl_union_map *c = sj_model_conflicts(m, m->domain);
  c = isl_union_map_apply_domain(c, isl_union_map_copy(fold));
  c = isl_union_map_apply_range(c, isl_union_map_copy(fold));
  /* keep the pairs whose sink is at a later folded time */
  isl_space *space = isl_space_set_alloc(m->ctx, 0, n + 2);
  isl_map *later = isl_map_lex_lt_first(isl_space_map_from_set(space), 1);
  return isl_union_map_intersect(c, isl_union_map_from_map(later));
}

/* The tiles of every color (hybrid: phase) of the tiling: F -> [L, color, T, S0, .., Sn];
 * *ncolors, and what they are in desc; box as for sj_hybrid_local, reach[d] the most values
 * space coordinate d takes in a tile at one step, 0 where not known. NULL with why filled when
 * the sizes do not fit. */
static __isl_give isl_map *tiles_of(isl_ctx *ctx, int split, const sj_cone *c, int h, const long *w,
                                    unsigned x_block, int *ncolors, isl_multi_aff **local,
                                    long *box, long *reach, sj_buf *desc, sj_buf *why) {
  isl_map *all = NULL;
  if (!split) {
    sj_hex t;
    if (sj_hybrid_shape(c, h, w, &t, why)) return NULL;
    *ncolors = 2;
    *local = sj_hybrid_local(ctx, c, &t, x_block, box);
    memcpy(reach, box, (size_t)(c->n + 1) * sizeof *reach);
    for (int p = 0; p < 2; p++) {
      isl_map *mine = sj_hybrid_tiles(ctx, c, &t, p);
      all = all ? isl_map_union(all, mine) : mine;
    }
    sj_buf_printf(desc, "hybrid tiles h=%d (%ld steps), w0=%ld (period %ld)%s", t.h, t.H, t.w[0],
                  t.W, c->n ? ", parallelograms" : "");
    return all;
  }
  sj_split t;
  if (h < 1) {
    sj_buf_printf(why, "the band height h = %d is below 1", h);
    return NULL;
  }
  sj_split_shape(c, h, w, &t);
  *ncolors = 2 << c->n;
  *local = sj_split_local(ctx, &t, box);
  for (int d = 0; d <= c->n; d++) reach[d] = t.base[d]; /* a trapezoid's widest step */
  for (int k = 0; k < *ncolors; k++) {
    isl_map *mine = sj_split_tiles(ctx, c, &t, k);
    all = all ? isl_map_union(all, mine) : mine;
  }
  sj_buf_printf(desc, "split tiles h=%d, top widths %ld", t.h, t.w[0]);
  for (int d = 1; d <= c->n; d++) sj_buf_printf(desc, "x%ld", t.w[d]);
  sj_buf_printf(desc, " (periods %ld", t.period[0]);
  for (int d = 1; d <= c->n; d++) sj_buf_printf(desc, "x%ld", t.period[d]);
  sj_buf_puts(desc, ")");
  return all;
}

/* Every folded dependence distance lies in the cone c. */
static isl_bool in_cone(__isl_keep isl_union_map *deps, const sj_cone *c) {
  if (isl_union_map_is_empty(deps) == isl_bool_true) return isl_bool_true;
  isl_set *d = isl_set_from_union_set(isl_union_map_deltas(isl_union_map_copy(deps)));
  isl_space *space = isl_set_get_space(d);
  isl_set *cone = isl_set_universe(space);
  sj_buf s = {0};
  sj_buf_printf(&s, "{ [dt, d0");
  for (int i = 1; i <= c->n; i++) sj_buf_printf(&s, ", d%d", i);
  sj_buf_printf(&s, "] : dt >= 1 and %ld*d0 <= %ld*dt and -%ld*d0 <= %ld*dt", c->up_den, c->up_num,
                c->down_den, c->down_num);
  for (int i = 1; i <= c->n; i++)
    sj_buf_printf(&s, " and -%ld*d%d <= %ld*dt and %ld*d%d <= %ld*dt", c->skew_den[i], i,
                  c->skew_num[i], c->lead_den[i], i, c->lead_num[i]);
  sj_buf_puts(&s, " }");
  cone = isl_set_intersect(cone, isl_set_read_from_str(isl_set_get_ctx(d), s.data));
  sj_buf_free(&s);
  isl_bool inside = isl_set_is_subset(d, cone);
  isl_set_free(d);
  isl_set_free(cone);
  return inside;
}

/* Every folded dependence goes to a later wavefront or phase, or stays in its tile and goes
 * to a later time step (a barrier in between). */
static isl_bool respects(__isl_keep isl_union_map *deps, __isl_keep isl_map *tiles) {
  isl_bool none = isl_union_map_is_empty(deps);
  if (none != isl_bool_false) return none; /* no dependence: legal */
  /* F -> [L, p, T, S.., t] */
  isl_space *fspace = isl_space_domain(isl_map_get_space(tiles));
  isl_map *tt = isl_map_flat_range_product(
      isl_map_copy(tiles), isl_map_from_pw_aff(isl_pw_aff_var_on_domain(
                               isl_local_space_from_space(fspace), isl_dim_set, 0)));
  int dims = (int)isl_map_dim(tt, isl_dim_out);
  isl_map *d = isl_map_from_union_map(isl_union_map_copy(deps));
  isl_map *source = isl_map_reverse(isl_map_copy(tt)); /* before tt is taken below */
  isl_map *pairs = isl_map_apply_range(source, isl_map_apply_range(d, tt));
  isl_space *space = isl_space_map_from_set(isl_space_range(isl_map_get_space(pairs)));
  /* a later wavefront, or the later phase of one */
  isl_map *ok = isl_map_lex_lt_first(isl_space_copy(space), 2);
  isl_map *same = isl_map_universe(space);
  for (int k = 0; k < dims - 1; k++) same = isl_map_equate(same, isl_dim_in, k, isl_dim_out, k);
  same = isl_map_order_lt(same, isl_dim_in, dims - 1, isl_dim_out, dims - 1);
  ok = isl_map_union(ok, same);
  isl_bool fine = isl_map_is_subset(pairs, ok);
  isl_map_free(pairs);
  isl_map_free(ok);
  return fine;
}

/* The tiled domain: each instance S[x] as S[x, L, p, T, S0, .., Sn], its tile coordinates
 * appended (sched/hybrid.h). Tile coordinates as dimensions, bound by affine constraints, leave
 * nothing to quantify existentially in the sets the AST generator works on; the printers read only
 * the statement's own leading coordinates. *point: each tiled instance's coordinates in its tile
 * (local applied to its folded point and tile coordinates), what the kernels' bands and thread
 * filters use: built as functions, not found by isl from relations, and defined on the whole
 * space of each statement, so that the bands and filters carry no copy of the domain.
 * *back: S[x, ..] -> S[x]. */
static __isl_give isl_union_set *tiled_domain(const sj_model *m, __isl_keep isl_union_map *tiles,
                                              __isl_keep isl_union_map *fold,
                                              __isl_keep isl_multi_aff *local, int n,
                                              isl_multi_union_pw_aff **point,
                                              isl_union_map **back) {
  isl_union_set *out = isl_union_set_empty(isl_union_set_get_space(m->domain));
  isl_union_pw_multi_aff *pt = isl_union_pw_multi_aff_empty(isl_union_set_get_space(m->domain));
  *back = isl_union_map_empty(isl_union_set_get_space(m->domain));
  for (int i = 0; i < m->nstmts; i++) {
    isl_set *dom = isl_set_copy(m->stmts[i]->domain);
    isl_space *space = isl_set_get_space(dom);
    isl_id *id = isl_set_get_tuple_id(dom);
    int depth = (int)isl_space_dim(space, isl_dim_set);
    isl_map *r = isl_union_map_extract_map(
        tiles, isl_space_map_from_domain_and_range(isl_space_copy(space),
                                                   isl_space_set_alloc(m->ctx, 0, n + 4)));
    isl_pw_multi_aff *f = isl_pw_multi_aff_from_map(isl_union_map_extract_map(
        fold, isl_space_map_from_domain_and_range(isl_space_copy(space),
                                                  isl_space_set_alloc(m->ctx, 0, n + 2))));
    isl_map *ext = isl_map_intersect_domain(isl_map_identity(isl_space_map_from_set(space)), dom);
    ext = isl_map_flat_range_product(ext, r);
    ext = isl_map_set_tuple_id(ext, isl_dim_out, id);
    isl_set *tiled = isl_map_range(isl_map_copy(ext));
    *back = isl_union_map_add_map(*back, isl_map_reverse(ext));
    /* S[x, c] -> [F(x), c] -> local */
    isl_space *espace = isl_set_get_space(tiled);
    isl_multi_aff *x =
        isl_multi_aff_project_out_map(isl_space_copy(espace), isl_dim_set, depth, n + 4);
    x = isl_multi_aff_set_tuple_id(x, isl_dim_out, isl_set_get_tuple_id(tiled));
    isl_multi_aff *c = isl_multi_aff_project_out_map(espace, isl_dim_set, 0, depth);
    f = isl_pw_multi_aff_pullback_multi_aff(f, x);
    f = isl_pw_multi_aff_flat_range_product(f, isl_pw_multi_aff_from_multi_aff(c));
    f = isl_pw_multi_aff_pullback_pw_multi_aff(
        isl_pw_multi_aff_from_multi_aff(isl_multi_aff_copy(local)), f);
    pt = isl_union_pw_multi_aff_add_pw_multi_aff(pt, f);
    out = isl_union_set_add_set(out, tiled);
  }
  *point = isl_multi_union_pw_aff_from_union_pw_multi_aff(pt);
  return out;
}

typedef struct tiles_arg {
  int ncoords;
  isl_union_set *res;
} tiles_arg;

static isl_stat add_tiles(__isl_take isl_set *set, void *user) {
  tiles_arg *a = user;
  int dim = (int)isl_set_dim(set, isl_dim_set);
  set = isl_set_reset_tuple_id(isl_set_project_out(set, isl_dim_set, 0, dim - a->ncoords));
  a->res = isl_union_set_add_set(a->res, set);
  return a->res ? isl_stat_ok : isl_stat_error;
}

/* The tiles [L, p, T, S0, .., Sn] of the instances of dom (their last coordinates). */
static __isl_give isl_union_set *tiles_alone(__isl_keep isl_union_set *dom, int n) {
  tiles_arg a = {n + 4, isl_union_set_empty(isl_union_set_get_space(dom))};
  if (isl_union_set_foreach_set(dom, add_tiles, &a) < 0) a.res = isl_union_set_free(a.res);
  return isl_union_set_coalesce(a.res);
}

static isl_stat add_count(__isl_take isl_set *set, void *user) {
  isl_val *v = isl_set_count_val(set);
  *(long *)user += isl_val_is_int(v) ? isl_val_get_num_si(v) : 0;
  isl_val_free(v);
  isl_set_free(set); /* isl_set_count_val only keeps it */
  return isl_stat_ok;
}

/* How many points tiles (a set of tile coordinates) has. */
static long count(__isl_keep isl_union_set *tiles) {
  long n = 0;
  isl_union_set_foreach_set(tiles, add_count, &n);
  return n;
}

/* The smallest and largest coordinate from_end over dom; 0 on success. */
static int coordinate_range(__isl_keep isl_union_set *dom, int from_end, long *lo, long *hi) {
  isl_union_set *r = isl_union_set_apply(
      isl_union_set_copy(dom), isl_union_map_from_union_pw_aff(sj_coordinate(dom, from_end)));
  isl_set *set = isl_set_from_union_set(r);
  int rc = sj_set_dim_range(set, 0, lo, hi);
  isl_set_free(set);
  return rc;
}

/* The instances of the spaces of dom whose coordinate from_end is value. */
static __isl_give isl_union_set *coordinate_is(__isl_keep isl_union_set *dom, int from_end,
                                               long value) {
  isl_union_pw_aff *v = sj_coordinate(dom, from_end);
  v = isl_union_pw_aff_sub(
      v, isl_union_pw_aff_val_on_domain(isl_union_set_universe(isl_union_set_copy(dom)),
                                        isl_val_int_from_si(isl_union_set_get_ctx(dom), value)));
  return isl_union_pw_aff_zero_union_set(v);
}

/* The share of partial tiles from which a split kernel unrolls their code too: jacobi-2d at
 * 768^2 (20 to 30% of its tiles partial) then ran 16% fewer instructions, and its compile
 * optimized and printed twice the code. */
#define UNROLL_PARTIAL_SHARE 0.15

/* Whether the full tiles of tiles get code of their own: where they are most of them (in the
 * middle launch L = mid: counting every launch's points cost heat-3d's compile 23 ms). Else
 * every tile's steps are unrolled with a guard where the instances cut them, and the AST
 * generator sees one version, not two (sched/full_tiles.c). The explanation's line on them. */
static int full_versions(__isl_keep isl_union_set *tiles, __isl_keep isl_set *full, int n, long mid,
                         double *partial, sj_buf *why) {
  isl_union_set *at =
      isl_union_set_intersect(coordinate_is(tiles, n + 4, mid), isl_union_set_copy(tiles));
  long all = count(at);
  isl_union_set *both = isl_union_set_intersect(at, isl_union_set_from_set(isl_set_copy(full)));
  long nfull = count(both);
  isl_union_set_free(both);
  int own = nfull > 0 && 10 * nfull >= 7 * all;
  *partial = all > 0 ? (double)(all - nfull) / (double)all : 0;
  sj_buf_printf(why, "    %ld of %ld tiles full in launch %ld: %s\n", nfull, all, mid,
                own ? "their steps in code of their own, unrolled"
                    : "every tile's steps unrolled, with a guard where the instances cut them");
  return own;
}

static __isl_give isl_union_pw_aff *member(__isl_keep isl_multi_union_pw_aff *f, int k) {
  return isl_multi_union_pw_aff_get_union_pw_aff(f, k);
}

static __isl_give isl_schedule_node *insert_upa(__isl_take isl_schedule_node *node,
                                                __isl_take isl_union_pw_aff *v) {
  return isl_schedule_node_insert_partial_schedule(node,
                                                   isl_multi_union_pw_aff_from_union_pw_aff(v));
}

/* A barrier after each iteration of the band above node (a child of it): an extension
 * of the sync statement for every outer schedule value. */
static __isl_give isl_schedule_node *barrier_after(__isl_take isl_schedule_node *node) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  isl_set *outer =
      isl_set_universe(isl_space_set_alloc(ctx, 0, isl_schedule_node_get_schedule_depth(node)));
  isl_set *sync = isl_set_universe(isl_space_set_alloc(ctx, 0, 0));
  sync = isl_set_set_tuple_id(sync, isl_id_alloc(ctx, "sync", (void *)&sj_sync_tag));
  isl_map *ext = isl_map_from_domain_and_range(outer, sync);
  isl_schedule_node *graft = isl_schedule_node_from_extension(isl_union_map_from_map(ext));
  return isl_schedule_node_graft_after(node, graft);
}

int sj_time_tiles_staged(void) {
  const char *v = getenv("JIT_STAGE");
  return !v || strcmp(v, "0") != 0;
}

typedef struct first_arg {
  isl_set *tiles; /* [L, S]: a launch and a tile coordinate */
  isl_aff *best;  /* the first tile of a launch, a function of L, or NULL: lo */
  long count;     /* the tiles of a launch from it */
} first_arg;

/* Tries piece f of the least tile of a launch as the first tile of every launch, shifted to
 * bound each launch's tiles from below. */
static isl_stat try_first(__isl_take isl_set *where, __isl_take isl_aff *f, void *user) {
  first_arg *a = user;
  isl_set_free(where);
  isl_local_space *ls = isl_local_space_from_space(isl_set_get_space(a->tiles));
  isl_multi_aff *launch =
      isl_multi_aff_from_aff(isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, 0));
  isl_aff *past = isl_aff_sub(isl_aff_var_on_domain(ls, isl_dim_set, 1),
                              isl_aff_pullback_multi_aff(isl_aff_copy(f), launch));
  isl_set *range = isl_set_apply(isl_set_copy(a->tiles), isl_map_from_aff(past));
  long lo, hi;
  int rc = sj_set_dim_range(range, 0, &lo, &hi);
  isl_set_free(range);
  if (rc || hi - lo + 1 >= a->count) {
    isl_aff_free(f);
    return rc ? isl_stat_error : isl_stat_ok;
  }
  isl_aff_free(a->best);
  a->best = isl_aff_add_constant_si(f, (int)lo);
  a->count = hi - lo + 1;
  return isl_stat_ok;
}

/* The tiles of each launch L along coordinate pos of tiles [L, p, T, S0, .., Sn]: from *lo, or
 * where *first is set from first(L); *count of them. Where the tile coordinates are skewed by
 * time (a parallelogram's S_i grows with its band T, and L = T + S_i), the tiles of every
 * launch span far more than one launch's (Yee 40x48 at T = 2000: 126 along y, 4 in a launch),
 * and a grid over them all has blocks with no work in each launch, which a GPU starts for
 * nothing and the emulator runs thread by thread. The least tile of a launch is a function of
 * L in pieces; each is tried as the first tile of every launch, and kept where it halves the
 * grid at least (the parameter costs isl's AST generation: heat-2d 3072^2 with 12 tiles in a
 * launch of the 13 along y compiled in 300 ms, not 226). -1 when isl fails. */
static int launch_tiles(__isl_keep isl_union_set *tiles, int pos, long *lo, isl_aff **first,
                        long *count) {
  isl_set *set = isl_set_from_union_set(isl_union_set_copy(tiles));
  int dims = (int)isl_set_dim(set, isl_dim_set);
  set = isl_set_project_out(set, isl_dim_set, (unsigned)pos + 1, (unsigned)(dims - pos - 1));
  set = isl_set_project_out(set, isl_dim_set, 1, (unsigned)pos - 1);
  long hi;
  if (sj_set_dim_range(set, 1, lo, &hi)) *lo = 0, hi = -1;
  first_arg a = {set, NULL, hi - *lo + 1};
  int rc = 0;
  if (a.count > 2) {
    isl_map *per_launch =
        isl_map_move_dims(isl_map_from_range(isl_set_copy(set)), isl_dim_in, 0, isl_dim_out, 0, 1);
    isl_pw_aff *least = isl_map_dim_min(per_launch, 0);
    rc = isl_pw_aff_foreach_piece(least, try_first, &a);
    isl_pw_aff_free(least);
  }
  isl_set_free(set);
  if (a.best && 2 * a.count > hi - *lo + 1) { /* a few blocks fewer: not worth a parameter */
    a.best = isl_aff_free(a.best);
    a.count = hi - *lo + 1;
  }
  *first = a.best;
  *count = a.count;
  return rc < 0 ? -1 : 0;
}

/* The grid of kernel k over the tiles dom of a phase: the tiles of a launch along each space
 * dimension, from lo[d] or k->first[d]. -1 with why filled when a dimension exceeds the
 * device's grid or isl fails. */
static int grid_of(__isl_keep isl_union_set *dom, int n, const unsigned max_grid[3],
                   const unsigned block[3], sj_kernel *k, long *lo, sj_buf *why) {
  for (int d = 0; d < 3; d++) k->grid[d] = k->block[d] = 1;
  for (int d = 0; d <= n; d++) {
    long count;
    if (launch_tiles(dom, 3 + d, &lo[d], &k->first[d], &count)) {
      sj_buf_printf(why, "isl failed finding the grid");
      return -1;
    }
    if (count > (long)max_grid[d]) {
      sj_buf_printf(why, "%ld tiles along %c exceed the grid", count, "xyz"[d]);
      return -1;
    }
    k->grid[d] = (unsigned)(count > 0 ? count : 1);
    k->block[d] = block[d];
  }
  return 0;
}

/* A context node above node that introduces the parameters of k's first tiles, if any: isl's
 * AST generator knows a parameter only from the context of the node where it appears. */
static __isl_give isl_schedule_node *first_context(__isl_take isl_schedule_node *node,
                                                   const sj_kernel *k) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  isl_space *space =
      isl_space_set_alloc(ctx, 0, (unsigned)isl_schedule_node_get_schedule_depth(node));
  int any = 0;
  for (int d = 0; d < 3; d++)
    if (k->first[d]) {
      space = isl_space_add_dims(space, isl_dim_param, 1);
      space = isl_space_set_dim_id(space, isl_dim_param, (unsigned)any++, sj_first_id(ctx, d));
    }
  if (!any) {
    isl_space_free(space);
    return node;
  }
  return isl_schedule_node_insert_context(node, isl_set_universe(space));
}

/* With JIT_CHECK_TILES (the tests), isl checks local against the exact dependences
 * (sj_tile_local_exact); where an instance of it is live out, an internal isl error fails the
 * compile (skipped where isl cannot compute the exact dependences). Returns local. */
static __isl_give isl_union_set *check_local(sj_model *m, __isl_keep isl_union_map *tiles,
                                             __isl_keep isl_union_map *back,
                                             __isl_take isl_union_set *local) {
  sj_error no_deps = {0, {0}};
  if (!getenv("JIT_CHECK_TILES") || sj_model_exact_dependences(m, &no_deps)) return local;
  if (sj_tile_local_exact(m, tiles, back, local) != isl_bool_true)
    isl_handle_error(m->ctx, isl_error_internal, "a value kept in its tile is live out", __FILE__,
                     __LINE__);
  return local;
}

/* A child of the sequence of copies, barrier and steps: the copies' loops run over the box of a
 * tile clipped to the array, a window of constant size the lowering may unroll. */
static __isl_give isl_schedule_node *unroll_copies(void *user,
                                                   __isl_take isl_schedule_node *child) {
  (void)user;
  isl_union_set *filter = isl_schedule_node_filter_get_filter(child);
  isl_set_list *sets = isl_union_set_get_set_list(filter);
  isl_set *first = isl_set_list_get_set(sets, 0);
  isl_id *id = isl_set_get_tuple_id(first);
  const sj_id_kind *tag = id ? isl_id_get_user(id) : NULL;
  int copies = tag && *tag == SJ_ID_COPY;
  isl_id_free(id);
  isl_set_free(first);
  isl_set_list_free(sets);
  isl_union_set_free(filter);
  if (!copies) return child;
  isl_ctx *ctx = isl_schedule_node_get_ctx(child);
  child = isl_schedule_node_insert_mark(isl_schedule_node_child(child, 0),
                                        isl_id_alloc(ctx, "unroll", (void *)&sj_version_ids[2]));
  return isl_schedule_node_parent(child);
}

/* The band over a tile's steps t above node with a barrier after each step; returns the band. */
static __isl_give isl_schedule_node *steps(__isl_take isl_schedule_node *node,
                                           __isl_take isl_union_pw_aff *t) {
  node = barrier_after(isl_schedule_node_child(insert_upa(node, t), 0));
  while (node && isl_schedule_node_get_type(node) != isl_schedule_node_band)
    node = isl_schedule_node_parent(node);
  return node;
}

/* The kernel of one phase below the host loop, from the leaf node up: space band (each
 * thread its share of a step's points), threads filter and mark, steps band with a barrier
 * after each step (in two versions where full), block filter (its tile staged in at most budget
 * bytes of shared memory), context, kernel mark; full: the tiles whose steps get code of their own
 * (and, where flow, whose copy-in is their flow-in: split tiles, 1-D and 2-D hybrid ones; 3-D
 * hybrid tiles are not tried);
 * local: instances whose results stay in shared memory (sched/liveout.c), or NULL.
 * Returns the kernel mark. */
static __isl_give isl_schedule_node *
phase_kernel(__isl_take isl_schedule_node *node, const sj_model *m, __isl_keep isl_union_set *dom,
             __isl_keep isl_multi_union_pw_aff *point, __isl_keep isl_union_map *back,
             const long *box, const long *reach, int n, sj_kernel *k, const long *lo, long budget,
             __isl_keep isl_set *full, int flow, __isl_keep isl_union_set *local, sj_buf *desc) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  /* a band per space dimension, innermost (along x) last, each loop spread over the threads of
   * its block dimension by the lowering: isl generates it whole, far cheaper than a filter of
   * congruences; the end mark keeps an inner loop from taking a dropped loop's place. Where a
   * tile is as wide as the block in every step the thread is the point: a filter binds it;
   * where it is at most as wide (reach: its widest step), a thread runs at most one point. */
  for (int i = n; i >= 0; i--) {
    int d = n - i;
    node = isl_schedule_node_insert_mark(
        node, isl_id_alloc(ctx, "spread_end", (void *)&sj_spread_end_tag));
    node = insert_upa(node, member(point, 1 + i));
    node = isl_schedule_node_band_member_set_ast_loop_type(node, 0, isl_ast_loop_atomic);
    int once = reach[i] && reach[i] <= (long)k->block[d];
    if (box[i] == (long)k->block[d])
      node = isl_schedule_node_insert_filter(
          node, sj_bound_to(member(point, 1 + i), 0, 0, sj_map_id(ctx, 1, d)));
    else
      node = isl_schedule_node_insert_mark(
          node,
          isl_id_alloc(ctx, "spread", (void *)(once ? &sj_spread_once_ids[d] : &sj_spread_ids[d])));
  }
  node = isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, "threads", (void *)&sj_threads_tag));
  if (local) node = sj_live_mark(node, isl_union_set_copy(local));
  /* the steps count from 0 in each tile: a full tile's loops then have constant bounds, and
   * any tile's the bounds of its shape where the instances do not cut it */
  if (full) {
    node = sj_full_versions(node, sj_full_filter(full, dom, n),
                            isl_union_set_universe(isl_union_set_copy(dom)));
    for (int c = 0; c < 2; c++) { /* sequence - filter - version mark - the steps */
      node = isl_schedule_node_child(isl_schedule_node_child(node, c), 0);
      node = steps(isl_schedule_node_child(node, 0), member(point, n + 2));
      node = isl_schedule_node_parent(isl_schedule_node_parent(isl_schedule_node_parent(node)));
    }
    node = isl_schedule_node_parent(node);
  } else {
    node = steps(node, member(point, n + 2));
    node = isl_schedule_node_insert_mark(node,
                                         isl_id_alloc(ctx, "unroll", (void *)&sj_version_ids[2]));
  }
  isl_union_set *block = NULL;
  int dims[SJ_HYBRID_MAX_SPACE];
  for (int d = 0; d <= n; d++) {
    dims[d] = d;
    isl_union_set *mine = sj_bound_block(sj_coordinate(dom, n + 1 - d), lo[d], k, d);
    block = block ? isl_union_set_intersect(block, mine) : mine;
  }
  node = isl_schedule_node_insert_filter(node, block);
  if (sj_time_tiles_staged() && budget > 0)
    node = sj_stage_tiles(node, m, dom, back, n, lo, k, budget, flow ? full : NULL, desc);
  if (k->nstaged) node = sj_each_child(node, unroll_copies, NULL);
  if (!node) return NULL;
  node = sj_insert_kernel_context(node, n + 1, dims, k->grid, k->block);
  return sj_mark_kernel(first_context(node, k), k);
}

int sj_schedule_time_tiled(sj_model *m, const sj_stencil *st, const sj_time_tiles *sizes,
                           const unsigned max_grid[3], sj_plan *plan, sj_buf *why, sj_error *err) {
  isl_ctx *ctx = m->ctx;
  if (!st->is_stencil) {
    sj_buf_printf(why, "not in stencil form");
    return -1;
  }
  if (isl_union_set_is_empty(m->domain) != isl_bool_false) {
    sj_buf_printf(why, "no statement instances to tile");
    return -1;
  }
  int n;
  isl_union_map *fold = sj_fold_space(m, st, &n);
  if (!fold) {
    sj_buf_printf(why, "the statements do not have 1 to %d space loops", SJ_HYBRID_MAX_SPACE);
    return -1;
  }
  isl_union_map *deps = sj_fold_deps(m, fold, n);
  sj_cone c;
  int h = sizes->h, split = sizes->split, ncolors = 0;
  const long *w = sizes->w;
  sj_buf desc = {0};
  isl_multi_aff *local = NULL;
  long box[SJ_HYBRID_MAX_SPACE] = {0, 0, 0}, reach[SJ_HYBRID_MAX_SPACE] = {0, 0, 0};
  int nocone = sj_hybrid_cone(deps, n, &c, why);
  if (!split) sj_hybrid_whole_skews(&c);
  isl_map *ftiles = nocone ? NULL
                           : tiles_of(ctx, split, &c, h, w, sizes->block[0], &ncolors, &local, box,
                                      reach, &desc, why);
  if (!ftiles) {
    isl_multi_aff_free(local);
    sj_buf_free(&desc);
    isl_union_map_free(deps);
    isl_union_map_free(fold);
    return -1;
  }
  /* the tiling respects every dependence whose distance lies in the cone (the geometry
   * test checks it); the full check of the tiles against the dependences costs far more
   * than the whole compile, so it runs when asked for (the tests ask for it) */
  isl_bool legal = getenv("JIT_CHECK_TILES") ? respects(deps, ftiles) : in_cone(deps, &c);
  isl_union_map_free(deps);
  if (legal != isl_bool_true) {
    isl_multi_aff_free(local);
    sj_buf_free(&desc);
    isl_map_free(ftiles);
    isl_union_map_free(fold);
    if (legal < 0) return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed checking the tiles");
    sj_buf_printf(why, "the tiled schedule would break a dependence");
    return -1;
  }
  /* full along the space dimensions its points loop over (the others, time and those bound to
   * the threads, guard whole steps of a thread) */
  unsigned loops = 0;
  for (int i = 0; i <= n; i++)
    if (box[i] != (long)sizes->block[n - i]) loops |= 2u << i;
  long blo[SJ_HYBRID_MAX_SPACE + 1], bhi[SJ_HYBRID_MAX_SPACE + 1];
  isl_set *full = sj_folded_box(m, fold, n, blo, bhi)
                      ? isl_set_empty(isl_space_range(isl_map_get_space(ftiles)))
                      : sj_full_tiles(ftiles, n, blo, bhi, loops);
  /* where staged tiles store only their live-out values (sched/liveout.c) */
  isl_union_set *stays = NULL;
  if (sj_time_tiles_staged() && sj_live_out_enabled()) stays = sj_tile_local(m, fold, ftiles);
  isl_union_map *tiles =
      isl_union_map_apply_range(isl_union_map_copy(fold), isl_union_map_from_map(ftiles));
  isl_multi_union_pw_aff *point;
  isl_union_map *back;
  isl_union_set *dom = tiled_domain(m, tiles, fold, local, n, &point, &back);
  if (stays) stays = check_local(m, tiles, back, stays);
  isl_union_map_free(tiles);
  isl_union_map_free(fold);
  isl_multi_aff_free(local);

  /* the tiles alone: their ranges cost far less to find than over the instances */
  isl_union_set *tileset = tiles_alone(dom, n);
  long first, last;
  if (coordinate_range(tileset, n + 4, &first, &last)) first = 0, last = -1;
  /* the tree: the host loop over wavefronts, then a kernel per color in sequence */
  isl_schedule_node *node =
      isl_schedule_node_child(isl_schedule_node_from_domain(isl_union_set_copy(dom)), 0);
  node = insert_upa(node, sj_coordinate(dom, n + 4));
  node = isl_schedule_node_child(node, 0);
  isl_union_set_list *phases = isl_union_set_list_alloc(ctx, ncolors);
  isl_union_set_list *used = isl_union_set_list_alloc(ctx, ncolors);
  for (int p = 0; p < ncolors; p++) {
    isl_union_set *mine = coordinate_is(tileset, n + 3, p);
    mine = isl_union_set_intersect(mine, isl_union_set_copy(tileset));
    if (isl_union_set_is_empty(mine) == isl_bool_false) {
      phases = isl_union_set_list_add(phases, coordinate_is(dom, n + 3, p));
      used = isl_union_set_list_add(used, mine);
    } else {
      isl_union_set_free(mine);
    }
  }
  isl_union_set_free(tileset);
  int nphases = isl_union_set_list_n_union_set(phases);
  node = isl_schedule_node_insert_sequence(node, phases);
  int failed = 0;
  for (int i = 0; i < nphases && node && !failed; i++) {
    node = isl_schedule_node_child(isl_schedule_node_child(node, i), 0);
    isl_union_set *mine = isl_union_set_list_get_union_set(used, i);
    sj_kernel *k = calloc(1, sizeof *k);
    if (!k) abort();
    long lo[SJ_HYBRID_MAX_SPACE];
    if (grid_of(mine, n, max_grid, sizes->block, k, lo, why)) {
      failed = -1;
      for (int d = 0; d < 3; d++) isl_aff_free(k->first[d]);
      free(k);
    } else {
      k->tag = SJ_ID_KERNEL;
      k->id = plan->nkernels++;
      snprintf(k->why, sizeof k->why, "%s %d of %s: a block per tile, a barrier per step",
               split ? "color" : "phase", i, desc.data);
      sj_buf staged = {0};
      sj_buf_printf(why, "  kernel %d: grid %ux%ux%u, block %ux%ux%u, %ld launches: %s", k->id,
                    k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
                    last - first + 1, k->why);
      for (int d = 0; d <= n; d++)
        if (k->first[d]) sj_buf_printf(why, "; along %c from a launch's first tile", "xyz"[d]);
      sj_buf_printf(why, "\n");
      double partial;
      int own = full_versions(mine, full, n, (first + last) / 2, &partial, why);
      /* a split tile the instances cut keeps most of its points (its base is a rectangle);
       * hexagons cut on their slanted sides can keep few, and their unrolled code ran more
       * instructions than their loops (bench/results/full-tiles.md). Where few tiles are
       * partial the gain is small beside the compile time of a second unrolled version. */
      k->unroll_partial = own && split && partial >= UNROLL_PARTIAL_SHARE;
      k->blocked_rows = split;
      isl_union_set *inst = isl_schedule_node_get_domain(node); /* the phase's instances */
      node = phase_kernel(node, m, inst, point, back, box, reach, n, k, lo, sizes->shared,
                          own ? full : NULL, split || n <= 1, stays, &staged);
      isl_union_set_free(inst);
      if (staged.len) sj_buf_printf(why, "    boxes:%s\n", staged.data);
      if (!sizes->shared && sj_time_tiles_staged())
        sj_buf_puts(why, "    nothing staged: the tile model ranks these tiles first with their "
                         "values in global memory\n");
      sj_buf_free(&staged);
      /* back to the sequence (isl put the copies' extension above the kernel mark) */
      do node = isl_schedule_node_parent(node);
      while (node && isl_schedule_node_get_type(node) != isl_schedule_node_sequence);
    }
    isl_union_set_free(mine);
  }
  isl_union_set_list_free(used);
  isl_union_set_free(stays);
  isl_set_free(full);
  isl_union_set_free(dom);
  isl_multi_union_pw_aff_free(point);
  isl_union_map_free(back);
  sj_buf_free(&desc);
  if (!failed && node) plan->schedule = isl_schedule_node_get_schedule(node);
  isl_schedule_node_free(node);
  if (failed) return failed;
  sj_plan_add_tile(plan, h);
  for (int d = 0; d <= n; d++) sj_plan_add_tile(plan, w[d]);
  return plan->schedule ? 0 : sj_error_set(err, JIT_ERR_INTERNAL, "isl failed building the tiles");
}
