#!/usr/bin/env bash
# bundle/run-gpu-checks.sh against the emulator (JIT_DEVICE=emu, small sizes), from a copy of
# the bundle, masked as in moved_test.sh: it passes, writes bench/results/gpu-<device>.md
# into its default results directory beside the bundle, every stencil and size measured with
# every mapping (auto, none, hybrid, split) and the naive kernel, all bit-identical, every time
# labeled emulator wall time. The device tests run the kernels once (TEST_TILINGS=auto): the
# forced tilings have tests of their own (kernel_emu_hybrid_*, kernel_emu_split_*).
# usage: gpu_checks_test.sh BUNDLE SOURCE_DIR BUILD_DIR TCC_RUNTIME_DIR
set -euo pipefail
made=$1 src=$2 build=$3 tccdir=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sj-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
cp -a "$made" "$work/bundle"

bash "$here/masked.sh" "$work/bundle" "$src" "$build" "$tccdir" -- \
  env JIT_DEVICE=emu TEST_TILINGS=auto bash "$work/bundle/run-gpu-checks.sh"

shopt -s nullglob
reports=("$work"/gpu-results/bench/results/gpu-*.md)
[ ${#reports[@]} -eq 1 ] || { echo "FAIL: expected one report, found ${#reports[@]}"; exit 1; }
r=${reports[0]}
echo "== ${r#"$work"/}"
cat "$r"
fail() { echo "FAIL: $*"; exit 1; }
rows=$(grep -c '^| [a-z].* | [0-9]*^[23] |' "$r" || true)
[ "$rows" -eq 25 ] || fail "$rows rows, expected 25 (5 stencils and sizes, 4 mappings and naive)"
for t in auto none hybrid split 'naive CUDA'; do
  [ "$(grep -c "^| [a-z].* | [0-9]*^[23] | $t |" "$r")" -eq 5 ] || fail "not 5 rows of $t"
done
[ "$(grep -c '| bit-identical |$' "$r")" -eq 25 ] || fail "a result is not bit-identical"
grep -q '| ms (emulator wall time) |' "$r" || fail "times not labeled emulator wall time"
grep -q '| hybrid | grid [0-9x]*, block [0-9x]*, .* hybrid tiles h=' "$r" ||
  fail "no hybrid tiles described"
! grep -q 'CUDA events)' "$r" || fail "an emulator time is labeled as a GPU time"
! grep -q 'not measured' "$r" || fail "something was not measured"
[ -s "$work/gpu-results/logs/tests.txt" ] || fail "no device test log"
grep -q 'passed, 0 failed' "$work/gpu-results/logs/tests.txt" || fail "device tests"
echo "gpu checks on the emulator: ok"
