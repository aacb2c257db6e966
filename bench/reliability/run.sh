#!/usr/bin/env bash
# Writes bench/results/reliability.md from measurements on this machine, one after the other
# (each section says the load average it started under: the machine is shared):
#   - compile time and peak memory against the number of loop nests (bench_nests, CPU);
#   - RUNS (100) runs of the 8-thread stress on one emulator context, failures counted;
#   - the stress and api tests under ThreadSanitizer, reports counted;
#   - memory of one context after 10^4 distinct shapes against the cache bound (cache_bench);
#   - the compile time of the slowest fuzz input known (also under ASan when build-asan/ is built);
#   - the PTX of every test kernel (split and hybrid) on an idle machine and under load, compared;
#   - the fuzzing counts recorded in tests/fuzz/README.md.
# Needs build/ (normal) and build-tsan/ (SJ_SANITIZE_THREAD=ON) built.
#
#   bench/reliability/run.sh [RUNS]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
runs=${1:-100}
out=bench/results/reliability.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load() { echo "Load average at the start of this section: $(cut -d' ' -f1-3 /proc/loadavg)."; }

{
  echo "# stenciljit reliability"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
  echo "| commit | $(git rev-parse --short HEAD) |"
  echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), nproc $(nproc) |"
  echo "| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) (shared machine), niceness $(nice) |"
  echo
  echo "## Compile time and peak memory against the number of loop nests (CPU device)"
  echo
  echo "One compile per row in a fresh process; stage times in seconds from"
  echo "jit_kernel_stage_times, peak RSS of the process (wait4: the second tier's background compile"
  echo "and the system compiler it runs included, as far as they got before the context closed)."
  echo "\`flat\`: the nests one after the other;"
  echo "\`time\`: all inside one time loop (stencil form); \`inplace\`: inside a time loop, each nest"
  echo "updating its array in place (not in stencil form: every pair of nests conflicts)."
  echo "Targets: 400 nests < 10 s; 1000 nests < 60 s (or refused by the budget in < 5 s); < 1 GB."
  echo
  load
  echo
  for form in flat time inplace; do
    build/bench/reliability/bench_nests --form "$form" 100 200 400 1000 2>"$tmp/nests.err"
    echo
  done
  echo "### Before (bench/reliability/before.md)"
  echo
  cat bench/reliability/before.md
  echo
  echo "## Stress: 8 threads x 4 shapes x 3 repetitions on one emulator context, $runs runs"
  echo
  cat <<'TXT'
Every result compared bit for bit with gcc's; each shape must compile exactly once. PTX that
names an unknown label ($L__...), reads of registers never written, a poisoned context or
silently wrong results for one shape are the PTX printer's non-reentrant strtok
(ptx/print.c, issue 12 item 1, removed by the printer rewrite): a failing run here shows it.
With sj_print_ptx serialized by a mutex (an experiment, not committed), 0 of 100 runs failed.
The race is rare: four earlier sets of 100 runs on 2026-11-24 failed 5, 1, 4 and 2 times.

TXT
  load
  echo
  fails=0
  for i in $(seq "$runs"); do
    # no on-disk cache: a hit would skip the printers, the code a race would be in
    if ! JIT_CACHE=off build/tests/stress_test --device emu --threads 8 --shapes 4 --reps 3 \
      >"$tmp/s.out" 2>&1; then
      fails=$((fails + 1))
      grep -v '^stress:' "$tmp/s.out" | head -2 >>"$tmp/stress-fail.txt"
    fi
  done
  echo "Failed runs: **$fails of $runs**."
  if [ -s "$tmp/stress-fail.txt" ]; then
    echo
    echo "First lines of the failures:"
    echo
    echo '```'
    sort "$tmp/stress-fail.txt" | uniq -c | sort -rn | head -12
    echo '```'
  fi
  echo
  echo "## ThreadSanitizer"
  echo
  load
  echo
  reports=0
  total=0
  while read -r args; do
    total=$((total + 1))
    TSAN_OPTIONS=halt_on_error=0 build-tsan/tests/stress_test $args >"$tmp/t.out" 2>&1
    n=$(grep -c 'WARNING: ThreadSanitizer' "$tmp/t.out")
    reports=$((reports + n))
    echo "- \`stress_test $args\`: $n reports; $(grep '^stress:' "$tmp/t.out" | sed 's/^stress: //')"
  done <<'ARGS'
