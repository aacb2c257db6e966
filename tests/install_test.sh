#!/usr/bin/env bash
# Installs into a fresh prefix, checks what it holds, moves it elsewhere, then builds and runs
# programs against the moved prefix the ways a user would: a small program and examples/
# with pkg-config's flags, and examples/ as a CMake project with find_package(stenciljit
# CONFIG). Programs are plain C99 (-std=c99 -Wall -Wextra -pedantic -Werror).
#
# usage: install_test.sh SOURCE_DIR BUILD_DIR C_COMPILER [EXTRA_FLAGS] [emu]
#   EXTRA_FLAGS: the sanitizer build's flags; emu: instead, check that a program using the
#   moved prefix loads the emulator installed beside the library there.
set -euo pipefail
src=$1 build=$2 cc=$3 extra=${4:-} mode=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export JIT_CACHE_DIR=$work/jit-cache # the programs below never touch the user's cache
fail() {
  echo "FAIL: $*"
  exit 1
}

cmake --install "$build" --prefix "$work/installed" >/dev/null
lib=$(find "$work/installed" -name 'libstenciljit.so' | head -n 1)
[ -n "$lib" ] || fail "no libstenciljit.so installed"

# Only the public API leaves the shared library.
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}')
others=$(grep -v '^jit_' <<<"$exported" || true)
[ -z "$others" ] || fail "libstenciljit.so exports more than jit_*: $(echo $others | head -c 400)"
[ "$(grep -c '^jit_' <<<"$exported")" -ge 20 ] || fail "libstenciljit.so exports too few jit_*"

# The installed tree is moved: nothing may depend on where it was installed.
mv "$work/installed" "$work/moved"
prefix=$work/moved
libdir=$(dirname "$(find "$prefix" -name 'libstenciljit.so' | head -n 1)")
pc=$(find "$prefix" -name stenciljit.pc | head -n 1)
[ -n "$pc" ] || fail "no stenciljit.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs stenciljit)
[ "$(pkg-config --variable=libdir stenciljit)" -ef "$libdir" ] || fail "pkg-config's libdir is not the moved one"
c99="-std=c99 -Wall -Wextra -pedantic -Werror"

cat >"$work/user.c" <<'C'
/* Runs a kernel on the device JIT_DEVICE names; with "emulator", prints which emulator
 * library the process mapped. */
#include <stdio.h>
#include <string.h>
#include <stenciljit.h>
static const char *src =
    "void scale(int N, float a, float X[N]) { for (int i = 0; i < N; i++) X[i] = a * X[i]; }";
int main(int argc, char **argv) {
  float x[5] = {1, 2, 3, 4, 5};
  int i;
  jit_context *ctx = jit_context_create(JIT_DEVICE_AUTO);
  jit_arg args[3];
  if (!ctx) return printf("create: %s\n", jit_last_error()), 1;
  args[0] = JIT_INT(5), args[1] = JIT_FLOAT(2.0f), args[2] = JIT_PTR(x);
  if (jit_stencil_run(ctx, src, NULL, args, 3)) return printf("%s\n", jit_context_error(ctx)), 1;
  for (i = 0; i < 5; i++)
    if (x[i] != 2.0f * (float)(i + 1)) return printf("wrong result at %d\n", i), 1;
  printf("installed library %s works on %s\n", jit_version(), jit_context_info(ctx));
  if (argc > 1 && !strcmp(argv[1], "emulator")) {
    char line[4096];
    FILE *maps = fopen("/proc/self/maps", "r");
    while (maps && fgets(line, sizeof line, maps))
      if (strstr(line, "libstenciljit_cudaemu")) {
        printf("emulator: %s", strchr(line, '/'));
        break;
      }
    if (maps) fclose(maps);
  }
  jit_context_destroy(ctx);
  return 0;
}
C
# shellcheck disable=SC2086
"$cc" $extra $c99 "$work/user.c" -o "$work/user" $flags -Wl,-rpath,"$libdir"

if [ "$mode" = emu ]; then
  out=$(JIT_DEVICE=emu "$work/user" emulator) || fail "user program on the emulator: $out"
  echo "$out"
  loaded=$(sed -n 's/^emulator: //p' <<<"$out")
  [ -n "$loaded" ] || fail "no emulator mapped"
  [ "$(dirname "$loaded")" -ef "$libdir" ] || fail "the emulator came from $loaded, not from the moved prefix $libdir"
  exit 0
fi

JIT_DEVICE=cpu "$work/user"

# examples/ with pkg-config, then as a CMake project of its own.
# shellcheck disable=SC2086
"$cc" $extra $c99 "$src/examples/heat2d.c" -o "$work/heat2d_pc" $flags -Wl,-rpath,"$libdir"
JIT_DEVICE=cpu "$work/heat2d_pc" "$work/pc.png" --size 64 --steps 4 --check-size 17 --check-steps 3
cmake -S "$src/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra -Werror" >/dev/null ||
  fail "find_package(stenciljit CONFIG) against the moved prefix"
cmake --build "$work/examples" >/dev/null || fail "examples/ built against the moved prefix"
JIT_DEVICE=cpu "$work/examples/heat2d" "$work/cmake.png" --size 64 --steps 4 --check-size 17 \
  --check-steps 3
[ -s "$work/cmake.png" ] || fail "no picture written"

# The tool, its manual page and the licence travel with the prefix.
"$prefix/bin/stenciljit" --version | grep -q "^stenciljit " || fail "the installed tool"
[ -f "$prefix/share/man/man1/stenciljit.1" ] || fail "no manual page installed"
[ -f "$prefix/share/doc/stenciljit/LICENSE" ] || fail "no LICENSE installed"
echo "installed, moved prefix: pkg-config and find_package builds work"
