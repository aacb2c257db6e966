#!/usr/bin/env bash
# bench/polybench.sh DIR [--without-pragmas] [--gpu]: the PolyBench/C 4.2 kernels of DIR (one NAME.c
# per kernel with `// run:` SMALL and `// large:` LARGE sizes, as bench/polybench_extract.py
# writes them from a checkout of the suite; nothing of the suite is stored here), each:
# accepted, bit-identical to gcc on the CPU and the emulator at SMALL (kernel_driver), cold
# JIT at SMALL, the GPU schedule and launches at LARGE, and the emulator's model figures for
# one SMALL run (polybench_bench). Writes bench/results/polybench.md (with --gpu,
# bench/results/polybench-GPU-NAME.md).
#   --without-pragmas  drops `#pragma` lines first (a front end without pragma support)
#   --gpu              on a machine with a CUDA GPU: also bit-identical on it at SMALL, and the
#                      wall time of a run at LARGE there (`stenciljit run --device cuda`)
# SOURCE, when set, says in the results where the kernels came from (checkout, commit);
# COMMIT names the commit the build is of (default: this checkout's HEAD).
# Needs a build (BUILD, default build/) with polybench_bench and kernel_driver.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
DIR=${1:?usage: bench/polybench.sh DIR [--without-pragmas] [--gpu]}
MODE= GPU=
for a in "${@:2}"; do
  case $a in
  --without-pragmas) MODE=$a ;;
  --gpu) GPU=1 ;;
  *) echo "polybench.sh: unknown option $a" >&2; exit 1 ;;
  esac
