/* The shape of a GPU kernel: which parallel member runs along x, and blocks that follow the
 * parallel extents. Neighbouring threads of a warp differ along x, so x goes to the member
 * along which the accesses step through the arrays' contiguous dimension (coalesced);
 * blocks shrink, down to one warp, until the grid has enough blocks to fill a GPU. */
#include "sched/sched.h"

#include <stdlib.h>

#include <isl/aff.h>
#include <isl/space.h>
#include <isl/union_set.h>

#include "stenciljit.h"

/* Blocks a launch should have: two per multiprocessor of an H100 (132). A fixed number, not
 * the device's, so that the code (and the cache key) does not depend on the device model. */
#define TARGET_BLOCKS 264
#define MAX_THREADS 256
#define WARP 32

static long pow2_at_least(long v) {
  long p = 1;
  while (p < v && p < MAX_THREADS) p *= 2;
  return p;
}

static long blocks_for(int nm, const long *ext, const unsigned *block, int ppt) {
  long n = 1;
  for (int d = 0; d < nm; d++) {
    long per = (long)block[d] * (d == 0 ? ppt : 1);
    n *= (ext[d] + per - 1) / per;
  }
  return n;
}

void sj_gpu_block_shape(int nm, const long *ext, unsigned *block, int *ppt) {
  static const unsigned start[4][3] = {{1, 1, 1}, {MAX_THREADS, 1, 1}, {WARP, 8, 1}, {WARP, 4, 2}};
  unsigned total = 1;
  for (int d = 0; d < 3; d++) {
    long e = d < nm && ext[d] > 1 ? ext[d] : 1;
    block[d] = start[nm][d] < pow2_at_least(e) ? start[nm][d] : (unsigned)pow2_at_least(e);
    total *= block[d];
  }
  /* a narrow x leaves threads to the other dimensions */
  for (int d = 1; d < nm; d++)
    while (total * 2 <= MAX_THREADS && block[d] < (unsigned)pow2_at_least(ext[d]))
      block[d] *= 2, total *= 2;
  *ppt = ext[0] > (long)block[0] ? 4 : 1;
  /* fewer points per thread, then smaller blocks (y and z first: x stays a warp wide),
   * until the grid is large enough or a block is one warp */
  while (blocks_for(nm, ext, block, *ppt) < TARGET_BLOCKS) {
    if (*ppt > 1) {
      *ppt /= 2;
      continue;
    }
    if (total <= WARP) break;
    int d = nm > 2 && block[2] > block[1] ? 2 : 1;
    if (d >= nm || block[d] == 1) d = 0;
    if (d == 0 && block[0] <= WARP) break;
    block[d] /= 2;
    total /= 2;
  }
}

/* The statements below a node, flagged by id. */
static isl_stat flag_stmt(__isl_take isl_set *set, void *user) {
  void **ctx = user;
  const sj_pstmt *s = sj_model_stmt(ctx[0], set);
  if (s) ((char *)ctx[1])[s->id] = 1;
  isl_set_free(set);
  return isl_stat_ok;
}

/* How an access moves when member k of the band grows by one and every other schedule
 * dimension stays: +2 along the contiguous dimension by at most one element, 0 for the
 * same element or no neighbour, -1 otherwise (a stride: uncoalesced). */
