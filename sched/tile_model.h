/* The GPU cost model of the mappings of a stencil (sched/tile_model.c), the search for tile
 * sizes (sched/tile_search.c) and what the model reads of a stencil (sched/tile_input.c).
 * Internal to sched/ and its tests.
 *
 * The model is analytic and cheap (well under a microsecond per candidate: it runs on every
 * cold compile): for a candidate (the per-step mapping, or hybrid or split tiles of height h
 * and widths w) it counts tiles, blocks per launch and launches for the concrete sizes, and
 * models the DRAM bytes, global (L1) and shared-memory bytes and instructions per update, and
 * from them the time: a launch takes a fixed overhead plus the longest of its memory time,
 * its issue time and its latency chain (steps x iterations of the slowest thread, barriers),
 * with less overlap between memory and issue the fewer points a thread has between barriers.
 * The constants are calibrated on an H100 (bench/results/tile-model.md). */
#ifndef SJ_TILE_MODEL_H
#define SJ_TILE_MODEL_H

#include "sched/hybrid.h"

enum { SJ_TM_MAX_ARRAYS = 16, SJ_TM_TOP = 3, SJ_TM_MAX_STEPS = 130 /* h = 64: JIT_TILE's most */ };

/* A tiling is chosen over the per-step mapping only when its modeled time is at most
 * SJ_TM_TILED_MARGIN of the per-step one (the model is calibrated within about 15% on an H100)
 * and saves at least SJ_TM_TILED_SAVING seconds a run: a tiled kernel costs 0.1 to a few
 * seconds more to compile, which only runs that long repay. */
#define SJ_TM_TILED_MARGIN 0.8
#define SJ_TM_TILED_SAVING 1e-3

/* One array of the kernel as the staged model sees it. */
typedef struct sj_tm_array {
  int elem;        /* bytes per element */
  int written;     /* some statement writes it */
  int temp;        /* a local kept in memory (sched/locals.c): never staged */
  long planes;     /* elements of its dimensions that no space loop indexes, per tile */
  int time_planes; /* those dimensions follow the time loop (A[t % 2]): at most the
                      tile's steps of them are touched */
  int opaque;      /* an index the model does not read (a flat index of a plane and rows,
                      A[(t % 2) * N * N + i * N + j]): boxed as the tile's points on one plane,
                      two where it is written (a double buffer's) */
  unsigned dims;   /* bit d: a dimension of the array follows folded space dimension d */
  long halo[SJ_HYBRID_MAX_SPACE];   /* largest minus smallest offset along each folded space
                                       dimension (s0 first) */
  long stride[SJ_HYBRID_MAX_SPACE]; /* a flat index (A[i * M + j]): elements between neighbours
                                       along each folded dimension; 0: a dimension of its own */
  /* of the steps, the share at which a statement reads it as the step before left it (not
   * written earlier in that step), which a full tile's flow-in copies of an array without
   * planes (sched/flow_in.c): 1/2 for each of two arrays swapped by pointers, 0 for the
   * target of a copy-back; and the share at which any statement reads it (both at most 1) */
  double from_before, read_steps;
} sj_tm_array;

/* What the model reads of a stencil (sj_tm_read, sched/tile_input.c). */
typedef struct sj_tm_stencil {
  int n;                         /* folded space dimensions after s0 */
  long lo[SJ_HYBRID_MAX_SPACE];  /* the first point along each folded space dimension */
  long ext[SJ_HYBRID_MAX_SPACE]; /* points along each folded space dimension, s0 first */
  long t0, steps;                /* the first folded time step; steps: T times the nests */
  int nests;
  long step_launches; /* the per-step mapping's launches over the run: per group of nests that
                         share one, the steps at which one of them has instances (every other
                         step for each of the nests of a stencil that swaps arrays by pointers) */
  sj_cone cone;       /* the dependence cone; all zero when none was found */
  int tileable;       /* the cone exists: hybrid and split tiles are legal */
  int exact_cone;     /* from the dependences; else a bound from the offsets */
  /* per folded point with instances: per update (statement instance), averaged over the
   * statements, times per_point */
  double per_point;               /* updates a folded point with any holds (>= 1: the nests of
                                     a level share its points, fdtd-2d's ey, ex and ey[0][j]) */
  double loads, stores, ops;      /* array reads, writes, arithmetic operations */
  double access_bytes;            /* bytes the reads and writes move */
  double read_bytes, write_bytes; /* DRAM bytes of one step over one point: the distinct array
                                     planes read and written */
  int narrays;
  sj_tm_array arrays[SJ_TM_MAX_ARRAYS];
  int stageable;    /* every access is an array plane plus constant offsets */
  double footprint; /* bytes of every array: whether it all stays in L2 */
  double empty;     /* of a step's folded box, the share no statement has a point in (a nest
                       with fewer space loops: fdtd-2d's row of ey[0][j], a fourth of its
                       nests, has one row of points) */
} sj_tm_stencil;

