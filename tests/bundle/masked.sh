#!/usr/bin/env bash
# Runs a command as on a machine where nothing was installed: in a user and mount namespace
# (unshare -rm, no privileges needed) the system's copies of the libraries the bundle ships
# (each file bound over by /dev/null), the C headers and libc's link-time files (what
# TinyCC would read with libc6-dev), and the directories given (the source and build trees,
# TinyCC's system runtime: tmpfs over each) are hidden. Where namespaces are not allowed the
# command runs unmasked and says so: the ldd check of bundle_moved still holds there.
#
# usage: masked.sh BUNDLE [DIR...] -- COMMAND [ARG...]
set -euo pipefail
bundle=$1
shift
hide=()
while [ "$1" != -- ]; do
  hide+=("$1")
  shift
done
shift
for f in "$bundle"/lib/*.so.*; do
  name=$(basename "$f")
  case $name in libstenciljit*) continue ;; esac
  while read -r p; do
    hide+=("$(readlink -f "$p")")
  done < <(ldconfig -p | awk -v n="$name" '$1 == n { print $NF }')
done
for p in /usr/include /usr/lib/x86_64-linux-gnu/libc.so /usr/lib/x86_64-linux-gnu/libc_nonshared.a; do
  [ -e "$p" ] && hide+=("$p")
done

if ! unshare -rm true 2>/dev/null; then
  echo "masked.sh: user and mount namespaces are not available: running UNMASKED"
  exec "$@"
fi
# shellcheck disable=SC2016
exec unshare -rm bash -c '
  set -e
  n=$1
  shift
  for p in "${@:1:$n}"; do
    [ -e "$p" ] || continue
    if [ -d "$p" ]; then mount -t tmpfs none "$p"; else mount --bind /dev/null "$p"; fi
    echo "masked: $p"
  done
  shift "$n"
  exec "$@"' masked "${#hide[@]}" "${hide[@]}" "$@"
