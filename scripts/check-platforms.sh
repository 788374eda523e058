#!/usr/bin/env bash
# The promises of README.md's "Platforms", checked on this machine (CI runs it after the tests):
#  1. the README's first command needs no GoogleTest: configured with GoogleTest made unavailable,
#     lab_check builds alone and `--quick` ends with a report;
#  2. asking for the tests without GoogleTest fails at configure time with a message that names
#     the packages to install;
#  3. lab_check builds with g++-11 (Ubuntu 22.04's compiler) and runs.
# Each in its own build folder (build-platform-*); ccache, when present, makes 1 mostly links.
set -uo pipefail
cd "$(dirname "$0")/.."
# g++-11 for step 3 (not installed by setup-and-test.sh); without it, step 3 fails and says so.
scripts/install-deps.sh --platforms || echo "check-platforms: could not install g++-11"
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

# Configures and builds lab_check alone into $1 with the extra configure arguments, then runs
# `lab_check --quick` from there; the report must exist.
build_and_run() {
  local dir=$1; shift
  rm -rf "$dir"
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLAB_CHECK_BUILD_TESTS=OFF \
        "${launcher[@]}" "$@" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; return 1; }
  cmake --build "$dir" -j "$jobs" --target lab_check >"$tmp/build.log" 2>&1 || { tail -n 60 "$tmp/build.log"; return 1; }
  local out="$tmp/$(basename "$dir")"
  "$dir/lab_check" --quick --skip-dist --lang en --out "$out/lab-report.md" >"$tmp/run.log" 2>&1
  local code=$?
  # 0 or 1 (a check failed on this machine) are both a finished run; the report must be there.
  if [[ $code -gt 1 || ! -s "$out/lab-report.json" ]]; then
    echo "lab_check --quick exited $code"; tail -n 30 "$tmp/run.log"; return 1
  fi
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

echo "check-platforms: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
