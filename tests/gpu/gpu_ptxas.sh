#!/usr/bin/env bash
# gpu_ptxas: every kernel of tests/kernels, at the sizes of its first `// run:` lines, printed as
# PTX by `stenciljit ptx` on the emulator device, must assemble with ptxas for sm_90 (as printed)
# and for sm_80 (its `.target` rewritten to sm_80) with no error and no spill, and with no
# predicated ld.global.nc.
#
# usage: gpu_ptxas.sh --cli STENCILJIT [--ptxas PTXAS] [--runs N] [--sizes "N=.. M=.."] [--keep DIR]
#                    [--allow-refused] KERNEL.c...
# --sizes: these sizes for every kernel instead of its `// run:` lines.
# --allow-refused: a case the CLI refuses because a forced time tiling does not apply (exit 3,
# "time tiling does not apply") is reported and passes.
# exit:  0 all assembled cleanly, 1 a failure, 2 usage, 77 ptxas not found (ctest SKIP_RETURN_CODE)
set -u

cli="" ptxas="" runs=3 sizes_given="" keep="" refusals=0
usage() {
  echo "usage: $0 --cli STENCILJIT [--ptxas PTXAS] [--runs N] [--sizes SIZES] [--keep DIR]" \
    "[--allow-refused]" \
    "KERNEL.c..." >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
  --cli) [ $# -ge 2 ] || usage; cli=$2; shift 2 ;;
  --ptxas) [ $# -ge 2 ] || usage; ptxas=$2; shift 2 ;;
  --runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
  --sizes) [ $# -ge 2 ] || usage; sizes_given=$2; shift 2 ;;
  --keep) [ $# -ge 2 ] || usage; keep=$2; shift 2 ;;
  --allow-refused) refusals=1; shift ;;
  --) shift; break ;;
  -*) usage ;;
  *) break ;;
  esac
done
[ -n "$cli" ] && [ $# -gt 0 ] || usage
case "$runs" in '' | *[!0-9]*) usage ;; esac

# ptxas: the given one, else the PATH, else the toolkit's default place.
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
  ptxas=$(command -v ptxas 2>/dev/null || true)
  [ -n "$ptxas" ] || { [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas; }
fi
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
  echo "gpu_ptxas: SKIPPED: ptxas not found (not on the PATH nor in /usr/local/cuda/bin)"
  exit 77
fi
if [ ! -x "$cli" ]; then
  echo "gpu_ptxas: FAIL: the stenciljit CLI $cli is not an executable" >&2
  exit 1
fi
echo "gpu_ptxas: $ptxas ($("$ptxas" --version 2>/dev/null | grep -o 'release [0-9.]*')), CLI $cli"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu_ptxas.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -z "$keep" ] || mkdir -p "$keep" || exit 1
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 300"

