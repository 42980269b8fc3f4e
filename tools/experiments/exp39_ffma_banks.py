#!/usr/bin/env python3
"""exp39: count the FFMAs of each hot loop that read two sources from one register bank.

Usage:  cuobjdump -sass libsgemm_ladder.so > all.sass   (or a rung's object file)
        python3 tools/experiments/exp39_ffma_banks.py all.sass [kernel-name-substring]

For every loop (a backward branch) holding more than 100 FFMAs, prints its instruction count and
FFMA count, then `bank pairs`: FFMAs of which at least two source registers fall in the same
bank (register number mod 2, the two-bank model of Volta-and-later register files) and are not
served from the operand reuse cache (the `.reuse` flag on the same operand slot of the previous
FFMA). The count is a static proxy, not a model of the hardware: among our own variants of one
loop it tracked the dispatch stalls ncu measured (rung 11's whole-tile loop ~280 of 1,024 FFMAs,
the first, persistent rung 15 ~770, 0.22 -> 0.36 dispatch stalls per issue, 9% slower), but
cuBLAS's FFMA loop scores ~790 and still issues better than ours, so the real bank rules differ.
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from exp40_sass_ctl import loops  # noqa: E402  (the listing parser's loops, with control bits)
from sass_report import split_instruction  # noqa: E402  (the SASS report's own parsing)

REG = re.compile(r"(?<![\w.])R(\d+)(\.reuse)?")


def bank_pairs(loop: list[tuple[int, str, int]]) -> int:
    count, prev = 0, None  # prev: (source registers, reuse flags) of the previous FFMA
    for _, op, _ in loop:
        if not split_instruction(op)[1].startswith("FFMA"):
            prev = None
            continue
        regs = REG.findall(op)[1:4]  # destination first
        if len(regs) < 3:
            prev = None
            continue
        src = [int(r) for r, _ in regs]
        reuse = [bool(f) for _, f in regs]
        live = [src[k] % 2 for k in range(3) if not (prev and prev[1][k] and prev[0][k] == src[k])]
        if len(live) >= 2 and max(Counter(live).values()) >= 2:
            count += 1
        prev = (src, reuse)
    return count


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    for name, start, addr, loop in loops(text, sys.argv[2] if len(sys.argv) > 2 else ""):
        ffma = sum("FFMA" in o for _, o, _ in loop)
        if ffma > 100:
            print(f"{name[:72]}  loop {start}-{addr:x}: {len(loop)} instructions, {ffma} FFMA, "
                  f"bank pairs {bank_pairs(loop)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
