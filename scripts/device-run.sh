#!/usr/bin/env bash
# One lease of a GPU machine (the device tool), everything written under $OUT as it comes (at
# most 8 files come back, two folders down): the tile model's candidates timed on the GPU, the
# bundle's checks (kernel times of every mapping side by side, the device tests with hybrid
# and split tiling forced), then staged tiles under compute-sanitizer. The bundle is made here
# first (scripts/bundle.sh) and carried:
#
#   device run: command "bash scripts/device-run.sh", carry ["build-bundle/stenciljit-bundle"]
#
# environment: SWEEP_BUDGET, CHECKS_BUDGET, SANITIZER_TIMEOUT (seconds: 150, 300, 90); what
# bundle/run-gpu-checks.sh reads.
set -uo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle=$src/build-bundle/stenciljit-bundle
out=${OUT:?the device tool sets OUT}
results=/tmp/stenciljit-gpu-results
[ -x "$bundle/bin/stenciljit" ] || { echo "device-run.sh: no bundle at $bundle" >&2; exit 1; }
mkdir -p "$results/logs"
export JIT_DEVICE=cuda JIT_CACHE=off
cli=$bundle/bin/stenciljit kernels=$bundle/tests/kernels

# The tile model against the GPU: for each stencil and size, the candidates the model lists
# on this device's properties (the per-step mapping and its best hybrid and split sizes) and
# the sizes named after '|' (kind:sizes, forced, with the model's figure for them), each run
# with its sizes forced: the median device time (CUDA events) of 5 runs. A Markdown table.
# shellcheck disable=SC2317 # run through bash -c, under timeout
sweep() {
  echo "| stencil | sizes | candidate (the model's line) | model ms | GPU ms (median of 5) |"
  echo "|---|---|---|---|---|"
  local file sizes extra line kind tile model gpu
  while IFS='|' read -r file_sizes extra; do
    read -r file sizes <<<"$file_sizes"
    {
      # shellcheck disable=SC2086 # sizes are separate -D arguments
      "$cli" schedule "$kernels/$file" $sizes --device cuda 2>&1 |
        grep -E '^    (per step:|hybrid h=|split h=)'
      for kind_tile in $extra; do
        # shellcheck disable=SC2086
        "$cli" schedule "$kernels/$file" $sizes --device cuda --tiling "${kind_tile%%:*}" \
          --tile "${kind_tile#*:}" 2>&1 | grep -m1 -E "^    ${kind_tile%%:*} h="
      done
    } >/tmp/candidates.txt
    while read -r line; do
      kind=${line%% *} tile=none
      [ "$kind" = per ] && kind=none ||
        tile=$(echo "$line" | sed -E 's/^[a-z]+ (h=[0-9]+) w=([0-9x]+).*/\1,w=\2/')
      model=$(echo "$line" | sed -E 's/.* ([0-9.]+) ms.*/\1/')
      # shellcheck disable=SC2086
      gpu=$(timeout 60 "$cli" run "$kernels/$file" $sizes --device cuda --tiling "$kind" \
        --tile "$tile" --repeat 5 2>&1 | sed -n 's/.*, device \([0-9.]*\) ms.*/\1/p' |
        sort -g | sed -n 3p)
      echo "| ${file%.c} | ${sizes//-D /} | ${line%%:*} | $model | ${gpu:-failed} |"
    done </tmp/candidates.txt
  done <<'EOF'
jacobi2d_5pt.c -D T=100 -D N=4096 -D M=4096 | hybrid:h=7,w=32x64 hybrid:h=3,w=16x64 split:h=4,w=8x32
heat2d_9pt.c -D T=100 -D N=4096 -D M=4096 | hybrid:h=7,w=32x64 hybrid:h=3,w=16x64 split:h=4,w=8x32
heat2d_9pt.c -D T=128 -D N=3072 -D M=3072 | hybrid:h=8,w=32x128 split:h=8,w=32x64
heat3d_27pt.c -D T=100 -D N=256 -D M=256 -D K=256 | hybrid:h=2,w=8x8x32 hybrid:h=3,w=8x8x32 split:h=2,w=4x4x32
laplacian3d_7pt.c -D T=100 -D N=256 -D M=256 -D K=256 | hybrid:h=2,w=8x8x32 split:h=2,w=8x16x32
jacobi1d_3pt.c -D T=512 -D N=1048576 | hybrid:h=16,w=256 split:h=32,w=512
fdtd2d.c -D T=100 -D NX=2048 -D NY=2048 | hybrid:h=4,w=16x64
EOF
}

# compute-sanitizer over the CLI, the runs side by side: memory errors and shared-memory races
# in staged hybrid and split tiles (2-D, 3-D in dynamic shared memory, 1-D), each run also
# checked against the C function.
sanitize() {
  local cs c tool tiling tile file sizes i=0
  cs=$(command -v compute-sanitizer)
  for c in /usr/local/cuda*/bin/compute-sanitizer; do [ -n "$cs" ] || [ ! -x "$c" ] || cs=$c; done
  [ -n "$cs" ] || { echo "no compute-sanitizer"; return 0; }
  while read -r tool tiling tile file sizes; do
    i=$((i + 1))
    (
      echo "== $tool, JIT_TILING=$tiling JIT_TILE=$tile: $file $sizes"
      # shellcheck disable=SC2086 # sizes are separate -D arguments
      JIT_TILING=$tiling JIT_TILE=$tile timeout "${SANITIZER_TIMEOUT:-90}" "$cs" --tool "$tool" \
        --error-exitcode 9 "$cli" run "$kernels/$file" $sizes --device cuda --check
      echo "exit $?"
    ) >"/tmp/sanitizer.$i.txt" 2>&1 &
  done <<'EOF'
memcheck hybrid h=3,w=16x64 heat2d_9pt.c -D T=20 -D N=300 -D M=257
racecheck hybrid h=3,w=16x64 heat2d_9pt.c -D T=20 -D N=300 -D M=257
racecheck split h=4,w=32x32 jacobi2d_5pt.c -D T=20 -D N=200 -D M=131
memcheck hybrid h=3,w=8x8x32 heat3d_27pt.c -D T=10 -D N=40 -D M=40 -D K=40
racecheck split h=2,w=8x16x32 heat3d_27pt.c -D T=10 -D N=40 -D M=40 -D K=40
racecheck hybrid h=4,w=64 jacobi1d_3pt.c -D T=40 -D N=5000
EOF
  wait
  cat /tmp/sanitizer.*.txt
}

nvidia-smi >"$out/nvidia-smi.txt" 2>&1
export -f sweep
export cli kernels
timeout "${SWEEP_BUDGET:-150}" bash -c sweep >"$out/tile-sweep.md" 2>&1
timeout "${CHECKS_BUDGET:-300}" bash "$bundle/run-gpu-checks.sh" "$results" 2>&1 |
  tee "$out/checks.txt"
rc=${PIPESTATUS[0]}
sanitize >"$out/sanitizer.txt" 2>&1
cp "$results"/bench/results/gpu-*.md "$out/" 2>/dev/null
for f in "$results"/bench/results/thesis-sizes/gpu-*.md; do
  [ -f "$f" ] && cp "$f" "$out/thesis-sizes-$(basename "$f")"
done
tar czf "$out/logs.tgz" -C "$results" logs
echo "device-run.sh: checks exit $rc"
exit "$rc"