--device cpu --threads 8 --shapes 4 --reps 3
--device cpu --threads 4 --shapes 3 --reps 2 --contexts per-thread
--device cpu --threads 4 --shapes 3 --reps 3 --set-options
--device emu --threads 8 --shapes 4 --reps 3
--device emu --threads 4 --shapes 3 --reps 2 --contexts per-thread
--device emu --threads 4 --shapes 3 --reps 3 --set-options
ARGS
  TSAN_OPTIONS=halt_on_error=0 build-tsan/tests/hostile_test options_while_running >"$tmp/t.out" 2>&1
  n=$(grep -c 'WARNING: ThreadSanitizer' "$tmp/t.out")
  reports=$((reports + n))
  echo "- \`hostile_test options_while_running\`: $n reports"
  echo
  echo "ThreadSanitizer reports in all: **$reports**."
  echo
  echo "## Memory after 10^4 distinct shapes on one context (bench/cache_bench)"
  echo
  load
  build/bench/cache_bench --out "$tmp/cache.md" --reps 1 >/dev/null 2>"$tmp/cache.err"
  sed -n '/^## (b)/,$p' "$tmp/cache.md" | tail -n +2
  echo
  echo "## The slowest fuzz input known: tests/kernels/fe_heat3d_mod1.c (emulator device)"
  echo
  echo "heat-3d with one read mutated out of stencil form, at the fuzzer's shape: its compile"
  echo "(\`stenciljit ptx\`, on-disk cache off) in the normal build and, when built, under ASan."
  echo "Target: no input runs over 10 s."
  echo
  load
  echo
  for b in build build-asan; do
    [ -x "$b/stenciljit" ] || continue
    start=$(date +%s.%N)
    JIT_CACHE=off "$b/stenciljit" ptx --device emu tests/kernels/fe_heat3d_mod1.c -D T=5 -D N=6 \
      -D M=5 -D K=6 >/dev/null 2>"$tmp/heat.err"
    st=$?
    echo "- \`$b\`: exit $st, $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
  done
  echo
  echo "## The same PTX under load (every test kernel, split and hybrid)"
  echo
  cat <<'TXT'
Each test kernel at its last run line, split and hybrid tiling forced, its PTX (`stenciljit ptx`,
on-disk cache off) on this machine as it is, then again with a busy loop on every core: the
compile's choices must not depend on the machine's speed or load, only its deadlines for
runaway computations may (sched/watchdog.c). Until d39281c isl's box of one staged footprint
(boundary_sides.c, split, 13 pieces) took 70-94 ms of its 100 ms deadline: that kernel's PTX
then differed in 8 of 10 compiles under load and in 1 of 12 on an idle machine.

TXT
  load
  echo
  ptx_sums() {
    for tiling in split hybrid; do
      for k in tests/kernels/*.c; do
        sizes=$(grep '^// run:' "$k" | tail -1 | sed 's|^// run:||; s/\([A-Za-z_][A-Za-z_0-9]*\)=/-D \1=/g')
        [ -n "$sizes" ] || continue
        # shellcheck disable=SC2086
        echo "$tiling $k $(JIT_CACHE=off timeout 300 build/stenciljit ptx "$k" $sizes --tiling "$tiling" 2>&1 | md5sum)"
      done
    done
  }
  ptx_sums >"$tmp/idle.txt"
  busy=()
  for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    busy+=($!)
  done
  ptx_sums >"$tmp/loaded.txt"
  kill "${busy[@]}"
  differ=$(diff "$tmp/idle.txt" "$tmp/loaded.txt" | grep -c '^>')
  echo "Kernels and tilings whose PTX differed: **$differ of $(wc -l <"$tmp/idle.txt")**."
  diff "$tmp/idle.txt" "$tmp/loaded.txt" | grep '^>' | cut -d' ' -f2-3 | sed 's/^/- /'
  echo
  echo "## Fuzzing"
  echo
  echo "From tests/fuzz/README.md (long runs on this machine, one core, ASan + UBSan):"
  echo
  # every table, under the heading of its section
  awk '/^## / { h = $0 } /^\| target/ { if (h != "" && h != last) { print "#" h; print ""; last = h } p = 1 }
    p { print } /^$/ { p = 0 }' tests/fuzz/README.md
} >"$out"
echo "wrote $out"