static int access_score(__isl_keep isl_map *full, int pos, __isl_keep isl_map *access) {
  isl_space *range = isl_space_range(isl_map_get_space(full));
  isl_multi_aff *step = isl_multi_aff_identity(isl_space_map_from_set(range));
  isl_aff *moved = isl_aff_add_constant_si(isl_multi_aff_get_aff(step, pos), 1);
  step = isl_multi_aff_set_aff(step, pos, moved);
  isl_map *next = isl_map_apply_range(isl_map_copy(full), isl_map_from_multi_aff(step));
  next = isl_map_apply_range(next, isl_map_reverse(isl_map_copy(full)));
  isl_map *moves = isl_map_apply_range(isl_map_reverse(isl_map_copy(access)), next);
  moves = isl_map_apply_range(moves, isl_map_copy(access));
  isl_set *delta = isl_map_deltas(moves);
  int rank = (int)isl_set_dim(delta, isl_dim_set), score = 0;
  isl_set *same = isl_set_universe(isl_set_get_space(delta));
  for (int d = 0; d < rank; d++) same = isl_set_fix_si(same, isl_dim_set, d, 0);
  isl_set *unit = isl_set_copy(same);
  if (rank > 0) {
    unit = isl_set_drop_constraints_involving_dims(unit, isl_dim_set, rank - 1, 1);
    unit = isl_set_lower_bound_si(unit, isl_dim_set, rank - 1, -1);
    unit = isl_set_upper_bound_si(unit, isl_dim_set, rank - 1, 1);
  }
  if (isl_set_is_empty(delta) == isl_bool_true || isl_set_is_subset(delta, same) == isl_bool_true)
    score = 0;
  else
    score = isl_set_is_subset(delta, unit) == isl_bool_true ? 2 : -1;
  isl_set_free(same);
  isl_set_free(unit);
  isl_set_free(delta);
  return score;
}

int sj_gpu_dims(const sj_model *m, __isl_keep isl_schedule_node *band, int nm, int *dim) {
  int score[3] = {0, 0, 0};
  char *below = calloc((size_t)sj_model_nids(m) + 1, 1);
  if (!below) return JIT_ERR_NOMEM;
  isl_union_set *domain = isl_schedule_node_get_domain(band);
  void *fill[2] = {(void *)m, below};
  int rc = isl_union_set_foreach_set(domain, flag_stmt, fill) < 0 ? -1 : 0;
  isl_union_set_free(domain);
  isl_union_map *full =
      isl_union_map_flat_range_product(isl_schedule_node_get_prefix_schedule_union_map(band),
                                       isl_schedule_node_get_subtree_schedule_union_map(band));
  int depth = isl_schedule_node_get_schedule_depth(band);
  for (int s = 0; s < m->nstmts && !rc; s++) {
    if (!below[m->stmts[s]->id]) continue;
    isl_union_map *mine = isl_union_map_intersect_domain(
        isl_union_map_copy(full), isl_union_set_from_set(isl_set_copy(m->stmts[s]->domain)));
    isl_map *f = isl_map_from_union_map(mine);
    if (!f) rc = -1;
    for (int a = 0; a < m->naccesses && !rc; a++)
      if (m->accesses[a].stmt == m->stmts[s])
        for (int k = 0; k < nm; k++) score[k] += access_score(f, depth + k, m->accesses[a].rel);
    isl_map_free(f);
  }
  isl_union_map_free(full);
  free(below);
  int x = nm - 1; /* ties: the innermost, as the C code has it */
  for (int k = nm - 2; k >= 0; k--)
    if (score[k] > score[x]) x = k;
  dim[x] = 0;
  for (int k = nm - 1, d = 1; k >= 0; k--)
    if (k != x) dim[k] = d++;
  return rc;
}

/* A reduction's thread ends with a combination across its warp (some forty instructions):
 * up to this many points per thread along x share it, while the grid still fills the GPU. */
#define REDUCTION_POINTS 16

void sj_gpu_block_shape_warp_x(int nm, const long *ext, unsigned *block, int *ppt) {
  sj_gpu_block_shape(nm, ext, block, ppt);
  unsigned total = block[0] * block[1] * block[2];
  while (block[0] < WARP) {
    block[0] *= 2, total *= 2;
    int d = block[2] > block[1] ? 2 : 1;
    if (total > MAX_THREADS && block[d] > 1) block[d] /= 2, total /= 2;
  }
  while (*ppt < REDUCTION_POINTS && blocks_for(nm, ext, block, 2 * *ppt) >= TARGET_BLOCKS)
    *ppt *= 2;
}
