#!/usr/bin/env bash
# One prepared run on an NVIDIA machine (an H200 is the one we measure on): the full lab_check,
# the PyTorch reference figures for the same shapes, the memory test (its self-test, then 60 s of
# it; issue 54), nccl-tests where installed and two GPUs or more exist, the VRAM-peak script when
# PyTorch and transformers are there, and a side-by-side table of ratios (ratios.md, with the
# memory test's patterns against lab_check's SM copy and PyTorch's copy_ at its end).
#
# Made for a bare, lent GPU machine: no network, perhaps no compiler, no apt, no PyTorch. It needs
# bash, coreutils and tar, and a prebuilt lab_check (static apart from glibc; tests/packaging keeps
# it so). Whatever else is absent (nvidia-smi, python3, torch, nccl-tests) is skipped and said so.
#
# Budget: BUDGET_S seconds in all (default 570: the device tool's calls are 10 minutes at most and
# a lease is 15; the memory test takes 120 of them). Every step gets its own timeout, cut to what is left, so one hang cannot eat the
# rest and the table is always written.
#
# OUTDIR receives at most 8 files (the device tool brings back 8): ratios.md, machine.txt,
# lab-report.{md,json,html}, torch_reference.json, device-check.log and device-check.tar.gz with
# every file of the run (logs, charts, nccl-tests and VRAM output).
#
# Usage: scripts/device-check.sh OUTDIR
#   LAB_CHECK=path/to/lab_check (default build/lab_check), PYTHON=interpreter (default python3),
#   LAB_CHECK_ARGS="--quick" (extra arguments for the full check), BUDGET_S=seconds.
set -u -o pipefail

