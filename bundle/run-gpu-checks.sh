#!/usr/bin/env bash
# On a machine with a GPU: the kernel-time benchmark and the device tests on the CUDA device,
# results in RESULTS_DIR/bench/results/gpu-<device name>.md, logs in RESULTS_DIR/logs.
#
# usage: run-gpu-checks.sh [RESULTS_DIR]     (default: gpu-results beside the bundle)
# environment:
#   JIT_DEVICE   cuda (default) or emu: the emulator, to try the script without a GPU; its
#                times are emulator wall time and are labeled so
#   SIZES2D, SIZES3D, STEPS, REPS, WARMUP   benchmark sizes (sides of the square and the cube,
#                comma-separated), time steps, timed runs, warm-up runs; the defaults are
#                1024,4096 / 256 / 100 / 5 / 2 on a GPU, 34,66 / 12 / 4 / 3 / 1 on the emulator
#   TILINGS      the $JIT_TILING values stenciljit is timed with, side by side
#                (default auto,none,hybrid,split; auto is the library's own choice)
#   TEST_TILINGS the $JIT_TILING values the device tests run every kernel with (default
#                "auto hybrid split": forced tilings checked against the exact dependences)
#   THESIS_SIZES a second benchmark at the sizes of the thesis and of the targets (3072^2 and
#                384^3, T = 128; default 1 on a GPU, 0 on the emulator)
#   JIT_CUDA_LIBRARY   the driver library (default libcuda.so.1)
#   TEST_TIMEOUT, BENCH_TIMEOUT   seconds per test (default 180), per benchmark (420)
# Exit 0 when the tests passed and every benchmark result was measured and bit-identical.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
results=${1:-$(dirname "$here")/gpu-results}
dev=${JIT_DEVICE:-cuda}
case $dev in
cuda) sizes2d=1024,4096 sizes3d=256 steps=100 reps=5 warmup=2 thesis=1 ;;
emu) sizes2d=34,66 sizes3d=12 steps=4 reps=3 warmup=1 thesis=0 ;;
*) echo "run-gpu-checks.sh: JIT_DEVICE must be cuda or emu, not $dev" >&2; exit 2 ;;
esac
mkdir -p "$results/bench/results" "$results/logs" || exit 1
results=$(cd "$results" && pwd)
export JIT_DEVICE=$dev
# Every compile cold, so that the reports' compile times are: no kernel from the disk cache.
export JIT_CACHE=off
tilings=${TILINGS:-auto,none,hybrid,split}

{
  echo "bundle: $here"
  cat "$here/VERSION" 2>/dev/null
  echo "host: $(uname -srm), $(ldd --version 2>/dev/null | head -n 1)"
  if [ "$dev" = cuda ] && command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  fi
} 2>&1 | tee "$results/logs/machine.txt"

# The benchmark first: the report is rewritten after every stencil and size, so a run cut
# short still leaves the times measured so far.
echo "== kernel times on $dev"
timeout "${BENCH_TIMEOUT:-420}" "$here/bin/gpu_timing" --out-dir "$results/bench/results" \
  --kernels "$here/tests/kernels" \
  --baselines "$here/bench/baselines" --sizes2d "${SIZES2D:-$sizes2d}" \
  --sizes3d "${SIZES3D:-$sizes3d}" -T "${STEPS:-$steps}" --reps "${REPS:-$reps}" \
  --warmup "${WARMUP:-$warmup}" --tilings "$tilings" 2>&1 |
  tee "$results/logs/gpu_timing.txt"
bench_rc=${PIPESTATUS[0]}
if [ "${THESIS_SIZES:-$thesis}" = 1 ]; then
  echo "== kernel times on $dev at the thesis's sizes"
  mkdir -p "$results/bench/results/thesis-sizes"
  timeout "${BENCH_TIMEOUT:-420}" "$here/bin/gpu_timing" \
    --out-dir "$results/bench/results/thesis-sizes" --kernels "$here/tests/kernels" \
    --baselines "$here/bench/baselines" --sizes2d 3072 --sizes3d 384 -T 128 --reps 3 \
    --warmup 1 --tilings "$tilings" 2>&1 | tee "$results/logs/gpu_timing_thesis.txt"
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || bench_rc=$rc
fi

echo "== device tests on $dev"
LOG_DIR="$results/logs/tests" TEST_TIMEOUT=${TEST_TIMEOUT:-180} \
  TILINGS=${TEST_TILINGS:-auto hybrid split} \
  bash "$here/run-tests.sh" "$dev" 2>&1 | tee "$results/logs/tests.txt"
tests_rc=${PIPESTATUS[0]}

echo "== results in $results"
ls "$results/bench/results"
[ "$bench_rc" = 0 ] && bench="all measured, bit-identical" || bench="FAILED ($bench_rc)"
[ "$tests_rc" = 0 ] && tests=passed || tests="FAILED ($tests_rc)"
echo "benchmark: $bench; device tests: $tests"
[ "$tests_rc" = 0 ] && [ "$bench_rc" = 0 ]
