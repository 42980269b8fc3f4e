#!/usr/bin/env python3
"""exp41: variants of rung 17's stream-K path, written over kernels/17_async_a.cuh for one run.

Usage:  python3 tools/experiments/exp41_variants.py VARIANT [RUNG_HEADER]   (edits the header in place)

  base   unchanged
  skc    kStreamKSlabCost 1.35 -> 1.05: the model then cuts the last wave's tiles at 4096^3 and on
         the non-square shapes with K = 8192 or 16384 (3.88 waves of whole tiles), where rung 16
         runs whole tiles only. Asks: what does a stream-K slab cost now, against the whole tiles
         of rungs 16-17 (the 1.35 was fitted to rung 15's slower whole tiles)?
  skp    the stream-K unit's FFMAs in rung 16's paired order too (it keeps rung 15's order)
  skpc   both

Driven by exp40_run.sh (RUNG=17 PATCHER="python3 tools/experiments/exp41_variants.py"); only
the GPU machine's copy of the tree is patched, nothing is committed in a patched state.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

COST = ("constexpr double kStreamKSlabCost = 1.35;", "constexpr double kStreamKSlabCost = 1.05;")
PAIRED = ("Stages, KU, false, false>(smem", "Stages, KU, false, true>(smem"), \
         ("Stages, KU, true, false>(smem", "Stages, KU, true, true>(smem")


def patch(text: str, variant: str) -> str:
    edits = {"base": [], "skc": [COST], "skp": list(PAIRED), "skpc": [COST, *PAIRED]}
    if variant not in edits:
        raise SystemExit(f"unknown variant {variant}")
    for old, new in edits[variant]:
        assert text.count(old) == 1, f"expected exactly one {old!r}"
        text = text.replace(old, new)
    return text


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    path = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "kernels" / "17_async_a.cuh"
    path.write_text(patch(path.read_text(), sys.argv[1]))
    print(f"{path}: variant {sys.argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
