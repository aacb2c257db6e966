#!/usr/bin/env bash
# Installs what is missing (Debian), builds and runs every test twice: a normal build in
# build/ and an AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/.
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

. scripts/deps.sh

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
