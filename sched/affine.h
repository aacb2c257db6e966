/* Affine expressions and conditions of the C subset as isl objects (sched/affine.c). */
#ifndef SJ_AFFINE_H
#define SJ_AFFINE_H

#include <isl/aff.h>
#include <isl/set.h>
#include <isl/space.h>

#include "base/ast.h"

typedef struct sj_affine_env {
  const long *shape;   /* shape parameter values by parameter position */
  const int *iter_pos; /* per iterator id: its dimension in the current space, -1 if none */
  const char *what;    /* "the loop bound", "the index of 'A'": for messages */
  const char *source_name;
  sj_error *err;
  int failed;       /* set on the first error; later calls return NULL at once */
  int quiet;        /* failures leave err alone: the caller has a fallback */
  isl_set *context; /* borrowed, optional: the points where the expression is evaluated */
} sj_affine_env;

/* e as a piecewise quasi-affine function on space (a set space whose dimensions are the
 * iterators in scope). NULL with env->err filled when e is not affine. */
__isl_give isl_pw_aff *sj_affine(sj_affine_env *env, const sj_expr *e, __isl_keep isl_space *space);
/* The points of space where the int-valued condition e holds. */
__isl_give isl_set *sj_condition(sj_affine_env *env, const sj_expr *e, __isl_keep isl_space *space);
/* The access relation (a map of space) of the index functions. */
__isl_give isl_map *sj_index_relation(__isl_take isl_space *space,
                                      __isl_take isl_pw_aff_list *index);
/* The points of set (elements of an array of rank extents ext) outside those extents. */
__isl_give isl_set *sj_outside_extents(__isl_take isl_set *set, int rank, const long *ext);
/* e's value when it involves only literals and shape parameters; 0 on success. */
int sj_const_value(const sj_expr *e, const long *shape, long *out);

#endif
