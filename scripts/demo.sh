#!/usr/bin/env bash
# Installs what is missing (Debian), builds stenciljit in build/ (Release) and runs the
# heat-2D demo, which writes build/heat2d.png.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

. scripts/deps.sh

install_deps
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release </dev/null
cmake --build build -j "$jobs" </dev/null
cd build
./examples/heat2d heat2d.png </dev/null
echo "== image: $(pwd)/heat2d.png"
