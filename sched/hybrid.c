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
 *                     └─ band [t]          the tile's time steps, in sequence
 *                        └─ sequence
 *                           ├─ mark "threads" - filter (s mod block = thread id) - band [s..]
 *                           └─ extension: a barrier after each time step
 *
 * The tile's points of one step are spread over the block's threads (the innermost space
 * dimension along x: coalesced), each thread looping over its share. */
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
 * largest number of space dimensions; a statement with fewer space loops (fdtd-2d's boundary
 * row) takes its loops as the innermost ones and 0 for the outer ones. NULL when n + 1 is
 * not between 1 and SJ_HYBRID_MAX_SPACE. */
__isl_give isl_union_map *sj_fold_space(const sj_model *m, const sj_stencil *st, int *n) {
  int depth = 0;
  for (int i = 0; i < m->nstmts; i++)
    if (m->stmts[i]->depth > depth) depth = m->stmts[i]->depth;
  *n = depth - 2;
  if (*n < 0 || *n >= SJ_HYBRID_MAX_SPACE) return NULL;
  isl_union_map *out = isl_union_map_empty(isl_union_set_get_space(m->domain));
  for (int i = 0; i < m->nstmts && out; i++) {
    const sj_pstmt *s = m->stmts[i];
    int pad = depth - s->depth;
    isl_space *space = isl_set_get_space(s->domain);
    isl_map *time = isl_union_map_extract_map(
        st->folded, isl_space_map_from_domain_and_range(isl_space_copy(space),
                                                        isl_space_set_alloc(m->ctx, 0, 1)));
    isl_map *rest = isl_map_identity(isl_space_map_from_set(space));
    rest = isl_map_project_out(rest, isl_dim_out, 0, 1);
    rest = isl_map_reset_tuple_id(rest, isl_dim_out);
    rest = isl_map_insert_dims(rest, isl_dim_out, 0, pad);
    for (int k = 0; k < pad; k++) rest = isl_map_fix_si(rest, isl_dim_out, k, 0);
    out = isl_union_map_add_map(out, isl_map_flat_range_product(time, rest));
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
 * *ncolors, and what they are in desc. NULL with why filled when the sizes do not fit. */
static __isl_give isl_map *tiles_of(isl_ctx *ctx, int split, const sj_cone *c, int h, const long *w,
                                    int *ncolors, sj_buf *desc, sj_buf *why) {
  isl_map *all = NULL;
  if (!split) {
    sj_hex t;
    if (sj_hybrid_shape(c, h, w, &t, why)) return NULL;
    *ncolors = 2;
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
 * the statement's own leading coordinates. *back: S[x, ..] -> S[x]. */
static __isl_give isl_union_set *tiled_domain(const sj_model *m, __isl_keep isl_union_map *tiles,
                                              int n, isl_union_map **back) {
  isl_union_set *out = isl_union_set_empty(isl_union_set_get_space(m->domain));
  *back = isl_union_map_empty(isl_union_set_get_space(m->domain));
  for (int i = 0; i < m->nstmts; i++) {
    isl_set *dom = isl_set_copy(m->stmts[i]->domain);
    isl_space *space = isl_set_get_space(dom);
    isl_id *id = isl_set_get_tuple_id(dom);
    isl_map *r = isl_union_map_extract_map(
        tiles, isl_space_map_from_domain_and_range(isl_space_copy(space),
                                                   isl_space_set_alloc(m->ctx, 0, n + 4)));
    isl_map *ext = isl_map_intersect_domain(isl_map_identity(isl_space_map_from_set(space)), dom);
    ext = isl_map_flat_range_product(ext, r);
    ext = isl_map_set_tuple_id(ext, isl_dim_out, id);
    out = isl_union_set_add_set(out, isl_map_range(isl_map_copy(ext)));
    *back = isl_union_map_add_map(*back, isl_map_reverse(ext));
  }
  return out;
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

/* The instances of dom whose coordinate from_end is value. */
static __isl_give isl_union_set *coordinate_is(__isl_keep isl_union_set *dom, int from_end,
                                               long value) {
  isl_union_pw_aff *v = sj_coordinate(dom, from_end);
  v = isl_union_pw_aff_sub(
      v, isl_union_pw_aff_val_on_domain(isl_union_set_copy(dom),
                                        isl_val_int_from_si(isl_union_set_get_ctx(dom), value)));
  return isl_union_pw_aff_zero_union_set(v);
}

/* The union_pw_aff of member k of f (a single-valued union map). */
static __isl_give isl_union_pw_aff *member(__isl_keep isl_union_map *f, int k) {
  isl_multi_union_pw_aff *mupa = isl_multi_union_pw_aff_from_union_map(isl_union_map_copy(f));
  isl_union_pw_aff *upa = isl_multi_union_pw_aff_get_union_pw_aff(mupa, k);
  isl_multi_union_pw_aff_free(mupa);
  return upa;
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
  isl_union_map *prefix = isl_schedule_node_get_prefix_schedule_union_map(node);
  isl_set *outer = isl_set_from_union_set(isl_union_map_range(prefix));
  isl_set *sync = isl_set_universe(isl_space_set_alloc(ctx, 0, 0));
  sync = isl_set_set_tuple_id(sync, isl_id_alloc(ctx, "sync", (void *)&sj_sync_tag));
  isl_map *ext = isl_map_from_domain_and_range(outer, sync);
  isl_schedule_node *graft = isl_schedule_node_from_extension(isl_union_map_from_map(ext));
  return isl_schedule_node_graft_after(node, graft);
}

/* Shared memory a block may stage: the static limit of every CUDA device. */
enum { SHARED_BUDGET = 48 * 1024 };

int sj_time_tiles_staged(void) {
  const char *v = getenv("JIT_STAGE");
  return !v || strcmp(v, "0") != 0;
}

/* The grid of a phase: the range of its tiles along each space dimension (lo: the first).
 * -1 with why filled when a dimension exceeds the device's grid. */
static int grid_of(__isl_keep isl_union_set *dom, int n, const unsigned max_grid[3],
                   const unsigned block[3], sj_kernel *k, long *lo, sj_buf *why) {
  for (int d = 0; d < 3; d++) k->grid[d] = k->block[d] = 1;
  for (int d = 0; d <= n; d++) {
    long hi;
    if (coordinate_range(dom, n + 1 - d, &lo[d], &hi)) lo[d] = 0, hi = -1;
    long count = hi - lo[d] + 1;
    if (count > (long)max_grid[d]) {
      sj_buf_printf(why, "%ld tiles along %c exceed the grid", count, "xyz"[d]);
      return -1;
    }
    k->grid[d] = (unsigned)(count > 0 ? count : 1);
    k->block[d] = block[d];
  }
  return 0;
}

/* The kernel of one phase below the host loop, from the leaf node up: space band (each
 * thread its share of a step's points), threads filter and mark, [t] band with a barrier
 * after each step, block filter, context, kernel mark. Returns the kernel mark. */
static __isl_give isl_schedule_node *phase_kernel(__isl_take isl_schedule_node *node,
                                                  const sj_model *m, __isl_keep isl_union_set *dom,
                                                  __isl_keep isl_union_map *point,
                                                  __isl_keep isl_union_map *back, int n,
                                                  sj_kernel *k, const long *lo, sj_buf *desc) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  isl_multi_union_pw_aff *space = isl_multi_union_pw_aff_from_union_map(
      isl_union_map_intersect_domain(isl_union_map_copy(point), isl_union_set_copy(dom)));
  space = isl_multi_union_pw_aff_drop_dims(space, isl_dim_set, 0, 1);
  node = isl_schedule_node_insert_partial_schedule(node, space);
  for (int i = 0; i <= n; i++)
    node = isl_schedule_node_band_member_set_ast_loop_type(node, i, isl_ast_loop_atomic);
  isl_union_set *threads = isl_union_set_copy(dom);
  for (int i = 0; i <= n; i++) { /* the innermost dimension along x */
    int d = n - i;
    isl_union_pw_aff *v =
        isl_union_pw_aff_intersect_domain(member(point, 1 + i), isl_union_set_copy(dom));
    threads = isl_union_set_intersect(threads, sj_bound_to(v, 0, k->block[d], sj_map_id(ctx, 1, d)));
  }
  node = isl_schedule_node_insert_filter(node, threads);
  node = isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, "threads", (void *)&sj_threads_tag));
  node = insert_upa(
      node, isl_union_pw_aff_intersect_domain(member(point, 0), isl_union_set_copy(dom))); /* t */
  node = barrier_after(isl_schedule_node_child(node, 0));
  while (node && isl_schedule_node_get_type(node) != isl_schedule_node_band)
    node = isl_schedule_node_parent(node);
  isl_union_set *block = isl_union_set_copy(dom);
  int dims[SJ_HYBRID_MAX_SPACE];
  for (int d = 0; d <= n; d++) {
    dims[d] = d;
    block = isl_union_set_intersect(
        block, sj_bound_to(sj_coordinate(dom, n + 1 - d), lo[d], 0, sj_map_id(ctx, 0, d)));
  }
  node = isl_schedule_node_insert_filter(node, block);
  if (sj_time_tiles_staged()) node = sj_stage_tiles(node, m, dom, back, n, lo, k, SHARED_BUDGET, desc);
  if (!node) return NULL;
  node = isl_schedule_node_insert_context(
      node, sj_id_bounds(ctx, isl_schedule_node_get_schedule_depth(node), n + 1, dims, k->grid,
                         k->block));
  return sj_mark_kernel(node, k);
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
  isl_map *ftiles = sj_hybrid_cone(deps, n, &c, why)
                        ? NULL
                        : tiles_of(ctx, split, &c, h, w, &ncolors, &desc, why);
  if (!ftiles) {
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
    sj_buf_free(&desc);
    isl_map_free(ftiles);
    isl_union_map_free(fold);
    if (legal < 0) return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed checking the tiles");
    sj_buf_printf(why, "the tiled schedule would break a dependence");
    return -1;
  }
  isl_union_map *tiles =
      isl_union_map_apply_range(isl_union_map_copy(fold), isl_union_map_from_map(ftiles));
  isl_union_map *back;
  isl_union_set *dom = tiled_domain(m, tiles, n, &back);
  isl_union_map_free(tiles);
  /* the folded point of each tiled instance */
  isl_union_map *point = isl_union_map_apply_range(isl_union_map_copy(back), fold);

  long first, last;
  if (coordinate_range(dom, n + 4, &first, &last)) first = 0, last = -1;
  /* the tree: the host loop over wavefronts, then a kernel per color in sequence */
  isl_schedule_node *node =
      isl_schedule_node_child(isl_schedule_node_from_domain(isl_union_set_copy(dom)), 0);
  node = insert_upa(node, sj_coordinate(dom, n + 4));
  node = isl_schedule_node_child(node, 0);
  isl_union_set_list *phases = isl_union_set_list_alloc(ctx, ncolors);
  for (int p = 0; p < ncolors; p++) {
    isl_union_set *mine = coordinate_is(dom, n + 3, p);
    if (isl_union_set_is_empty(mine) == isl_bool_false)
      phases = isl_union_set_list_add(phases, mine);
    else
      isl_union_set_free(mine);
  }
  int nphases = isl_union_set_list_n_union_set(phases);
  node = isl_schedule_node_insert_sequence(node, phases);
  int failed = 0;
  for (int i = 0; i < nphases && node && !failed; i++) {
    node = isl_schedule_node_child(isl_schedule_node_child(node, i), 0);
    isl_union_set *mine = isl_schedule_node_get_domain(node);
    sj_kernel *k = calloc(1, sizeof *k);
    if (!k) abort();
    long lo[SJ_HYBRID_MAX_SPACE];
    if (grid_of(mine, n, max_grid, sizes->block, k, lo, why)) {
      failed = -1;
      free(k);
    } else {
      k->tag = SJ_ID_KERNEL;
      k->id = plan->nkernels++;
      snprintf(k->why, sizeof k->why, "%s %d of %s: a block per tile, a barrier per step",
               split ? "color" : "phase", i, desc.data);
      sj_buf staged = {0};
      sj_buf_printf(why, "  kernel %d: grid %ux%ux%u, block %ux%ux%u, %ld launches: %s\n", k->id,
                    k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
                    last - first + 1, k->why);
      node = phase_kernel(node, m, mine, point, back, n, k, lo, &staged);
      if (staged.len) sj_buf_printf(why, "    boxes:%s\n", staged.data);
      sj_buf_free(&staged);
      /* back to the sequence (isl put the copies' extension above the kernel mark) */
      do
        node = isl_schedule_node_parent(node);
      while (node && isl_schedule_node_get_type(node) != isl_schedule_node_sequence);
    }
    isl_union_set_free(mine);
  }
  isl_union_set_free(dom);
  isl_union_map_free(point);
  isl_union_map_free(back);
  sj_buf_free(&desc);
  if (!failed && node) plan->schedule = isl_schedule_node_get_schedule(node);
  isl_schedule_node_free(node);
  if (failed) return failed;
  sj_plan_add_tile(plan, h);
  for (int d = 0; d <= n; d++) sj_plan_add_tile(plan, w[d]);
  return plan->schedule ? 0 : sj_error_set(err, JIT_ERR_INTERNAL, "isl failed building the tiles");
}
