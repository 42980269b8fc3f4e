#!/usr/bin/env python3
"""Summarise exp36's per-instruction stall samples (ncu --page source --csv --print-source sass).

    python3 tools/experiments/exp36_summarize.py bench/results/logs/exp36/source_r10.csv.gz \
        bench/results/logs/exp36/source_r0.csv.gz

For each kernel: the share of all warp samples per stall reason, then per opcode the share of
executed instructions and of samples, with the reasons above 0.3% of samples. An opcode whose
share of samples far exceeds its share of instructions is where issue slots are lost.
"""
import collections
import csv
import gzip
import sys


def rows(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        table = list(csv.reader(f))
    header = table[1]  # row 0 names the kernel
    return table[0][1], [dict(zip(header, r)) for r in table[2:] if len(r) == len(header)]


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def summarise(path):
    kernel, data = rows(path)
    reasons = [k for k in data[0] if k.startswith("stall_") and not k.endswith("(Not Issued)")]
    total = collections.Counter()
    per_op = collections.defaultdict(collections.Counter)
    for r in data:
        words = [w for w in r["Source"].split() if not w.startswith("@")]
        op = words[0].split(".")[0] if words else "?"
        per_op[op]["executed"] += number(r["Instructions Executed"])
        for k in reasons:
            v = number(r[k])
            total[k] += v
            per_op[op][k] += v
    samples = sum(total.values())
    executed = sum(c["executed"] for c in per_op.values())
    print(f"{kernel[:100]}\n  {samples:.0f} samples; by reason (% of samples):")
    print("   " + ", ".join(f"{k[6:]} {100 * v / samples:.1f}" for k, v in total.most_common() if v / samples >= 0.001))
    print("  opcode   % instructions  % samples  reasons (% of samples)")
    ranked = sorted(per_op.items(), key=lambda kv: -sum(kv[1][k] for k in reasons))
    for op, c in ranked[:12]:
        s = sum(c[k] for k in reasons)
        detail = ", ".join(f"{k[6:]} {100 * c[k] / samples:.1f}" for k in reasons if c[k] / samples >= 0.003)
        print(f"  {op:8s} {100 * c['executed'] / executed:14.1f} {100 * s / samples:10.1f}  {detail}")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        summarise(p)
