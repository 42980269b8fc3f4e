#!/usr/bin/env python3
"""exp40: what the control bits of each hot FFMA loop say: fixed stalls, reuse flags, register reads.

Usage:  cuobjdump -sass FILE > all.sass;  python3 tools/experiments/exp40_sass_ctl.py all.sass [name-substring]

Every Volta-and-later instruction is 128 bits; the top 23 carry the compiler's scheduling
decisions (the field layout is the one documented by the public SASS assemblers): a stall count
(cycles before the warp may issue again), a yield bit, scoreboard barriers, and one reuse flag
per source operand slot. For every loop (a backward branch) holding more than 100 FFMAs this
prints its instruction and FFMA counts; `stall cycles`, the sum of the stall counts, the cycles
one warp needs to issue the loop if nothing else stops it (cuBLAS's FFMA loop: 1,161 for 1,154
instructions); the reuse flags set on FFMA operands; and `reads`, the FFMA source operands
fetched from the register file when a flagged operand is served from a reuse cache of one entry
per operand slot and register bank (register number mod 2), a model under which cuBLAS's loop
fetches 1.76 operands per FFMA. Static counts from one listing: a guide for comparing variants of
one loop, not a model of the hardware.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sass_report import _FUNC_RE  # noqa: E402  (the SASS report's own function pattern)

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/")
HIGH = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/\s*$")
REG = re.compile(r"(?<![\w.])R(\d+)(\.reuse)?")
FFMA = re.compile(r"\bFFMA\b")


def functions(text: str):
    """(name, [(address, instruction, control bits)]) per function of a cuobjdump -sass listing."""
    name, body, pending = None, [], None
    for line in text.splitlines():
        m = _FUNC_RE.match(line)
        if m:
            if name:
                yield name, body
            name, body, pending = m.group(1), [], None
            continue
        m = INSN.search(line)
        if m:
            pending = (int(m.group(1), 16), m.group(2))
            continue
        m = HIGH.match(line)
        if m and pending and name:
            body.append(pending + (int(m.group(1), 16) >> 41,))  # bits 105-127 of the instruction
            pending = None
    if name:
        yield name, body


def stall(ctl: int) -> int:
    return ctl & 15


def reuse_flags(ctl: int) -> int:
    return bin((ctl >> 17) & 15).count("1")


def register_reads(loop) -> int:
    reads, cache = 0, {}  # (operand slot, bank) -> register kept by a reuse flag
    for _, op, _ in loop:
        regs = REG.findall(op)
        if not FFMA.search(op) or len(regs) < 4:
            cache = {}
            continue
        for slot, (r, flag) in enumerate(regs[1:4]):
            key = (slot, int(r) % 2)
            if cache.get(key) != int(r):
                reads += 1
            if flag:
                cache[key] = int(r)
            else:
                cache.pop(key, None)
    return reads


def loops(text: str, want: str = ""):
    """(name, 'start', end, instructions) per loop (a backward branch) of each function whose
    name contains `want`; start is the branch target as the listing writes it (hex)."""
    for name, body in functions(text):
        if want not in name:
            continue
        for addr, op, _ in body:
            m = re.search(r"\bBRA\b.*?0x([0-9a-f]+)", op)
            if m and int(m.group(1), 16) < addr:
                yield name, m.group(1), addr, [x for x in body if int(m.group(1), 16) <= x[0] <= addr]


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    for name, start, addr, loop in loops(text, sys.argv[2] if len(sys.argv) > 2 else ""):
        ffma = [x for x in loop if FFMA.search(x[1])]
        if len(ffma) > 100:
            print(f"{name[:72]}  loop {start}-{addr:x}: {len(loop)} instructions, {len(ffma)} FFMA, "
                  f"stall cycles {sum(max(stall(c), 1) for *_, c in loop)}, "
                  f"reuse flags {sum(reuse_flags(c) for *_, c in ffma)}, reads {register_reads(loop)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
