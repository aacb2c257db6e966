#!/usr/bin/env bash
# Installs what is missing (Debian), builds stenciljit in build/ (Release) and runs the
# heat-2D demo, which writes build/heat2d.png.
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

install_deps
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release </dev/null
cmake --build build -j "$jobs" </dev/null
cd build
./examples/heat2d heat2d.png </dev/null
echo "== image: $(pwd)/heat2d.png"
