#!/usr/bin/env python3
"""Side-by-side table of lab_check's native GPU figures and the reference ones (PyTorch, and
nccl-tests' all_reduce_perf when it ran), with the ratio and the target from the issues.

Only the standard library: it runs on a bare GPU machine. A reference that is missing leaves its
rows "not measured"; the table is always written, headed by the machine it describes, ready to be
copied into docs/gpu-results.md.

The all-reduce is compared like for like: at the largest message size both swept, nccl-tests'
busbw (host clock around its loop, averaged over its processes) against lab_check's figure counted
the same way (busbw_gbps_nccl_tests); the CUDA-event figure is shown beside it, not judged.

A GPU row is judged only where lab_check measured a GPU: on a machine without one (or where the
full check could not reach it) those rows say "not measured (no GPU)", never "yes".

Usage: compare_to_torch.py LAB_REPORT_JSON [--torch TORCH_JSON] [--nccl-tests LOG] [--machine TXT]
                           [--version "lab_check VERSION"]   (what the binary's --version printed)
"""
import argparse
import json
import re
import sys

# lab_check key suffix -> (reference key in torch_reference.json, target ratio, what the reference is)
TORCH_PAIRS = [
    ("matmul_bf16_tflops", "matmul_bf16_tflops", 0.98, "torch.matmul"),
    ("memory_copy_gbps", "memory_copy_gbps", 0.98, "torch copy_ (driver copy)"),
    ("memory_kernel_copy_gbps", "memory_copy_gbps", None, "torch copy_ (driver copy)"),
    ("memory_kernel_triad_gbps", "memory_triad_gbps", 0.95, "torch add (triad)"),
    ("h2d_pinned_gbps", "h2d_pinned_gbps", 0.98, "torch pinned copy_"),
    ("d2h_pinned_gbps", "d2h_pinned_gbps", 0.98, "torch pinned copy_"),
]


def measurements(report):
    found = {}
    for check in report.get("checks", []):
        for m in check.get("measurements", []):
            found[m["key"]] = m["value"]
    return found


def check_data(report, check_id):
    for check in report.get("checks", []):
        if check.get("id") == check_id:
            return check
    return {}


def gpu_section_seconds(report):
    return sum(c.get("duration_s", 0) for c in report.get("checks", [])
               if c.get("section") in ("gpu", "interconnect"))


def nccl_tests_rows(path):
    """{bytes: (time_us, busbw_gbps)}, out of place, as all_reduce_perf printed them."""
    rows = {}
    try:
        lines = open(path, errors="replace").readlines()
    except OSError:
        return rows
    for line in lines:
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
        return [f"| nccl.allreduce_busbw_gbps | {fmt(measurements(report).get('nccl.allreduce_busbw_gbps'))} | — | — | 0.97 | "
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


def tool_version(report, version_line):
    """What the binary said of itself (--version), else what the report recorded."""
    if version_line and version_line.strip():
        return version_line.strip().splitlines()[0]
    recorded = (report.get("tool") or {}).get("version")
    return f"lab_check {recorded}" if recorded else "lab_check (version not recorded)"


def header(report, torch, machine_path, version_line):
    inventory = check_data(report, "gpu.inventory").get("data", {})
    lines = []
    meta = report.get("meta", {})
    lines.append(f"- date: {meta.get('started_at') or '?'}; {tool_version(report, version_line)}")
    for gpu in inventory.get("gpus", []) or []:
        lines.append(f"- GPU {gpu.get('index', '?')}: {gpu.get('name', '?')}, CC {gpu.get('cc_major', '?')}.{gpu.get('cc_minor', '?')}, "
                     f"{gpu.get('memory_total_gib', 0):.0f} GiB, PCIe gen {gpu.get('pcie_gen_max', '?')} x{gpu.get('pcie_width_max', '?')}")
    if inventory.get("driver_version"):
        lines.append(f"- driver {inventory['driver_version']} (CUDA {inventory.get('cuda_driver_version', '?')})")
    if inventory.get("simulated"):
        lines.append("- **SIMULATED**: these figures come from tests/sim, not a card; never copy them as results")
    for lib in inventory.get("libraries", []) or []:
        if isinstance(lib, dict):
            lines.append(f"- {lib.get('name', '?')} {lib.get('version', '?')}: {lib.get('path', '?')} ({lib.get('origin', '?')})")
    if torch:
        lines.append(f"- torch {torch.get('torch', '?')} (CUDA {torch.get('torch_cuda', '?')})")
    if machine_path:
        try:
            driver = [l for l in open(machine_path, errors="replace") if "driver" in l.lower() or "NVIDIA" in l]
            lines += [f"- nvidia-smi: {l.strip()}" for l in driver[:3]]
        except OSError:
            pass
    return "\n".join(lines)


def row(name, mine, theirs, what, target):
    if mine is None or not theirs:
        return f"| {name} | {fmt(mine)} | {fmt(theirs)} | — | {target or '—'} | not measured |"
    ratio = mine / theirs
    met = "—" if target is None else ("yes" if ratio >= target else "NO")
    return f"| {name} | {mine:.1f} | {theirs:.1f} ({what}) | {ratio:.3f} | {target or '—'} | {met} |"


def fmt(value):
    return "—" if value is None else (f"{value:.1f}" if isinstance(value, (int, float)) else str(value))


def gpu_section_row(report, gpus_measured):
    """The GPU section's time per GPU against its 60 s target; with no GPU measured there is
    nothing to judge (a SKIP takes no time, and 0 s would read as met)."""
    if gpus_measured == 0:
        return "| GPU section, s per GPU | — | — | — | ≤ 60 | not measured (no GPU) |"
    per_gpu = gpu_section_seconds(report) / gpus_measured
    return f"| GPU section, s per GPU | {per_gpu:.1f} | — | — | ≤ 60 | {'yes' if per_gpu <= 60 else 'NO'} |"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--torch")
    parser.add_argument("--nccl-tests")
    parser.add_argument("--machine")
    parser.add_argument("--version", help="the first line lab_check --version printed")
    args = parser.parse_args()
    report = json.load(open(args.report))
    torch = json.load(open(args.torch)) if args.torch else {}
    ours = measurements(report)
    print(header(report, torch, args.machine, args.version))
    print()
    print("| figure | lab_check | reference | ratio | target | met |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    reference_gpus = {g["index"]: g for g in torch.get("gpus", [])}
    count = int(ours.get("gpu.count", 0) or 0) or len(reference_gpus)
    for i in range(count):
        gpu = reference_gpus.get(i, {})
        for suffix, theirs, target, what in TORCH_PAIRS:
            key = f"gpu{i}.{suffix}"
            if key in ours or theirs in gpu:
                print(row(key, ours.get(key), gpu.get(theirs), what, target))
    for line in busbw_rows(report, args.nccl_tests):
        print(line)
    print(gpu_section_row(report, int(ours.get("gpu.count", 0) or 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
