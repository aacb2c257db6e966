# Sourced by demo.sh and test.sh: installs the Debian packages that are missing.
# g++ is needed too: the project checks that the public header compiles as C++; patchelf
# makes the bundle (scripts/bundle.sh); python3-venv for the Python package's tests; clang
# and its runtime libraries (libFuzzer) build the fuzz targets.
install_deps() {
  local pkgs=(cmake gcc g++ make pkg-config libisl-dev libtcc-dev tcc libffi-dev patchelf
    python3-venv clang libclang-rt-dev)
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
