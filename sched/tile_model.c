/* The GPU cost model of a stencil's mappings (sched/tile_model.h): tiles, blocks and launches
 * for the concrete sizes, then bytes, instructions and time.
 *
 * A launch of B blocks with work costs LAUNCH plus the longest of
 *   memory:  the longer of its DRAM bytes over the bandwidth the resident threads can draw and
 *            its L2 bytes over L2's, plus the busiest multiprocessor's global and shared-memory
 *            bytes over its L1 bandwidth;
 *   issue:   the busiest multiprocessor's warp instructions (a warp-iteration for every row
 *            of a step's points and every 32 along x that it touches) and barriers;
 *   latency: per wave of resident blocks, a tile's chain of steps: per step its slowest
 *            thread's iterations and a barrier;
 * where memory and issue overlap less the fewer points a thread has between two barriers
 * (none between them in a per-step launch). A block outside the launch's wavefront exits at
 * once. Without staging a tile reads and writes global memory at every step, through L2, and
 * the L2 holds the tile between its steps, so its DRAM traffic is that of the staged tile (the
 * bounding box of its footprint in, what it wrote out) until the resident tiles outgrow L2.
 * Staged, each step reads shared memory and writes through to L2.
 * The constants are calibrated on the H100 (bench/results/tile-model.md). */
#include "sched/tile_model.h"
#include "sched/sched.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/arith.h"

const char *const sj_tm_kind_names[SJ_TM_KINDS] = {"per step", "hybrid", "split"};

void sj_gpu_device_h100(sj_gpu_device *d) {
  *d = (sj_gpu_device){.max_grid = {2147483647u, 65535, 65535},
                       .sms = 132,
                       .threads_per_block = 1024,
                       .threads_per_sm = 2048,
                       .blocks_per_sm = 32,
                       .shared_per_block = 227L << 10,
                       .shared_per_sm = 228L << 10,
                       .shared_reserved = 1L << 10,
                       .l2_bytes = 50L << 20,
                       .dram_bw = 3.35e12,
                       .clock_hz = 1.98e9};
}

/* --- constants, calibrated on an H100 --- */
#define LAUNCH_S 2.3e-6      /* a launch after the previous one */
#define IDLE_BLOCK_S 0.02e-6 /* multiprocessor time of a block that exits at once */
#define DRAM_EFF 0.83        /* of the DRAM bandwidth a streaming kernel reaches */
#define L2_SPEEDUP 2.0       /* L2 bandwidth over DRAM's, when every array stays in L2 */
#define L2_FIT 0.75          /* of L2 that data may fill and stay in it */
#define L1_BYTES_CLK 128.0   /* per multiprocessor: global (L1) and shared loads and stores */
#define SECTOR_WASTE 1.1     /* L1 bytes moved per byte used */
#define ISSUE_CLK 4.0        /* warp instructions per multiprocessor and clock */
#define SAT_THREADS 512.0    /* resident threads per multiprocessor that keep DRAM busy */
#define LAT_ITER_S 0.2e-6    /* a thread's iteration over a point whose loads go to global */
#define LAT_SHARED_S 0.05e-6 /* the same from shared memory */
#define LAT_BARRIER_S 0.3e-6 /* a barrier, in a tile's chain of steps */
#define LAT_BLOCK_S 1.0e-6   /* a per-step block: its unrolled points' loads in flight at once */
#define BARRIER_CLK 250.0    /* multiprocessor clocks a block's barrier costs */
/* clocks between a warp's dependent instructions: ISSUE_CLK x DEP_CLK warps keep a
 * multiprocessor issuing at full rate, fewer issue less. 8, not the 4 of an add's latency: a
 * tile's points read shared memory (some 30 clocks). With it, the registers below and barriers
 * overlapped, the model orders 68% of the pairs of 60 tile candidates timed on an H200 as the
 * GPU did (70% with sched/tile_input.c's empty share), against 56% before
 * (bench/results/gpu-NVIDIA-H200.md), and jacobi-1d's tiles are modeled within 10% (they were
 * 2.7 times too slow, and lost to per step) */
#define DEP_CLK 8.0
#define OVERLAP_POINTS 2.9  /* points per thread between barriers for half the overlap */
#define REGS_PER_SM 65536.0 /* every GPU since sm_50 */
#define BASE_REGS 32.0      /* a tile thread's ids, bounds and array bases */
#define POINT_REGS 4.0      /* per point of a step the thread runs unrolled */
#define ROLLED_REGS 64.0    /* the code before full tiles: steps and points in loops */
/* Instructions, as the code printed now has them (bench/results/tile-model-emu.md). A point
 * costs the statement's loads, stores and operations; the addressing is the thread's: its
 * block and thread ids, the bounds it tests and the base of each array (the time plane A[t % 2]
 * included), computed once and reached from every point by a constant offset. So per update
 * that cost is divided by the points a thread runs (per step: its points per thread). By space
 * dimensions after s0: */
static const double thread_setup[SJ_HYBRID_MAX_SPACE] = {21.0, 31.0, 50.0};
/* In a tile the points a thread takes of a step are unrolled copies, each behind a guard: the
 * row's index and its test and branch (an idle copy, outside the step's points, costs that
 * alone). A step costs each thread its barrier and a predicate in a full tile, whose bounds
 * are constant (sched/full_tiles.c), and in the guarded code of the other tiles its bounds
 * against the instances: a minimum, a maximum and the thread's first point, per space
 * dimension. */
#define GUARD_INSTR 3.0
/* and a branch per further space dimension whose bound cuts the copy (its test computed once a
 * thread: the copies along the outermost dimension share it) */
#define GUARD_DIM_INSTR 1.0
#define STEP_FULL_INSTR 2.0
#define STEP_BOUND_INSTR 8.0 /* per space dimension of a guarded step */
/* per element copied to shared memory: its load and store (and a guard per copy a thread runs,
 * idle or not: the box spread over the block) */
