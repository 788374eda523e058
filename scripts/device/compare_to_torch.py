#!/usr/bin/env python3
"""Side-by-side table of lab_check's native GPU figures and the reference ones (PyTorch, and
nccl-tests' all_reduce_perf when it ran), with the ratio and the target from the issue.

The all-reduce is compared like for like: at the largest message size both swept, nccl-tests'
busbw (host clock around its loop, averaged over its processes) against lab_check's figure counted
the same way (busbw_gbps_nccl_tests); the CUDA-event figure is shown beside it, not judged.

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


def nccl_tests_rows(path):
    """{bytes: (time_us, busbw_gbps)}, out of place, as all_reduce_perf printed them."""
    rows = {}
    for line in open(path, errors="replace"):
        fields = line.split()
        if len(fields) >= 8 and re.fullmatch(r"\d+", fields[0]):
            try:
                rows[int(fields[0])] = (float(fields[5]), float(fields[7]))
            except ValueError:
                continue
    return rows


def our_sizes(report):
    """interconnect.allreduce's sweep, {bytes: size row}."""
    for check in report.get("checks", []):
        if check.get("id") == "interconnect.allreduce":
            return {s["bytes"]: s for s in check.get("data", {}).get("sizes", []) if "bytes" in s}
    return {}


def busbw_rows(report, log_path):
    """Like for like: nccl-tests' busbw at the largest size both swept, beside ours counted the same
    way (host clock, busbw_gbps_nccl_tests) and ours by CUDA events (busbw_gbps)."""
    theirs = nccl_tests_rows(log_path) if log_path else {}
    ours = our_sizes(report)
    common = sorted(set(theirs) & set(ours))
    if not common:
        return [f"| nccl.allreduce_busbw_gbps | {measurements(report).get('nccl.allreduce_busbw_gbps')} | — | — | 0.97 | "
                f"not comparable (one GPU, no nccl-tests log, or no size in common) |"]
    size = common[-1]
    time_us, reference = theirs[size]
    row = ours[size]
    lines = []
    for key, label in (("busbw_gbps_nccl_tests", "host clock, as nccl-tests"), ("busbw_gbps", "CUDA events, slowest rank")):
        mine = row.get(key)
        if not isinstance(mine, (int, float)) or not reference:
            lines.append(f"| nccl.allreduce {key} ({label}) | {mine} | {reference:.1f} (nccl-tests, {size >> 20} MiB) | — | 0.97 | not measured |")
            continue
        ratio = mine / reference
        met = "yes" if ratio >= 0.97 else "NO"
        if key == "busbw_gbps":
            met = "(not the same clock)"
        lines.append(f"| nccl.allreduce {key} ({label}) | {mine:.1f} | {reference:.1f} (nccl-tests, {size >> 20} MiB) | "
                     f"{ratio:.3f} | 0.97 | {met} |")
    mine_us = row.get("time_us_nccl_tests")
    if isinstance(mine_us, (int, float)):
        lines.append(f"| nccl.allreduce time_us_nccl_tests | {mine_us:.1f} | {time_us:.1f} (nccl-tests, {size >> 20} MiB) | "
                     f"{time_us / mine_us:.3f} | — | — |")
    return lines


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
    for line in busbw_rows(report, sys.argv[3] if len(sys.argv) > 3 else None):
        print(line)
    gpus = max(1, len(torch.get("gpus", [])))
    seconds = gpu_section_seconds(report)
    print(f"| GPU section, s per GPU | {seconds / gpus:.1f} | — | — | ≤ 60 | {'yes' if seconds / gpus <= 60 else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
