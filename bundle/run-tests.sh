#!/usr/bin/env bash
# The bundle's tests, from wherever the bundle lies: every kernel of tests/kernels on each
# device asked for, bit-identical to the same file compiled by the C compiler (kernel_driver
# with the reference modules in tests/kref), the driver layer on the emulator or the GPU
# (cuda_test), the API and its error files on the CPU (api_test), the GPU path on the
# emulator (device_test, injected failures included) and the command-line tool.
#
# usage: run-tests.sh [DEVICE...]        DEVICE: cpu, emu or cuda (default: cpu emu)
# environment: JOBS (parallel tests, default nproc), LOG_DIR (default: a new temporary
# directory), TEST_TIMEOUT (seconds per test, default 600), JIT_CUDA_LIBRARY (the driver for
# cuda, default libcuda.so.1), TILINGS (on emu and cuda, the $JIT_TILING values each kernel
# runs with, default "auto": "auto hybrid split" adds every kernel with each time tiling forced
# and checked against the exact dependences, and the 3-D stencils with tiles whose boxes need
# more than 48 KB of dynamic shared memory)
# Exit 0 when every test passed; the log of each test is in LOG_DIR.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
logs=${LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/stenciljit-tests.XXXXXX")}
mkdir -p "$logs"
[ $# -gt 0 ] || set -- cpu emu
bin=$here/bin kernels=$here/tests/kernels ptx=$here/tests/cuda/vecadd.ptx
emu=$here/lib/libstenciljit_cudaemu.so

# run NAME [VAR=VALUE...] -- COMMAND...: runs in the background, status into LOG_DIR/NAME.rc
run() {
  local name=$1
  shift
  local vars=()
  while [ "$1" != -- ]; do
    vars+=("$1")
    shift
  done
  shift
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  (
    env "${vars[@]}" timeout "${TEST_TIMEOUT:-600}" "$@" >"$logs/$name.log" 2>&1
    echo $? >"$logs/$name.rc"
  ) &
}

for dev in "$@"; do
  case $dev in
  cpu | emu | cuda) ;;
  *) echo "run-tests.sh: unknown device $dev (cpu, emu or cuda)" >&2; exit 2 ;;
  esac
  for k in "$kernels"/*.c; do
    name=$(basename "$k" .c)
    run "kernel_${dev}_$name" -- "$bin/kernel_driver" --device "$dev" "$k" \
      "$here/tests/kref/$name.so"
  done
  if [ "$dev" != cpu ]; then
    for tiling in ${TILINGS:-auto}; do
      [ "$tiling" = auto ] && continue
      for k in "$kernels"/*.c; do
        name=$(basename "$k" .c)
        run "kernel_${dev}_${tiling}_$name" JIT_TILING="$tiling" JIT_CHECK_TILES=1 -- \
          "$bin/kernel_driver" --device "$dev" "$k" "$here/tests/kref/$name.so"
      done
      # the sizes of tests/CMakeLists.txt's dynamic_shared tests: 92480 and 67200 bytes at 40^3
      case $tiling in
      hybrid) tile=h=3,w=8x8x32 ;;
      split) tile=h=2,w=8x16x32 ;;
      *) continue ;;
      esac
      for name in heat3d_27pt laplacian3d_7pt; do
        run "kernel_${dev}_${tiling}_dynamic_shared_$name" JIT_TILING="$tiling" \
          JIT_CHECK_TILES=1 -- "$bin/kernel_driver" --device "$dev" --tile "$tile" \
          --expect-tiled "$kernels/$name.c" "$here/tests/kref/$name.so"
      done
    done
  fi
  run "cli_$dev" -- "$bin/stenciljit" run "$kernels/jacobi2d_5pt.c" -D T=3 -D N=40 -D M=33 \
    --device "$dev" --check
  if [ "$dev" != cpu ]; then
    # props expects the emulator's device (sm_90, 132 SMs, driver 13.0)
    cases="props vecadd bad_ptx limits threads timer" lib=$emu
    [ "$dev" = cuda ] && cases=${cases#props } lib=${JIT_CUDA_LIBRARY:-libcuda.so.1}
    for c in $cases; do
      run "driver_${dev}_$c" -- "$bin/cuda_test" "$c" "$lib" "$ptx"
    done
  fi
  if [ "$dev" = cpu ]; then
    for c in args_count args_kind args_null args_negative args_overflow args_overlap args_oob \
      devices env_override cache_same cache_shape cache_scalar cache_threads reference kernel; do
      run "api_$c" -- "$bin/api_test" "$c"
    done
    for e in "$here"/tests/errors/*.c; do
      run "api_error_$(basename "$e" .c)" -- "$bin/api_test" error "$e"
    done
  fi
  if [ "$dev" = emu ]; then
    for c in choice fastmath timing; do run "device_$c" -- "$bin/device_test" "$c"; done
    for c in alloc load launch; do
      run "device_fail_$c" "JIT_EMU_FAIL=$c:1" -- "$bin/device_test" "$c"
    done
    run schedule_decisions -- "$bin/schedule_test" "$kernels"
  fi
done
wait

pass=0 fail=0
for rc in "$logs"/*.rc; do
  name=$(basename "$rc" .rc)
  if [ "$(cat "$rc")" = 0 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name (exit $(cat "$rc")), log $logs/$name.log:"
    tail -n 15 "$logs/$name.log" | sed 's/^/    /'
  fi
done
echo "run-tests.sh ($*): $pass passed, $fail failed; logs in $logs"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
