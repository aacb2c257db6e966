#!/usr/bin/env bash
# The bundle, copied elsewhere with its original deleted, runs its kernel tests (CPU and
# emulator devices) and a program linked with its shared library, with the system's copies
# of what it ships, the source and build trees and TinyCC's system runtime hidden
# (masked.sh). Before the move: its size, and check_elf.sh on every ELF file.
# usage: moved_test.sh BUNDLE SOURCE_DIR BUILD_DIR TCC_RUNTIME_DIR C_COMPILER
set -euo pipefail
made=$1 src=$2 build=$3 tccdir=$4 cc=$5
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sj-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH

orig=$work/original/stenciljit-bundle
mkdir -p "$work/original"
cp -a "$made" "$orig"
bytes=$(du -sb "$orig" | cut -f1)
echo "bundle: $bytes bytes ($((bytes / 1024 / 1024)) MiB)"
[ "$bytes" -lt $((40 * 1024 * 1024)) ] || { echo "FAIL: the bundle is 40 MiB or more"; exit 1; }
bash "$here/check_elf.sh" "$orig"

moved="$work/moved elsewhere/stenciljit-bundle"
mkdir -p "$(dirname "$moved")"
cp -a "$orig" "$moved"
rm -rf "$work/original"
bash "$here/check_elf.sh" "$moved"

# A user program on the shared library: the emulator and TinyCC's runtime are found from
# libstenciljit.so's own place (the test programs find them from bin/).
cat >"$work/user.c" <<'C'
#include <stdio.h>
#include <stenciljit.h>
static const char *src =
    "void scale(int N, float a, float X[N]) { for (int i = 0; i < N; i++) X[i] = a * X[i]; }";
int main(void) {
  jit_device devices[] = {JIT_DEVICE_CPU, JIT_DEVICE_EMU};
  for (int d = 0; d < 2; d++) {
    float x[5] = {1, 2, 3, 4, 5};
    jit_context *ctx = jit_context_create(devices[d]);
    if (!ctx) return printf("create: %s\n", jit_last_error()), 1;
    jit_arg args[] = {JIT_INT(5), JIT_FLOAT(2.0f), JIT_PTR(x)};
    if (jit_stencil_run(ctx, src, NULL, args, 3)) return printf("%s\n", jit_context_error(ctx)), 1;
    printf("%s\n", jit_context_info(ctx));
    jit_context_destroy(ctx);
    for (int i = 0; i < 5; i++)
      if (x[i] != 2.0f * (float)(i + 1)) return printf("wrong result at %d\n", i), 1;
  }
  printf("the bundle's shared library works\n");
  return 0;
}
C
"$cc" -std=c99 "$work/user.c" -o "$work/user" -I"$moved/include" -L"$moved/lib" -lstenciljit \
  "-Wl,-rpath,$moved/lib"

bash "$here/masked.sh" "$moved" "$src" "$build" "$tccdir" -- \
  env LOG_DIR="$work/logs" bash -c 'set -e; "$1"; bash "$2/run-tests.sh" cpu emu' run "$work/user" "$moved"
