#!/usr/bin/env python3
"""The memory test's speed claim on a real card (issue 54 item 7; scripts/device-check.sh runs it).

Reads what `lab_check memtest --json` printed (a run of its patterns) and, where given, the self-test
(`lab_check memtest --self-test --json`), lab_check's full report (its gpu.memory_bandwidth SM copy,
1 GiB, the figure the claim names) and scripts/device/torch_reference.py's JSON (PyTorch's `copy_` of
1 GiB on the same card). Writes a Markdown section to stdout: per card, each pattern's GB/s (bytes
read + written per second, as the SM copy counts them) against the SM copy and `copy_`, whether it
reaches 0.9 x the SM copy, the memory tested of the total and the errors; and whether the self-test
found exactly its flipped bits on every pattern. A benchmark's report, not a test: it exits 0
whatever the figures say, 2 when it cannot read its input.
"""
import argparse
import json
import sys

CLAIM = 0.9  # every pattern >= 0.9 x the card's SM copy (memtest_vulkan reaches about 0.8 of rated)


def load(path):
    if not path:
        return None
    try:
        with open(path) as f:
            text = f.read()
        return json.loads(text[text.index("{"):])
    except (OSError, ValueError) as error:
        print(f"memtest_speed: cannot read {path}: {error}", file=sys.stderr)
        return None


def memtest_check(report):
    for check in (report or {}).get("checks", []):
        if check.get("id") == "gpu.memtest":
            return check
    return None


def sm_copy_from_report(report, index):
    for check in (report or {}).get("checks", []):
        for m in check.get("measurements", []):
            if m.get("key") == f"gpu{index}.memory_kernel_copy_gbps":
                return m.get("value")
    return None


def simulated(report):
    for check in (report or {}).get("checks", []):
        if check.get("id") == "gpu.inventory" and check.get("data", {}).get("simulated"):
            return True
    return False


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "—"


def card_rows(card, lab_report, torch):
    index = card.get("index", 0)
    sm = sm_copy_from_report(lab_report, index) or card.get("sm_copy_gbps")
    torch_copy = None
    for g in (torch or {}).get("gpus", []):
        if g.get("index") == index:
            torch_copy = g.get("memory_copy_gbps")
    rows, short = [], []
    for p in card.get("patterns", []):
        gbps = p.get("gbps")
        meets = "—" if not (gbps and sm) else ("yes" if gbps >= CLAIM * sm else "no")
        if meets == "no":
            short.append(p.get("key"))
        rows.append(f"| GPU{index} | {p.get('key')} | {gbps:.0f} | {ratio(gbps, sm)} | {ratio(gbps, torch_copy)} | {meets} "
                    f"| {p.get('errors', {}).get('count', 0)} |" if gbps else
                    f"| GPU{index} | {p.get('key')} | — | — | — | — | {p.get('errors', {}).get('count', 0)} |")
    memory = card.get("memory", {})
    tested, free, total = memory.get("tested_bytes", 0), memory.get("free_bytes", 0), memory.get("total_bytes", 0)
    share = 100 * tested / free if free else 0
    summary = (f"GPU{index} ({card.get('name', '?')}, {card.get('pci_bus_id', '?')}): tested {tested / 2**30:.2f} GiB of "
               f"{total / 2**30:.2f} GiB ({share:.1f} % of the free {free / 2**30:.2f} GiB), "
               f"{card.get('passes', 0)} pass(es), {card.get('errors', 0)} word(s) wrong; ")
    summary += f"SM copy {sm:.0f} GB/s" if sm else "SM copy not measured"
    if torch_copy:
        summary += f", PyTorch copy_ {torch_copy:.0f} GB/s"
    return rows, short, summary


def self_test_lines(check):
    if not check:
        return ["Self-test: not run."]
    lines = [f"Self-test: {check.get('status')} — {check.get('summary', '')}"]
    for card in check.get("data", {}).get("cards", []):
        wrong = [p.get("key") for p in card.get("patterns", []) if not p.get("self_test_exact", False)]
        count = len(card.get("patterns", []))
        lines.append(f"- GPU{card.get('index')}: {count - len(wrong)} of {count} patterns reported exactly their flipped bits"
                     + (f"; not: {', '.join(wrong)}" if wrong else ""))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memtest", required=True, help="lab_check memtest --json output")
    parser.add_argument("--self-test", help="lab_check memtest --self-test --json output")
    parser.add_argument("--lab-report", help="lab_check's lab-report.json (gpu.memory_bandwidth's SM copy)")
    parser.add_argument("--torch", help="torch_reference.py's JSON (copy_ on the same card)")
    args = parser.parse_args()
    run = memtest_check(load(args.memtest))
    lab_report, torch = load(args.lab_report), load(args.torch)
    print("## Memory test (issue 54)" + (" — SIMULATED, not a real card" if simulated(lab_report) else ""))
    print()
    for line in self_test_lines(memtest_check(load(args.self_test))):
        print(line)
    print()
    if not run:
        print("The timed run wrote no report (see device-check.log).")
        return 2
    print(f"Timed run: {run.get('status')} — {run.get('summary', '')}")
    print()
    print("| GPU | pattern | GB/s | × SM copy | × PyTorch copy_ | ≥ 0.9 × SM copy | errors |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    summaries, short = [], []
    for card in run.get("data", {}).get("cards", []):
        rows, card_short, summary = card_rows(card, lab_report, torch)
        print("\n".join(rows))
        summaries.append(summary)
        short += [f"GPU{card.get('index')} {k}" for k in card_short]
    print()
    for s in summaries:
        print(f"- {s}")
    print(f"- claim (every pattern ≥ {CLAIM} × the SM copy): " + ("met" if not short else "NOT met: " + ", ".join(short)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
