#!/usr/bin/env bash
# Where the build and the tests spend their time (issue 24: measure before changing anything).
#
#   scripts/time-build.sh                # report on build/ as it is (its Ninja log, its last ctest run)
#   scripts/time-build.sh DIR            # the same for another build folder
#   scripts/time-build.sh --fresh DIR    # first a clean build into DIR (ccache off, tests on), then report
#   scripts/time-build.sh --suite [DIR]  # first the whole suite, as setup-and-test.sh runs it, then report
#
# --suite runs `ctest -j (cores + 3)` in the build folder and prints the load average before and after,
# the wall time and the CPU time of ctest and every test it ran (user + sys: on a machine shared with
# other builds this compares better than the wall time). It never fails on a failing test: it
# measures; the suite's own output is in DIR/Testing/Temporary/LastTest.log.
#
# Reads what Ninja and CTest already record, so a report costs nothing after a build:
#  - build/.ninja_log: start and end of every step of every build; the newest entry per output is
#    kept, so after an incremental build the figures mix old and new steps (use --fresh for a
#    first build's figures);
#  - build/Testing/Temporary/CTestCostData.txt: each test's mean time over its runs, which CTest
#    keeps to schedule the slowest tests first; each test's labels come from the test list
#    (ctest -N --show-only=json-v1).
# Needs Ninja as the generator (scripts/build.sh picks it when present); python3 for the ctest part.
set -euo pipefail
caller=$PWD
# A folder given is taken from where the command was typed.
from_caller() { [[ "$1" == /* ]] && echo "$1" || echo "$caller/$1"; }
cd "$(dirname "$0")/.."
build=build
suite=0
if [[ "${1:-}" == --suite ]]; then
  suite=1
  shift
fi
if [[ -n "${1:-}" && "$1" != --fresh ]]; then
  build=$(from_caller "$1")
  [[ -d "$build" ]] || { echo "time-build: $build is not a folder; give a build folder, or --fresh DIR" >&2; exit 2; }
fi
if [[ "${1:-}" == --fresh ]]; then
  build=$(from_caller "${2:?usage: scripts/time-build.sh --fresh DIR}")
  if [[ -e "$build" ]]; then echo "time-build: $build exists; give a new folder for a clean build" >&2; exit 2; fi
  command -v ninja >/dev/null || { echo "time-build: --fresh needs ninja (apt-get install ninja-build)" >&2; exit 2; }
  start=$(date +%s)
  CCACHE_DISABLE=1 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAB_CHECK_BUILD_TESTS=ON >/dev/null
  CCACHE_DISABLE=1 cmake --build "$build" -j "$(nproc)" >/dev/null
  echo "clean build (configure + build, ccache off, $(nproc) cores): $(( $(date +%s) - start )) s wall"
fi
if [[ $suite == 1 ]]; then
  [[ -f "$build/CTestTestfile.cmake" ]] || { echo "time-build: $build has no tests (configure with -DLAB_CHECK_BUILD_TESTS=ON)" >&2; exit 2; }
  echo "== the suite: ctest -j $(( $(nproc) + 3 )) --timeout 900 in $build"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  times=$(mktemp)
  (cd "$build" && /usr/bin/time -f "%e %U %S" -o "$times" ctest -j "$(( $(nproc) + 3 ))" --timeout 900 >"$times.out" 2>&1) || true
  read -r wall user sys <"$times"
  echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  grep -E "tests passed|tests failed" "$times.out" || true
  echo "wall $wall s, CPU $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }') s (user $user, sys $sys)"
  sed -n '/^Label Time Summary:/,/^$/p' "$times.out"
  rm -f "$times" "$times.out"
fi
log="$build/.ninja_log"
if [[ ! -f "$log" ]]; then
  echo "time-build: no $log; build with Ninja first (scripts/build.sh uses it when installed)" >&2
  exit 2
fi

# Newest entry per output; durations in seconds.
steps=$(awk -F'\t' 'NR > 1 { t[$4] = ($2 - $1) / 1000 } END { for (o in t) printf "%.2f\t%s\n", t[o], o }' "$log")

echo
echo "== build steps by kind (CPU seconds: sum of step durations; wall is about this / cores)"
awk -F'\t' '
  { d = $1; o = $2
    if (o ~ /\.gch$/) k = "precompiled headers"
    else if (o ~ /\.o$/) k = "compiles"
    else if (o ~ /\.a$/) k = "static libraries"
    else if (o ~ /_tests\.cmake$|\.cmake$/) k = "test discovery (gtest_discover_tests)"
    else k = "links and other"
    s[k] += d; n[k]++; total += d }
  END { for (k in s) printf "%8.1f s  %4d steps  %s\n", s[k], n[k], k; printf "%8.1f s  total\n", total }' \
  <<<"$steps" | sort -rn

echo
echo "== compile CPU seconds by folder"
awk -F'\t' '$2 ~ /\.o$/ {
    o = $2; sub(/(^|\/)CMakeFiles\/[^\/]*\.dir\//, "/", o); sub(/^\//, "", o); n = split(o, p, "/")
    k = (n >= 3) ? p[1] "/" p[2] : p[1]; s[k] += $1; c[k]++ }
  END { for (k in s) printf "%8.1f s  %4d files  %s\n", s[k], c[k], k }' <<<"$steps" | sort -rn | head -20

echo
echo "== slowest translation units"
awk -F'\t' '$2 ~ /\.o$/' <<<"$steps" | sort -rn | head -20 | awk -F'\t' '{ printf "%8.2f s  %s\n", $1, $2 }'

echo
echo "== links (executables)"
awk -F'\t' '$2 !~ /\.(o|gch|a|cmake)$/ && $2 !~ /CMakeFiles|\// || $2 ~ /\/[a-z_]+_tests$|\/sim$|\/packaging$/' <<<"$steps" |
  sort -rn | head -25 | awk -F'\t' '{ printf "%8.2f s  %s\n", $1, $2 }'

cost="$build/Testing/Temporary/CTestCostData.txt"
if [[ ! -f "$cost" ]]; then
  echo; echo "(no ctest run recorded in $build yet: run ctest there for the test figures)"
  exit 0
fi
echo
echo "== tests: mean seconds per test over CTest's recorded runs, summed by label (seconds x processes)"
(cd "$build" && ctest -N --show-only=json-v1) | python3 -c '
import json, sys, collections
cost_file = sys.argv[1]
labels = {}
for t in json.load(sys.stdin)["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    labels[t["name"]] = props.get("LABELS", ["(none)"])
seconds = {}
for line in open(cost_file):
    if line.startswith("---"):
        break
    parts = line.rsplit(" ", 2)
    if len(parts) == 3 and parts[0] in labels:
        seconds[parts[0]] = float(parts[2])
by_label = collections.Counter()
for name, s in seconds.items():
    for label in labels[name]:
        by_label[label] += s
for label, s in by_label.most_common():
    print(f"{s:8.1f} s  {label}")
print(f"{sum(seconds.values()):8.1f} s  all {len(seconds)} tests (sum; the wall time is about this / -j)")
print()
print("== slowest tests")
for name, s in sorted(seconds.items(), key=lambda kv: -kv[1])[:15]:
    print(f"{s:8.1f} s  {name}")
' "$cost"
