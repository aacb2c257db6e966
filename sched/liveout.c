/* The live-out instances of a time-tiled kernel: those whose value must reach global memory.
 * A staged tile computes from shared memory, so a value it writes is needed in global memory
 * only when (a) an instance of another tile (another block, or a later launch) reads it: an
 * exact flow dependence whose source and sink have different tile coordinates, or (b) it is
 * the program's last write of its element (no output dependence leaves it): the caller sees
 * the final array. Every other value is read only inside its tile, from shared memory, and
 * its global store is dead (sched/stage.c writes the others through).
 *
 * Why exact flow dependences and not the model's conflicts: a double buffer's element is
 * read by the next step and overwritten two steps later; the conflicts (memory-based) also
 * join it to every later read of the element, across bands, which would keep every value
 * live. */
#include "sched/hybrid.h"

#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

/* The instances each of whose written elements a later instance writes again: not the last
 * write of anything. Per written array: an output dependence from x says only that some
 * element of x is written again (fe_locals' statement writes A and C, C at every step). */
static __isl_give isl_union_set *rewritten(const sj_model *m) {
  isl_union_set *again = isl_union_set_copy(m->domain);
  for (int i = 0; i < m->naccesses && again; i++) {
    const sj_access *acc = &m->accesses[i];
    if (!acc->is_write) continue;
    isl_union_map *same =
        isl_union_map_apply_range(isl_union_map_from_map(isl_map_copy(acc->rel)),
                                  isl_union_map_reverse(isl_union_map_copy(m->writes)));
    same = isl_union_map_intersect(same, isl_union_map_copy(m->dep_output));
    isl_union_set *stmt = isl_union_set_from_set(isl_set_copy(acc->stmt->domain));
    again = isl_union_set_subtract(again, isl_union_set_subtract(stmt, isl_union_map_domain(same)));
  }
  return isl_union_set_coalesce(again);
}

__isl_give isl_union_set *sj_live_out(const sj_model *m, __isl_keep isl_union_map *tiles,
                                      __isl_keep isl_union_map *back) {
  if (!m->dep_flow || !m->dep_output) return NULL;
  /* instance -> the tiles of its readers, minus its own tile: the readers elsewhere */
  isl_union_map *reach =
      isl_union_map_apply_range(isl_union_map_copy(m->dep_flow), isl_union_map_copy(tiles));
  reach = isl_union_map_subtract(reach, isl_union_map_copy(tiles));
  isl_union_set *live = isl_union_map_domain(reach);
  /* the last writes: no later write of the same element */
  isl_union_set *last = isl_union_set_subtract(isl_union_set_copy(m->domain), rewritten(m));
  live = isl_union_set_coalesce(isl_union_set_union(live, last));
  /* as tiled instances S[x, L, p, T, S..] */
  live = isl_union_set_apply(live, isl_union_map_reverse(isl_union_map_copy(back)));
  return isl_union_set_coalesce(live);
}

typedef struct shift_arg {
  isl_map *tiles, *inside; /* F -> [L, p, T, S..]; of it, where every reader stays */
  int npoints;
} shift_arg;

enum { SJ_LIVE_MAX_DISTANCES = 64 };

/* inside &= { F -> c : F + d in tile c } */
static isl_stat keep_reach(__isl_take isl_point *d, void *user) {
  shift_arg *a = user;
  if (++a->npoints > SJ_LIVE_MAX_DISTANCES) {
    isl_point_free(d);
    return isl_stat_error;
  }
  isl_space *space = isl_space_map_from_set(isl_space_domain(isl_map_get_space(a->tiles)));
  isl_multi_aff *plus = isl_multi_aff_identity(space);
  for (int k = 0; k < (int)isl_multi_aff_dim(plus, isl_dim_out); k++) {
    isl_val *v = isl_point_get_coordinate_val(d, isl_dim_set, k);
    isl_aff *aff = isl_multi_aff_get_aff(plus, k);
    plus = isl_multi_aff_set_aff(plus, k, isl_aff_add_constant_val(aff, v));
  }
  isl_point_free(d);
  isl_map *shifted = isl_map_preimage_domain_multi_aff(isl_map_copy(a->tiles), plus);
  a->inside = isl_map_intersect(a->inside, shifted);
  return a->inside ? isl_stat_ok : isl_stat_error;
}

typedef struct tiled_arg {
  isl_union_set *res;
} tiled_arg;

/* S[x] -> c as the tiled instances S[x, c] */
static isl_stat add_tiled(__isl_take isl_map *map, void *user) {
  tiled_arg *a = user;
  isl_id *id = isl_map_get_tuple_id(map, isl_dim_in);
  isl_set *set = isl_set_set_tuple_id(isl_set_flatten(isl_map_wrap(map)), id);
  a->res = isl_union_set_add_set(a->res, set);
  return a->res ? isl_stat_ok : isl_stat_error;
}

__isl_give isl_union_set *sj_tile_local(const sj_model *m, __isl_keep isl_union_map *fold,
                                        __isl_keep isl_map *ftiles) {
  if (!m->dep_flow || !m->dep_output) return NULL;
  isl_union_map *f =
      isl_union_map_apply_domain(isl_union_map_copy(m->dep_flow), isl_union_map_copy(fold));
  f = isl_union_map_apply_range(f, isl_union_map_copy(fold));
  isl_union_set *deltas = isl_union_map_deltas(f);
  shift_arg a = {ftiles, isl_map_copy(ftiles), 0};
  isl_bool bounded = isl_union_set_is_empty(deltas);
  if (bounded == isl_bool_false) {
    isl_set *d = isl_set_from_union_set(isl_union_set_copy(deltas));
    bounded = isl_set_is_bounded(d);
    if (bounded == isl_bool_true && isl_set_foreach_point(d, keep_reach, &a) < 0)
      bounded = isl_bool_error;
    isl_set_free(d);
  }
  isl_union_set_free(deltas);
  if (bounded != isl_bool_true) {
    isl_map_free(a.inside);
    return NULL;
  }
  /* where a later instance writes the element again, as tiled instances */
  isl_union_map *inside =
      isl_union_map_apply_range(isl_union_map_copy(fold), isl_union_map_from_map(a.inside));
  inside = isl_union_map_intersect_domain(inside, rewritten(m));
  tiled_arg t = {isl_union_set_empty(isl_union_map_get_space(inside))};
  if (isl_union_map_foreach_map(inside, add_tiled, &t) < 0) t.res = isl_union_set_free(t.res);
  isl_union_map_free(inside);
  return isl_union_set_coalesce(t.res);
}

int sj_live_out_enabled(void) {
  const char *v = getenv("JIT_LIVEOUT");
  return v && strcmp(v, "0") != 0;
}

static void live_free(void *user) {
  sj_live *l = user;
  isl_union_set_free(l->local);
  free(l);
}

__isl_give isl_schedule_node *sj_live_mark(__isl_take isl_schedule_node *node,
                                           __isl_take isl_union_set *local) {
  sj_live *l = malloc(sizeof *l);
  if (!l) abort();
  *l = (sj_live){SJ_ID_LIVE, local};
  isl_id *id = sj_id_owning(isl_schedule_node_get_ctx(node), "live_out", l, live_free);
  return isl_schedule_node_insert_mark(node, id);
}
