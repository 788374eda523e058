#!/usr/bin/env python3
"""PyTorch reference figures for lab_check's native GPU measurements (scripts/device-check.sh).

Same shapes, sizes and timing method as src/gpu/bench/: CUDA events around each call of a
back-to-back series after a warm-up, median; BF16 matmul 8192^3 counted as 2*M*N*K FLOPs after
at least 200 ms of warm-up; device copy_ of 1 GiB (the runtime's copy, as lab_check's driver-copy
figure) counted as bytes read + bytes written; a triad of 1 GiB arrays (one SM kernel, as
lab_check's kernel figure and BabelStream) counted as 2 reads + 1 write; pinned host<->device
copies of 256 MiB counted as bytes copied. Writes one JSON object to --out.
"""
import argparse
import json
import statistics
import sys


def timed_series(torch, fn, calls):
    """Per-call milliseconds of `calls` back-to-back calls, each between two CUDA events."""
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(calls)]
    for start, stop in events:
        start.record()
        fn()
        stop.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(stop) for start, stop in events]


def warm_up(torch, fn, warm_ms):
    """Back-to-back calls for at least `warm_ms` of device time, so the clocks have settled (as
    lab_check's matmul warm-up: a time, not a count of calls)."""
    spent = 0.0
    while spent < warm_ms:
        spent += sum(timed_series(torch, fn, 5))


def matmul_bf16(torch, size=8192, target_ms=1500.0, warm_ms=200.0):
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(size, size, device="cuda", dtype=torch.bfloat16)
    fn = lambda: torch.matmul(a, b, out=out)  # noqa: E731
    warm_up(torch, fn, warm_ms)  # clocks up, cuBLAS handles and heuristics cached
    probe = statistics.median(timed_series(torch, fn, 3))
    repeats = max(20, min(2000, int(target_ms / max(probe, 1e-3))))
    median_ms = statistics.median(timed_series(torch, fn, repeats))
    return 2.0 * size ** 3 / (median_ms * 1e-3) / 1e12, repeats


def device_copy(torch, nbytes=1 << 30):
    src = torch.full((nbytes // 4,), 1.1, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    fn = lambda: dst.copy_(src)  # noqa: E731
    timed_series(torch, fn, 3)
    median_ms = statistics.median(timed_series(torch, fn, 20))
    return 2.0 * nbytes / (median_ms * 1e-3) / 1e9


def device_triad(torch, nbytes=1 << 30):
    """BabelStream's triad a = b + s*c in one kernel, counted as 2 reads + 1 write per element."""
    n = nbytes // 4
    b = torch.full((n,), 1.1, device="cuda", dtype=torch.float32)
    c = torch.full((n,), 2.2, device="cuda", dtype=torch.float32)
    a = torch.empty_like(b)
    fn = lambda: torch.add(b, c, alpha=0.4, out=a)  # noqa: E731
    timed_series(torch, fn, 3)
    median_ms = statistics.median(timed_series(torch, fn, 20))
    return 3.0 * n * 4 / (median_ms * 1e-3) / 1e9


def pinned_copies(torch, nbytes=256 << 20):
    host = torch.empty(nbytes, dtype=torch.uint8).pin_memory()
    host.fill_(0x5A)
    dev = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    h2d = lambda: dev.copy_(host, non_blocking=True)  # noqa: E731
    d2h = lambda: host.copy_(dev, non_blocking=True)  # noqa: E731
    out = {}
    for name, fn in (("h2d_pinned_gbps", h2d), ("d2h_pinned_gbps", d2h)):
        timed_series(torch, fn, 3)
        out[name] = nbytes / (statistics.median(timed_series(torch, fn, 10)) * 1e-3) / 1e9
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    result = {"gpus": []}
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - any import failure means "no reference"
        result["error"] = f"import torch failed: {error}"
        json.dump(result, open(args.out, "w"), indent=1)
        return 1
    result["torch"] = torch.__version__
    result["torch_cuda"] = torch.version.cuda
    if not torch.cuda.is_available():
        result["error"] = "torch.cuda.is_available() is False"
        json.dump(result, open(args.out, "w"), indent=1)
        return 1
    for index in range(torch.cuda.device_count()):
        torch.cuda.set_device(index)
        gpu = {"index": index, "name": torch.cuda.get_device_name(index)}
        gpu["matmul_bf16_tflops"], gpu["matmul_repeats"] = matmul_bf16(torch)
        gpu["memory_copy_gbps"] = device_copy(torch)
        gpu["memory_triad_gbps"] = device_triad(torch)
        gpu.update(pinned_copies(torch))
        torch.cuda.empty_cache()
        result["gpus"].append(gpu)
        print(json.dumps(gpu), flush=True)
    json.dump(result, open(args.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