done
# with --gpu, a file of the GPU's name beside it
GPU_NAME=$([ -n "$GPU" ] && nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
OUT=${OUT:-$ROOT/bench/results/polybench${GPU_NAME:+-${GPU_NAME// /-}}.md}
TOOL=$BUILD/bench/polybench_bench
DRIVER=$BUILD/tests/kernel_driver
CLI=$BUILD/stenciljit
for t in "$TOOL" "$DRIVER" ${GPU:+"$CLI"}; do
  [ -x "$t" ] || { echo "polybench.sh: $t is missing: build first" >&2; exit 1; }
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export JIT_CACHE=off

exact() { # DEVICE FILE MODULE -> yes | no
  if timeout 600 "$DRIVER" --device "$1" "$2" "$3" >"$WORK/driver.log" 2>&1; then echo yes; else echo no; fi
}

large_ms() { # FILE -> median wall time of 5 runs at LARGE on the GPU, or -
  local d
  d=$(sed -n 's|^// large: ||p' "$1" | sed 's/\([A-Za-z_0-9]*\)=/-D \1=/g')
  # shellcheck disable=SC2086
  timeout 300 "$CLI" run "$1" $d --device cuda --repeat 5 2>/dev/null |
    sed -n 's/^time per run: min [0-9.]* ms, median \([0-9.]*\) ms.*/\1/p' | grep . || echo -
}

rows=$WORK/rows
: >"$rows"
for f in "$DIR"/*.c; do
  name=$(basename "$f")
  k=$WORK/$name
  if [ "$MODE" = --without-pragmas ]; then grep -v '^[[:space:]]*#[[:space:]]*pragma' "$f" >"$k"; else cp "$f" "$k"; fi
  cpu=- emu=-
  if gcc -O2 -ffp-contract=off -fno-fast-math -shared -fPIC -o "$k.so" "$k" -lm 2>"$WORK/gcc.log"; then
    cpu=$(exact cpu "$k" "$k.so")
    emu=$(exact emu "$k" "$k.so")
  fi
  echo "polybench.sh: $name cpu=$cpu emu=$emu" >&2
  row=$("$TOOL" "$k" "$cpu" "$emu")
  if [ -n "$GPU" ]; then
    gpu=- ms=-
    if [[ $row == *accepted=1* ]]; then
      gpu=$(exact cuda "$k" "$k.so")
      ms=$(large_ms "$k")
    fi
    row=$(sed "/^|/s/\$/ $gpu | $ms |/" <<<"$row")
  fi
  echo "$row" >>"$rows"
  # what a user gets who passes the kernel as extracted, pragmas and all
  [ "$MODE" = --without-pragmas ] && "$TOOL" "$f" - - | sed -n 's/^#summary/#asis/p' >>"$rows"
done

{
  echo "# PolyBench/C 4.2 kernels"
  echo
  echo "Written by \`bench/polybench.sh $(basename "$DIR") $MODE\` on $(date -u '+%Y-%m-%d %H:%M UTC'),"
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) logical cores,"
  echo "commit ${COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)}."
  [ -n "${SOURCE:-}" ] && echo "Kernels: $SOURCE."
  if [ "$MODE" = --without-pragmas ]; then
    echo "The \`#pragma\` lines were removed from the kernels first (not as extracted); as extracted,"
    awk '/^#asis/ { n++; acc += substr($3, 10) } END { printf "with the pragmas, %d of %d are accepted.\n", acc, n }' "$rows"
  else
    echo "The kernels as extracted (bench/polybench_extract.py: \`-DPOLYBENCH_USE_C99_PROTO\`, unchanged)."
  fi
  echo
  awk '/^#summary/ { n++; acc += substr($3, 10); ex += substr($4, 7); b = substr($5, 8) + 0;
         if (b >= 32) b32++; t = substr($6, 9) + 0; if (t >= 0 && t <= 30) fast++ }
       END { printf "- accepted: %d of %d; bit-identical to gcc on the CPU and the emulator at SMALL: %d\n", acc, n, ex;
             printf "- a launch of 32 blocks or more at LARGE: %d of %d\n", b32, n;
             printf "- cold JIT at SMALL on the CPU device 30 ms or less: %d of %d accepted\n", fast, acc }' "$rows"
  awk '/^#summary/ { b = substr($5, 8) + 0; if ($2 ~ /^(gemm|2mm|3mm|syrk|syr2k|floyd-warshall)\.c$/)
         printf "%s %s blocks", (k++ ? "," : "- largest launch of the six (target 132 blocks or more):"), $2 " " b }
       END { if (k) print "" }' "$rows"
  [ -n "$GPU" ] && awk -F'|' '/^\| / && $3 ~ /yes/ { n++; if ($12 ~ /yes/) g++ }
       END { printf "- bit-identical to gcc at SMALL on the GPU: %d of %d accepted\n", g, n }' "$rows"
  echo
  echo "Columns: accepted at SMALL; bit-identical to gcc -O2 at SMALL on the CPU and on the"
  echo "emulator (kernel_driver, random data); cold JIT at SMALL, source to runnable, median of 5"
  echo "fresh contexts, on the CPU device and on the emulator device (PTX, disk cache off); the"
  echo "GPU schedule chosen at LARGE (compiled for the emulator, not run) and its launches"
  echo "(host loop trips, then each kernel's grid/block); the largest grid in blocks; for one run"
  echo "at SMALL on the emulator, dynamic PTX instructions and DRAM bytes of its L2 model per"
  echo "statement instance. The instruction and DRAM figures are the emulator's model, not GPU"
  if [ -n "$GPU" ]; then
    echo "measurements. Measured on ${GPU_NAME:-the GPU}:"
    echo "bit-identical to gcc at SMALL on the GPU (kernel_driver), and the wall time of one run"
    echo "at LARGE (\`stenciljit run --device cuda --repeat 5\`, median: jit_stencil_run, host<->device"
    echo "copies of every array included, compiled on the first run; random data)."
    cols=" exact GPU | GPU ms at LARGE (measured, copies included) |" sep="---|---|"
  else
    echo "measurements; no GPU time is measured."
    cols= sep=
  fi
  echo
  echo "| kernel | accepted | exact CPU | exact emu | cold JIT CPU ms | cold JIT emu ms | GPU schedule at LARGE | launches at LARGE | most blocks | instr / DRAM B per instance (model) |$cols"
  echo "|---|---|---|---|---|---|---|---|---|---|$sep"
  grep -v '^#summary\|^#asis' "$rows"
} >"$OUT"
echo "polybench.sh: wrote $OUT" >&2
