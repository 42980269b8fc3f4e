#!/usr/bin/env python3
"""Roofline of the ladder: each rung's arithmetic intensity against its achieved GFLOP/s.

x = FLOPs / DRAM bytes (2MNK over dram__bytes_read + dram__bytes_write, from ncu_profile's CSV),
y = achieved GFLOP/s: by default sgemm_bench's figure at the same M, N, K from the results file
(the median of timed launches, with the quartiles as its spread), else 2MNK over ncu's kernel
duration. The roofs come from the results file: the FP32 peak sgemm_bench wrote
(fp32_peak_gflops; the one formula is in C++) and the copy bandwidth it measured
(copy_bandwidth_gbs). Without a measured bandwidth, --bandwidth-gbs is drawn and labelled
"not measured".

The numbers need only Python's standard library; --png needs matplotlib. This module is the
ladder's one roofline: the roofline notebook draws its panels with draw_roofline().

Examples:
    python3 tools/roofline.py --ncu bench/results/h200_ncu.csv --results bench/results/h200.json \\
        --png docs/figures/roofline_h200.png
    python3 tools/roofline.py --ncu h200_ncu.csv --y-source ncu --bandwidth-gbs 4200 --png r.png
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sgemm_tools_common as common  # noqa: E402
from sgemm_tools_common import ToolError, UsageError, results  # noqa: E402

PROG = "roofline"


def roofline_points(ncu: dict[int, dict] | str | Path, bench: results.Results | str | Path | None = None,
                    y_source: str = "results") -> list[dict]:
    """One point per rung profiled by ncu.

    ncu: ncu_profile's rows by rung (results.load_ncu) or the CSV's path; bench: one GPU's
    results (results.load) or its path, or None. y_source "results" takes GFLOP/s from the
    results at the same M, N, K and falls back to ncu; "ncu" always uses ncu's duration.
    Each point: rung, slug, kernel, M, N, K, flops, dram_bytes, arithmetic_intensity, gflops,
    gflops_lo and gflops_hi (the quartiles of the launch times, when the results carry them),
    gflops_source ("results" or "ncu"), pct_cublas, pct_lo, pct_hi (None unless from results)."""
    if y_source not in ("results", "ncu"):
        raise ValueError("y_source must be 'results' or 'ncu'")
    if not isinstance(ncu, dict):
        ncu = results.load_ncu(ncu)
    if bench is not None and not isinstance(bench, results.Results):
        bench = results.load(bench)
    points = []
    for rung, r in sorted(ncu.items()):
        m, n, k = (int(r.get(x) or 0) for x in ("M", "N", "K"))
        flops = r.get("flops") or 2.0 * m * n * k
        dram = r.get("dram_bytes")
        if dram is None and (r.get("dram_bytes_read") is not None or r.get("dram_bytes_write") is not None):
            dram = (r.get("dram_bytes_read") or 0.0) + (r.get("dram_bytes_write") or 0.0)
        point = {"rung": rung, "slug": r.get("slug") or "", "kernel": r.get("kernel") or "", "M": m, "N": n,
                 "K": k, "flops": flops, "dram_bytes": dram, "arithmetic_intensity": flops / dram if dram else None,
                 "gflops": None, "gflops_lo": None, "gflops_hi": None, "gflops_source": None,
                 "pct_cublas": None, "pct_lo": None, "pct_hi": None}
        row = bench.row(rung, m, n, k) if bench is not None and y_source == "results" else None
        if row is not None and row.gflops > 0:
            point.update(gflops=row.gflops, gflops_source="results", pct_cublas=row.pct, pct_lo=row.pct_lo,
                         pct_hi=row.pct_hi)
            point["gflops_lo"], point["gflops_hi"] = row.gflops_iqr or (None, None)
        elif r.get("duration_ns"):
            point.update(gflops=flops / r["duration_ns"], gflops_source="ncu")
        points.append(point)
    return points


@dataclass(frozen=True)
class Ceilings:
    """The two roofs of one GPU and what they are."""

    peak_gflops: float | None  # FP32 peak, as sgemm_bench wrote it
    peak_label: str | None
    bandwidth_gbs: float | None  # DRAM bandwidth: the measured copy bandwidth, or the one given
    bandwidth_measured: bool
    bandwidth_label: str | None

    @property
    def ridge(self) -> float | None:
        """Arithmetic intensity (FLOP/byte) where the two roofs meet."""
        return self.peak_gflops / self.bandwidth_gbs if self.peak_gflops and self.bandwidth_gbs else None

    def attainable(self, intensity: float) -> float | None:
        """min(peak, bandwidth x intensity) in GFLOP/s: the roof above an intensity."""
        roofs = [x for x in (self.peak_gflops, self.bandwidth_gbs and self.bandwidth_gbs * intensity) if x]
        return min(roofs) if roofs else None


def ceilings(bench: results.Results | None, bandwidth_gbs: float | None = None) -> Ceilings:
    """The roofs from one GPU's results: its FP32 peak and measured copy bandwidth, or
    `bandwidth_gbs` (labelled not measured) where the results have none."""
    peak = bench.fp32_peak_gflops if bench is not None else None
    peak_label = None
    if peak:
        peak_label = f"FP32 peak {peak / 1e3:.1f} TFLOP/s"
        terms = [bench.context_number(k) for k in ("sm_count", "fp32_lanes_per_sm", "sm_clock_max_mhz")]
        if all(terms):  # the inputs of sgemm_bench's figure, shown, not recomputed
            peak_label += f" ({terms[0]:.0f} SMs x {terms[1]:.0f} lanes x 2 x {terms[2]:.0f} MHz)"
    measured = bench.copy_bandwidth_gbs if bench is not None else None
    bw = measured if measured is not None else bandwidth_gbs
    if bw is None:
        bw_label = None
    elif measured is not None:
        bw_label = f"copy bandwidth {bw / 1e3:.2f} TB/s (measured)"
    else:
        bw_label = f"bandwidth {bw / 1e3:.2f} TB/s (not measured)"
    return Ceilings(peak, peak_label, bw, measured is not None, bw_label)


# ----------------------------------------------------------------------------------------------
# Drawing (matplotlib, imported only here)


def default_style(point: dict) -> dict:
    """A point's marker when the caller gives no style: the cuBLAS baseline (rung 0) as a square."""
    return {"marker": "s" if point["rung"] == 0 else "o"}