#define COPY_INSTR 2.0
#define UNROLL_INSTANCES 256.0 /* statement instances a thread's code may unroll (lower.c) */
/* Beyond that the rows of a step stay loops (astgen/lower.c, levels 2 to 0): a thread entering
 * a row computes its pointers from the row (a multiply-add per array plane and the bounds of
 * the row's x loop, as counted on the printed PTX: 18), and each of its points there costs the
 * loop's test, branch, counter and a pointer increment per access (8) in place of a guard. */
#define LOOP_ROW_INSTR 18.0
#define LOOP_POINT_INSTR 8.0
#define FULL_SHARE 0.7 /* full tiles get code of their own from this share on (hybrid.c) */
/* Rolled (sj_tm_candidate.rolled), each point of a step's loop costs its bounds and guards and
 * its addressing (by space dimensions after s0, as counted on that code: tile-model.md section
 * 2), and each step its bounds. */
static const double rolled_addressing[SJ_HYBRID_MAX_SPACE] = {5.25, 10.5, 19.8};
#define ROLLED_POINT_INSTR 17.0
#define ROLLED_STEP_INSTR 30.0

static long lmax(long a, long b) {
  return a > b ? a : b;
}

static long lmin(long a, long b) {
  return a < b ? a : b;
}

/* --- geometry: what a tile is, how many, how many launches --- */

typedef struct geometry {
  int n, steps;                       /* space dimensions after s0; a full tile's steps */
  sj_cone cone;                       /* the slopes the tiles take (sj_hybrid_whole_skews) */
  sj_hex hex;                         /* hybrid */
  sj_split split;                     /* split */
  long lo_b, hi_b;                    /* hybrid: the hexagon's rows span b in [lo_b, hi_b] */
  double pts;                         /* points of a full tile (split: averaged over colors) */
  double proj[SJ_HYBRID_MAX_SPACE];   /* a tile's extent over all its steps */
  double widest[SJ_HYBRID_MAX_SPACE]; /* its widest step: the block is sized by it */
  double tiles;                       /* tiles with points in the run */
  double inside[SJ_HYBRID_MAX_SPACE]; /* of them, the share inside the instances along each
                                         dimension */
  long grid, launches;                /* the largest grid of a phase or color; launches per run */
  /* step a's extent along d, of the two orientations of split tiles (hybrid: twice the same):
   * the sums over the colors of products over the dimensions are products of their sums */
  double ext[SJ_TM_MAX_STEPS][SJ_HYBRID_MAX_SPACE][2];
} geometry;

/* The rows of hexagon row a (0 <= a <= 2h + 1) in b (hybrid_shape.c's constraints (8)-(15)). */
static void hex_row(const sj_cone *c, const sj_hex *t, long a, long *lo, long *hi) {
  long h = t->h, p0 = c->up_num, q0 = c->up_den, p1 = c->down_num, q1 = c->down_den;
  long fu = t->floor_up, fd = t->floor_down, w0 = t->w[0];
  *lo = lmax(
      0, lmax(sj_ceil_div(p0 * (a - 2 * h - 1), q0) + fu, sj_ceil_div(p1 * (h - a) - q1 + 1, q1)));
  *hi = lmin(t->W - 1, lmin(sj_floor_div(p1 * (2 * h + 1 - a), q1) + fu + w0,
                            sj_floor_div(p0 * (a - h) + q0 - 1, q0) + fu + w0 + fd));
}

/* The slopes of split dimension d, as in split_shape.c: right r, left l. */
static void split_slopes(const sj_cone *c, int d, long *rn, long *rd, long *ln, long *ld) {
  *rn = d ? c->lead_num[d] : c->up_num, *rd = d ? c->lead_den[d] : c->up_den;
  *ln = d ? c->skew_num[d] : c->down_num, *ld = d ? c->skew_den[d] : c->down_den;
}

static long ceil_scaled(long x, long num, long den) {
  return sj_ceil_div(x * num, den);
}

/* Fills g->ext for the kind of tiles. */
static void step_extents(geometry *g, const sj_cone *c, int kind) {
  for (int a = 0; a < g->steps; a++)
    for (int d = 0; d <= g->n; d++) {
      if (kind == SJ_TM_HYBRID) {
        long lo, hi;
        hex_row(c, &g->hex, a, &lo, &hi);
        g->ext[a][d][0] = g->ext[a][d][1] = d ? (double)g->hex.w[d] : (double)lmax(0, hi - lo + 1);
        continue;
      }
      long rn, rd, ln, ld;
      split_slopes(c, d, &rn, &rd, &ln, &ld);
      long grow = ceil_scaled(a, rn, rd) + ceil_scaled(a, ln, ld);
      g->ext[a][d][0] = (double)(g->split.base[d] - grow); /* upright */
      g->ext[a][d][1] = (double)(g->split.w[d] + grow);    /* inverted */
    }
}

/* The mean over the orientations of f(extent of step a along d, arg) (f NULL: the extent). */
static double step_extent(const geometry *g, int a, int d, double (*f)(double, unsigned),
                          unsigned arg) {
  const double *e = g->ext[a][d];
  return f ? (f(e[0], arg) + f(e[1], arg)) / 2 : (e[0] + e[1]) / 2;
}

/* Hybrid: tiles per phase and band, wavefronts, grids. The extremes of the tile coordinates
 * are those of the first and last bands. */
