#!/usr/bin/env bash
# One prepared run on an NVIDIA machine (an H200 is the one we measure on): the full lab_check,
# the PyTorch reference figures for the same shapes, nccl-tests where installed and two GPUs or
# more exist, the VRAM-peak script when present, and a side-by-side table of ratios.
# Everything goes into OUTDIR. Assumes a prebuilt binary (build/lab_check, or $LAB_CHECK).
# Budget: under ~8 minutes on one H200; each step has its own timeout so one hang cannot eat it.
#
# Usage: scripts/device-check.sh OUTDIR        (PYTHON=... to choose the interpreter)
set -u -o pipefail

OUT=${1:?usage: scripts/device-check.sh OUTDIR}
mkdir -p "$OUT"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BIN=${LAB_CHECK:-$ROOT/build/lab_check}
PYTHON=${PYTHON:-$(command -v python3)}
export PYTHONUNBUFFERED=1

step() { printf '\n== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

step "machine"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  uname -a
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max,power.limit \
    --format=csv 2>&1
  nvidia-smi topo -m 2>&1
  "$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
} | tee "$OUT/machine.txt"
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)

step "lab_check: full check, JSON only"
if [[ ! -x "$BIN" ]]; then
  echo "no lab_check binary at $BIN: build it first (cmake -B build && cmake --build build -j)" | tee "$OUT/lab_check.stderr"
else
  start=$(date +%s)
  timeout 420 "$BIN" --json-only --python "$PYTHON" --out "$OUT/lab-report.md" \
    >"$OUT/lab-report.stdout.json" 2>"$OUT/lab_check.stderr"
  echo "exit $? after $(( $(date +%s) - start )) s" | tee "$OUT/lab_check.exit"
  [[ -s "$OUT/lab-report.json" ]] || cp "$OUT/lab-report.stdout.json" "$OUT/lab-report.json"
fi

step "PyTorch reference: matmul BF16 8192^3, copy_ 1 GiB, pinned H2D/D2H 256 MiB"
timeout 150 "$PYTHON" "$HERE/device/torch_reference.py" --out "$OUT/torch_reference.json" 2>&1 | tee "$OUT/torch_reference.log"

NCCL_LOG=""
if (( GPUS >= 2 )) && command -v all_reduce_perf >/dev/null; then
  step "nccl-tests all_reduce_perf on $GPUS GPUs"
  NCCL_LOG="$OUT/nccl_tests.log"
  timeout 180 all_reduce_perf -b 1M -e 1G -f 2 -g "$GPUS" 2>&1 | tee "$NCCL_LOG"
else
  echo "nccl-tests: skipped ($GPUS GPU(s); all_reduce_perf $(command -v all_reduce_perf >/dev/null && echo found || echo 'not on PATH'))" \
    | tee "$OUT/nccl_tests.log"
fi

if [[ -f "$HERE/device/measure_vram_peak.py" ]]; then
  step "VRAM peak"
  timeout 150 "$PYTHON" "$HERE/device/measure_vram_peak.py" 2>&1 | tee "$OUT/vram_peak.log"
fi

step "lab_check / reference"
if [[ -s "$OUT/lab-report.json" && -s "$OUT/torch_reference.json" ]]; then
  "$PYTHON" "$HERE/device/compare_to_torch.py" "$OUT/lab-report.json" "$OUT/torch_reference.json" $NCCL_LOG \
    | tee "$OUT/ratios.md"
else
  echo "no table: a report or the reference is missing (see the logs in $OUT)" | tee "$OUT/ratios.md"
fi
