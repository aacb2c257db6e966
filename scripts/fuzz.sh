#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build-fuzz/, ASan + UBSan) and runs each for a
# bounded time on a corpus seeded from tests/kernels, tests/errors and tests/cli.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60; fuzz_frontend fuzz_pipeline)
#
# Fails when a target reports anything: a crash, a sanitizer report, a leak, an input that
# runs over 10 s, or a refusal without line:col (the targets abort on those). The corpus
# grows in $SJ_FUZZ_CORPUS (default build-fuzz/corpus); findings are left in
# build-fuzz/findings. Set SJ_FUZZ_DEVICE=emu to compile on the emulator device instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fuzz_frontend fuzz_pipeline)

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSJ_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo </dev/null >/dev/null
cmake --build build-fuzz -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}" </dev/null

corpus_root=${SJ_FUZZ_CORPUS:-build-fuzz/corpus}
findings=build-fuzz/findings
mkdir -p "$findings" build-fuzz/seeds
cp tests/kernels/*.c tests/errors/*.c tests/cli/*.c build-fuzz/seeds/
status=0
for t in "${targets[@]}"; do
  mkdir -p "$corpus_root/$t"
  echo "== $t: ${seconds}s"
  log=build-fuzz/$t.log
  if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "build-fuzz/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/$t-" "$corpus_root/$t" build-fuzz/seeds \
    >"$log" 2>&1 </dev/null; then
    status=1
    echo "== $t FAILED: see $log and $findings"
    grep -E "ERROR|SUMMARY|refusal|Test unit written" "$log" | head -20 || true
  fi
  grep -E "^(stat::number_of_executed_units|Done)" "$log" || true
done
exit "$status"
