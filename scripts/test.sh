#!/usr/bin/env bash
# Installs what is missing (Debian), builds and runs every test twice: a normal build in
# build/ and an AddressSanitizer + UndefinedBehaviorSanitizer build in build-asan/; then
# the concurrency tests (stress, api) under ThreadSanitizer in build-tsan/, and each fuzz
# target for SJ_FUZZ_SECONDS (60) in build-fuzz/. Exits non-zero if anything fails.
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

# python_tests: the Python package installed into a fresh virtual environment the way a user
# installs it (pip builds the C library), then its tests, run from outside the source tree.
python_tests() {
  local venv=build/python-venv
  echo "== python: pip install ./python into $venv, pytest"
  rm -rf "$venv"
  python3 -m venv "$venv" </dev/null || return 1
  PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/pip" install --quiet ./python pytest \
    </dev/null || return 1
  (cd build && "../$venv/bin/python" -m pytest -q -p no:cacheprovider ../python/tests </dev/null)
}

install_deps
jobs=$(nproc 2>/dev/null || echo 2)
status=0
build_and_test build -DCMAKE_BUILD_TYPE=RelWithDebInfo || status=1
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  build_and_test build-asan -DCMAKE_BUILD_TYPE=Debug -DSJ_SANITIZE=ON || status=1

# ThreadSanitizer: only what runs threads, to keep the run short. Any report fails the test.
tsan() {
  echo "== build-tsan: configure and build"
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSJ_SANITIZE_THREAD=ON </dev/null &&
    cmake --build build-tsan -j "$jobs" --target stress_test api_test hostile_test info_test \
      stenciljit_cudaemu </dev/null || return 1
  echo "== build-tsan: test (stress, api)"
  (cd build-tsan && TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66} \
    ctest --output-on-failure -j "$jobs" -L "stress|api" </dev/null)
}
python_tests || status=1
tsan || status=1
bash scripts/fuzz.sh "${SJ_FUZZ_SECONDS:-60}" || status=1
if [ "$status" -ne 0 ]; then
  echo "== FAILED (see above)"
else
  echo "== all tests passed (build/, build-asan/, the Python package, build-tsan/, fuzzing)"
fi
exit "$status"
