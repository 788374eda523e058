#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages lab_check needs to build and test, skipping those present.
# Usage: scripts/install-deps.sh [--with-tests | --platforms]
#   --with-tests also installs GoogleTest, Debian's python3-torch (a real, CPU-only PyTorch
#   that the Python smoke tests run against in CI), tmux (a real terminal of a chosen width for
#   the terminal-layout test), chromium, xmllint and zlib for the tests of the HTML report, and
#   Open MPI's mpirun (openmpi-bin: the multi-node all-reduce tests start two ranks with it,
#   docs/multi-node.md), slurm-wlm and munge (the real one-node Slurm of `ctest -L slurm`, which
#   starts its own daemons: docs/cluster-gate.md), prometheus-node-exporter and prometheus (promtool:
#   the node-check metrics test), and unpacks NVML's header (below).
#   --platforms also installs what scripts/check-platforms.sh needs: g++-11, and for the arm64
#   build Debian's cross compiler, multiarch's arm64 packages (adding the arm64 architecture to
#   dpkg) and qemu-user with its binfmt registration.
set -euo pipefail

# nvml.h for the ABI test (tests/gpu/abi_test.cpp): the CUDA toolkit here has none, and Debian
# ships it only in non-free's libnvidia-ml-dev, which depends on the driver's own NVML
# (libnvidia-ml1). Installing that would put a real libnvidia-ml.so.1 on a machine without a GPU
# and change what the tests see, so the package is downloaded (apt-get, non-free enabled for this
# one call) and only its header is unpacked, into /opt/lab_check/nvml. Best effort: without it
# the NVML part of the ABI test says why it skips.
nvml_header_dir=/opt/lab_check/nvml
unpack_nvml_header() {
  [[ -f "$nvml_header_dir/usr/include/nvml.h" ]] && return 0
  local codename tmp
  local mirror
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  # The machine's own Debian mirror, as its apt sources name it (deb822 or one-line format).
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
           grep -oE '^(URIs:|deb( \[[^]]*\])?) +[a-z]+://[^ ]+' | grep -v -- '-security' | head -n 1 | awk '{print $NF}')
  [[ -n "$codename" && -n "$mirror" && -f /usr/share/keyrings/debian-archive-keyring.gpg ]] || {
    echo "install-deps: not Debian, nvml.h not unpacked (the NVML ABI test will skip)"; return 0; }
  tmp=$(mktemp -d)
  chmod 755 "$tmp"  # apt downloads as _apt
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename non-free" >"$tmp/non-free.list"
  local apt=(-o Dir::Etc::sourcelist="$tmp/non-free.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$tmp/lists"
             -o APT::Get::List-Cleanup=0)
  mkdir -p "$tmp/lists/partial"
  if "${sudo[@]}" apt-get "${apt[@]}" update -qq && (cd "$tmp" && "${sudo[@]}" apt-get "${apt[@]}" download -qq libnvidia-ml-dev); then
    "${sudo[@]}" mkdir -p "$nvml_header_dir"
    "${sudo[@]}" dpkg-deb -x "$tmp"/libnvidia-ml-dev_*.deb "$nvml_header_dir"
    echo "install-deps: nvml.h unpacked into $nvml_header_dir (libnvidia-ml-dev, not installed)"
  else
    echo "install-deps: could not download libnvidia-ml-dev; the NVML ABI test will skip"
  fi
  "${sudo[@]}" rm -rf "$tmp"
}

packages=(g++ cmake make pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev libopenblas-dev python3)
if [[ "${1:-}" == "--with-tests" ]]; then
  # tmux gives the terminal-layout test a real terminal of a chosen width; chromium renders the HTML
  # report in the browser tests; xmllint validates its SVGs; zlib reads the screenshot; openmpi-bin
  # starts the two ranks of the multi-node tests.
  packages+=(googletest libgtest-dev python3-torch python3-numpy tmux chromium libxml2-utils zlib1g-dev openmpi-bin)
  # slurm-wlm and munge: the Slurm test (tests/node_check/slurm_cluster_test.cpp) writes its own
  # configuration and starts slurmctld, slurmd and munged itself; the packages' own services are
  # not needed (in a container without systemd they do not start).
  packages+=(slurm-wlm munge)
  # prometheus-node-exporter and prometheus (for promtool): the metrics test
  # (tests/node_check/prometheus_metrics_test.cpp) lints node-check's --prometheus file with
  # `promtool check metrics` and scrapes it from a node_exporter it starts on 127.0.0.1 with the
  # textfile collector; neither package's service is used. About 27 MB to download.
  packages+=(prometheus-node-exporter prometheus)
  # ccache turns a second build of the same sources into links; ninja builds faster than make.
  packages+=(ccache ninja-build)
elif [[ "${1:-}" == "--platforms" ]]; then
  # g++-11 for scripts/check-platforms.sh, which builds with Ubuntu 22.04's compiler and installs
  # it through this; not part of --with-tests, whose time is issue 24's budget.
  packages+=(g++-11)
  # The arm64 cross build (cmake/aarch64-linux-gnu.cmake) on an amd64 machine: the cross compiler,
  # the target's libraries from multiarch (fmt, OpenBLAS; GoogleTest and zlib because the simulator
  # is configured with the tests), and qemu to run the result; qemu-user-binfmt lets the arm64
  # binary start its own child processes (the kernel hands them to qemu).
  if [[ $(dpkg --print-architecture) == amd64 ]]; then
    packages+=(g++-aarch64-linux-gnu qemu-user qemu-user-binfmt binfmt-support
               libc6:arm64 libstdc++6:arm64 libfmt-dev:arm64 libopenblas-dev:arm64 libgtest-dev:arm64 zlib1g-dev:arm64)
    add_architecture=arm64
  fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=()
if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null; then sudo=(sudo); fi
if [[ "${1:-}" == "--with-tests" ]] && { [[ $(id -u) -eq 0 ]] || [[ ${#sudo[@]} -gt 0 ]]; }; then
  unpack_nvml_header || true
fi
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [[ $(id -u) -ne 0 && ${#sudo[@]} -eq 0 ]]; then
  # Exit 2: nothing is wrong with the machine that this user can fix; an administrator can.
  echo "install-deps: these packages are missing, and installing them needs root (no sudo here)." >&2
  echo "Ask an administrator to run:" >&2
  echo "  apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 2
fi
echo "install-deps: installing ${missing[*]}"
if [[ -n "${add_architecture:-}" ]] && ! dpkg --print-foreign-architectures | grep -qx "$add_architecture"; then
  "${sudo[@]}" dpkg --add-architecture "$add_architecture"  # multiarch; the update below reads its lists
fi
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
