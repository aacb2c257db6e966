#!/usr/bin/env bash
# gpu_ptx_deterministic: the PTX that `stenciljit ptx` prints for a kernel and its sizes is
# byte-identical across separate processes. For each kernel, the sizes of its first and last
# `// run:` lines; the second process runs from another directory with a different environment
# (malloc perturbation, a longer environment block), so address-dependent output shows up.
#
# usage: gpu_ptx_deterministic.sh --cli STENCILJIT KERNEL.c...
# exit:  0 identical everywhere, 1 a difference or a failed run, 2 usage
set -u

cli=""
usage() {
  echo "usage: $0 --cli STENCILJIT KERNEL.c..." >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
  --cli) [ $# -ge 2 ] || usage; cli=$2; shift 2 ;;
  --) shift; break ;;
  -*) usage ;;
  *) break ;;
  esac
done
[ -n "$cli" ] && [ $# -gt 0 ] || usage
case "$cli" in /*) ;; *) cli="$PWD/$cli" ;; esac
if [ ! -x "$cli" ]; then
  echo "gpu_ptx_deterministic: FAIL: the stenciljit CLI $cli is not an executable" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu_ptx_det.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/elsewhere"
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 300"

cases=0 failures=0
fail() {
  failures=$((failures + 1))
  echo "FAIL $1: $2"
  if [ $# -ge 3 ] && [ -s "$3" ]; then sed -n '1,40s/^/    /p' "$3"; fi
}

for kernel in "$@"; do
  case "$kernel" in /*) ;; *) kernel="$PWD/$kernel" ;; esac
  name=$(basename "$kernel" .c)
  mapfile -t all < <(grep -E '^[[:space:]]*//[[:space:]]*run:' "$kernel" 2>/dev/null)
  if [ ${#all[@]} -eq 0 ]; then
    fail "$name" "no '// run:' line in $kernel"
    continue
  fi
  lines=("${all[0]}")
  [ ${#all[@]} -lt 2 ] || lines+=("${all[${#all[@]}-1]}")
  idx=0
  for line in "${lines[@]}"; do
    idx=$((idx + 1))
    defs=() label=""
    for tok in ${line#*run:}; do
      defs+=(-D "$tok")
      label="$label${label:+ }$tok"
    done
    id="$name [$label]"
    cases=$((cases + 1))
    a="$tmp/$name.$idx.a.ptx" b="$tmp/$name.$idx.b.ptx"
    JIT_DEVICE=emu $tmo "$cli" ptx "$kernel" --device emu "${defs[@]}" >"$a" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ] || [ ! -s "$a" ]; then
      fail "$id" "first process: stenciljit ptx exited with $rc or printed nothing" "$tmp/err"
      continue
    fi
    (cd "$tmp/elsewhere" && env JIT_DEVICE=emu MALLOC_PERTURB_=165 \
      SJ_DETERMINISM_PAD="$(printf '%*s' 4096 '' | tr ' ' x)" \
      $tmo "$cli" ptx "$kernel" --device emu "${defs[@]}") >"$b" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ] || [ ! -s "$b" ]; then
      fail "$id" "second process: stenciljit ptx exited with $rc or printed nothing" "$tmp/err"
      continue
    fi
    if cmp -s "$a" "$b"; then
      echo "ok   $id: $(wc -c <"$a") bytes identical"
    else
      diff "$a" "$b" >"$tmp/diff"
      fail "$id" "the two processes printed different PTX" "$tmp/diff"
    fi
  done
done

echo "gpu_ptx_deterministic: $cases case(s), $failures failure(s)"
[ "$cases" -gt 0 ] && [ "$failures" -eq 0 ]
