#!/usr/bin/env python3
"""Two runs of a workload suite side by side: what a change did to one rung over every shape.

Reads two `sgemm_bench --suite ... --json` files (before and after a change, each with cuBLAS in
the same process, so their % of cuBLAS compare even where the machines differ) and prints, for
one rung (default the dispatch rung, 30):
  - the geometric mean of % of cuBLAS, cold and hot, over every shape and over the shapes that
    are not tiny (any of M, N, K above --tiny), and the shapes below --below percent;
  - every shape whose chosen kernel changed, or whose cold or hot % moved by more than --moved
    points, old against new;
  - the rows of one row of C (M = 1), hot: % of cuBLAS and % of the DRAM peak;
  - the shapes below --below percent in the new run.
Shapes are matched by name; a shape in one run only is listed as such. Only Python's standard
library and the package's results reader (python/sgemm_ladder/results.py) are needed.

Examples:
    python3 tools/suite_diff.py old/h100_workloads.json bench/results/h100_workloads.json
    python3 tools/suite_diff.py a.json b.json --rung 17 --moved 2 --below 95
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sgemm_tools_common as common  # noqa: E402
from sgemm_tools_common import ToolError, UsageError, results  # noqa: E402

PROG = "suite_diff"


def changes(old: dict, new: dict, moved: float) -> list[tuple]:
    """(name, old row, new row) where the kernel chosen changed or cold or hot % moved by more than
    `moved` points; a shape in one run only has None for the other."""
    out = []
    for name in list(old) + [n for n in new if n not in old]:
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            out.append((name, a, b))
            continue
        shift = [abs(y - x) for x, y in ((a.pct, b.pct), (a.pct_hot, b.pct_hot)) if x is not None and y is not None]
        if a.label != b.label or any(s > moved for s in shift):
            out.append((name, a, b))
    return out


def fmt(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def report(old_run: results.Results, new_run: results.Results, rung: int = 30, tiny: int = 256,
           below: float = 90.0, moved: float = 4.0) -> str:
    old, new = old_run.by_name(rung), new_run.by_name(rung)
    if not old or not new:
        which = old_run.path if not old else new_run.path
        raise ToolError(f"{which}: no rows of rung {rung} (run it with --kernel {rung} --suite ...)")
    lines = []
    for what, run in (("old", old_run), ("new", new_run)):
        lines.append(f"{what}: {run.path} — {run.gpu_name}, commit {run.context.get('sgemm_ladder_git', '?')}")
    if old_run.gpu_name != new_run.gpu_name:
        lines.append("note: the GPUs differ; % of cuBLAS compares, times do not")
    s, t = old_run.suite_summary(rung, tiny, below), new_run.suite_summary(rung, tiny, below)
    head = ["", "shapes", "cold", f"cold, max(M,N,K) > {tiny}", f"cold < {below:g}", "hot",
            f"hot, max(M,N,K) > {tiny}", f"hot < {below:g}", "verified"]

    def count(names: list[str] | None) -> str:
        return "-" if names is None else str(len(names))

    table = [[what, str(x.shapes), fmt(x.cold), fmt(x.cold_not_tiny), count(x.cold_below), fmt(x.hot),
              fmt(x.hot_not_tiny), count(x.hot_below), "all" if x.verified else "NOT all"]
             for what, x in (("old", s), ("new", t))]
    lines += ["", f"rung {rung}, geometric mean of % of cuBLAS:", common.format_table(head, table)]
    moves = changes(old, new, moved)
    lines += ["", f"kernel changed, or % of cuBLAS moved by more than {moved:g} points ({len(moves)}):"]
    if moves:
        rows = []
        for name, a, b in moves:
            rows.append([name, a.label if a else "(absent)", fmt(a.pct) if a else "", fmt(a.pct_hot) if a else "",
                         b.label if b else "(absent)", fmt(b.pct) if b else "", fmt(b.pct_hot) if b else ""])
        lines.append(common.format_table(["shape", "old kernel", "cold", "hot", "new kernel", "cold", "hot"], rows))
    if t.one_row:
        lines += ["", "M = 1, hot (new): % of cuBLAS, % of the DRAM peak:"]
        lines.append(common.format_table(["shape", "% cuBLAS", "% DRAM"],
                                         [[n, fmt(new[n].pct_hot), fmt(new[n].pct_hbm_hot)] for n in t.one_row]))
    low = sorted((new[n].pct, n) for n in t.cold_below or [])
    lines += ["", f"below {below:g}% cold (new, {len(low)}): " + (", ".join(f"{n} {p:.1f}" for p, n in low) or "none")]
    return "\n".join(lines)


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", type=Path, help="the suite's results before the change (sgemm_bench --json)")
    p.add_argument("new", type=Path, help="and after it")
    p.add_argument("--rung", type=int, default=30, help="the rung compared (default 30, the dispatch rung)")
    p.add_argument("--tiny", type=int, default=256,
                   help="shapes with M, N and K all at most this are left out of the second mean (default 256: "
                        "cuBLAS's cold launches swing there)")
    p.add_argument("--below", type=float, default=90.0, help="count and list shapes below this %% (default 90)")
    p.add_argument("--moved", type=float, default=4.0, help="list shapes whose %% moved by more (default 4 points)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    for path in (args.old, args.new):
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
    try:
        runs = [results.load(path, custom_ld=True) for path in (args.old, args.new)]
    except ValueError as e:
        raise UsageError(str(e)) from e
    print(report(*runs, rung=args.rung, tiny=args.tiny, below=args.below, moved=args.moved))
    return common.EXIT_OK


if __name__ == "__main__":
    sys.exit(common.run_main(PROG, main))
