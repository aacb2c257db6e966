#!/usr/bin/env bash
# Every ELF file of a bundle loads what glibc does not provide from inside the bundle:
# ldd with LD_LIBRARY_PATH emptied resolves each such library to a path in the bundle (the
# run paths come first, so a missing copy shows as a system path or "not found"); run paths
# are $ORIGIN-relative only; no glibc symbol version newer than 2.36 is needed.
# usage: check_elf.sh BUNDLE
set -uo pipefail
bundle=$(cd "$1" && pwd -P)
glibc_re='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|lib(c|m|mvec|dl|pthread|rt|util|resolv|anl)\.so\.[0-9]+)$'
status=0 count=0
while IFS= read -r -d '' f; do
  [ "$(head -c 4 "$f" | tail -c 3)" = ELF ] || continue
  count=$((count + 1))
  # "NAME => PATH (0xADDRESS)" or "NAME => not found"; PATH may hold spaces
  while IFS=$'\t' read -r name path; do
    [[ $name =~ $glibc_re ]] && continue
    real=$(readlink -f "$path" 2>/dev/null || echo "$path")
    case $real in
    "$bundle"/*) ;;
    *) echo "FAIL ${f#"$bundle"/}: $name resolves to $path, outside the bundle"; status=1 ;;
    esac
  done < <(env LD_LIBRARY_PATH= ldd "$f" 2>&1 |
    sed -n 's/^[[:space:]]*\([^ ]*\) => \(.*\)$/\1\t\2/p' | sed 's/ (0x[0-9a-f]*)$//')
  while read -r rpath; do
    for p in ${rpath//:/ }; do
      # shellcheck disable=SC2016
      case $p in '$ORIGIN'*) ;; *) echo "FAIL ${f#"$bundle"/}: run path $p"; status=1 ;; esac
    done
  done < <(readelf -d "$f" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
  newest=$(objdump -T "$f" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
  if [ -n "$newest" ] && [ "$(printf '%s\n2.36\n' "$newest" | sort -V | tail -n 1)" != 2.36 ]; then
    echo "FAIL ${f#"$bundle"/}: needs glibc $newest"
    status=1
  fi
done < <(find "$bundle" -type f -print0)
echo "check_elf.sh: $count ELF files in $bundle"
[ "$count" -gt 10 ] || { echo "FAIL: too few ELF files"; status=1; }
exit "$status"
