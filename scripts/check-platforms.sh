#!/usr/bin/env bash
# The promises of docs/install.md's "Platforms", checked on this machine (CI runs it after the tests):
#  1. the README's first command needs no GoogleTest: configured with GoogleTest made unavailable,
#     lab_check builds alone and `--quick` ends with a report;
#  2. asking for the tests without GoogleTest fails at configure time with a message that names
#     the packages to install;
#  3. lab_check builds with g++-11 (Ubuntu 22.04's compiler) and runs;
#  4. arm64 (GH200 and other SBSA servers): lab_check and the simulated NVIDIA machine cross-built
#     with Debian's g++-aarch64-linux-gnu against multiarch's arm64 packages
#     (cmake/aarch64-linux-gnu.cmake), its glibc needs within the floor, `--quick` and `node-check`
#     on the simulated course machine run under qemu-aarch64, and its .deb and tarball packed.
# Every binary built here is also held to the glibc floor (scripts/glibc-floor.sh).
# Each in its own build folder (build-platform-*); ccache, when present, makes 1 mostly links.
set -uo pipefail
cd "$(dirname "$0")/.."
# g++-11 for step 3, the cross compiler, arm64 packages and qemu for step 4 (not installed by
# setup-and-test.sh); without them, those steps fail and say so.
scripts/install-deps.sh --platforms || echo "check-platforms: could not install the platform packages"
started=$(date +%s)
passed=0 failed=0
source scripts/ccache-launcher.sh
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
jobs=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

result() {  # name, status
  if [[ $2 -eq 0 ]]; then passed=$((passed + 1)); echo "check-platforms: PASS $1"
  else failed=$((failed + 1)); echo "check-platforms: FAIL $1"; fi
}

# configure_and_build DIR "TARGETS" CMAKE_ARGS...: a fresh build folder, only the named targets.
configure_and_build() {
  local dir=$1 targets=$2; shift 2
  rm -rf "$dir"
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" \
        >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; return 1; }
  # shellcheck disable=SC2086  # TARGETS is a list
  cmake --build "$dir" -j "$jobs" --target $targets >"$tmp/build.log" 2>&1 || { tail -n 60 "$tmp/build.log"; return 1; }
}

# run_quick DIR [RUNNER...]: `lab_check --quick` from DIR (through RUNNER, e.g. qemu-aarch64); the
# report must exist.
run_quick() {
  local dir=$1; shift
  local out="$tmp/$(basename "$dir")"
  "$@" "$dir/lab_check" --quick --skip-dist --lang en --out "$out/lab-report.md" >"$tmp/run.log" 2>&1
  local code=$?
  # 0 or 1 (a check failed on this machine) are both a finished run; the report must be there.
  if [[ $code -gt 1 || ! -s "$out/lab-report.json" ]]; then
    echo "lab_check --quick exited $code"; tail -n 30 "$tmp/run.log"; return 1
  fi
}

# Configures and builds lab_check alone into $1 with the extra configure arguments, runs
# `lab_check --quick` from there and holds the binary to the glibc floor.
build_and_run() {
  local dir=$1; shift
  configure_and_build "$dir" lab_check -DLAB_CHECK_BUILD_TESTS=OFF "$@" && run_quick "$dir" &&
    scripts/glibc-floor.sh "$dir/lab_check"
}

echo "check-platforms: 1. the first command's build without GoogleTest"
build_and_run build-platform-nogtest -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
result "build and --quick without GoogleTest" $?

echo "check-platforms: 2. tests asked for without GoogleTest"
rm -rf build-platform-notests
if cmake -S . -B build-platform-notests -DLAB_CHECK_BUILD_TESTS=ON -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
     >"$tmp/notests.log" 2>&1; then
  echo "configure succeeded, but GoogleTest was unavailable"; result "configure says what to install" 1
else
  grep -q "libgtest-dev" "$tmp/notests.log" || cat "$tmp/notests.log"
  grep -q "libgtest-dev" "$tmp/notests.log"; result "configure says what to install" $?
fi
rm -rf build-platform-notests

echo "check-platforms: 3. g++-11 (Ubuntu 22.04's compiler)"
if command -v g++-11 >/dev/null; then
  build_and_run build-platform-gcc11 -DCMAKE_CXX_COMPILER=g++-11
  result "build and --quick with g++-11" $?
else
  echo "g++-11 not installed (scripts/install-deps.sh --platforms installs it)"; result "g++-11 present" 1
fi

echo "check-platforms: 4. arm64, cross-built, run under qemu-aarch64"
arm=build-platform-arm64
if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  echo "aarch64-linux-gnu-g++ or qemu-aarch64 missing (scripts/install-deps.sh --platforms installs them)"
  result "arm64 toolchain present" 1
else
  arm_started=$(date +%s)
  # lab_check starts its own parts as child processes of the same binary: the kernel must hand an
  # arm64 binary to qemu (binfmt_misc; Debian's qemu-user-binfmt registers it).
  # A fresh VM may not have binfmt_misc mounted at all (this one did not): mount it first (root).
  [[ -e /proc/sys/fs/binfmt_misc/status ]] ||
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc >/dev/null 2>&1
  [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] || update-binfmts --enable qemu-aarch64 >/dev/null 2>&1
  [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] ||
    echo "qemu-aarch64 is not registered with binfmt_misc: the arm64 binary cannot start its own children"
  configure_and_build "$arm" "lab_check sim_nvidia" -DLAB_CHECK_BUILD_TESTS=ON \
                      -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
  built=$?
  result "arm64: lab_check and the simulator cross-built" $built
  if [[ $built -eq 0 ]]; then
    readelf -h "$arm/lab_check" | grep -q "AArch64"; result "arm64: the binary is an AArch64 ELF" $?
    scripts/glibc-floor.sh "$arm/lab_check"; result "arm64: glibc needs within the floor" $?
    run_quick "$arm" qemu-aarch64; result "arm64: --quick under qemu-aarch64" $?
    # The simulated course machine, its arm64 libraries: a healthy node must come out OK. Paced in
    # real time: unpaced (load_linger_ms 0), the links drop back to Gen1 before qemu's slower
    # child reads them "under load", and the node fails on PCIe.
    LD_LIBRARY_PATH="$PWD/$arm/sim-nvidia" LABCHECK_SIM_MACHINE="$PWD/tests/sim/machines/course-4x4080.json" \
      qemu-aarch64 "$arm/lab_check" node-check --lang en --json >"$tmp/node-check.json" 2>"$tmp/node-check.err"
    code=$?
    if [[ $code -ne 0 ]] || ! grep -q '"verdict":"OK"' "$tmp/node-check.json"; then
      echo "node-check exited $code"; head -c 2000 "$tmp/node-check.json"; tail -n 20 "$tmp/node-check.err"; code=1
    fi
    result "arm64: node-check on the simulated course machine under qemu-aarch64" $code
    cpack --config "$arm/CPackConfig.cmake" -B "$tmp/arm64-packages" >"$tmp/cpack.log" 2>&1 &&
      ls "$tmp/arm64-packages/lab-check_"*"_arm64.deb" \
         "$tmp/arm64-packages/lab_check-"*"-linux-aarch64.tar.gz.sha256" >/dev/null
    code=$?
    [[ $code -eq 0 ]] || tail -n 20 "$tmp/cpack.log"
    result "arm64: .deb and tarball packed" $code
  fi
  echo "check-platforms: arm64 took $(( $(date +%s) - arm_started )) s"
fi

echo "check-platforms: $passed passed, $failed failed in $(( $(date +%s) - started )) s"
[[ $failed -eq 0 ]]
