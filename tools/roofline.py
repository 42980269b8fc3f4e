#!/usr/bin/env python3
"""Roofline of the ladder: each rung's arithmetic intensity against its achieved GFLOP/s.

x = FLOPs / DRAM bytes (2MNK over dram__bytes_read + dram__bytes_write, from ncu_profile's CSV),
y = achieved GFLOP/s: by default sgemm_bench's measured figure at the same M, N, K from the results
JSON (the median of timed launches), else 2MNK over ncu's kernel duration. Ceilings: the FP32
SIMT peak = SMs x 128 x 2 x max SM clock (results context: sm_count, sm_clock_max_mhz, or
fp32_peak_gflops_at_max_clock) and the memory roof from the measured copy bandwidth (context key
copy_bandwidth_gbs); without it --bandwidth-gbs is drawn and labelled "not measured".

Examples:
    python3 tools/roofline.py --ncu bench/results/h200_ncu.csv --results bench/results/h200.json \\
        --png notebooks/figures/h200_roofline.png
    python3 tools/roofline.py --ncu h200_ncu.csv --y-source ncu --bandwidth-gbs 4200 --png r.png

From a notebook (tools/ is on sys.path):
    from roofline import roofline_points, ceilings
    pts = roofline_points(ncu_rows, results)   # rows or DataFrame or path; results dict or path
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sgemm_tools_common as common  # noqa: E402
from sgemm_tools_common import ToolError, UsageError  # noqa: E402

PROG = "roofline"


def _ncu_rows(ncu_rows: Any) -> list[dict]:
    if isinstance(ncu_rows, (str, Path)):
        return common.load_ncu_csv(ncu_rows)
    if hasattr(ncu_rows, "to_dict"):  # a pandas DataFrame
        ncu_rows = ncu_rows.to_dict("records")
    return [common.normalise_ncu_row(r) for r in ncu_rows]


def _results(results: Any) -> dict | None:
    if results is None:
        return None
    if isinstance(results, (str, Path)):
        return common.load_results(results)
    if "benchmarks" in results:  # the raw Google Benchmark document
        return common.results_from_json(results)
    return results


def roofline_points(ncu_rows: Any, results: Any = None, y_source: str = "results") -> list[dict]:
    """One point per rung of the ncu rows.

    ncu_rows: ncu_profile CSV rows (list of dicts, a DataFrame or a path). results: the results
    JSON (path, raw document or common.load_results' dict), or None. y_source 'results' takes
    GFLOP/s from the results at the same M, N, K and falls back to ncu; 'ncu' always uses ncu.
    Each point: rung, slug, kernel, M, N, K, flops, dram_bytes, arithmetic_intensity, gflops,
    gflops_source ('results' or 'ncu'), pct_cublas (None unless from results)."""
    if y_source not in ("results", "ncu"):
        raise ValueError("y_source must be 'results' or 'ncu'")
    res = _results(results)
    points = []
    for r in sorted(_ncu_rows(ncu_rows), key=lambda r: r["rung"]):
        m, n, k = (int(r.get(x) or 0) for x in ("M", "N", "K"))
        flops = r.get("flops") or 2.0 * m * n * k
        dram = r.get("dram_bytes")
        if dram is None and (r.get("dram_bytes_read") is not None or r.get("dram_bytes_write") is not None):
            dram = (r.get("dram_bytes_read") or 0.0) + (r.get("dram_bytes_write") or 0.0)
        ai = flops / dram if dram else None
        gflops, source, pct = None, None, None
        row = common.result_at(res, r["rung"], m, n, k) if res and y_source == "results" else None
        if row and row["gflops"] > 0:
            gflops, source, pct = row["gflops"], "results", row["pct_cublas"]
        elif r.get("duration_ns"):
            gflops, source = flops / r["duration_ns"], "ncu"
        points.append({"rung": r["rung"], "slug": r.get("slug") or "", "kernel": r.get("kernel") or "",
                       "M": m, "N": n, "K": k, "flops": flops, "dram_bytes": dram,
                       "arithmetic_intensity": ai, "gflops": gflops, "gflops_source": source,
                       "pct_cublas": pct})
    return points


def ceilings(context: dict | None, bandwidth_gbs: float | None = None) -> dict:
    """FP32 peak (GFLOP/s) and memory bandwidth (GB/s) with where each came from."""
    context = context or {}
    peak = common.fp32_peak_gflops(context)
    sms, mhz = common.context_number(context, "sm_count"), common.context_number(context, "sm_clock_max_mhz")
    if sms and mhz:
        peak_label = f"FP32 peak {peak / 1e3:.1f} TFLOP/s ({sms:.0f} SMs x 128 x 2 x {mhz:.0f} MHz)"
    elif peak:
        peak_label = f"FP32 peak {peak / 1e3:.1f} TFLOP/s"
    else:
        peak_label = None
    bw = common.context_number(context, "copy_bandwidth_gbs")
    measured = bw is not None
    if bw is None:
        bw = bandwidth_gbs
    if bw is None:
        bw_label = None
    elif measured:
        bw_label = f"copy bandwidth {bw / 1e3:.2f} TB/s (measured)"
    else:
        bw_label = f"bandwidth {bw / 1e3:.2f} TB/s (not measured: --bandwidth-gbs)"
    return {"peak_gflops": peak, "peak_label": peak_label, "bandwidth_gbs": bw,
            "bandwidth_measured": measured, "bandwidth_label": bw_label}


def plot_roofline(points: list[dict], ceil: dict, png: Path, title: str) -> None:
    try:
        import matplotlib
    except ImportError as e:
        raise ToolError("--png needs matplotlib: pip install -r notebooks/requirements.txt "
                        "(or run with .venv/bin/python)") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    pts = [p for p in points if p["arithmetic_intensity"] and p["gflops"]]
    if not pts:
        raise ToolError("no rung has both an arithmetic intensity and a GFLOP/s figure to plot")
    ai = np.array([p["arithmetic_intensity"] for p in pts])
    gf = np.array([p["gflops"] for p in pts])
    peak, bw = ceil["peak_gflops"], ceil["bandwidth_gbs"]
    ridge = peak / bw if peak and bw else None
    x_lo = min(ai.min(), ridge or ai.min()) / 4
    x_hi = max(ai.max(), ridge or ai.max()) * 4
    xs = np.geomspace(x_lo, x_hi, 200)

    fig, ax = plt.subplots(figsize=(9, 6), dpi=120)
    if bw:
        roof = bw * xs if not peak else np.minimum(bw * xs, peak)
        ax.plot(xs, roof, color="black", lw=1.5, ls="-" if ceil["bandwidth_measured"] else "--",
                label=ceil["bandwidth_label"])
    if peak:
        ax.axhline(peak, color="tab:red", lw=1.2, ls=":", label=ceil["peak_label"])
    colours = plt.get_cmap("tab20")
    for i, (p, x, y) in enumerate(zip(pts, ai, gf)):
        marker = "s" if p["rung"] == 0 else "o"
        tag = "cuBLAS" if p["rung"] == 0 else str(p["rung"])
        ax.scatter([x], [y], s=36, marker=marker, zorder=3, color=colours(i % 20),
                   label=f"{tag}: {p['slug'] or 'rung ' + tag}")
        ax.annotate(tag, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    y_top = max(gf.max(), peak or 0) * 2
    ax.set_ylim(min(gf.min(), (bw or gf.min()) * x_lo) / 2, y_top)
    ax.set_xlabel("arithmetic intensity (FLOP / DRAM byte, ncu)")
    sources = sorted({p["gflops_source"] for p in pts})
    ax.set_ylabel(f"achieved GFLOP/s ({' / '.join(sources)})")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="lower right", fontsize=7, ncol=2)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)


def format_points(points: list[dict]) -> str:
    lines = [f"{'rung':<5}{'slug':<24}{'FLOP/B':>10}{'GFLOP/s':>11}  source"]
    for p in points:
        lines.append(f"{p['rung']:<5}{(p['slug'] or '-')[:23]:<24}{common.fmt_si(p['arithmetic_intensity']):>10}"
                     f"{common.fmt_si(p['gflops']):>11}  {p['gflops_source'] or '-'}")
    return "\n".join(lines)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="roofline.py", description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 ok, 1 tool failure, 2 usage error.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ncu", type=Path, required=True, metavar="CSV", help="ncu_profile.py's CSV")
    p.add_argument("--results", type=Path, metavar="JSON", help="sgemm_bench's results JSON (GFLOP/s, ceilings)")
    p.add_argument("--png", type=Path, metavar="OUT", help="write the figure here")
    p.add_argument("--json", type=Path, metavar="OUT", help="write the points and ceilings as JSON")
    p.add_argument("--bandwidth-gbs", type=float, metavar="GBS",
                   help="memory roof when the results have no copy_bandwidth_gbs (drawn as not measured)")
    p.add_argument("--y-source", choices=("results", "ncu"), default="results",
                   help="GFLOP/s from the results JSON (default; ncu when missing) or from ncu's duration")
    p.add_argument("--title", help="figure title")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    for path, opt in ((args.ncu, "--ncu"), (args.results, "--results")):
        if path is not None and not path.is_file():
            raise UsageError(f"{opt} {path}: no such file")
    results = common.load_results(args.results) if args.results else None
    points = roofline_points(args.ncu, results, args.y_source)
    if not points:
        raise ToolError(f"{args.ncu}: no rows")
    ceil = ceilings(results["context"] if results else None, args.bandwidth_gbs)
    print(format_points(points))
    for label in (ceil["peak_label"], ceil["bandwidth_label"]):
        if label:
            print(label)
    if not ceil["peak_label"]:
        print(f"{PROG}: no FP32 peak (give --results with sm_count and sm_clock_max_mhz)", file=sys.stderr)
    if not ceil["bandwidth_label"]:
        print(f"{PROG}: no memory roof (no copy_bandwidth_gbs in the results; give --bandwidth-gbs)", file=sys.stderr)
    if args.png:
        m = points[0]
        gpu = (results or {}).get("context", {}).get("gpu_name", "")
        title = args.title or f"SGEMM ladder roofline{' on ' + gpu if gpu else ''}, {m['M']}x{m['N']}x{m['K']}"
        plot_roofline(points, ceil, args.png, title)
        print(f"wrote {args.png}", file=sys.stderr)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"tool": "roofline", "ceilings": ceil, "points": points}, indent=1) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return common.EXIT_OK


if __name__ == "__main__":
    sys.exit(common.run_main(PROG, main))
