/* Hybrid hexagonal/parallelogram time tiling (sched/hybrid_shape.c: geometry;
 * sched/hybrid.c: the schedule tree). Internal to sched/ and its tests. */
#ifndef SJ_HYBRID_H
#define SJ_HYBRID_H

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>

#include "base/buf.h"
#include "sched/sched.h"

enum { SJ_HYBRID_MAX_SPACE = 3 }; /* s0 (hexagonal) and up to two parallelogram dimensions */

/* The dependence cone in the folded space: every distance (dt, ds0, .., dsn) has dt >= 1,
 * -down * dt <= ds0 <= up * dt (the thesis's delta0 = up, delta1 = down), and
 * ds_i + skew_i * dt >= 0 for the parallelogram dimensions i >= 1. Rationals num/den. */
typedef struct sj_cone {
  int n; /* space dimensions after s0 */
  long up_num, up_den, down_num, down_den;
  long skew_num[SJ_HYBRID_MAX_SPACE], skew_den[SJ_HYBRID_MAX_SPACE];
  /* split tiling: ds_i <= lead_i * dt for i >= 1 as well */
  long lead_num[SJ_HYBRID_MAX_SPACE], lead_den[SJ_HYBRID_MAX_SPACE];
} sj_cone;

/* The cone of deps, dependences between points of the folded space. n is the number of
 * space dimensions after s0. -1 with why filled when there is none to tile. */
int sj_hybrid_cone(__isl_keep isl_union_map *deps, int n, sj_cone *c, sj_buf *why);
/* Rounds c's parallelogram skews up to whole numbers, as hybrid tiles take them: a tile moved
 * by a fraction of an element a step has no box of what it touches at an integer origin, which
 * staging it in shared memory needs (split tiles take the exact slopes). */
void sj_hybrid_whole_skews(sj_cone *c);

/* Tile sizes and the derived quantities of the hexagon. */
typedef struct sj_hex {
  int n;
  int h;                       /* bands are H = 2h + 2 folded steps high */
  long H;                      /* 2h + 2 */
  long w[SJ_HYBRID_MAX_SPACE]; /* w0 (hexagon), parallelogram widths */
  long W; /* a hexagon's period along s0: 2 w0 + 2 + floor(up h) + floor(down h) */
  long D; /* floor(down h) - floor(up h): the shift of s0 per band */
  long floor_up, floor_down;
} sj_hex;

/* The shape for height h and widths w; -1 with why filled when w0 is too narrow. */
int sj_hybrid_shape(const sj_cone *c, int h, const long *w, sj_hex *t, sj_buf *why);

/* The points of F = [t, s0, .., sn] that phase p (0 or 1) tiles. */
__isl_give isl_set *sj_hybrid_phase(isl_ctx *ctx, const sj_cone *c, const sj_hex *t, int p);
/* Phase p's tiles: F -> [L, p, T, S0, .., Sn] with T the band, S the tile along each space
 * dimension and L = T + S1 + .. + Sn the wavefront the tile runs in: the tiles of one
 * wavefront and phase are independent; phase 0 of a wavefront runs before its phase 1. */
__isl_give isl_map *sj_hybrid_tiles(isl_ctx *ctx, const sj_cone *c, const sj_hex *t, int p);
/* [F, L, p, T, S0, .., Sn] -> the point's coordinates relative to its tile, in the order of F
 * (x_block: the threads along the innermost dimension), then its step in the tile's band (0 to
 * 2h + 1); box[d]: how many values space coordinate d takes in every tile at every step, 0
 * when that varies. */
__isl_give isl_multi_aff *sj_hybrid_local(isl_ctx *ctx, const sj_cone *c, const sj_hex *t,
                                          long x_block, long *box);

/* Split tiling (sched/split_shape.c): in each band of h steps, per space dimension upright
 * trapezoids whose top is w wide (color bit 0) and the inverted ones between them (bit
 * 1); a tile's color is the bits of its dimensions, 2^(n+1) colors. A tile depends only on
 * tiles of earlier bands or of colors whose bits are a subset of its own, so the colors of
 * a band run in increasing order. */
typedef struct sj_split {
  int n, h;
  long w[SJ_HYBRID_MAX_SPACE];
  long base[SJ_HYBRID_MAX_SPACE];   /* an upright trapezoid's base */
  long period[SJ_HYBRID_MAX_SPACE]; /* base + w: an upright and an inverted trapezoid */
} sj_split;
void sj_split_shape(const sj_cone *c, int h, const long *w, sj_split *t);
/* Color's tiles: F -> [L, color, T, S0, .., Sn] with L = T the band (the layout of
 * sj_hybrid_tiles). */