def draw_roofline(ax, points: list[dict], ceil: Ceilings, style: Callable[[dict], dict] = default_style,
                  label_points: bool = True) -> None:
    """Draw the roofs and the points (those with an intensity and a GFLOP/s figure) on a
    matplotlib Axes: log-log, the spread of GFLOP/s as vertical bars where the results have it.
    `style(point)` gives each point's matplotlib keywords (color, marker, ...)."""
    import numpy as np

    pts = [p for p in points if p["arithmetic_intensity"] and p["gflops"]]
    if not pts:
        raise ToolError("no rung has both an arithmetic intensity and a GFLOP/s figure to plot")
    ai = np.array([p["arithmetic_intensity"] for p in pts])
    gf = np.array([p["gflops"] for p in pts])
    peak, bw, ridge = ceil.peak_gflops, ceil.bandwidth_gbs, ceil.ridge
    x_lo, x_hi = min(ai.min(), ridge or np.inf) / 4, max(ai.max(), ridge or 0) * 4
    xs = np.geomspace(x_lo, x_hi, 200)
    if bw:
        ax.plot(xs, [ceil.attainable(x) for x in xs], color="0.15", lw=1.8,
                ls="-" if ceil.bandwidth_measured else "--", label=ceil.bandwidth_label, zorder=2)
    if peak:
        ax.axhline(peak, color="#c0392b", lw=1.2, ls=":", label=ceil.peak_label, zorder=2)
    if ridge:
        ax.axvline(ridge, color="0.6", ls=":", lw=1)
    labelled: list[tuple[float, float]] = []  # (log x, log y) of the points that got their id
    for p, x, y in zip(pts, ai, gf):
        kw = {"markersize": 7, "markeredgecolor": "white", "markeredgewidth": 0.6, "zorder": 4,
              "label": f"{p['rung']}: {p['slug']}", **style(p)}
        lo, hi = p.get("gflops_lo"), p.get("gflops_hi")
        yerr = [[y - lo], [hi - y]] if lo and hi else None
        ax.errorbar([x], [y], yerr=yerr, linestyle="none", capsize=2, elinewidth=1, **kw)
        here = (np.log10(x), np.log10(y))
        if label_points and all(abs(here[0] - a) > 0.12 or abs(here[1] - b) > 0.05 for a, b in labelled):
            labelled.append(here)  # points on top of each other share the first one's label
            ax.annotate(str(p["rung"]), (x, y), textcoords="offset points", xytext=(6, 3), fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(min(gf.min(), (bw or gf.min()) * x_lo) / 2, max(gf.max(), peak or 0) * 2)
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte, Nsight Compute)")
    sources = sorted({"sgemm_bench" if p["gflops_source"] == "results" else "ncu" for p in pts})
    ax.set_ylabel(f"achieved GFLOP/s ({' / '.join(sources)})")
    ax.grid(True, which="both", alpha=0.25)