enum { EXACT_BANDS = 16 };
static void hybrid_counts(const sj_tm_stencil *s, geometry *g) {
  const sj_hex *t = &g->hex;
  const sj_cone *c = &g->cone;
  g->tiles = 0;
  g->grid = 0;
  /* the host loops over the wavefronts of both phases and launches each phase's kernel in
   * every iteration (sched/hybrid.c) */
  long first = 0, last = -1, phases = 0;
  for (int p = 0; p < 2; p++) {
    long start = p == 0 ? t->h + 1 : 0, off = p == 0 ? t->floor_up + t->w[0] + 1 : 0;
    long tlo = s->t0, thi = s->t0 + s->steps - 1;
    long Tlo = sj_ceil_div(tlo + start - (2 * t->h + 1), t->H),
         Thi = sj_floor_div(thi + start, t->H);
    long smin[SJ_HYBRID_MAX_SPACE], smax[SJ_HYBRID_MAX_SPACE], Lmin = 0, Lmax = -1;
    for (int d = 0; d <= s->n; d++) smin[d] = 1L << 40, smax[d] = -(1L << 40);
    /* the bands at either end exactly, those between (alike but for rounding) sampled */
    long stride = lmax(1, (Thi - Tlo - 2 * EXACT_BANDS) / EXACT_BANDS), step;
    for (long T = Tlo; T <= Thi; T += step) {
      step = T - Tlo < EXACT_BANDS || Thi - T < EXACT_BANDS + stride ? 1 : stride;
      long t0 = lmax(tlo, t->H * T - start), t1 = lmin(thi, t->H * T - start + 2 * t->h + 1);
      if (t0 > t1) continue;
      long lo[SJ_HYBRID_MAX_SPACE], hi[SJ_HYBRID_MAX_SPACE];
      long shift = off + t->D * T; /* b = s0 + shift - W S0 */
      lo[0] = sj_ceil_div(s->lo[0] + shift - g->hi_b, t->W);
      hi[0] = sj_floor_div(s->lo[0] + s->ext[0] - 1 + shift - g->lo_b, t->W);
      double count = (double)lmax(0, hi[0] - lo[0] + 1);
      long L0 = T, L1 = T;
      for (int d = 1; d <= s->n; d++) {
        long den = c->skew_den[d], num = c->skew_num[d], width = den * t->w[d];
        lo[d] = sj_floor_div(den * s->lo[d] + num * t0, width);
        hi[d] = sj_floor_div(den * (s->lo[d] + s->ext[d] - 1) + num * t1, width);
        count *= (double)lmax(0, hi[d] - lo[d] + 1);
        L0 += lo[d], L1 += hi[d];
      }
      if (count <= 0) continue;
      g->tiles += count * (double)step;
      for (int d = 0; d <= s->n; d++)
        smin[d] = lmin(smin[d], lo[d]), smax[d] = lmax(smax[d], hi[d]);
      if (Lmax < Lmin) Lmin = L0, Lmax = L1;
      Lmin = lmin(Lmin, L0), Lmax = lmax(Lmax, L1);
    }
    if (Lmax < Lmin) continue;
    long grid = 1;
    for (int d = 0; d <= s->n; d++) grid *= smax[d] - smin[d] + 1;
    g->grid = lmax(g->grid, grid);
    if (last < first) first = Lmin, last = Lmax;
    first = lmin(first, Lmin), last = lmax(last, Lmax);
    phases++;
  }
  g->launches = phases * (last - first + 1);
}

/* Split: tiles per dimension and orientation, bands, colors. */
static void split_counts(const sj_tm_stencil *s, geometry *g) {
  const sj_split *t = &g->split;
  long bands = sj_floor_div(s->t0 + s->steps - 1, t->h) - sj_floor_div(s->t0, t->h) + 1;
  long count[SJ_HYBRID_MAX_SPACE][2];
  for (int d = 0; d <= s->n; d++) {
    long rn, rd, ln, ld, last = lmin(t->h, s->steps) - 1;
    split_slopes(&g->cone, d, &rn, &rd, &ln, &ld);
    long lo = s->lo[d], hi = s->lo[d] + s->ext[d] - 1, period = t->period[d];
    /* upright: x = s - period S in [0, base - 1]; inverted: [base - l(h-1), period - 1 + r(h-1)] */
    long xlo[2] = {0, t->base[d] - ceil_scaled(last, ln, ld)};
    long xhi[2] = {t->base[d] - 1, period - 1 + ceil_scaled(last, rn, rd)};
    for (int o = 0; o < 2; o++)
      count[d][o] =
          lmax(0, sj_floor_div(hi - xlo[o], period) - sj_ceil_div(lo - xhi[o], period) + 1);
  }
  g->tiles = 0;
  g->grid = 0;
  g->launches = 0;
  for (int color = 0; color < 2 << s->n; color++) {
    long grid = 1;
    for (int d = 0; d <= s->n; d++) grid *= count[d][color >> d & 1];
    if (!grid) continue;
    g->tiles += (double)(grid * bands);
    g->grid = lmax(g->grid, grid);
    g->launches += bands;
  }
}

/* The share of the tiles that lie inside the instances along each space dimension (the
 * tiles of a dimension repeat every period[d] and span proj[d]) into g->inside. */
static void inside_shares(const sj_tm_stencil *s, geometry *g, const double *period) {
  for (int d = 0; d <= s->n; d++) {
    double ext = (double)s->ext[d], span = g->proj[d];
    double cut = ceil((ext + span - 1) / period[d]), inside = floor((ext - span) / period[d]) + 1;
    g->inside[d] = cut > 0 && inside > 0 ? fmin(1, inside / cut) : 0;
  }
}

/* The share of the tiles that run the full tiles' code: those inside the instances along the
 * dimensions their points loop over, where they are FULL_SHARE of the tiles or more
 * (sched/hybrid.c); 0 otherwise. A dimension whose widest step is the block's width binds each
 * point to a thread, which guards it whether the tile is full or not. */
static double full_share(const geometry *g, const unsigned *block) {
  double share = 1;
  for (int d = 0; d <= g->n; d++)
    if (g->widest[d] != (double)block[g->n - d]) share *= g->inside[d];
  return share >= FULL_SHARE ? share : 0;
}

