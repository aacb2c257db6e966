#!/usr/bin/env bash
# Installs what is missing (Debian), builds and runs every test twice: a normal build in
# build/ and an AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/.
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

install_deps() {
  # g++ is needed too: the project enables C++ to check that the header compiles as C++.
  local pkgs=(cmake gcc g++ make pkg-config libisl-dev libtcc-dev tcc libffi-dev)
  local missing=() p
  for p in "${pkgs[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update </dev/null
    "${sudo[@]}" apt-get install -y "${pkgs[@]}" </dev/null
  fi
}

# build_and_test DIR [cmake options...]: 0 if the build and every test pass.
build_and_test() {
  local dir=$1
  shift
  echo "== $dir: configure $*"
  cmake -S . -B "$dir" "$@" </dev/null || return 1
  echo "== $dir: build"
  cmake --build "$dir" -j "$jobs" </dev/null || return 1
  echo "== $dir: test"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" </dev/null) || return 1
}

install_deps
jobs=$(nproc 2>/dev/null || echo 2)
status=0
build_and_test build -DCMAKE_BUILD_TYPE=RelWithDebInfo || status=1
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  build_and_test build-asan -DCMAKE_BUILD_TYPE=Debug -DSJ_SANITIZE=ON || status=1
if [ "$status" -ne 0 ]; then
  echo "== FAILED (see above)"
else
  echo "== all tests passed (build/ and build-asan/)"
fi
exit "$status"
