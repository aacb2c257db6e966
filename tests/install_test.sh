#!/usr/bin/env bash
# make install into a fresh prefix, then build and run a program the way a user would:
# with the installed header, pkg-config's flags and the shared library.
# usage: install_test.sh BUILD_DIR C_COMPILER [EXTRA_FLAGS]   (the sanitizer build's flags)
set -euo pipefail
build=$1 cc=$2 extra=${3:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -name stenciljit.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no stenciljit.pc installed"; exit 1; }
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs stenciljit)
libdir=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=libdir stenciljit)
cat >"$prefix/user.c" <<'C'
#include <stdio.h>
#include <stenciljit.h>
static const char *src =
    "void scale(int N, float a, float X[N]) { for (int i = 0; i < N; i++) X[i] = a * X[i]; }";
int main(void) {
  float x[5] = {1, 2, 3, 4, 5};
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  if (!ctx) return printf("create: %s\n", jit_last_error()), 1;
  jit_arg args[] = {JIT_INT(5), JIT_FLOAT(2.0f), JIT_PTR(x)};
  if (jit_stencil_run(ctx, src, NULL, args, 3)) return printf("%s\n", jit_context_error(ctx)), 1;
  jit_context_destroy(ctx);
  for (int i = 0; i < 5; i++)
    if (x[i] != 2.0f * (float)(i + 1)) return printf("wrong result at %d\n", i), 1;
  printf("installed library works\n");
  return 0;
}
C
# shellcheck disable=SC2086
"$cc" $extra "$prefix/user.c" -o "$prefix/user" $flags -Wl,-rpath,"$libdir"
"$prefix/user"