/* The geometry of candidate c; -1 with why when its sizes do not make tiles. */
static int tile_geometry(const sj_tm_stencil *s, const sj_tm_candidate *c, geometry *g, char *why,
                         size_t cap) {
  memset(g, 0, sizeof *g);
  g->n = s->n;
  if (c->h < 1 || 2 * c->h + 2 > SJ_TM_MAX_STEPS)
    return snprintf(why, cap, "the height h = %d is not between 1 and %d", c->h,
                    SJ_TM_MAX_STEPS / 2 - 1),
           -1;
  for (int d = 0; d <= s->n; d++)
    if (c->w[d] < 1) return snprintf(why, cap, "width %d is below 1", d), -1;
  g->cone = s->cone;
  if (c->kind == SJ_TM_HYBRID) {
    sj_hybrid_whole_skews(&g->cone);
    sj_buf b = {0};
    int bad = sj_hybrid_shape(&g->cone, c->h, c->w, &g->hex, &b);
    if (bad) snprintf(why, cap, "%s", b.data ? b.data : "no hexagon");
    sj_buf_free(&b);
    if (bad) return -1;
    g->steps = (int)g->hex.H;
    g->lo_b = 1L << 40, g->hi_b = -(1L << 40);
    double rows = 0;
    for (long a = 0; a < g->hex.H; a++) {
      long lo, hi;
      hex_row(&g->cone, &g->hex, a, &lo, &hi);
      if (hi < lo) continue;
      rows += (double)(hi - lo + 1);
      g->lo_b = lmin(g->lo_b, lo), g->hi_b = lmax(g->hi_b, hi);
      g->widest[0] = fmax(g->widest[0], (double)(hi - lo + 1));
    }
    step_extents(g, &g->cone, SJ_TM_HYBRID);
    g->proj[0] = (double)(g->hi_b - g->lo_b + 1);
    g->pts = rows;
    for (int d = 1; d <= s->n; d++) {
      g->widest[d] = (double)c->w[d];
      g->proj[d] = (double)(c->w[d] + g->cone.skew_num[d] * (g->hex.H - 1));
      g->pts *= (double)c->w[d];
    }
    hybrid_counts(s, g);
    double period[SJ_HYBRID_MAX_SPACE] = {(double)g->hex.W};
    for (int d = 1; d <= s->n; d++) period[d] = (double)c->w[d];
    inside_shares(s, g, period);
  } else {
    sj_split_shape(&g->cone, c->h, c->w, &g->split);
    g->steps = c->h;
    step_extents(g, &g->cone, SJ_TM_SPLIT);
    g->pts = c->h;
    for (int d = 0; d <= s->n; d++) {
      g->widest[d] = g->proj[d] = (double)g->split.base[d];
      g->pts *= (double)g->split.period[d] / 2;
    }
    split_counts(s, g);
    double period[SJ_HYBRID_MAX_SPACE];
    for (int d = 0; d <= s->n; d++) period[d] = (double)g->split.period[d];
    inside_shares(s, g, period);
  }
  return 0;
}

/* --- blocks --- */

static unsigned pow2_at_least(double v) {
  unsigned p = 1;
  while (p < v && p < 1024) p *= 2;
  return p;
}

/* Threads for the tile (the innermost space dimension on x, a multiple of 32): x covers the
 * widest step up to the budget, the other dimensions take powers of 2 in what is left. */
static void tile_block(const geometry *g, unsigned budget, unsigned block[3]) {
  block[0] = block[1] = block[2] = 1;
  unsigned x = (unsigned)ceil(g->widest[g->n] / 32) * 32;
  block[0] = x < budget ? x : budget;
  unsigned left = budget / block[0];
  for (int i = 1; i <= g->n; i++) {
    unsigned want = pow2_at_least(g->widest[g->n - i]), b = 1;
    while (b * 2 <= left && b < want) b *= 2;
    block[i] = b;
    left /= b;
  }
}

static double ceil_per_block(double e, unsigned b) {
  return ceil(e / b);
}

static double warp_chunks(double e, unsigned unused) {
  (void)unused;
  return e > 0 ? (e + 31) / 32 : 0;
}

/* --- costs --- */

typedef struct per_tile {
  double pts;          /* points */
  double mean_pts;     /* points on average: the tiles the instances cut have fewer */
  double warp_instr;   /* warp instructions */
  double thread_instr; /* instructions summed over the threads */
  double dram;         /* DRAM bytes */
  double l2;           /* bytes between L2 and the multiprocessors */
  double l1;           /* global and shared bytes through L1 */
  double latency;      /* seconds of its chain of steps */
  double barriers;
  double per_thread_step; /* points per thread between barriers (per step: infinite) */
  double unrolled;        /* statements in a thread's unrolled code of a full tile */
} per_tile;

/* The tile's traffic by array: what it copies in (bytes) and what it writes to global memory
 * (bytes, DRAM: each element once; stores: L2, each store), over every array (in, out, stores),
 * and the boxes of those staged in shared memory (staged, staged_elems): as sched/stage.c, the
 * arrays the kernel writes, in turn, while their boxes fit budget bytes. */
typedef struct footprint {
  double in, out, stores, staged, staged_elems;
  int all_staged;  /* no array left in global memory */
  double unstaged; /* of the arrays' element bytes, the share left in global memory */
} footprint;

/* The tile's projection along folded space dimension d, at most the points there are. */
static double clip(const geometry *g, const sj_tm_stencil *s, int d) {
  return fmin(g->proj[d], (double)s->ext[d]);
}

/* Elements of one plane a full tile exchanges with its neighbours over its steps: at the steps
 * where it grows, the halo along each dimension times the tile's extent along the others (about
 * half of a hexagon's steps, those of a split tile's inverted color). */
static double rims(const sj_tm_stencil *s, const geometry *g, const sj_tm_array *arr) {
  double sum = 0;
  for (int d = 0; d <= s->n; d++) {
    if (!(arr->dims >> d & 1)) continue;
    double face = (double)arr->halo[d];
    for (int e = 0; e <= s->n; e++)
      if (e != d && (arr->dims >> e & 1)) face *= clip(g, s, e);
    sum += face;
  }
  return sum * g->steps / 2;
}

