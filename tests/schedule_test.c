/* The decisions the schedulers explain: the stencil form is recognized where the time loop
 * carries every dependence (several nests folded into one time dimension) and refused
 * where a sweep updates in place; parallel loops are found in other affine nests; a nest
 * without one runs in one thread on the GPU. On the GPU, isl's scheduler brings parallel
 * loops out of sequential ones, skews sweeps into wavefronts and splits statements, and the
 * mapped loops and grids follow (the kernels are compiled for the emulator, not run, at
 * PolyBench's LARGE sizes). The files are the test kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_file.h"

static int failures;
static jit_options opts; /* for every context (zero: the defaults) */

/* Compiles dir/file for the integer arguments given (arrays NULL) on device and checks
 * that the explanation contains every wanted fragment and none of the unwanted one. */
static void expect(const char *dir, const char *file, jit_device device, const int *ints, int n,
                   const char *const *wanted, const char *unwanted) {
  jit_context *ctx = jit_context_create(device);
  if (ctx && jit_context_set_options(ctx, &opts)) {
    jit_context_destroy(ctx);
    ctx = NULL;
  }
  jit_kernel *k;
  int st = sj_compile_kernel_file(ctx, dir, file, ints, n, &k);
  if (st) {
    printf("FAIL %s: %s\n", file, ctx ? jit_context_error(ctx) : jit_last_error());
    failures++;
  } else {
    const char *text = jit_kernel_schedule(k);
    for (int i = 0; wanted[i]; i++)
      if (!strstr(text, wanted[i])) {
        printf("FAIL %s: the schedule does not say \"%s\":\n%s\n", file, wanted[i], text);
        failures++;
      }
    if (unwanted && strstr(text, unwanted)) {
      printf("FAIL %s: the schedule says \"%s\"\n", file, unwanted);
      failures++;
    }
    jit_kernel_release(k);
  }
  jit_context_destroy(ctx);
}

/* dir/file under JIT_TILING=tiling on the emulator: the compile fails with
 * JIT_ERR_UNSUPPORTED and a message holding every wanted fragment. */
