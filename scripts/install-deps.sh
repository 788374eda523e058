#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages lab_check needs to build and test, skipping those present.
# Usage: scripts/install-deps.sh [--with-tests]
#   --with-tests also installs GoogleTest and Debian's python3-torch (a real, CPU-only PyTorch
#   that the Python smoke tests run against in CI) and Open MPI's mpirun (openmpi-bin: the
#   multi-node all-reduce tests start two ranks with it, docs/multi-node.md).
set -euo pipefail

packages=(g++ cmake make pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev libopenblas-dev python3)
if [[ "${1:-}" == "--with-tests" ]]; then
  packages+=(googletest libgtest-dev libgmock-dev python3-torch python3-numpy openmpi-bin)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