/* A staged double buffer of a one-statement kernel (the plane follows the step): its full tiles
 * copy in their flow-in, one plane of the box and the rims where neighbours wrote
 * (sched/flow_in.c; where flow), and store only what is live out of them, the last value of
 * about one plane and the faces neighbours read (sched/liveout.c); the other tiles copy the box in
 * and write each step through. A 2-D array without planes that only some steps read as the
 * step before left it (arrays swapped by pointers: every other step), in hybrid tiles (where
 * alternate): the full tiles' flow-in is the box at those steps and the rims at the steps that
 * read it, and they store the last value of what they write and the rims (fe_swap 1024^2 x 32,
 * the arrays in L2: so staged, hybrid tiles ran 1.11 times the instructions of their unstaged
 * twins for 0.68 times the DRAM bytes, split tiles 1.29 and 1.11 times). Not where every step reads
 * it so (fdtd-2d's arrays: their flow-in is a box each; staged, fdtd-2d 768^2 x 32 ran 39% more
 * instructions for the same DRAM bytes), nor where none does (a copy-back's target, read where its
 * step wrote it: staged, the copy-back 1024^2 x 32 ran 1.5 times the instructions of its unstaged
 * tiles, in L2). */
static void staged_traffic(const sj_tm_stencil *s, const geometry *g, double full,
                           const sj_tm_array *arr, double planes, double box, double written,
                           int flow, int alternate, footprint *f) {
  double in = box * arr->elem, out = written * arr->elem, stores = g->pts * arr->elem;
  if (arr->time_planes && planes >= 2 && s->nests == 1 && full > 0) {
    double edge = rims(s, g, arr) * arr->elem;
    if (flow) in = full * (in / planes + edge) + (1 - full) * in;
    out = full * (out / planes + edge) + (1 - full) * out;
    stores = full * (written / planes * arr->elem + edge) + (1 - full) * stores;
  } else if (alternate && !arr->time_planes && s->n == 1 && full > 0 && arr->from_before > 0 &&
             arr->from_before < 1) {
    double edge = rims(s, g, arr) * arr->elem * arr->read_steps;
    in = full * fmin(in, in * arr->from_before + edge) + (1 - full) * in;
    stores = full * (out + edge) + (1 - full) * stores;
  }
  f->in += in;
  f->out += out;
  f->stores += stores;
}

static void boxes(const sj_tm_stencil *s, const geometry *g, double full, long budget, int flow,
                  int alternate, footprint *f) {
  memset(f, 0, sizeof *f);
  f->all_staged = 1;
  double elems = 0;
  for (int a = 0; a < s->narrays; a++) {
    const sj_tm_array *arr = &s->arrays[a];
    double planes = arr->time_planes && arr->planes > g->steps ? g->steps : (double)arr->planes;
    /* what the tile reaches; staged, a flat index's box is the range between the first and
     * the last element it reaches, whole rows between them */
    unsigned dims = arr->dims;
    if (arr->opaque) planes = arr->written ? 2 : 1, dims = (2u << s->n) - 1;
    double box = planes, written = arr->written ? planes : 0, rows = 1, range = planes;
    for (int d = 0; d <= s->n; d++)
      if (dims >> d & 1) {
        double along = clip(g, s, d) + (double)arr->halo[d];
        box *= along;
        if (arr->stride[d])
          rows += (along - 1) * (double)arr->stride[d];
        else
          range *= along;
        written *= clip(g, s, d); /* a tile wider than the array touches the array */
      }
    range *= rows;
    double bytes = (double)sj_shared_bytes((long)ceil(range * arr->elem));
    if (arr->written && !arr->temp && f->staged + bytes <= (double)budget) {
      f->staged += bytes;
      f->staged_elems += range;
      staged_traffic(s, g, full, arr, planes, range, written, flow, alternate, f);
    } else {
      f->all_staged = 0;
      f->unstaged += arr->elem;
      f->in += box * arr->elem;
      f->out += written * arr->elem;
    }
    elems += arr->elem;
  }
  if (elems > 0) f->unstaged /= elems;
}

static double body_instr(const sj_tm_stencil *s) {
  return s->loads + s->stores + s->ops;
}