static void expect_refused(const char *dir, const char *file, const int *ints, int n,
                           const char *tiling, const char *const *wanted) {
  setenv("JIT_TILING", tiling, 1);
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
  jit_kernel *k;
  int st = sj_compile_kernel_file(ctx, dir, file, ints, n, &k);
  const char *msg = ctx ? jit_context_error(ctx) : jit_last_error();
  if (st != JIT_ERR_UNSUPPORTED || k) {
    printf("FAIL %s: JIT_TILING=%s gave %d, not JIT_ERR_UNSUPPORTED: %s\n", file, tiling, st, msg);
    failures++;
  }
  for (int i = 0; wanted[i]; i++)
    if (!strstr(msg, wanted[i])) {
      printf("FAIL %s: the refusal does not say \"%s\": %s\n", file, wanted[i], msg);
      failures++;
    }
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  unsetenv("JIT_TILING");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: schedule_test KERNEL_DIR\n");
    return 2;
  }
  setenv("JIT_CACHE", "off", 1); /* every explanation from a compile of its own */
  const char *dir = argv[1];
  const int shape[] = {4, 40, 36};
  expect(dir, "jacobi2d_5pt.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"stencil form: loop 't'", "over 1 nest", "exact flow dependences: {",
                               NULL},
         "not computed");
  setenv("JIT_EXPLAIN_DEPS", "0", 1); /* the rest read the decisions only */
  expect(dir, "jacobi2d_5pt.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"exact dependences: not computed (JIT_EXPLAIN_DEPS=0)", NULL},
         "exact flow dependences");
  expect(dir, "fdtd2d.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"stencil form", "over 4 nests folded", NULL}, "not in stencil");
  expect(dir, "jacobi2d_copyback.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"over 2 nests folded", NULL}, "not in stencil");
  expect(dir, "seidel2d.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"not in stencil form", "sequential band", NULL}, "parallel loops");
  /* statements directly in the time loop: nests of one point, so still a stencil; they touch
   * nothing the stencil's nest does in a step, so the three share one folded step */
  expect(dir, "ti_time_stmt1d.c", JIT_DEVICE_CPU, shape, 2,
         (const char *const[]){"stencil form: loop 't'", "over 3 nests folded",
                               "1 folded step a step", NULL},
         "not in stencil");
  /* the time loop inside a batch loop: the refusal names the loop that carries the
   * dependence and says the outer one carries none */
  expect(dir, "batched_rows.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"the loop 't' inside the outer loop 'b' carries a dependence",
                               "'b' carries none", NULL},
         "stencil form: loop");
  expect(dir, "seidel1d.c", JIT_DEVICE_CPU, shape, 2,
         (const char *const[]){"the loop 'i' inside the outer loop 't' carries a dependence", NULL},
         "carries none");
  const int mm[] = {32, 24, 16};
  expect(dir, "matmul.c", JIT_DEVICE_CPU, mm, 3, (const char *const[]){"parallel loops", NULL},
         "stencil form: loop");
  expect(dir, "matmul.c", JIT_DEVICE_EMU, mm, 3,
         (const char *const[]){"GPU schedule: isl's", "kernel 0: grid", "2 parallel loops", NULL},
         "kernel 1:");
  const int one[] = {100};
  expect(dir, "prefix_sum.c", JIT_DEVICE_EMU, one, 1,
         (const char *const[]){"no parallel loop: runs in one thread", "block 1x1x1", NULL},
         "parallel loops");
  /* gemm (j inside the sequential k) and the product with k outermost: i and j come out
   * as one kernel on a 2-D grid of 2-D blocks, j (contiguous in C and B) along x */
  const int large_mm[] = {1000, 1100, 1200};
  const char *const both_out[] = {"GPU schedule: isl's",
                                  "kernel 0: grid 9x125x1, block 32x8x1: 2 parallel loops "
                                  "(member 1 of 2 on x): 4 points per thread",
                                  NULL};
  expect(dir, "gemm.c", JIT_DEVICE_EMU, large_mm, 3, both_out, "host loop");
  expect(dir, "matmul_kij.c", JIT_DEVICE_EMU, large_mm, 3, both_out, "host loop");
  /* seidel-2d: nothing parallel in the C order; skewed, the outer loop is a wavefront run
   * from the host and the two inner ones a 2-D grid */
  const int seidel[] = {500, 2000};
  expect(dir, "seidel2d.c", JIT_DEVICE_EMU, seidel, 2,
         (const char *const[]){"GPU schedule: isl's", "host loop over 1 member (7988 iterations)",
                               "kernel 0: grid 16x63x1, block 32x8x1: 2 parallel loops", NULL},
         "runs in one thread");
  const int wide[] = {2000};
  expect(dir, "edit_distance.c", JIT_DEVICE_EMU, wide, 1,
         (const char *const[]){"a wavefront of 2 loops",
                               "host loop over 1 member (3997 iterations)",
                               "kernel 0: grid 63x1x1, block 32x1x1", NULL},
         "runs in one thread");
  /* trisolv: rows in order; the copies of b and the divisions are parallel over all rows
   * (a 1-D loop of 2000 points: 63 blocks of 32 threads, not 2 of 256) */
  expect(dir, "forward_subst.c", JIT_DEVICE_EMU, wide, 1,
         (const char *const[]){"GPU schedule: isl's", "kernel 0: grid 63x1x1, block 32x1x1",
                               "host loop over 1 member (2000 iterations)", NULL},
         "block 256x1x1");
  const int steps[] = {2, 2000};
  expect(dir, "jacobi1d_3pt.c", JIT_DEVICE_EMU, steps, 2,
         (const char *const[]){"per time step", "kernel 0: grid 63x1x1, block 32x1x1", NULL},
         "isl's");
  /* fdtd-2d 2048^2 ran per step in 4.47 ms on an H200, every tiling 1.8x slower or more
   * (bench/results/gpu-NVIDIA-H200.md): the model counts the points of its one-row nest
   * (ey[0][j] = fict[t]) as a row, not as a fourth of each step's plane; per step, the row and
   * the updates of ey and ex share a launch, hz has the other */
  const int fdtd[] = {100, 2048, 2048};
  expect(dir, "fdtd2d.c", JIT_DEVICE_EMU, fdtd, 3,
         (const char *const[]){"the per-step mapping, modeled", "200 launches",
                               "GPU schedule: per time step, the nests that touch nothing in "
                               "common in a step in one launch",
                               "kernel 1: grid 16x256x1", NULL},
         "kernel 2:");
  /* floyd-warshall: split on i = k and j = k, the rest of each step is a 2-D grid */
  const int paths[] = {2800};
  expect(dir, "shortest_paths.c", JIT_DEVICE_EMU, paths, 1,
         (const char *const[]){"statements split", "host loop over 1 member (2800 iterations)",
                               "grid 22x350x1, block 32x8x1: 2 parallel loops", NULL},
         NULL);
  /* a time step's ends set through locals of their own: still a stencil, every kernel parallel */
  const int ends[] = {20, 4099};
  expect(dir, "boundary_mean1d.c", JIT_DEVICE_EMU, ends, 2,
         (const char *const[]){"stencil form: loop 't'",
                               "kernel 2: grid 1x1x1, block 1x1x1: 1 "
                               "parallel loop",
                               NULL},
         "no parallel loop");
  /* the two ends, a statement each (placed apart when tiled), share one kernel per step */
  expect(dir, "boundary_locals1d.c", JIT_DEVICE_EMU, ends, 2,
         (const char *const[]){"over 3 nests folded", "kernel 2: grid 1x1x1", NULL}, "kernel 3:");
  /* per step, the nests of a level launch together: ti_heat1d's two boundary points go with
   * its stencil (a launch a step, not three), boundary_sides' four sides together after it,
   * over one row of 766 places that each thread runs on every side (not the 768^2 box) */
  const int ti[] = {64, 100000}, sides[] = {32, 768, 768}, cube[] = {32, 384, 384, 384};
  expect(dir, "ti_heat1d.c", JIT_DEVICE_EMU, ti, 2,
         (const char *const[]){"1 folded step a step",
                               "GPU schedule: per time step, the nests that touch nothing in "
                               "common in a step in one launch",
                               "kernel 0: grid 391x1x1, block 256x1x1", "64 launches", NULL},
         "kernel 1:");
  /* three arrays rotated through pointers: a nest for each place in the rotation, each at every
   * third step; never two at one step, so they share the fold (one folded step a step, as the
   * tiles of a single nest), and the tile model counts the per-step mapping's one launch a step,
   * not three */
  const int rotation[] = {64, 100000};
  expect(dir, "fe_swap_countdown.c", JIT_DEVICE_EMU, rotation, 2,
         (const char *const[]){"over 3 nests folded", "1 folded step a step",
                               "blocks per launch (256x1x1), 64 launches", NULL},
         NULL);
  /* flat arrays seen in rows (sched/view.c): the planes and rows of a flat index; a record's
   * field (its constant rounded down into the last dimension); and no rows for an array read
   * across the ends of its rows, while its copy, read and written within them, has them */
  const int planes[] = {8, 40, 33}, complex[] = {9, 100}, wrap[] = {6, 40, 33};
  expect(dir, "flat_planes2d.c", JIT_DEVICE_EMU, planes, 3,
         (const char *const[]){"flat arrays seen in rows:\n  'A' (2639 elements) as A[2][40][33]\n",
                               "stencil form", NULL},
         NULL);
  expect(dir, "flat_complex1d.c", JIT_DEVICE_EMU, complex, 2,
         (const char *const[]){"  'z' (400 elements) as z[2][100][2]\n", NULL}, NULL);
  expect(dir, "flat_wrap.c", JIT_DEVICE_EMU, wrap, 3,
         (const char *const[]){"  'B' (1287 elements) as B[39][33]\n", NULL}, "  'A' (");
  /* staging only where the tile model ranks it first (sched/tile_model.c): heat-2d's double
   * buffer stages its tiles; the copy-back form, which would stage both arrays' boxes whole,
   * runs the same tiles from global memory */
  setenv("JIT_TILING", "hybrid", 1);
  const int heat2d[] = {32, 1024, 1024}, copyback[] = {64, 1024};
  expect(dir, "heat2d_9pt.c", JIT_DEVICE_EMU, heat2d, 3,
         (const char *const[]){"boxes: A 2x", " staged in ", NULL}, "nothing staged");
  expect(
      dir, "jacobi2d_copyback.c", JIT_DEVICE_EMU, copyback, 2,
      (const char *const[]){"GPU schedule: hybrid", "nothing staged: the tile model ranks", NULL},
      "boxes:");
  setenv("JIT_TILING", "none", 1);
  expect(dir, "boundary_sides.c", JIT_DEVICE_EMU, sides, 3,
         (const char *const[]){"2 folded steps a step", "in one launch (stencil form",
                               "; kernel 1: nests that fill little of their box",
                               "kernel 1: grid 24x1x1, block 32x1x1", NULL},
         "kernel 2:");
  /* the faces i = 0 and i = N - 1 of a cube after its stencil: one plane of threads */
  expect(dir, "boundary_faces3d.c", JIT_DEVICE_EMU, cube, 4,
         (const char *const[]){"; kernel 1: nests that fill little of their box",
                               "kernel 0: grid 3x96x192", "kernel 1: grid 6x48x1", NULL},
         "kernel 2:");
  unsetenv("JIT_TILING");
  /* floating-point reductions keep the C order (exact mode): only the loops over the outputs are
   * mapped, the accumulation runs in order inside each thread (rows: j inside; columns: isl's
   * scheduler brings j out of i, i stays inside), and a whole-vector sum runs in one thread */
  const int square[] = {2000, 2000};
  expect(dir, "row_sums.c", JIT_DEVICE_EMU, square, 2,
         (const char *const[]){"kernel 0: grid 63x1x1, block 32x1x1: 1 parallel loop",
                               "kernel 1: grid 63x1x1, block 32x1x1: 1 parallel loop",
                               "in parallel where a kernel line says so): rows over "
                               "loop 'j' (S1), peak over loop 'j' (S1), cols over loop 'i' (S3)\n",
                               NULL},
         "2 parallel loops");
  expect(dir, "vector_sum.c", JIT_DEVICE_EMU, wide, 1,
         (const char *const[]){"kernel 0: grid 1x1x1, block 1x1x1: no parallel loop",
                               "in parallel where a kernel line says so): sum over loop "
                               "'i' (S1), dot over loop 'i' (S1), low over loop 'i' (S1)\n",
                               NULL},
         "kernel 1:");
  expect(dir, "gemm.c", JIT_DEVICE_EMU, large_mm, 3,
         (const char *const[]){"kernel line says so): C over loop 'k' (S1)\n", NULL}, NULL);
  expect(dir, "forward_subst.c", JIT_DEVICE_EMU, wide, 1,
         (const char *const[]){"kernel line says so): x over loop 'j' (S1)\n", NULL}, NULL);
  /* with reassociation allowed, the same reductions run in parallel where the loops over the
   * outputs do not fill the GPU: a dot product over the whole grid, rows over y with the
   * columns along the warps; never where they do (gemm) nor in exact mode */
  const int dot_n[] = {100003}, rows_nm[] = {64, 4099};
  expect(dir, "red_dot.c", JIT_DEVICE_EMU, dot_n, 1,
         (const char *const[]){"kernel 0: grid 1x1x1", "not reassociated", NULL},
         "reductions in parallel");
  /* integer sums give the same bits in any order: in parallel in exact mode too */
  const int int_n[] = {50000};
  expect(dir, "red_int.c", JIT_DEVICE_EMU, int_n, 1,
         (const char *const[]){"kernel 0: grid 391x1x1",
                               "reductions in parallel: s (S0) p (S0): partials per thread", NULL},
         "kernel 0: grid 1x1x1");
  opts.reassociate = 1;
  expect(dir, "red_dot.c", JIT_DEVICE_EMU, dot_n, 1,
         (const char *const[]){"kernel 1: grid 391x1x1, block 256x1x1",
                               "reductions in parallel: s (S1): partials per thread, shfl in the "
                               "warp, the block's warps combined in shared memory, an atomic per "
                               "block",
                               "kernel 3: grid 391x1x1, block 256x1x1",
                               "reductions in parallel: sq (S3)",
                               "reductions (reassociation allowed", NULL},
         "not reassociated");
  expect(dir, "red_rows.c", JIT_DEVICE_EMU, rows_nm, 2,
         (const char *const[]){"kernel 0: grid 33x8x1, block 32x8x1: 2 parallel loops (member 1 "
                               "of 2 on x)",
                               "reductions in parallel: y (S0) r (S0)", NULL},
         NULL);
  expect(dir, "gemm.c", JIT_DEVICE_EMU, large_mm, 3,
         (const char *const[]){"reductions (reassociation allowed", NULL}, "in parallel:");
  opts.reassociate = 0;
  /* what reads the accumulated element inside the loop is no reduction, nor a stencil */
  expect(dir, "running_total.c", JIT_DEVICE_EMU, square, 2,
         (const char *const[]){"GPU schedule", NULL}, "reductions");
  expect(dir, "seidel2d.c", JIT_DEVICE_EMU, seidel, 2, (const char *const[]){"GPU schedule", NULL},
         "reductions");
  expect(dir, "prefix_sum_rows.c", JIT_DEVICE_EMU, square, 2,
         (const char *const[]){"GPU schedule", NULL}, "reductions");
  /* a compile kept small by its user: isl's scheduler (a 16th of the budget) gives up and
   * the C order is kept, with a note, rather than the compile failing */
  opts.max_compile_ops = 400000;
  expect(dir, "shortest_paths.c", JIT_DEVICE_EMU, paths, 1,
         (const char *const[]){"GPU schedule: the C order",
                               "the exact dependences isl's scheduler needs take more than its "
                               "budget of 25000 isl operations: the original order is kept",
                               NULL},
         "GPU schedule: isl's");
  opts.max_compile_ops = 0;
  /* a nest on which isl's scheduler would run for minutes (its simplex grows big numbers at
   * this size, within the operation count): stopped at its time budget, the C order kept */
  expect(dir, "lu_scratch.c", JIT_DEVICE_EMU, wide, 1,
         (const char *const[]){"GPU schedule: the C order",
                               "isl's scheduler stopped after 2000 ms (its time budget): the "
                               "original order is kept",
                               NULL},
         "GPU schedule: isl's");
  /* a mutated heat-3d whose exact dependences alone need more than the scheduler's budget of
   * operations (seconds; 10 s of a compile under ASan before they were bounded): whichever
   * budget, of time or of operations, stops it first, the C order is kept */
  const int heat[] = {5, 6, 5, 6};
  expect(dir, "fe_heat3d_mod1.c", JIT_DEVICE_EMU, heat, 4,
         (const char *const[]){"GPU schedule: the C order", "the original order is kept", NULL},
         "GPU schedule: isl's");
  /* GPU time tiling (the tile model, sched/gpu_choice.c): unasked, a stencil's explanation
   * weighs the per-step mapping against the best hybrid and split sizes and says why the
   * winner won; at this size (every array in L2, a few launches) per step wins, modeled below
   * the 1 ms a tiling must save, so no sizes are searched; at 4096^2 x 100 they are and a
   * tiling wins */
  const int jac[] = {20, 200, 300}, jac_big[] = {100, 4096, 4096};
  expect(dir, "jacobi2d_5pt.c", JIT_DEVICE_EMU, jac, 3,
         (const char *const[]){"tile model (132 multiprocessors", "the per-step mapping, modeled",
                               "a tiling wins at 0.8x the per-step time or less",
                               "\n    per step: 8.00 B/update", "\n    hybrid: not searched",
                               "\n    split: not searched",
                               "GPU schedule: the C order, per time step", NULL},
         "time tiling:");
  expect(dir, "jacobi2d_5pt.c", JIT_DEVICE_EMU, jac_big, 3,
         (const char *const[]){"tiles, modeled", "\n    per step: 8.00 B/update",
                               "\n    hybrid h=", "\n    split h=", "time tiling:", NULL},
         "not searched");
  /* JIT_TILE's sizes are the candidates; JIT_TILING=hybrid takes them */
  setenv("JIT_TILE", "h=3,w=7x32", 1);
  setenv("JIT_TILING", "hybrid", 1);
  expect(dir, "jacobi2d_5pt.c", JIT_DEVICE_EMU, jac, 3,
         (const char *const[]){"hybrid forced by JIT_TILING", "\n    hybrid h=3 w=7x32 staged: ",
                               "\n    split h=3 w=7x32 staged: ", "time tiling:",
                               "hybrid tiles h=3 (8 steps), w0=7", NULL},
         "hybrid h=4");
  /* heat-3d's boxes above the 48 KB of static shared memory are staged all the same, in dynamic
   * shared memory (the kernel opts in); above the device's opt-in maximum (227 KB on the
   * emulator's H100) the array stays in global memory, and the model and the explanation say
   * so */
  const int h3[] = {4, 40, 40, 40}, h3big[] = {10, 100, 100, 100};
  setenv("JIT_TILE", "h=1,w=4x16x32", 1);
  expect(dir, "heat3d_27pt.c", JIT_DEVICE_EMU, h3, 4,
         (const char *const[]){"227 KB shared per block", "\n    hybrid h=1 w=4x16x32 staged: ",
                               "55952 B shared, 2 per multiprocessor",
                               "boxes: A 2x9x21x37 staged in 55952 bytes of dynamic shared memory "
                               "(above 48 KB: the kernel opts in)",
                               NULL},
         "in global memory");
  setenv("JIT_TILE", "h=3,w=8x16x64", 1);
  expect(dir, "heat3d_27pt.c", JIT_DEVICE_EMU, h3big, 4,
         (const char *const[]){"\n    hybrid h=3 w=8x16x64: ",
                               "boxes: A 2x17x25x73 (248208 bytes: over the 232448 a block may "
                               "stage, in global memory)",
                               NULL},
         " staged in ");
  /* a small grid run for many steps: the parallelogram tiles of a launch are few, but their
   * coordinates grow with time; the grid starts at a launch's first tile (126 tiles along y
   * over every launch, 2 in one) */
  const int yee[] = {2000, 40, 48};
  setenv("JIT_TILE", "h=8,w=4x64", 1);
  expect(dir, "fdtd2d.c", JIT_DEVICE_EMU, yee, 3,
         (const char *const[]){"kernel 0: grid 3x2x1, block 64x8x1, 570 launches",
                               "kernel 1: grid 3x2x1, block 64x8x1, 570 launches", NULL},
         "x126x1");
  unsetenv("JIT_TILING");
  unsetenv("JIT_TILE");
  /* in exact mode, max norms (terms never -0.0) and reductions under a data if run in
   * parallel; fmax of raw differences keeps the C order */
  const int norm_shape[] = {17, 1000}, guarded_shape[] = {70001}, solver[] = {30, 200, 300};
  expect(dir, "red_maxnorm.c", JIT_DEVICE_EMU, norm_shape, 2,
         (const char *const[]){"reductions in parallel: norm (S1) norm (S1)",
                               "reductions in parallel: rows (S3)",
                               "  kernel 2: grid 1x1x1, block 1x1x1", NULL},
         "norm (S2): partials");
  expect(dir, "red_guarded.c", JIT_DEVICE_EMU, guarded_shape, 1,
         (const char *const[]){"reductions in parallel: sums (S0) sums (S0)",
                               "reductions in parallel: hi (S1)", NULL},
         NULL);
  expect(dir, "fe_converge.c", JIT_DEVICE_EMU, solver, 3,
         (const char *const[]){"reductions in parallel: diff (S2)", NULL}, NULL);
  /* a time loop among other top-level statements: time-tiled as a part of its own where that
   * pays; where it does not, the body is scheduled whole */
  const int parts_big[] = {128, 3072}, parts_small[] = {4, 40};
  expect(dir, "parts_heat2d.c", JIT_DEVICE_EMU, parts_big, 2,
         (const char *const[]){"in parts, one after another",
                               "part (line 12): stencil form: loop 'i'",
                               "part (lines 16-19): stencil form: loop 't' carries every "
                               "dependence over 2 nests",
                               " time tiling:\n", "part (lines 21-24): not in stencil form", NULL},
         NULL);
  expect(dir, "parts_heat2d.c", JIT_DEVICE_EMU, parts_small, 2,
         (const char *const[]){"not in stencil form: the statements are not all inside one "
                               "outer loop\nGPU schedule: ",
                               NULL},
         "in parts");
  /* a forced tiling where it is illegal fails, saying where and why */
  expect_refused(dir, "matmul.c", mm, 3, "split",
                 (const char *const[]){":7:6: JIT_TILING=split: time tiling does not apply "
                                       "to 'matmul': not in stencil form",
                                       NULL});
  expect_refused(dir, "seidel2d.c", seidel, 2, "hybrid",
                 (const char *const[]){"JIT_TILING=hybrid: time tiling does not apply to "
                                       "'seidel2d': not in stencil form",
                                       NULL});
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