__isl_give isl_map *sj_split_tiles(isl_ctx *ctx, const sj_cone *c, const sj_split *t, int color);
/* [F, L, color, T, S0, .., Sn] -> the point's coordinates relative to its tile, then its step
 * in the band; box as for sj_hybrid_local. */
__isl_give isl_multi_aff *sj_split_local(isl_ctx *ctx, const sj_split *t, long *box);

/* The one piece of pma (taken), or NULL where it has more or none (sched/stage.c). */
__isl_give isl_multi_aff *sj_one_piece(__isl_take isl_pw_multi_aff *pma);

/* Stages the arrays the tiles of kernel k write in shared memory, as many as fit in budget
 * bytes (sched/stage.c): records them in k and grafts the copies and a barrier before node,
 * the filter of a block's tile over dom, the tiled instances S[x, L, p, T, S0, .., Sn];
 * back takes them to the model's. Tile coordinate S_d is lo[d] + block id d. desc gets the
 * arrays' boxes and the bytes staged. full: the full tiles ([L, color, T, S0, .., Sn]) whose
 * code is a version of its own, or NULL; their copy-in is their flow-in where sj_flow_in finds
 * one. Returns what is in node's place: the sequence of copies, barrier and node when anything
 * is staged. */
__isl_give isl_schedule_node *sj_stage_tiles(__isl_take isl_schedule_node *node, const sj_model *m,
                                             __isl_keep isl_union_set *dom,
                                             __isl_keep isl_union_map *back, int n, const long *lo,
                                             sj_kernel *k, long budget, __isl_keep isl_set *full,
                                             sj_buf *desc);
/* Whether, in the program's order, every instance of the statements a (na of them) at step t
 * (their first iterator) runs before every instance of the statements b at step t + dt, and
 * some pair of them does (sched/flow_in.c). */
int sj_steps_before(const sj_model *m, const sj_pstmt *const *a, int na, const sj_pstmt *const *b,
                    int nb, int dt);
/* JIT_FLOWIN=0: a full tile copies its whole box in, not only its flow-in */
int sj_flow_in_enabled(void);
/* What a full tile copies in of a double buffer sym (its plane dimension 0 of range mod the
 * only one left out: mask) in place of its box s, where no statement but the stencil's (the one
 * that writes sym inside the most loops) touches sym in the tile: [L, S..] -> [t, a1, ..], the
 * elements it reads at step t that it did not write at t - 1, as one shape translated by the
 * tile's origin (sched/flow_in.c), as a list of pieces; into c the plane of step t, and the
 * origin where the pieces are offsets from it (2-D planes: constant rectangles). full: the full
 * tiles' instances; back, coords: to the model's instances and the tile coordinates; reads, writes:
 * the accesses without the plane; kept: [L, S..] -> element without the plane. NULL where there is
 * no such shape (the box stays). */
__isl_give isl_map_list *sj_flow_in(const sj_model *m, const sj_sym *sym, int mask, int mod,
                                    __isl_keep isl_union_set *full, __isl_keep isl_union_map *back,
                                    __isl_keep isl_union_map *coords,
                                    __isl_keep isl_union_map *reads,
                                    __isl_keep isl_union_map *writes, __isl_keep isl_space *kept,
                                    const sj_staged *s, sj_copy *c);

/* Whether no instance of local (tiled instances S[x, L, p, T, S0, .., Sn]) is live out of its
 * tile, from the exact dependences of m (sched/liveout.c): (a) an exact flow dependence from it
 * leaves its tile (tiles: S[x] -> [L, p, T, S..]), or (b) it writes some element last. back
 * takes tiled instances to the model's. An error where m has no exact dependences. */
isl_bool sj_tile_local_exact(const sj_model *m, __isl_keep isl_union_map *tiles,
                             __isl_keep isl_union_map *back, __isl_keep isl_union_set *local);
/* { F -> c of tiles : F + d lies in tile c for every distance d of reach }, tiles: F -> [L, p,
 * T, S..]; NULL where reach is unbounded or has over 64 points to try. Where every tile is
 * convex (pieces without local variables, of disjoint tiles), the vertices of reach's hull
 * stand for reach (sched/liveout.c). */
