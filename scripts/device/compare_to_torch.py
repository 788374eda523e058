#!/usr/bin/env python3
"""Side-by-side table of lab_check's native GPU figures and the reference ones (PyTorch, and
nccl-tests' all_reduce_perf when it ran), with the ratio and the target from the issue.

Usage: compare_to_torch.py LAB_REPORT_JSON TORCH_JSON [NCCL_TESTS_LOG] > ratios.md
"""
import json
import re
import sys

TARGETS = {"matmul_bf16_tflops": 0.98, "memory_copy_gbps": 0.98, "h2d_pinned_gbps": 0.98, "d2h_pinned_gbps": 0.98}


def measurements(report):
    found = {}
    for check in report.get("checks", []):
        for m in check.get("measurements", []):
            found[m["key"]] = m["value"]
    return found


def gpu_section_seconds(report):
    return sum(c.get("duration_s", 0) for c in report.get("checks", [])
               if c.get("section") in ("gpu", "interconnect"))


def nccl_tests_busbw(path):
    """busbw (out-of-place) of the largest size all_reduce_perf printed."""
    best = None
    for line in open(path, errors="replace"):
        fields = line.split()
        if len(fields) >= 8 and re.fullmatch(r"\d+", fields[0]):
            try:
                best = (int(fields[0]), float(fields[7]))
            except ValueError:
                continue
    return best


def main():
    report = json.load(open(sys.argv[1]))
    torch = json.load(open(sys.argv[2]))
    ours = measurements(report)
    print("| figure | lab_check | reference | ratio | target | met |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for gpu in torch.get("gpus", []):
        i = gpu["index"]
        for name, target in TARGETS.items():
            mine, theirs = ours.get(f"gpu{i}.{name}"), gpu.get(name)
            if mine is None or not theirs:
                print(f"| gpu{i}.{name} | {mine} | {theirs} | — | {target} | not measured |")
                continue
            ratio = mine / theirs
            print(f"| gpu{i}.{name} | {mine:.1f} | {theirs:.1f} (torch) | {ratio:.3f} | {target} | "
                  f"{'yes' if ratio >= target else 'NO'} |")
    busbw = ours.get("nccl.allreduce_busbw_gbps")
    reference = nccl_tests_busbw(sys.argv[3]) if len(sys.argv) > 3 else None
    if busbw is not None and reference:
        ratio = busbw / reference[1]
        print(f"| nccl.allreduce_busbw_gbps | {busbw:.1f} | {reference[1]:.1f} (nccl-tests, {reference[0] >> 20} MiB) | "
              f"{ratio:.3f} | 0.97 | {'yes' if ratio >= 0.97 else 'NO'} |")
    else:
        print(f"| nccl.allreduce_busbw_gbps | {busbw} | — | — | 0.97 | not comparable (one GPU or no nccl-tests) |")
    gpus = max(1, len(torch.get("gpus", [])))
    seconds = gpu_section_seconds(report)
    print(f"| GPU section, s per GPU | {seconds / gpus:.1f} | — | — | ≤ 60 | {'yes' if seconds / gpus <= 60 else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
