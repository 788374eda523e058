#!/usr/bin/env bash
# Downloads NVIDIA's userspace driver libraries as Debian's non-free component ships them
# (libcuda1 and libnvidia-ml1: 535.x in Debian 12) and unpacks them into DEST without installing
# anything (dpkg-deb -x), as test equipment: tests/gpu/real_driver_test.cpp and
# tests/node_check/node_check_driver_state_test.cpp ask NVIDIA's own libraries what they answer on
# a machine without the kernel module. Nothing lands on a search path: a test names DEST's library
# folder in the LD_LIBRARY_PATH of the one process it starts.
#
# Usage: scripts/fetch-nvidia-userspace.sh DEST
#   exit 0: DEST/complete names the version and the library folder ("version=535.261.03",
#           "libdir=DEST/usr/lib/x86_64-linux-gnu/nvidia/current"); a second run reuses it.
#   exit 1: it cannot be done here (not Debian, no apt-get, no network to the mirror); the reason
#           is on stderr, for the test's skip message. Nothing is kept, so a later run tries again.
# Safe to run from several tests at once (flock on DEST.lock). Needs no root: apt's lists, cache
# and download go to a temporary folder, as scripts/install-deps.sh does for nvml.h.
set -euo pipefail

dest=${1:?usage: $0 DEST}
mkdir -p "$(dirname "$dest")"
exec 9>"$dest.lock"
flock 9
[[ -f "$dest/complete" ]] && exit 0

fail() { echo "fetch-nvidia-userspace: $*" >&2; exit 1; }

. /etc/os-release
[[ "${ID:-}" == debian && -n "${VERSION_CODENAME:-}" ]] || fail "not Debian (${PRETTY_NAME:-unknown OS}): its non-free libcuda1 is Debian's"
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || fail "apt-get or dpkg-deb is missing"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -f $keyring ]] || fail "$keyring is missing (package debian-archive-keyring)"
# The machine's own Debian mirror, as its apt sources name it (deb822 or one-line format), else
# Debian's own; the security suite has no such packages.
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
         grep -oE '^(URIs:|deb( \[[^]]*\])?) +[a-z]+://[^ ]+' | grep -v -- '-security' | head -n 1 | awk '{print $NF}' || true)
mirror=${mirror:-http://deb.debian.org/debian}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # apt downloads as _apt when run as root
echo "deb [signed-by=$keyring] $mirror $VERSION_CODENAME non-free" >"$tmp/non-free.list"
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
apt=(-o Dir::Etc::sourcelist="$tmp/non-free.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$tmp/lists"
     -o Dir::Cache="$tmp/cache" -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1
     -o APT::Update::Error-Mode=any -o Acquire::Retries=0 -o Acquire::http::Timeout=20 -o Acquire::https::Timeout=20)
apt-get "${apt[@]}" update -qq >"$tmp/log" 2>&1 || fail "apt-get update of $mirror $VERSION_CODENAME non-free failed: $(tail -n 3 "$tmp/log" | tr '\n' ' ')"
(cd "$tmp" && apt-get "${apt[@]}" download -qq libcuda1 libnvidia-ml1 >>"$tmp/log" 2>&1) ||
  fail "apt-get download libcuda1 libnvidia-ml1 failed: $(tail -n 3 "$tmp/log" | tr '\n' ' ')"

rm -rf "$dest.partial"
mkdir -p "$dest.partial"
for deb in "$tmp"/libcuda1_*.deb "$tmp"/libnvidia-ml1_*.deb; do dpkg-deb -x "$deb" "$dest.partial"; done
version=$(dpkg-deb -f "$tmp"/libcuda1_*.deb Version)
version=${version%%-*}  # 535.261.03-1 → 535.261.03, the version in the libraries' file names
libdir=$(dirname "$(find "$dest.partial" -name "libcuda.so.$version" | head -n 1)")
[[ -f "$libdir/libnvidia-ml.so.$version" ]] || fail "the packages hold no libcuda.so.$version and libnvidia-ml.so.$version side by side"
rm -rf "$dest"
mv "$dest.partial" "$dest"
printf 'version=%s\nlibdir=%s\n' "$version" "${libdir/#$dest.partial/$dest}" >"$dest/complete"
