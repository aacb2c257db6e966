# Sourced by demo.sh and test.sh: installs the Debian packages that are missing, then isl
# built for speed (install_isl). g++ is needed too: the project checks that the public header
# compiles as C++; patchelf makes the bundle (scripts/bundle.sh); python3-venv for the Python
# package's tests; clang and its runtime libraries (libFuzzer) build the fuzz targets; curl
# and xz-utils fetch and unpack isl's source.
sj_as_root() {
  if [ "$(id -u)" -ne 0 ]; then sudo "$@"; else "$@"; fi
}

install_deps() {
  local pkgs=(cmake gcc g++ make pkg-config libisl-dev libtcc-dev tcc libffi-dev patchelf
    python3-venv clang libclang-rt-dev curl xz-utils ca-certificates)
  local missing=() p
  for p in "${pkgs[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    sj_as_root apt-get update </dev/null
    sj_as_root apt-get install -y "${pkgs[@]}" </dev/null
  fi
  install_isl
}

# Debian's libisl is built on GMP, whose every operation allocates; isl's imath-32 build keeps
# small integers in a machine word, and a time-tiled compile is isl arithmetic almost all
# through: 1.9 times faster (bench/results/cold-jit.md, "imath"), the same PTX. It is the
# same isl version as Debian's (0.25, Debian's own source), built once into SJ_ISL_PREFIX,
# where CMake looks first (its option SJ_ISL_PREFIX). Where the source cannot be fetched or
# built, CMake takes Debian's libisl-dev: slower compiles, the same results.
SJ_ISL_VERSION=0.25
SJ_ISL_SOURCE=http://deb.debian.org/debian/pool/main/i/isl/isl_$SJ_ISL_VERSION.orig.tar.xz
SJ_ISL_SHA256=be7b210647ccadf90a2f0b000fca11a4d40546374a850db67adb32fad4b230d9
install_isl() {
  local prefix=${SJ_ISL_PREFIX:-/opt/stenciljit-isl}
  [ -f "$prefix/lib/libisl.a" ] && grep -qx "Version: $SJ_ISL_VERSION" "$prefix/lib/pkgconfig/isl.pc" &&
    return 0
  echo "== building isl (imath-32) into $prefix"
  local dir
  dir=$(mktemp -d)
  if (cd "$dir" && curl -fsS --retry 3 -o isl.tar.xz "$SJ_ISL_SOURCE" </dev/null &&
    echo "$SJ_ISL_SHA256  isl.tar.xz" | sha256sum -c --quiet &&
    tar xJf isl.tar.xz && cd "isl-$SJ_ISL_VERSION" &&
    # CFLAGS of our own: configure would otherwise tune the code for this machine's CPU alone
    ./configure -q --prefix="$prefix" --with-int=imath-32 --disable-shared --with-pic \
      CFLAGS="-O3 -g0" </dev/null &&
    make -s gitversion.h </dev/null >/dev/null &&
    make -s -j "$(nproc 2>/dev/null || echo 2)" libisl.la </dev/null >/dev/null &&
    sj_as_root make -s install-libLTLIBRARIES install-pkgincludeHEADERS \
      install-nodist_pkgincludeHEADERS install-pkgconfigDATA </dev/null >/dev/null &&
    # the .pc names a folder of the build tree that the installed headers do not need
    sj_as_root sed -i 's| -I\./imath_wrap||' "$prefix/lib/pkgconfig/isl.pc"); then
    echo "== isl (imath-32) installed in $prefix"
  else
    echo "== warning: isl (imath-32) not built; CMake uses Debian's libisl-dev (slower compiles)"
  fi
  rm -rf "$dir"
}