/* A tile of hybrid or split tiles with block: its work, bytes and latency. */
static void tile_costs(const sj_tm_stencil *s, const sj_tm_candidate *c, const geometry *g,
                       unsigned threads, long budget, per_tile *t, long *shared) {
  double warp_iters = 0, thread_iters = 0, row_iters = 0, copies = 0, l2 = 0;
  t->unrolled = 0;
  double full = full_share(g, c->block);
  long halo[SJ_HYBRID_MAX_SPACE] = {0, 0, 0};
  for (int a = 0; a < s->narrays; a++)
    for (int d = 0; d <= s->n; d++) halo[d] = lmax(halo[d], s->arrays[a].halo[d]);
  for (int a = 0; a < g->steps; a++) {
    double rows = 1, iters = 1, own_rows = 1, area = 1, reach = 1;
    for (int d = 0; d <= s->n; d++) {
      double e = step_extent(g, a, d, NULL, 0);
      double mine = step_extent(g, a, d, ceil_per_block, c->block[s->n - d]);
      rows *= d < s->n ? e : step_extent(g, a, d, warp_chunks, 0);
      iters *= mine;
      own_rows *= d < s->n ? mine : 1;
      area *= e;
      reach *= e + (double)halo[d];
    }
    warp_iters += rows;
    thread_iters += iters;
    row_iters += own_rows;
    l2 += s->read_bytes * reach + s->write_bytes * area; /* unstaged: every step from L2 */
  }
  /* the copies a thread runs at every step: its share of the tile's widest step (a window of
   * constant size, astgen/lower_full.c), whatever the step's own extent; by orientation */
  for (int o = 0; o < 2; o++) {
    double window = 1;
    for (int d = 0; d <= s->n; d++) {
      double widest = 0;
      for (int a = 0; a < g->steps; a++) widest = fmax(widest, g->ext[a][d][o]);
      window *= ceil(widest / c->block[s->n - d]);
    }
    copies += g->steps * window * threads / 2;
    if (full > 0) t->unrolled = fmax(t->unrolled, g->steps * window);
  }
  /* per point, per copy a thread runs (idle or not), per thread; a thread's steps beyond what
   * its code may unroll (the full tiles' code and the general code each hold them) run their
   * rows and points in loops (the loops' own instructions, summed over the threads) */
  double versions = full > 0 ? 2 : 1;
  /* hybrid tiles' rows past the unrolled steps stay cheap: their bounds are a constant window
   * apart (astgen/lower_full.c), while split tiles' rows loop between a color's bounds (the
   * emulator: jacobi-2d 1024^2 hybrid h=5 w=32x256 and h=7 w=32x128 run 16.8 and 19.7
   * instructions an update at level 2, split h=12..16 43 to 50) */
  int looped = !c->rolled && c->kind == SJ_TM_SPLIT && thread_iters * versions > UNROLL_INSTANCES;
  double point = body_instr(s), per_thread;
  double guard = looped ? 0 : GUARD_INSTR + GUARD_DIM_INSTR * s->n;
  double loops =
      looped ? threads * (row_iters * LOOP_ROW_INSTR + thread_iters * LOOP_POINT_INSTR) : 0;
  if (c->rolled) {
    point += rolled_addressing[s->n] + ROLLED_POINT_INSTR;
    guard = 0;
    per_thread = g->steps * ROLLED_STEP_INSTR;
  } else {
    double bounds = (1 - full) * STEP_BOUND_INSTR * (s->n + 1);
    per_thread = thread_setup[s->n] + g->steps * (STEP_FULL_INSTR + bounds);
  }
  /* a tile the instances cut runs its window's copies and guards all the same, its points alone
   * fewer: the points of the run over the tiles with points (rolled: every tile counted full,
   * as when its constants were fitted to the H100, bench/results/tile-model.md section 1) */
  double run_points = (double)s->steps * (1 - s->empty);
  for (int d = 0; d <= s->n; d++) run_points *= (double)s->ext[d];
  double share = g->tiles > 0 && !c->rolled ? fmin(1, run_points / g->tiles / g->pts) : 1;
  t->pts = g->pts;
  t->mean_pts = g->pts * share;
  t->barriers = g->steps;
  t->per_thread_step = g->pts / g->steps / threads;
  t->warp_instr = warp_iters * share * point + fmax(warp_iters, copies / 32) * guard + loops / 32 +
                  ceil(threads / 32.0) * per_thread;
  t->thread_instr = t->mean_pts * point + fmax(t->mean_pts, copies) * guard + loops +
                    (double)threads * per_thread;
  t->l1 = g->pts * s->access_bytes * SECTOR_WASTE;
  footprint f;
  /* 3-D hybrid tiles keep the box copy-in (sched/hybrid.c looks for no flow-in there) */
  boxes(s, g, full, budget, c->kind == SJ_TM_SPLIT || s->n <= 1, c->kind == SJ_TM_HYBRID, &f);
  t->dram = f.in + f.out;
  t->l2 = l2;
  *shared = 0;
  /* a step's points in a loop wait on each other's loads; unrolled (lower.c, up to
   * UNROLL_INSTANCES a thread), a thread's copies are independent and their loads in flight at
   * once: a step waits on one of them */
  double chain = c->rolled || looped ? thread_iters : g->steps;
  if (!c->staged || !s->stageable || f.staged <= 0) { /* nothing boxed: all in global memory */
    t->latency = chain * LAT_ITER_S + g->steps * LAT_BARRIER_S;
    return;
  }
  /* the boxes copied in, the steps from shared memory, each result stored to shared memory
   * and written through to global memory */
  *shared = (long)ceil(f.staged);
  double spread = 1; /* copies a thread runs per element: the box rounded up to the block */
  for (int d = 0; d <= s->n; d++) {
    double e = clip(g, s, d) + (double)halo[d];
    unsigned b = c->block[s->n - d];
    spread *= ceil(e / b) * b / e;
  }
  double copies_in = f.staged_elems * spread;
  t->warp_instr +=
      (f.staged_elems * COPY_INSTR + copies_in * GUARD_INSTR) / 32 + warp_iters * share * s->stores;
  t->thread_instr +=
      f.staged_elems * COPY_INSTR + copies_in * GUARD_INSTR + t->mean_pts * s->stores;
  t->l1 += (f.staged + g->pts * s->write_bytes) * SECTOR_WASTE;
  /* the arrays left in global memory are read and written through L2 at every step, as
   * unstaged (fdtd-2d 2048^2 on an H200, two of its three arrays left out: hybrid h=5 2.6x
   * slower than modeled without it, and 2x slower than per step) */
  t->l2 = f.in + f.stores + f.unstaged * l2;
  t->barriers += 1;
  /* the box's copies are unrolled (astgen/lower_full.c): their loads in flight at once */
  double copy_chain = c->rolled ? ceil(f.staged_elems / threads) : 1;
  t->latency = chain * (f.all_staged ? LAT_SHARED_S : LAT_ITER_S) + (g->steps + 1) * LAT_BARRIER_S +
               copy_chain * LAT_ITER_S;
}

