/* Tiling with full tiles isolated: the AST generator then gives full tiles their own
 * code, unrolled without guards where asked, and partial tiles guarded code. */
#include "sched/sched.h"

#include <stdlib.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/union_set.h>
#include <isl/space.h>
#include <isl/val.h>

/* The tiles in which every point of box is an instance, as the isolate option of the tile
 * band: isolate[[P] -> [T]] with P the schedule outside the tile band and T its own
 * values. point is the point band below the tile band. NULL when no instance reaches it. */
static __isl_give isl_union_set *full_tiles(__isl_keep isl_schedule_node *point,
                                            __isl_take isl_set *box) {
  int n = isl_schedule_node_band_n_member(point);
  isl_union_map *prefix = isl_schedule_node_get_prefix_schedule_union_map(point);
  isl_union_map *band = isl_schedule_node_band_get_partial_schedule_union_map(point);
  isl_union_set *domain = isl_schedule_node_get_domain(point);
  isl_union_set *image = isl_union_set_apply(domain, isl_union_map_range_product(prefix, band));
  if (isl_union_set_is_empty(image) != isl_bool_false) {
    isl_union_set_free(image);
    isl_set_free(box);
    return NULL;
  }
  isl_map *points = isl_set_unwrap(isl_set_from_union_set(image)); /* [P, T] -> B */
  isl_set *tiles = isl_map_domain(isl_map_copy(points));
  box = isl_set_align_params(box, isl_set_get_space(tiles));
  tiles = isl_set_align_params(tiles, isl_set_get_space(box));
  points = isl_map_align_params(points, isl_set_get_space(box));
  isl_map *missing =
      isl_map_subtract(isl_map_from_domain_and_range(isl_set_copy(tiles), box), points);
  isl_set *full = isl_set_subtract(tiles, isl_map_domain(missing));
  int dims = isl_set_dim(full, isl_dim_set);
  isl_map *split =
      isl_map_move_dims(isl_map_from_domain(full), isl_dim_out, 0, isl_dim_in, dims - n, n);
  isl_set *isolate = isl_set_set_tuple_name(isl_map_wrap(split), "isolate");
  return isl_union_set_from_set(isolate);
}

__isl_give isl_set *sj_tile_box(__isl_keep isl_schedule_node *point, const long *size) {
  int n = isl_schedule_node_band_n_member(point);
  isl_set *box = isl_set_universe(isl_space_set_alloc(isl_schedule_node_get_ctx(point), 0, n));
  for (int i = 0; i < n; i++) {
    box = isl_set_lower_bound_si(box, isl_dim_set, i, 0);
    box = isl_set_upper_bound_si(box, isl_dim_set, i, size[i] - 1);
  }
  return box;
}

__isl_give isl_schedule_node *sj_tile(__isl_take isl_schedule_node *band, const long *size) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(band);
  int n = isl_schedule_node_band_n_member(band);
  isl_val_list *sizes = isl_val_list_alloc(ctx, n);
  for (int i = 0; i < n; i++) sizes = isl_val_list_add(sizes, isl_val_int_from_si(ctx, size[i]));
  isl_space *space = isl_schedule_node_band_get_space(band);
  band = isl_schedule_node_band_tile(band, isl_multi_val_from_val_list(space, sizes));
  return isl_schedule_node_child(band, 0);
}

__isl_give isl_schedule_node *sj_isolate_full_tiles(__isl_take isl_schedule_node *point,
                                                    __isl_take isl_set *box) {
  isl_union_set *isolate = full_tiles(point, box);
  if (!isolate) return point;
  isl_schedule_node *band = isl_schedule_node_parent(point);
  int depth = 1;
  for (; isl_schedule_node_get_type(band) != isl_schedule_node_band; depth++)
    band = isl_schedule_node_parent(band);
  band = isl_schedule_node_band_set_ast_build_options(band, isolate);
  while (depth--) band = isl_schedule_node_child(band, 0);
  return band;
}

__isl_give isl_schedule_node *sj_band_start_at(__isl_take isl_schedule_node *band, const long *lo) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(band);
  int n = isl_schedule_node_band_n_member(band);
  /* the partial schedule is defined on whole statement spaces; so must the shift be */
  isl_union_set *domain = isl_union_set_universe(
      isl_multi_union_pw_aff_domain(isl_schedule_node_band_get_partial_schedule(band)));
  isl_union_pw_aff_list *shifts = isl_union_pw_aff_list_alloc(ctx, n);
  for (int k = 0; k < n; k++)
    shifts = isl_union_pw_aff_list_add(
        shifts, isl_union_pw_aff_val_on_domain(isl_union_set_copy(domain),
                                               isl_val_int_from_si(ctx, -lo[k])));
  isl_union_set_free(domain);
  return isl_schedule_node_band_shift(band, isl_multi_union_pw_aff_from_union_pw_aff_list(
                                                isl_schedule_node_band_get_space(band), shifts));
}

__isl_give isl_schedule_node *
sj_each_child(__isl_take isl_schedule_node *node,
              __isl_give isl_schedule_node *(*fn)(void *user, __isl_take isl_schedule_node *child),
              void *user) {
  int n = isl_schedule_node_n_children(node);
  for (int i = 0; i < n; i++)
    node = isl_schedule_node_parent(fn(user, isl_schedule_node_child(node, i)));
  return node;
}

void sj_plan_add_tile(sj_plan *plan, long size) {
  int *tile = realloc(plan->tile, (size_t)(plan->ntiles + 1) * sizeof *tile);
  if (!tile) abort();
  plan->tile = tile;
  plan->tile[plan->ntiles++] = (int)size;
}