__isl_give isl_map *sj_tiles_keeping(__isl_keep isl_map *tiles, __isl_keep isl_set *reach);
/* Tiled instances whose results only their own tile reads, cheaply (no exact dependences) and
 * in a form the code tests cheaply: where every element the instance writes is written again
 * by an instance dt folded steps later (dt the smallest such distance), and every folded
 * distance (on whole spaces: memory-based) from a write to a read of the same element up to dt
 * stays in the instance's tile (ftiles: F -> [L, p, T, S..]; convex per color; fold: S[x] ->
 * F). NULL where the accesses are not one piece each, the distances not a small bounded set,
 * or isl fails. */
__isl_give isl_union_set *sj_tile_local(const sj_model *m, __isl_keep isl_union_map *fold,
                                        __isl_keep isl_map *ftiles);
/* A `live_out` mark above node holding local (sj_live: the AST generator guards the global
 * stores of their staged results, astgen/live_ast.c). */
__isl_give isl_schedule_node *sj_live_mark(__isl_take isl_schedule_node *node,
                                           __isl_take isl_union_set *local);
/* Whether staged time-tiled kernels store only live-out values to global memory: unless
 * JIT_LIVEOUT=0 (sched/liveout.c). */
int sj_live_out_enabled(void);

/* Each statement's instances as points of the folded space [k t + i, s0, .., sn], n + 1 the
 * largest number of space dimensions (sched/hybrid.c); NULL when n + 1 is not between 1 and
 * SJ_HYBRID_MAX_SPACE. */
__isl_give isl_union_map *sj_fold_space(const sj_model *m, const sj_stencil *st, int *n);
/* The dependences between points of the folded space fold gives. */
__isl_give isl_union_map *sj_fold_deps(const sj_model *m, __isl_keep isl_union_map *fold, int n);

/* Full tiles (sched/full_tiles.c). The box of the statements' instances in the folded space
 * (fold: statement -> F = [t, s0, .., sn]): along time the union of their steps, along space
 * what every statement with all the space loops runs; lo[d] .. hi[d] along F's dimension d. 0,
 * or -1 when there is none (no statement with every loop, or no instance). */
int sj_folded_box(const sj_model *m, __isl_keep isl_union_map *fold, int n, long *lo, long *hi);
/* The tiles of tiles (F -> [L, color, T, S0, .., Sn]) that lie inside the box lo .. hi along
 * the dimensions of F in the bits of dims (bit 0: time) and meet it along the others, a set of
 * tile coordinates. */
__isl_give isl_set *sj_full_tiles(__isl_keep isl_map *tiles, int n, const long *lo, const long *hi,
                                  unsigned dims);
/* The instances of the spaces of dom (tiled statements) that belong to a full tile. */
__isl_give isl_union_set *sj_full_filter(__isl_keep isl_set *full, __isl_keep isl_union_set *dom,
                                         int n);
/* Puts two versions of the subtree at node under a `full_tiles` mark: a sequence of the
 * instances in full (the full tiles') and of all (every instance at node). The lowering runs
 * the first where its guard holds, else the second (sched/README.md). Returns the sequence. */
__isl_give isl_schedule_node *sj_full_versions(__isl_take isl_schedule_node *node,
                                               __isl_take isl_union_set *full,
                                               __isl_take isl_union_set *all);

/* The sizes of a time tiling (chosen by the tile model, sched/tile_model.h, or JIT_TILE). */
typedef struct sj_time_tiles {
  int split; /* split tiles; else hybrid */
  int h;
  long w[SJ_HYBRID_MAX_SPACE]; /* s0 first */
  unsigned block[3];           /* threads; x: the innermost space dimension */
  long shared; /* bytes of shared memory a block may stage: the device's limit, or what 2 blocks
                  per multiprocessor may each have (the tile model's choice); 0: none */
} sj_time_tiles;

/* Whether the time-tiled kernels stage their tiles in shared memory: unless JIT_STAGE=0
 * (sched/hybrid.c). */
int sj_time_tiles_staged(void);

/* The time-tiled GPU schedule of a kernel in stencil form, into plan (sched/hybrid.c), with
 * the tiles of sizes. 0; -1 with why filled when the tiling does not apply (the caller maps it
 * another way or refuses); a jit_status with err on failure. */
int sj_schedule_time_tiled(sj_model *m, const sj_stencil *st, const sj_time_tiles *sizes,
                           const unsigned max_grid[3], sj_plan *plan, sj_buf *why, sj_error *err);

#endif
