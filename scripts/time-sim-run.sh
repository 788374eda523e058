#!/usr/bin/env bash
# Where a full run on the simulated course machine spends its time (issue 52, item 7: a newcomer's
# `lab_check` on tests/sim/machines/course-4x4080.json, `--skip-dist`). Prints figures, asserts
# nothing: a timing is never a test (docs/benchmarks.md).
#
#   scripts/time-sim-run.sh                   # 3 full runs, then each GPU child job alone
#   scripts/time-sim-run.sh --runs 5          # more runs (a shared machine: take several)
#   scripts/time-sim-run.sh --machine FILE    # another profile (a path, or a name in tests/sim/machines/)
#   scripts/time-sim-run.sh --jobs-only       # only the GPU child jobs, each alone
#   BUILD=other-build scripts/time-sim-run.sh # another build folder (default build/)
#
# For each run: the load average before it, wall time, the CPU time of lab_check and every child it
# waited for (user + sys: on a machine shared with other builds this says more than the wall time),
# each check's duration from the JSON report, and what the simulator counted (LABCHECK_SIM_STATS,
# tests/sim/lib/core/run_stats.h): the modelled time of the work enqueued, the real time it was paced
# to (modelled × pacing/…, summed over streams: four GPUs at once count four times) and the real time
# threads slept waiting for it. Then each GPU check's child job alone (`lab_check internal-child JOB`),
# which gives its own wall and CPU time. Needs python3 and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
runs=3
machine=tests/sim/machines/course-4x4080.json
jobs_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=${2:?--runs N}; shift 2 ;;
    --machine) machine=${2:?--machine FILE}; shift 2 ;;
    --jobs-only) jobs_only=1; shift ;;
    *) echo "time-sim-run: unknown argument $1 (see the comment at the top of the script)" >&2; exit 2 ;;
  esac
done
[[ -f "$machine" ]] || machine=tests/sim/machines/$machine
for need in "$build/lab_check" "$build/sim-nvidia/libcuda.so.1" "$machine" /usr/bin/time; do
  [[ -e "$need" ]] || { echo "time-sim-run: $need is missing (build lab_check and sim_nvidia first)" >&2; exit 2; }
done
machine=$(realpath "$machine")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The simulator's counts of one run (every process of it), summed by job.
summarise_stats() {
  python3 - "$1" <<'PY'
import glob, json, sys
rows = {}
for path in glob.glob(sys.argv[1] + "/*.json"):
    with open(path) as f:
        s = json.loads(f.read().strip())
    r = rows.setdefault(s["job"], {"modelled": 0.0, "paced": 0.0, "waited": 0.0})
    r["modelled"] += sum(s["modelled_s"].values())
    r["paced"] += sum(s["paced_s"].values())
    r["waited"] += s["waited_s"]
for job, r in sorted(rows.items()):
    print(f"    {job:<16} modelled {r['modelled']:7.2f} s   paced {r['paced']:6.2f} s   waited {r['waited']:6.2f} s")
PY
}

sim_env=(LD_LIBRARY_PATH="$build/sim-nvidia" LABCHECK_SIM_MACHINE="$machine")
if [[ $jobs_only == 0 ]]; then
  echo "== full runs: $build/lab_check --skip-dist on $(basename "$machine"), $(nproc) CPUs"
  for ((i = 1; i <= runs; i++)); do
    stats="$work/stats$i"
    mkdir -p "$stats"
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$work/time" env "${sim_env[@]}" LABCHECK_SIM_STATS="$stats" \
      "$build/lab_check" --skip-dist --lang en --out "$work/run$i/report.md" >/dev/null 2>"$work/stderr" || true
    read -r wall user sys <"$work/time"
    echo "run $i (load average before: $load): wall $wall s, CPU $(python3 -c "print(f'{$user + $sys:.1f}')") s (user $user, sys $sys)"
    python3 - "$work/run$i/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
checks = [(c["id"], c.get("duration_s", 0), c.get("status", "")) for c in report["checks"]]
print("  checks over 0.05 s:", ", ".join(f"{i} {d:.2f}" for i, d, _ in checks if d > 0.05))
print(f"  sum of check durations {sum(d for _, d, _ in checks):.1f} s")
PY
    echo "  simulator, by job:"
    summarise_stats "$stats"
  done
fi

echo
echo "== each GPU check's child job alone (lab_check internal-child JOB, as the full check runs it)"
for job in gpu-inventory gpu-health gpu-matmul gpu-memory gpu-host-copy gpu-p2p; do
  stats="$work/job-$job"
  mkdir -p "$stats"
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %U %S" -o "$work/time" env "${sim_env[@]}" LABCHECK_SIM_STATS="$stats" \
    "$build/lab_check" internal-child "$job" >/dev/null 2>&1 || true
  read -r wall user sys <"$work/time"
  printf "%-14s load %5s   wall %6.2f s   CPU %6.2f s (user %s, sys %s)\n" "$job" "$load" "$wall" \
    "$(python3 -c "print($user + $sys)")" "$user" "$sys"
  summarise_stats "$stats"
done
