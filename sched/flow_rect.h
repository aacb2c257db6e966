/* A full tile's flow-in over 2-D planes as rectangles per plane (sched/flow_rect.c). */
#ifndef SJ_SCHED_FLOW_RECT_H
#define SJ_SCHED_FLOW_RECT_H

#include <isl/set.h>

#include "sched/sched.h"

/* shape ([a, e0, e1]: the elements e a full tile reads at its step a before writing them, as
 * offsets from its origin) copied as disjoint rectangles per plane (the steps a of one residue
 * modulo mod from the first): [a, e0, e1] pieces, a the plane's first step, covering shape's
 * elements of each plane, within their ranges. NULL where shape is not of that form. */
__isl_give isl_set_list *sj_flow_rects(__isl_take isl_set *shape, int mod);

#endif
