#!/usr/bin/env bash
# bundle/run-gpu-checks.sh against the emulator (JIT_DEVICE=emu, small sizes), from a copy of
# the bundle, masked as in moved_test.sh: it passes, writes bench/results/gpu-<device>.md
# into its default results directory beside the bundle, every stencil and size measured and
# bit-identical on both sides, every time labeled emulator wall time.
# usage: gpu_checks_test.sh BUNDLE SOURCE_DIR BUILD_DIR TCC_RUNTIME_DIR
set -euo pipefail
made=$1 src=$2 build=$3 tccdir=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sj-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
cp -a "$made" "$work/bundle"

bash "$here/masked.sh" "$work/bundle" "$src" "$build" "$tccdir" -- \
  env JIT_DEVICE=emu bash "$work/bundle/run-gpu-checks.sh"

shopt -s nullglob
reports=("$work"/gpu-results/bench/results/gpu-*.md)
[ ${#reports[@]} -eq 1 ] || { echo "FAIL: expected one report, found ${#reports[@]}"; exit 1; }
r=${reports[0]}
echo "== ${r#"$work"/}"
cat "$r"
fail() { echo "FAIL: $*"; exit 1; }
rows=$(grep -c '^| [a-z].* | [0-9]*^[23] |' "$r" || true)
[ "$rows" -eq 5 ] || fail "$rows rows, expected 5 (2 sizes of 2 2-D stencils, 1 3-D size)"
[ "$(grep -c '| bit-identical | bit-identical |$' "$r")" -eq 5 ] || fail "a result is not bit-identical"
grep -q 'stenciljit ms (emulator wall time)' "$r" || fail "times not labeled emulator wall time"
grep -q 'naive ms (emulator wall time)' "$r" || fail "naive times not labeled emulator wall time"
! grep -q 'CUDA events)' "$r" || fail "an emulator time is labeled as a GPU time"
! grep -q 'not measured' "$r" || fail "something was not measured"
[ -s "$work/gpu-results/logs/tests.txt" ] || fail "no device test log"
grep -q 'passed, 0 failed' "$work/gpu-results/logs/tests.txt" || fail "device tests"
echo "gpu checks on the emulator: ok"
