#!/usr/bin/env bash
# Configures and builds lab_check into build/ (Release). Extra arguments go to CMake's configure,
# e.g. -DLAB_CHECK_BUILD_TESTS=OFF for the binary alone. Ninja and ccache are used when present
# (never required); a build/ made earlier keeps its generator.
set -euo pipefail
cd "$(dirname "$0")/.."
configure=(-DCMAKE_BUILD_TYPE=Release)
if [[ ! -f build/CMakeCache.txt ]] && command -v ninja >/dev/null; then configure+=(-G Ninja); fi
source scripts/ccache-launcher.sh
configure+=("${launcher[@]}")
cmake -S . -B build "${configure[@]}" "$@" >/dev/null
cmake --build build -j "$(nproc)"