def plot_roofline(points: list[dict], ceil: Ceilings, png: Path, title: str) -> None:
    """The tool's figure: one roofline, written to `png`."""
    try:
        import matplotlib
    except ImportError as e:
        raise common.missing_package("matplotlib", "--png") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6), dpi=120)
    draw_roofline(ax, points, ceil)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=7, ncol=2)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)


def format_points(points: list[dict]) -> str:
    rows = [[str(p["rung"]), (p["slug"] or "-")[:23], common.fmt_si(p["arithmetic_intensity"]),
             common.fmt_si(p["gflops"]), p["gflops_source"] or "-"] for p in points]
    return common.format_table(["rung", "slug", "FLOP/B", "GFLOP/s", "source"], rows, left=2, rule=False)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="roofline.py", description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 ok, 1 tool failure (matplotlib missing for --png), 2 usage error.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ncu", type=Path, required=True, metavar="CSV", help="ncu_profile.py's CSV")
    p.add_argument("--results", type=Path, metavar="JSON", help="sgemm_bench's results file (GFLOP/s, roofs)")
    p.add_argument("--png", type=Path, metavar="OUT", help="write the figure here (needs matplotlib)")
    p.add_argument("--json", type=Path, metavar="OUT", help="write the points and roofs as JSON")
    p.add_argument("--bandwidth-gbs", type=float, metavar="GBS",
                   help="memory roof when the results have no copy_bandwidth_gbs (drawn as not measured)")
    p.add_argument("--y-source", choices=("results", "ncu"), default="results",
                   help="GFLOP/s from the results file (default; ncu when missing) or from ncu's duration")
    p.add_argument("--title", help="figure title")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    for path, opt in ((args.ncu, "--ncu"), (args.results, "--results")):
        if path is not None and not path.is_file():
            raise UsageError(f"{opt} {path}: no such file")
    bench = results.load(args.results) if args.results else None
    points = roofline_points(args.ncu, bench, args.y_source)
    if not points:
        raise ToolError(f"{args.ncu}: no rows")
    ceil = ceilings(bench, args.bandwidth_gbs)
    print(format_points(points))
    for label in (ceil.peak_label, ceil.bandwidth_label):
        if label:
            print(label)
    if not ceil.peak_label:
        print(f"{PROG}: no FP32 peak (give --results: sgemm_bench writes fp32_peak_gflops)", file=sys.stderr)
    if not ceil.bandwidth_label:
        print(f"{PROG}: no memory roof (no copy_bandwidth_gbs in the results; give --bandwidth-gbs)", file=sys.stderr)
    if args.png:
        m = points[0]
        gpu = f" on {bench.gpu_name}" if bench is not None else ""
        title = args.title or f"SGEMM ladder roofline{gpu}, {m['M']}x{m['N']}x{m['K']}"
        plot_roofline(points, ceil, args.png, title)
        print(f"wrote {args.png}", file=sys.stderr)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        doc = {"tool": "roofline", "ceilings": {**asdict(ceil), "ridge": ceil.ridge}, "points": points}
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return common.EXIT_OK


if __name__ == "__main__":
    sys.exit(common.run_main(PROG, main))