/* The per-step mapping's block (sched/gpu_shape.c) and its costs. */
static void per_step_costs(const sj_tm_stencil *s, sj_tm_cost *out, per_tile *t, double *tiles) {
  long ext[3] = {1, 1, 1};
  for (int d = 0; d <= s->n; d++) ext[d] = s->ext[s->n - d];
  int ppt;
  sj_gpu_block_shape(s->n + 1, ext, out->c.block, &ppt);
  /* tiles along x start on a multiple of the block width (sched/baseline.c) */
  long bx = out->c.block[0], x0 = s->lo[s->n] - ((s->lo[s->n] % bx) + bx) % bx;
  ext[0] = s->lo[s->n] + s->ext[s->n] - x0;
  long grid = 1;
  for (int d = 0; d <= s->n; d++) {
    long per = (long)out->c.block[d] * (d == 0 ? ppt : 1);
    grid *= (ext[d] + per - 1) / per;
  }
  double points = (double)s->steps * (1 - s->empty);
  for (int d = 0; d <= s->n; d++) points *= (double)s->ext[d];
  out->grid = grid;
  out->launches = s->step_launches;
  *tiles = (double)grid * (double)out->launches;
  unsigned threads = out->c.block[0] * out->c.block[1] * out->c.block[2];
  t->pts = t->mean_pts = points / *tiles;
  /* each update of a folded point in a thread of its nest's launch */
  double setup = thread_setup[s->n] * (s->per_point > 1 ? s->per_point : 1);
  t->warp_instr = ceil(threads / 32.0) * (ppt * body_instr(s) + setup);
  t->thread_instr = t->pts * (body_instr(s) + setup / ppt);
  t->l1 = t->pts * s->access_bytes * SECTOR_WASTE;
  t->dram = t->l2 = t->pts * (s->read_bytes + s->write_bytes);
  t->latency = LAT_BLOCK_S;
  t->barriers = 0;
  t->per_thread_step = 1e30;
}

/* Registers a thread of a tile's kernel holds: its ids, bounds and bases, and some for each
 * point of a step it runs unrolled, up to the bound the lowering gives ptxas (astgen/lower.c,
 * SJ_UNROLL_MAX_REGS). ptxas -v: 40 to 51 for 2 to 5 points (split jacobi-2d 8x32, jacobi-1d 512),
 * 62 for 8 (heat-3d 4x16x32), 107 to 128 for hybrid jacobi-2d 4096^2's 32x128 to 32x256. They bound
 * the blocks a multiprocessor holds as its shared memory does. */
static double tile_registers(const sj_tm_candidate *c, const per_tile *t) {
  if (c->rolled) return ROLLED_REGS;
  return fmin(SJ_UNROLL_MAX_REGS, BASE_REGS + POINT_REGS * ceil(t->per_thread_step));
}

/* The cost of c (its block set) with geometry g (NULL: the per-step mapping). */
static int cost_of(const sj_tm_stencil *s, const sj_tm_candidate *c, const geometry *g,
                   const sj_gpu_device *d, long budget, sj_tm_cost *out) {
  memset(out, 0, sizeof *out);
  out->c = *c;
  out->budget = budget;
  per_tile t = {0};
  double tiles;
  long shared = 0;
  if (!g) {
    out->c.staged = 0;
    per_step_costs(s, out, &t, &tiles);
  } else {
    out->grid = g->grid;
    out->launches = g->launches;
    tiles = g->tiles;
    tile_costs(s, c, g, c->block[0] * c->block[1] * c->block[2], budget, &t, &shared);
    out->c.staged = shared > 0;
  }
  unsigned threads = out->c.block[0] * out->c.block[1] * out->c.block[2];
  out->threads = threads;
  out->shared = shared;
  out->points_per_tile = t.pts;
  if (out->launches < 1 || tiles <= 0)
    return snprintf(out->why, sizeof out->why, "no tile has points"), -1;
  if ((int)threads > d->threads_per_block)
    return snprintf(out->why, sizeof out->why, "%u threads per block, the limit is %d", threads,
                    d->threads_per_block),
           -1;
  if (shared > d->shared_per_block)
    return snprintf(out->why, sizeof out->why, "%ld B of shared memory per block, the limit is %ld",
                    shared, d->shared_per_block),
           -1;
  if (out->grid > (long)d->max_grid[0])
    return snprintf(out->why, sizeof out->why, "%ld blocks exceed the grid", out->grid), -1;
  /* resident blocks per multiprocessor: the shared memory of each, and what the system
   * reserves for it, against the multiprocessor's */
  double resident = fmin(d->blocks_per_sm, floor((double)d->threads_per_sm / threads));
  if (shared > 0)
    resident =
        fmin(resident, floor((double)d->shared_per_sm / (double)(shared + d->shared_reserved)));
  if (g) resident = fmin(resident, floor(REGS_PER_SM / (threads * tile_registers(c, &t))));
  if (resident < 1)
    return snprintf(out->why, sizeof out->why, "no block fits a multiprocessor"), -1;
  out->resident = (int)resident;

  double B = tiles / (double)out->launches; /* blocks with work per launch */
  double slots = d->sms * resident, waves = ceil(B / slots);
  double per_sm = ceil(B / d->sms), running = fmin(B, slots);
  double occupancy = fmin(1, running * threads / (d->sms * SAT_THREADS));
  int in_l2 = s->footprint <= L2_FIT * (double)d->l2_bytes;
  double bw = d->dram_bw * DRAM_EFF * occupancy, l2_bw = bw * L2_SPEEDUP;
  double dram = t.dram;
  if (g && !out->c.staged) { /* resident tiles beyond L2 lose their reuse */
    double working = running * t.dram, room = L2_FIT * (double)d->l2_bytes;
    if (working > room)
      dram += (working - room) / working * (t.pts * (s->read_bytes + s->write_bytes) - dram);
  }
  double l1_bw = L1_BYTES_CLK * d->clock_hz;
  double memory = fmax(in_l2 ? 0 : B * dram / bw, B * t.l2 / l2_bw) + per_sm * t.l1 / l1_bw;
  double together = fmin(per_sm, resident);
  double rate = fmin(ISSUE_CLK, together * ceil(threads / 32.0) / DEP_CLK);
  /* a block waiting at its barrier leaves the multiprocessor to the others resident with it */
  double issue = per_sm * (t.warp_instr / rate + t.barriers * BARRIER_CLK / together) / d->clock_hz;
  double overlap = t.per_thread_step / (t.per_thread_step + OVERLAP_POINTS);
  double work = fmax(memory, issue) + (1 - overlap) * fmin(memory, issue);
  double latency = waves * t.latency;
  double idle = ((double)out->grid - B > 0 ? (double)out->grid - B : 0) / d->sms * IDLE_BLOCK_S;
  out->active = B;
  double per_point = s->per_point > 1 ? s->per_point : 1; /* updates, not folded points */
  out->bytes_per_update = dram / t.pts / per_point;
  out->in_l2 = in_l2;
  out->instr_per_update = t.thread_instr / t.mean_pts / per_point;
  out->unrolled = g ? t.unrolled : 0; /* set by tile_costs */
  out->time = (double)out->launches * (LAUNCH_S + fmax(work, latency) + idle);
  out->ok = 1;
  return 0;
}

