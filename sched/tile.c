/* What the tilings share: tiling, shifts, visits of a tree, the plan's tile sizes. */
#include "sched/sched.h"

#include <stdlib.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/union_set.h>
#include <isl/space.h>
#include <isl/val.h>

__isl_give isl_schedule_node *sj_tile(__isl_take isl_schedule_node *band, const long *size) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(band);
  int n = isl_schedule_node_band_n_member(band);
  isl_val_list *sizes = isl_val_list_alloc(ctx, n);
  for (int i = 0; i < n; i++) sizes = isl_val_list_add(sizes, isl_val_int_from_si(ctx, size[i]));
  isl_space *space = isl_schedule_node_band_get_space(band);
  band = isl_schedule_node_band_tile(band, isl_multi_val_from_val_list(space, sizes));
  return isl_schedule_node_child(band, 0);
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
