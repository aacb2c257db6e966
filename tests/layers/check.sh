#!/usr/bin/env bash
# The layers of the library run one way. Usage: check.sh SOURCE_DIR [BUILD_DIR]
#  1. No file includes a header of a layer above its own, nor of a sibling layer: base is the
#     bottom; sched, astgen, then ptx and host (siblings), then jit at the top. The public
#     header stenciljit.h is the vocabulary of every layer. The emulator (ptx/emu) is its own
#     component: it may include only its own headers and base/cuda_abi.h.
#  2. With BUILD_DIR: no two object files of the library call each other (nm).
set -u
src=${1:?source dir}
build=${2:-}
cd "$src" || exit 2
status=0

rank() {
  case $1 in
  base) echo 0 ;; sched) echo 1 ;; astgen) echo 2 ;; ptx | host) echo 3 ;; jit) echo 4 ;;
  *) echo -1 ;;
  esac
}

for file in $(find base sched astgen ptx host jit -name '*.[ch]' | sort); do
  layer=${file%%/*}
  sub=${file#*/}
  while IFS= read -r inc; do
    target=${inc%%/*}
    if [ "$layer/${sub%%/*}" = ptx/emu ]; then
      case $inc in */*) [ "$inc" = base/cuda_abi.h ] || {
        echo "$file: the emulator includes \"$inc\" (allowed: its own headers, base/cuda_abi.h)"
        status=1
      } ;; esac
      continue
    fi
    case $inc in */*) ;; *) continue ;; esac # same-folder header
    [ "$target" = "$layer" ] && continue
    r=$(rank "$target")
    if [ "$r" -lt 0 ] || [ "$r" -ge "$(rank "$layer")" ]; then
      echo "$file: includes \"$inc\", a layer not below $layer"
      status=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done

if [ -n "$build" ]; then
  objs=$(ls "$build"/*/CMakeFiles/sj_*.dir/*.o 2>/dev/null | sort)
  [ -n "$objs" ] || { echo "no component objects under $build"; exit 1; }
  defs=$(mktemp)
  uses=$(mktemp)
  trap 'rm -f "$defs" "$uses"' EXIT
  for o in $objs; do
    name=${o#*CMakeFiles/sj_}
    name=${name%.o}
    # objects of sources since removed may linger in the build tree
    src=${name%%.dir/*}/${name#*.dir/}
    [ -f "$src" ] || continue
    nm --defined-only -g "$o" | awk -v f="$name" 'NF==3 {print $3, f}' >>"$defs"
    nm -u "$o" | awk -v f="$name" '{print $NF, f}' >>"$uses"
  done
  # caller callee pairs, then the pairs that also run the other way
  pairs=$(join <(sort "$uses") <(sort "$defs") | awk '$2 != $3 {print $2, $3}' | sort -u)
  mutual=$(awk '{p[$1" "$2]=1} END {for (k in p) {split(k, a, " "); if (a[1] < a[2] && p[a[2]" "a[1]]) print a[1] " <-> " a[2]}}' <<<"$pairs")
  if [ -n "$mutual" ]; then
    echo "files that call each other:"
    echo "$mutual"
    status=1
  fi
fi
[ "$status" -eq 0 ] && echo "layers: ok"
exit "$status"