/* blocks per multiprocessor the search prefers where it can (sj_tm_before); the most a staged
 * tile's budget is cut to make room for */
enum { MIN_BLOCKS = 2, MAX_ROOM = 4 };

int sj_tm_before(const sj_tm_cost *a, const sj_tm_cost *b) {
  int alone_a = a->resident < MIN_BLOCKS, alone_b = b->resident < MIN_BLOCKS;
  return alone_a != alone_b ? alone_b : a->time < b->time;
}

/* The cost of tiles c with geometry g when a block may stage budget bytes: with c's block, or
 * the best of a few (sj_tm_before). */
static int cost_within(const sj_tm_stencil *s, const sj_tm_candidate *c, const geometry *g,
                       const sj_gpu_device *d, long budget, sj_tm_cost *out) {
  if (c->block[0]) return cost_of(s, c, g, d, budget, out);
  static const unsigned threads[] = {128, 256, 512};
  int found = -1;
  for (size_t i = 0; i < sizeof threads / sizeof *threads; i++) {
    if ((int)threads[i] > d->threads_per_block) break;
    sj_tm_candidate mine = *c;
    sj_tm_cost cost;
    tile_block(g, threads[i], mine.block);
    int rc = cost_of(s, &mine, g, d, budget, &cost);
    if (found < 0 || (rc == 0 && sj_tm_before(&cost, out))) *out = cost;
    if (rc == 0) found = 0;
  }
  return found;
}

/* c's cost, staging at most budget bytes a block; budget 0: the device's limit, or less where
 * that ranks first (room for k blocks per multiprocessor). */
static int evaluate(const sj_tm_stencil *s, const sj_tm_candidate *c, const sj_gpu_device *d,
                    long budget, sj_tm_cost *out) {
  if (c->kind == SJ_TM_PER_STEP) return cost_of(s, c, NULL, d, 0, out);
  memset(out, 0, sizeof *out);
  out->c = *c;
  geometry g;
  if (!s->tileable) return snprintf(out->why, sizeof out->why, "no dependence cone"), -1;
  if (tile_geometry(s, c, &g, out->why, sizeof out->why)) return -1;
  int rc = cost_within(s, c, &g, d, budget ? budget : d->shared_per_block, out);
  if (budget) return rc;
  /* the same tiles staging no more than k blocks per multiprocessor may each have (fewer arrays,
   * or none): less from shared memory, more blocks resident; the best kept */
  long full = out->c.staged ? out->shared : 0;
  for (int k = MIN_BLOCKS; rc == 0 && k <= MAX_ROOM; k++) {
    long within = d->shared_per_sm / k - d->shared_reserved;
    sj_tm_cost fewer;
    if (within >= full || cost_within(s, c, &g, d, within, &fewer)) continue;
    fewer.room = k;
    if (sj_tm_before(&fewer, out)) *out = fewer;
    if (!fewer.c.staged) return rc; /* nothing staged: so with less room */
  }
  /* the same tiles with nothing staged, every step from L2: where the boxes' copies cost more
   * than the reuse they give (a pair of arrays whose roles alternate stages both boxes whole) */
  sj_tm_candidate bare = *c;
  bare.staged = 0;
  sj_tm_cost none;
  if (rc == 0 && out->c.staged && !cost_within(s, &bare, &g, d, 0, &none) &&
      sj_tm_before(&none, out))
    *out = none;
  return rc;
}

int sj_tm_evaluate(const sj_tm_stencil *s, const sj_tm_candidate *c, const sj_gpu_device *d,
                   sj_tm_cost *out) {
  return evaluate(s, c, d, 0, out);
}

int sj_tm_evaluate_within(const sj_tm_stencil *s, const sj_tm_candidate *c, const sj_gpu_device *d,
                          long budget, sj_tm_cost *out) {
  return evaluate(s, c, d, budget > 0 ? budget : 1, out);
}

void sj_tm_describe(sj_buf *b, const sj_tm_cost *c) {
  sj_buf_printf(b, "%s", sj_tm_kind_names[c->c.kind]);
  if (c->c.kind != SJ_TM_PER_STEP && c->c.h > 0) { /* h 0: no sizes were searched */
    sj_buf_printf(b, " h=%d w=%ld", c->c.h, c->c.w[0]);
    for (int d = 1; d < SJ_HYBRID_MAX_SPACE && c->c.w[d]; d++) sj_buf_printf(b, "x%ld", c->c.w[d]);
    if (c->c.staged) sj_buf_puts(b, " staged");
  }
  if (!c->ok) {
    sj_buf_printf(b, ": %s", c->why);
    return;
  }
  sj_buf_printf(b,
                ": %.2f B/update, %.1f instr/update, %.0f of %ld blocks per launch (%ux%ux%u), "
                "%ld launches, %ld B shared, %d per multiprocessor, %.3f ms%s",
                c->bytes_per_update, c->instr_per_update, c->active, c->grid, c->c.block[0],
                c->c.block[1], c->c.block[2], c->launches, c->shared, c->resident, c->time * 1e3,
                c->in_l2 ? " (the arrays fit the L2)" : "");
  if (c->room)
    sj_buf_printf(b, " (staging within %ld B a block, room for %d per multiprocessor)", c->budget,
                  c->room);
}