OUT=${1:?usage: scripts/device-check.sh OUTDIR}
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BIN=${LAB_CHECK:-$ROOT/build/lab_check}
[[ "$BIN" == /* ]] || BIN="$PWD/$BIN"
PYTHON=${PYTHON-$(command -v python3 || true)}
# An interpreter that does not start counts as none: the steps that need it are skipped.
if [[ -n "$PYTHON" ]] && ! "$PYTHON" -c 'pass' >/dev/null 2>&1; then
  echo "device-check: $PYTHON does not run; continuing without Python" >&2
  PYTHON=""
fi
BUDGET_S=${BUDGET_S:-570}
read -r -a EXTRA_ARGS <<<"${LAB_CHECK_ARGS:-}"
export PYTHONUNBUFFERED=1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/device-check.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
LOG="$WORK/device-check.log"
START=$(date +%s)
DEADLINE=$((START + BUDGET_S))
FINISH_RESERVE_S=15  # the table and the bundle

say() { printf '%s\n' "$*" | tee -a "$LOG"; }
step() { say ""; say "== $1 ($(date -u +%H:%M:%S), $(( $(date +%s) - START )) s in)"; }
# The timeout for a step: its own budget, cut to what is left before the finish.
budget() {
  local left=$((DEADLINE - FINISH_RESERVE_S - $(date +%s)))
  (( left < $1 )) && echo "$left" || echo "$1"
}
# Runs "$@" under a timeout of budget($1); says when it was cut or there was no time left.
run_step() {
  local want=$1; shift
  local limit; limit=$(budget "$want")
  if (( limit < 5 )); then say "skipped: no time left in the ${BUDGET_S} s budget"; return 124; fi
  timeout --signal=INT --kill-after=10 "$limit" "$@"  # INT: lab_check writes its partial report
  local rc=$?
  (( rc == 124 || rc == 137 )) && say "stopped after its ${limit} s timeout"
  return "$rc"
}

have_torch=no
if [[ -n "$PYTHON" ]] && "$PYTHON" -c 'import torch' >/dev/null 2>&1; then have_torch=yes; fi

step "machine"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  uname -srm
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max,power.limit,clocks.max.sm \
      --format=csv 2>&1
    nvidia-smi topo -m 2>&1
  else
    echo "nvidia-smi: not found"
  fi
  if [[ -z "$PYTHON" ]]; then echo "python3: not found (no PyTorch reference, no table)"
  elif [[ $have_torch == yes ]]; then
    "$PYTHON" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
  else
    echo "python $("$PYTHON" -c 'import sys; print(sys.version.split()[0])' 2>&1): no torch (no PyTorch reference)"
  fi
  echo "lab_check: $BIN"
  [[ -x "$BIN" ]] && "$BIN" --version 2>&1
} 2>&1 | tee "$WORK/machine.txt" | tee -a "$LOG"
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)

step "lab_check: full check"
if [[ ! -x "$BIN" ]]; then
  say "no lab_check binary at $BIN: build it first (scripts/build.sh, or cmake --build build --target lab_check)"
else
  python_args=()
  [[ -n "$PYTHON" ]] && python_args=(--python "$PYTHON")
  t0=$(date +%s)
  run_step 330 "$BIN" --lang en "${python_args[@]}" "${EXTRA_ARGS[@]}" --out "$WORK/lab-report.md" \
    >"$WORK/lab-report.stdout.txt" 2>"$WORK/lab_check.stderr"
  say "lab_check exit $? after $(( $(date +%s) - t0 )) s"
  tail -n 60 "$WORK/lab-report.stdout.txt" >>"$LOG"
fi

step "PyTorch reference: matmul BF16 8192^3, device copies 1 GiB, pinned H2D/D2H 256 MiB"
if [[ $have_torch == yes ]]; then
  run_step 120 "$PYTHON" "$HERE/device/torch_reference.py" --out "$WORK/torch_reference.json" 2>&1 | tee -a "$LOG"
else
  say "skipped: ${PYTHON:-python3} has no torch"
fi

step "lab_check memtest: the self-test, then 60 s of GPU time"
if [[ -x "$BIN" ]]; then
  # The self-test flips chosen bits through the driver: every pattern must report exactly those.
  run_step 30 "$BIN" --lang en memtest --self-test --json --out "$WORK/memtest-self-test.md" \
    >"$WORK/memtest-self-test.json" 2>>"$LOG"
  say "memtest --self-test exit $?"
  run_step 90 "$BIN" --lang en memtest --minutes 1 --json --out "$WORK/memtest.md" >"$WORK/memtest.json" 2>>"$LOG"
  say "memtest --minutes 1 exit $?"
else
  say "skipped: no lab_check binary"
fi

NCCL_LOG=""
if (( GPUS >= 2 )) && command -v all_reduce_perf >/dev/null; then
  step "nccl-tests all_reduce_perf on $GPUS GPUs"
  NCCL_LOG="$WORK/nccl_tests.log"
  run_step 120 all_reduce_perf -b 1M -e 1G -f 2 -g "$GPUS" 2>&1 | tee "$NCCL_LOG" >>"$LOG"
else
  step "nccl-tests"
  say "skipped: $GPUS GPU(s); all_reduce_perf $(command -v all_reduce_perf >/dev/null && echo found || echo 'not on PATH')"
fi

step "VRAM peak of real training steps against lab_check vram"
if [[ $have_torch == yes ]] && "$PYTHON" -c 'import transformers, peft' >/dev/null 2>&1; then
  run_step 90 "$PYTHON" "$HERE/device/measure_vram_peak.py" --lab-check "$BIN" --snapshot-dir "$WORK/snapshots" \
    >"$WORK/vram_peak.jsonl" 2>"$WORK/vram_peak.stderr"
  say "vram peak exit $?"; cat "$WORK/vram_peak.jsonl" >>"$LOG"
else
  say "skipped: no torch with transformers and peft in ${PYTHON:-python3}"
fi

step "lab_check against the reference"
if [[ -z "$PYTHON" ]]; then
  say "no table: no python3 to make it (the report is in lab-report.md)"
  echo "no table: no python3 on this machine; lab_check's own figures are in lab-report.md" >"$WORK/ratios.md"
elif [[ -s "$WORK/lab-report.json" ]]; then
  reference=()
  [[ -s "$WORK/torch_reference.json" ]] && reference=(--torch "$WORK/torch_reference.json")
  [[ -n "$NCCL_LOG" ]] && reference+=(--nccl-tests "$NCCL_LOG")
  version=$("$BIN" --version 2>/dev/null | head -n 1)
  "$PYTHON" "$HERE/device/compare_to_torch.py" "$WORK/lab-report.json" "${reference[@]}" \
    --machine "$WORK/machine.txt" --version "$version" >"$WORK/ratios.md" 2>>"$LOG"
  if [[ -s "$WORK/memtest.json" ]]; then
    torch_args=()
    [[ -s "$WORK/torch_reference.json" ]] && torch_args=(--torch "$WORK/torch_reference.json")
    { echo; "$PYTHON" "$HERE/device/memtest_speed.py" --memtest "$WORK/memtest.json" --self-test "$WORK/memtest-self-test.json" \
        --lab-report "$WORK/lab-report.json" "${torch_args[@]}"; } >>"$WORK/ratios.md" 2>>"$LOG"
  fi
  cat "$WORK/ratios.md" >>"$LOG"
else
  echo "no table: lab_check wrote no report (see device-check.log and lab_check.stderr in the bundle)" | tee "$WORK/ratios.md" >>"$LOG"
fi

step "bundle"
say "done in $(( $(date +%s) - START )) s of ${BUDGET_S} s"
tar -czf "$OUT/device-check.tar.gz" -C "$WORK" . 2>>"$LOG"
for f in ratios.md machine.txt lab-report.md lab-report.json lab-report.html torch_reference.json device-check.log; do
  [[ -f "$WORK/$f" ]] && cp "$WORK/$f" "$OUT/$f"
done
echo "device-check: $OUT ($(ls "$OUT" | tr '\n' ' '))"
cat "$OUT/ratios.md"
