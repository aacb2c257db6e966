#!/usr/bin/env bash
# Builds stenciljit (Release) and makes one self-contained folder that runs on an x86-64 Linux
# with glibc >= 2.36 where nothing can be installed: the library, the CLI, the emulator, the
# test binaries with their kernels, the benchmarks with the naive CUDA baselines, and every
# shared library and runtime file they load that glibc does not provide (libffi, isl and gmp
# where the system's isl is linked, TinyCC's libtcc1.a and include/). Everything is found
# relative to the folder: programs in bin/ carry the run path $ORIGIN/../lib, the libraries in lib/ $ORIGIN/../lib (lib itself),
# and the library finds the emulator and TinyCC's runtime beside itself (dladdr).
#
# usage: scripts/bundle.sh [OUTDIR]      (default build-bundle/stenciljit-bundle)
# environment: BUNDLE_BUILD_DIR (default build-bundle/build), JOBS (default nproc)
# needs: what the build needs, and patchelf (the copied system libraries get a run path)
set -euo pipefail
command -v patchelf >/dev/null || {
  echo "bundle.sh: patchelf is needed (Debian: apt-get install patchelf)" >&2
  exit 1
}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$src/build-bundle/stenciljit-bundle}
build=${BUNDLE_BUILD_DIR:-$src/build-bundle/build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# The libraries glibc itself provides: everything else a program loads goes into lib/.
glibc_re='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|lib(c|m|mvec|dl|pthread|rt|util|resolv|anl)\.so\.[0-9]+)$'

echo "== configure $build (Release, run paths relative to the bundle)"
# DT_RPATH rather than DT_RUNPATH (--disable-new-dtags): a run path also serves the
# dependencies of dependencies (libisl's libgmp), which the copied system libraries lack.
# shellcheck disable=SC2016 # $ORIGIN is for the dynamic loader, not the shell
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSJ_SANITIZE=OFF \
  -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN/../lib' \
  -DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags \
  -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--disable-new-dtags \
  -DCMAKE_MODULE_LINKER_FLAGS=-Wl,--disable-new-dtags >/dev/null

programs=(stenciljit kernel_driver api_test device_test cuda_test schedule_test gpu_bench
  gpu_timing jit_bench)
krefs=()
for k in "$src"/tests/kernels/*.c; do
  name=$(basename "$k" .c)
  krefs+=("kref_$name")
done
echo "== build"
cmake --build "$build" -j "$jobs" --target stenciljit stenciljit_cli stenciljit_cudaemu \
  kernel_driver api_test device_test cuda_test schedule_test bench_gpu gpu_timing jit_bench \
  "${krefs[@]}" >/dev/null

# Where the build put each piece (target names differ from file names for some).
find_one() { # find_one NAME: the built file NAME under the build dir
  local f
  f=$(find "$build" -name "$1" \( -type f -o -type l \) -not -path '*/CMakeFiles/*' | head -n 1)
  [ -n "$f" ] || { echo "bundle.sh: $1 not found in $build" >&2; exit 1; }
  echo "$f"
}

echo "== assemble $out"
rm -rf "$out"
mkdir -p "$out"/{bin,lib/tcc,include,tests/kernels,tests/kref,tests/errors,tests/cuda} \
  "$out"/bench/baselines
for p in "${programs[@]}"; do cp "$(find_one "$p")" "$out/bin/"; done
cp -P "$(dirname "$(find_one libstenciljit.so)")"/libstenciljit.so* "$out/lib/"
cp "$(find_one libstenciljit_cudaemu.so)" "$out/lib/"
cp "$src/include/stenciljit.h" "$out/include/"

# TinyCC's runtime: the directory the build found (libtcc1.a and include/).
tcc_dir=$(dirname "$(sed -n 's/^TCC_RUNTIME:FILEPATH=//p' "$build/CMakeCache.txt")")
cp "$tcc_dir/libtcc1.a" "$out/lib/tcc/"
cp -r "$tcc_dir/include" "$out/lib/tcc/include"

# Test data: kernels and their reference modules, error files, the driver layer's PTX.
cp "$src"/tests/kernels/*.c "$out/tests/kernels/"
cp "$src"/tests/errors/*.c "$out/tests/errors/"
cp "$src/tests/cuda/vecadd.ptx" "$out/tests/cuda/"
for k in "${krefs[@]}"; do cp "$(find_one "$k.so")" "$out/tests/kref/${k#kref_}.so"; done

# The naive baselines: the .cu and the PTX nvcc made of them (this build's when it ran
# nvcc, else the checked-in copies).
cp "$src"/bench/baselines/*.cu "$out/bench/baselines/"
for cu in "$src"/bench/baselines/*.cu; do
  b=$(basename "$cu" .cu)
  ptx="$build/bench/gpu/baselines/$b.ptx"
  [ -f "$ptx" ] || ptx="$src/bench/baselines/$b.ptx"
  cp "$ptx" "$out/bench/baselines/"
done

cp "$src/bundle/README.md" "$out/"
cp "$src/bundle/run-tests.sh" "$src/bundle/run-gpu-checks.sh" "$out/"
chmod +x "$out"/*.sh

# Every shared library the ELF files load that glibc does not provide, copied under its
# soname, with the run path $ORIGIN for its own dependencies. ldd lists the whole closure
# (libisl's libgmp too).
elves=$(find "$out/bin" "$out/lib" "$out/tests/kref" -type f \( -name '*.so*' -o -perm -u+x \))
for f in $elves; do
  LD_LIBRARY_PATH='' ldd "$f" | awk '$2 == "=>" { print $1, $3 }'
done | sort -u | while read -r name path; do
  [[ $name =~ $glibc_re ]] && continue
  [ -e "$out/lib/$name" ] && continue
  [ -f "$path" ] || { echo "bundle.sh: $name is not found ($path)" >&2; exit 1; }
  cp -L "$path" "$out/lib/$name"
  # shellcheck disable=SC2016
  patchelf --force-rpath --set-rpath '$ORIGIN' "$out/lib/$name"
done
strip --strip-unneeded "$out"/bin/* "$out"/lib/libstenciljit*.so* "$out"/tests/kref/*.so \
  2>/dev/null || true

{
  echo "stenciljit $(sed -n 's/^#define STENCILJIT_VERSION "\(.*\)"/\1/p' "$src/include/stenciljit.h")"
  echo "commit $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
    [ -z "$(git -C "$src" status --porcelain 2>/dev/null)" ] || echo ' (with uncommitted changes)')"
  # shellcheck disable=SC1091
  echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(. /etc/os-release && echo "$PRETTY_NAME"),"\
    "glibc $(ldd --version | head -n 1 | awk '{ print $NF }')"
} >"$out/VERSION"
echo "== $out: $(du -sh "$out" | cut -f1)"
