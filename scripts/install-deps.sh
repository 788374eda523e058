#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages lab_check needs to build and test, skipping those present.
# Usage: scripts/install-deps.sh [--with-tests]
#   --with-tests also installs GoogleTest, Debian's python3-torch (a real, CPU-only PyTorch
#   that the Python smoke tests run against in CI), tmux (a real terminal of a chosen width for
#   the terminal-layout test), chromium, xmllint and zlib for the tests of the HTML report, and
#   Open MPI's mpirun (openmpi-bin: the multi-node all-reduce tests start two ranks with it,
#   docs/multi-node.md).
set -euo pipefail

packages=(g++ cmake make pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev libopenblas-dev python3)
if [[ "${1:-}" == "--with-tests" ]]; then
  # tmux gives the terminal-layout test a real terminal of a chosen width; chromium renders the HTML
  # report in the browser tests; xmllint validates its SVGs; zlib reads the screenshot; openmpi-bin
  # starts the two ranks of the multi-node tests.
  packages+=(googletest libgtest-dev libgmock-dev python3-torch python3-numpy tmux chromium libxml2-utils zlib1g-dev openmpi-bin)
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