typedef enum sj_tm_kind { SJ_TM_PER_STEP, SJ_TM_HYBRID, SJ_TM_SPLIT, SJ_TM_KINDS } sj_tm_kind;
extern const char *const sj_tm_kind_names[SJ_TM_KINDS]; /* "per step", "hybrid", "split" */

typedef struct sj_tm_candidate {
  sj_tm_kind kind;
  int h;                       /* hybrid: bands of 2h + 2 steps; split: h steps */
  long w[SJ_HYBRID_MAX_SPACE]; /* widths, s0 first */
  unsigned block[3];           /* threads (x: the innermost space dimension); 0: chosen */
  int staged;                  /* the tile's footprint is copied into shared memory */
  int rolled; /* the code before full tiles, which the H100 rows of bench/results/tile-model.md
                 ran: a tile's steps and points in loops, a guard per point; 0: the code printed
                 now (full tiles unrolled, sched/full_tiles.c) */
} sj_tm_candidate;

typedef struct sj_tm_cost {
  sj_tm_candidate c; /* block filled in */
  int ok;            /* 0: rejected, why says why */
  char why[160];
  double points_per_tile;  /* of a full tile (per step: of a block) */
  long grid;               /* blocks per launch (the grid of a phase or color kernel) */
  double active;           /* blocks with work per launch, on average */
  long launches;           /* per run */
  unsigned threads;        /* per block */
  long shared;             /* bytes per block */
  long budget;             /* bytes a block may stage: the device's limit, or less (room) */
  int room;                /* 0, or k: staging within what k blocks per multiprocessor may have */
  int resident;            /* blocks resident per multiprocessor */
  double bytes_per_update; /* modeled DRAM bytes (L2 bytes when the arrays fit it) */
  int in_l2;               /* every array fits the L2, which serves them */
  double instr_per_update; /* modeled instructions, summed over threads */
  double unrolled;         /* statements of a thread's unrolled full-tile code: steps times the
                              copies of the widest step (SJ_UNROLL_MAX_STMTS bounds them); 0
                              where too few tiles are full to get code of their own */
  double time;             /* modeled seconds for the run */
} sj_tm_cost;

/* The modeled cost of candidate c on device d, into out (c's block 0: the best of a few,
 * sj_tm_before); staged tiles are costed staging as much as fits the device,
 * and as much as 2, 3 or 4 blocks per multiprocessor may each have (fewer arrays or none, more
 * blocks resident), and the best kept (out->budget, out->room). 0, or -1 when it is rejected (does
 * not fit the device or the cone: out->why). Pure arithmetic. */
int sj_tm_evaluate(const sj_tm_stencil *s, const sj_tm_candidate *c, const sj_gpu_device *d,
                   sj_tm_cost *out);
/* The same with staged tiles staging as much as fits budget bytes a block (0: nothing), no less
 * (the user's tiles: the device's limit). */
int sj_tm_evaluate_within(const sj_tm_stencil *s, const sj_tm_candidate *c, const sj_gpu_device *d,
                          long budget, sj_tm_cost *out);

/* Whether candidate a ranks before b: a block alone on its multiprocessor (its shared memory or
 * threads leave no room for a second) idles it at every barrier, with no other block's warps to
 * issue; the model, calibrated on tiles of 4 or more blocks per multiprocessor, does not see
 * that stall. So the candidates that keep 2 or more come first, then the lowest modeled
 * time. */
int sj_tm_before(const sj_tm_cost *a, const sj_tm_cost *b);

/* The best candidates of a kind into top[0..SJ_TM_TOP), in the order of sj_tm_before. Tile heights
 * and widths enumerated (innermost widths multiples of 32, blocks within the device's limits,
 * shared memory within the per-block limit when staged), or the sizes of forced where given (forced
 * NULL or partial: the rest searched; all of them: the user's tiles, staged as far as they fit the
 * device). Returns how many were kept; 0 with top[0].why saying why when none fits. */
int sj_tm_search(const sj_tm_stencil *s, sj_tm_kind kind, int staged, const sj_tile_spec *forced,
                 const sj_gpu_device *d, sj_tm_cost *top);

/* One line for the explanation: "hybrid h=7 w=32x64: 2.61 B/update, 364 of 3432 blocks per
 * launch, 146 launches, 0 B shared, 6.14 ms". */
void sj_tm_describe(sj_buf *b, const sj_tm_cost *c);

/* The model's view of the stencil st of m (sched/tile_input.c): extents, accesses, and the
 * cone: the exact one when exact is set or an access is not a plane plus offsets (tileable = 0
 * with why when there is none), else a bound from the offsets (exact_cone = 0). 0; -1 with why
 * when the model cannot describe the stencil; a jit_status when isl fails. */
int sj_tm_read(sj_model *m, const sj_stencil *st, int exact, sj_tm_stencil *out, sj_buf *why,
               sj_error *err);
/* The exact cone of st from its dependences into s (tileable, cone, exact_cone); tileable. */
int sj_tm_exact_cone(sj_model *m, const sj_stencil *st, sj_tm_stencil *s, sj_buf *why);

#endif
