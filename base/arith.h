/* Integer arithmetic the polyhedral stages share: division rounded towards minus infinity, as
 * isl's floord and the tile formulas need (C's / rounds towards zero). */
#ifndef SJ_ARITH_H
#define SJ_ARITH_H

static inline long sj_floor_div(long a, long b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static inline long sj_ceil_div(long a, long b) {
  return -sj_floor_div(-a, b);
}

#endif