cases=0 assembled=0 failures=0 noentry=0 refused=0 maxregs=0 maxregs_at=""
fail() { # case, message; the details file, if any, follows
  failures=$((failures + 1))
  echo "FAIL $1: $2"
  if [ $# -ge 3 ] && [ -s "$3" ]; then sed -n '1,40s/^/    /p' "$3"; fi
}

for kernel in "$@"; do
  name=$(basename "$kernel" .c)
  if [ ! -r "$kernel" ]; then
    fail "$name" "cannot read $kernel"
    continue
  fi
  if [ -n "$sizes_given" ]; then
    lines=("run: $sizes_given")
  else
    mapfile -t lines < <(grep -E '^[[:space:]]*//[[:space:]]*run:' "$kernel" | head -n "$runs")
  fi
  if [ ${#lines[@]} -eq 0 ]; then
    echo "warning: $name: no '// run:' line, nothing to assemble"
    continue
  fi
  idx=0
  for line in "${lines[@]}"; do
    idx=$((idx + 1))
    sizes=${line#*run:}
    defs=() label="" bad=""
    for tok in $sizes; do
      if [[ "$tok" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]]+$ ]]; then
        defs+=(-D "$tok")
        label="$label${label:+ }$tok"
      else
        bad=$tok
      fi
    done
    id="$name [$label]"
    cases=$((cases + 1))
    if [ -n "$bad" ]; then
      fail "$id" "malformed run line: '$line' (token '$bad')"
      continue
    fi
    ptx="$tmp/$name.$idx.ptx"
    JIT_DEVICE=emu $tmo "$cli" ptx "$kernel" --device emu "${defs[@]}" >"$ptx" 2>"$tmp/cli.err"
    rc=$?
    if [ $rc -eq 3 ] && [ $refusals -eq 1 ] && grep -q "time tiling does not apply" "$tmp/cli.err"; then
      refused=$((refused + 1))
      echo "ok   $id: refused: $(head -c 160 "$tmp/cli.err")"
      continue
    fi
    if [ $rc -ne 0 ]; then
      fail "$id" "stenciljit ptx exited with $rc" "$tmp/cli.err"
      continue
    fi
    if [ ! -s "$ptx" ]; then
      fail "$id" "the CLI printed nothing" "$tmp/cli.err"
      continue
    fi
    # A module without an entry is valid: an empty iteration domain (T=0) launches nothing.
    entries=$(grep -cE '^[[:space:]]*(\.(visible|weak)[[:space:]]+)?\.entry[[:space:]]' "$ptx")
    if ! grep -qE '^[[:space:]]*\.target[[:space:]]+sm_[0-9]+' "$ptx"; then
      fail "$id" "the PTX has no '.target sm_XX' directive" "$ptx"
      continue
    fi
    # ptxas 13.0 merges predicated read-only loads of one address under different predicates
    # and computes from the one that never ran (astgen/opt.c, predicable): none may be printed
    if grep -nE '^[[:space:]]*@!?%p[0-9]+[[:space:]]+ld\.global\.nc' "$ptx" >"$tmp/nc.txt"; then
      fail "$id" "a predicated ld.global.nc, which ptxas can miscompile" "$tmp/nc.txt"
      continue
    fi
    [ "$entries" -gt 0 ] || noentry=$((noentry + 1))
    [ -z "$keep" ] || cp "$ptx" "$keep/$name.$idx.ptx"
    for arch in sm_90 sm_80; do
      src="$ptx"
      if [ "$arch" != sm_90 ]; then
        src="$tmp/$name.$idx.$arch.ptx"
        sed -E "s/^([[:space:]]*\\.target[[:space:]]+)sm_[0-9]+[a-z]?/\\1$arch/" "$ptx" >"$src"
      fi
      log="$tmp/ptxas.log"
      $tmo "$ptxas" -arch="$arch" -v "$src" -o "$tmp/out.cubin" >"$log" 2>&1
      rc=$?
      assembled=$((assembled + 1))
      if [ $rc -ne 0 ] || grep -qE '(error|fatal)[[:space:]]*:' "$log"; then
        fail "$id $arch" "ptxas exited with $rc" "$log"
        continue
      fi
      compiled=$(grep -c 'Compiling entry function' "$log")
      if [ "$compiled" -ne "$entries" ]; then
        fail "$id $arch" "the PTX has $entries entries, ptxas -v compiled $compiled" "$log"
        continue
      fi
      spills=$(grep -oE '[0-9]+ bytes spill (stores|loads)' "$log" | awk '$1 > 0' | head -n 4)
      if [ -n "$spills" ]; then
        fail "$id $arch" "register spills: $(echo $spills)" "$log"
        continue
      fi
      regs=$(grep -oE 'Used [0-9]+ registers' "$log" | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
      if [ "$regs" -gt "$maxregs" ]; then maxregs=$regs maxregs_at="$id $arch"; fi
      warn=$(grep -cE 'warning[[:space:]]*:' "$log")
      if [ "$entries" -eq 0 ]; then
        echo "ok   $id $arch: no entry (empty domain: nothing to launch), assembles"
      elif [ "$warn" -eq 0 ]; then
        echo "ok   $id $arch: $entries entries, $regs registers at most, no spill"
      else
        echo "ok   $id $arch: $entries entries, $regs registers at most, no spill, $warn ptxas warning(s):"
        grep -E 'warning[[:space:]]*:' "$log" | head -n 5 | sed 's/^/    /'
      fi
    done
  done
done

echo "gpu_ptxas: $cases kernel/size cases ($noentry without an entry, $refused refused)," \
  "$assembled ptxas runs," \
  "$failures failure(s);" \
  "most registers: $maxregs${maxregs_at:+ ($maxregs_at)}"
[ "$assembled" -gt 0 ] || { echo "gpu_ptxas: FAIL: no case assembled" >&2; exit 1; }
[ "$failures" -eq 0 ]
