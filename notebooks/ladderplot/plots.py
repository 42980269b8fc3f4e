"""The ladder's figures. Each function takes loaded data and returns a matplotlib Figure; rungs,
sizes, inputs and GPUs all come from the data. cuBLAS (rung 0) is always drawn in black,
dashed, with a star: the baseline. Rungs 1.. follow one colour ramp, dark to light up the ladder.
"""
from __future__ import annotations

import io
import math
import os
from contextlib import contextmanager
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import to_rgb
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, NullLocator

from .data import BASELINE_RUNG, Results, ladder_table, square_timing
from .roofline import FALLBACK_BANDWIDTH_GBS, ceilings, roofline_points

FIGURES_ENV = "SGEMM_FIGURES_DIR"
BASELINE_COLOR = "black"
BASELINE_NAME = "cuBLAS (FP32 baseline)"
PEAK_COLOR = "#c0392b"
_BASE_BAR = "0.3"
_MARKERS = "osD^vP<>Xhp"
_U = 2.0**-24  # FP32 unit roundoff

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 160,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "legend.title_fontsize": 9,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "legend.frameon": False,
}


# --- shared pieces -----------------------------------------------------------------------------

def rung_style(rung: int, max_rung: int) -> dict:
    """Colour, marker and line of a rung, the same in every figure for the same set of rungs."""
    if int(rung) == BASELINE_RUNG:
        return dict(color=BASELINE_COLOR, marker="*", markersize=9, linestyle="--", linewidth=2.2,
                    zorder=5)
    span = max(1, max_rung - 1)
    color = plt.get_cmap("viridis")(0.05 + 0.85 * (int(rung) - 1) / span)
    return dict(color=color, marker=_MARKERS[(int(rung) - 1) % len(_MARKERS)], markersize=5,
                linestyle="-", linewidth=1.5, zorder=3)


def _thousands(x, _pos=None) -> str:
    return f"{x:,.0f}" if x >= 1 or x == 0 else f"{x:g}"


def _text_color(color) -> str:
    r, g, b = to_rgb(color)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def _provenance(results: Results | None, gpus) -> list[tuple[str, str]]:
    """Footer lines (text, colour): what GPU and software each panel comes from."""
    if results is None:
        return []
    lines, synthetic = [], False
    for gpu in gpus:
        if gpu not in results.context.index:
            continue
        c = {k: v for k, v in results.context.loc[gpu].items() if isinstance(v, str)}
        get = c.get
        lines.append((f"{get('gpu_name', '?')} [{gpu}]: {get('gpu_arch', '?')}, "
                      f"{get('sm_count', '?')} SMs, driver {get('driver_version', '?')}, "
                      f"CUDA {get('cuda_runtime', '?')}, cuBLAS {get('cublas_version', '?')}, "
                      f"sgemm_ladder {get('sgemm_ladder_git', '?')}", "0.35"))
        synthetic |= "fixture" in c
    if synthetic:
        lines.append(("SYNTHETIC TEST DATA (notebooks/tests/data): not a measurement", PEAK_COLOR))
    return lines


@contextmanager
def _style():
    """STYLE while a figure is built. The first figure of a Jupyter kernel resolves the inline
    backend inside the context, which turns interactive mode on; keep that on the way out, or
    later figures would not be shown."""
    with plt.rc_context(STYLE):
        yield
        interactive = matplotlib.is_interactive()
    matplotlib.interactive(interactive)


def _figure(nrows, ncols, width, height, footer, **kw):
    """A constrained-layout figure with room at the bottom for ``footer`` lines."""
    line_h = 0.17  # inches per footer line
    bottom = (len(footer) * line_h + 0.05) / height if footer else 0
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False,
                             layout="constrained", **kw)
    fig.get_layout_engine().set(rect=(0, bottom, 1, 1 - bottom))
    for i, (text, color) in enumerate(reversed(footer)):
        fig.text(0.005, 0.01 + i * line_h / height, text, fontsize=7.5, color=color, ha="left",
                 va="bottom")
    return fig, axes


def _empty(message: str, title: str):
    with _style():
        fig, ax = plt.subplots(figsize=(8, 2.2), layout="constrained")
        ax.axis("off")
        ax.set_title(title)
        ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, transform=ax.transAxes)
    return fig


def _log2_size_axis(ax, values, label):
    ax.set_xscale("log", base=2)
    values = sorted(set(int(v) for v in values))
    ax.set_xticks(values)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: f"{int(round(x))}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(label)
    if len(values) > 7:
        ax.tick_params(axis="x", labelrotation=45)


def _rung_legend(fig, labels: dict[int, str], max_rung: int, title="Rung", line=True):
    def handle(rung):
        st = {k: v for k, v in rung_style(rung, max_rung).items() if k != "zorder"}
        return Line2D([], [], **(st if line else {**st, "linestyle": "none", "markersize": 7}))

    handles = [handle(r) for r in sorted(labels)]
    names = [BASELINE_NAME if r == BASELINE_RUNG else labels[r] for r in sorted(labels)]
    fig.legend(handles, names, loc="outside right center", title=title)


def _ordered_gpus(results: Results | None, present) -> list[str]:
    present = list(dict.fromkeys(present))
    if results is None:
        return present
    return [g for g in results.gpus if g in present] + [g for g in present if g not in results.gpus]


def _gpu_title(results: Results | None, gpu: str) -> str:
    return results.gpu_name(gpu) if results is not None else gpu


def save_figure(fig, name: str) -> Path | None:
    """Write ``fig`` to $SGEMM_FIGURES_DIR/<name>.png when that variable is set (this is how
    notebooks/render_figures.py collects the notebooks' figures); otherwise do nothing."""
    folder = os.environ.get(FIGURES_ENV)
    if not folder:
        return None
    from PIL import Image  # matplotlib's own dependency

    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=STYLE["savefig.dpi"], bbox_inches="tight", facecolor="white")
    # 256 colours are plenty for a plot and make the committed PNG about three times smaller.
    image = Image.open(buf).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    image.save(path, optimize=True)
    print(f"figure written to {path}")
    return path


# --- the ladder --------------------------------------------------------------------------------

def plot_ladder(results: Results, size: int = 4096, gpus=None):
    """Horizontal bars: GFLOP/s of every rung at M = N = K = ``size``, each labelled with its
    % of cuBLAS; cuBLAS and the FP32 peak drawn as vertical lines. One panel per GPU."""
    table = ladder_table(results, size, gpus).reset_index()
    gpu_list = _ordered_gpus(results, table["gpu"])
    rungs = sorted(table["rung"].unique())
    max_rung = max(rungs)
    labels = dict(zip(table["rung"], table["kernel"]))
    footer = _provenance(results, gpu_list)
    with _style():
        fig, axes = _figure(1, len(gpu_list), 7.6 * len(gpu_list), 0.36 * len(rungs) + 2.3,
                            footer, sharey=True)
        for ax, gpu in zip(axes[0], gpu_list):
            t = table[table["gpu"] == gpu].set_index("rung")
            peak = ceilings(results.context.loc[gpu]).peak_gflops
            base = t["GFLOP/s"].get(BASELINE_RUNG)
            xmax = max(peak or 0, t["GFLOP/s"].max()) * 1.04
            for y, rung in enumerate(rungs):
                if rung not in t.index:
                    ax.text(xmax * 0.01, y, "no result", va="center", fontsize=8, color="0.4")
                    continue
                row = t.loc[rung]
                st = rung_style(rung, max_rung)
                is_base = rung == BASELINE_RUNG
                ax.barh(y, row["GFLOP/s"], height=0.72, color=_BASE_BAR if is_base else st["color"])
                pct = "baseline" if is_base else f"{row['% cuBLAS']:.1f}% of cuBLAS"
                text = f"{row['GFLOP/s']:,.0f} GFLOP/s · {pct}"
                if not row["checked"]:
                    text += " · unchecked"
                elif not row["verified"]:
                    text += " · NOT VERIFIED"
                inside = row["GFLOP/s"] > 0.5 * xmax
                color = PEAK_COLOR if (row["checked"] and not row["verified"]) else (
                    _text_color(_BASE_BAR if is_base else st["color"]) if inside else "black")
                ax.text(row["GFLOP/s"] + (-0.012 if inside else 0.012) * xmax, y, text,
                        ha="right" if inside else "left", va="center", fontsize=8.5, color=color,
                        fontweight="bold" if is_base else None)
            # The two reference lines, labelled in the two rows kept free above the bars.
            for value, y, color, style, text in (
                    (base, -0.85, BASELINE_COLOR, "--", "cuBLAS = 100% "),
                    (peak, -1.45, PEAK_COLOR, ":", f"FP32 peak at max clock, {(peak or 0):,.0f} GFLOP/s ")):
                if value:
                    ax.axvline(value, color=color, linestyle=style, linewidth=1.4)
                    ax.text(value, y, text, ha="right", va="center", fontsize=8, color=color)
            ax.set_xlim(0, xmax)
            ax.set_yticks(range(len(rungs)), [labels[r] for r in rungs])
            ax.set_ylim(len(rungs) - 0.5, -1.8)
            ax.grid(axis="y", visible=False)
            ax.xaxis.set_major_formatter(FuncFormatter(_thousands))
            ax.set_xlabel("Throughput (GFLOP/s, higher is better)")
            ax.set_title(_gpu_title(results, gpu))
        fig.suptitle(f"SGEMM ladder at M = N = K = {size}: FP32 throughput per rung vs. cuBLAS",
                     fontweight="bold")
    return fig


# --- scaling -----------------------------------------------------------------------------------

_METRICS = {
    "GFLOPS": ("Throughput (GFLOP/s)", True),
    "pct_cublas": ("% of cuBLAS (same run, same inputs)", False),
    "ms": ("Time per call (ms, median)", True),
}


def plot_scaling(results: Results, gpus=None, metrics=("GFLOPS", "pct_cublas"),
                 logy: bool | None = None):
    """Every rung and cuBLAS against M = N = K on a log-2 size axis: one row per metric
    (GFLOPS and ms on a log axis, pct_cublas linear, unless ``logy`` says otherwise), one
    column per GPU."""
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    for metric in metrics:
        if metric not in _METRICS:
            raise ValueError(f"metric must be one of {list(_METRICS)}, not {metric!r}")
    t = square_timing(results, gpus)
    if t.empty:
        return _empty("no square timing rows (M = N = K) in these results", "Scaling")
    gpu_list = _ordered_gpus(results, t["gpu"])
    max_rung = int(t["rung"].max())
    labels = dict(zip(t["rung"], t["label"]))
    with _style():
        fig, axes = _figure(len(metrics), len(gpu_list), 6.2 * len(gpu_list) + 2.4,
                            3.7 * len(metrics) + 0.9, _provenance(results, gpu_list),
                            sharex="col", sharey="row")
        for row, metric in enumerate(metrics):
            ylabel, default_log = _METRICS[metric]
            for col, gpu in enumerate(gpu_list):
                ax = axes[row][col]
                g = t[t["gpu"] == gpu]
                for rung, d in g.groupby("rung"):
                    d = d.sort_values("size")
                    ax.plot(d["size"], d[metric], **rung_style(rung, max_rung))
                _log2_size_axis(ax, g["size"], "M = N = K" if row == len(metrics) - 1 else "")
                if metric == "pct_cublas":
                    ax.axhline(100, color=BASELINE_COLOR, linestyle="--", linewidth=1)
                    ax.set_ylim(0, max(105, ax.get_ylim()[1]))
                if metric == "ms":
                    _cube_reference(ax, g[g["rung"] == BASELINE_RUNG].sort_values("size"))
                if row == 0:
                    ax.set_title(_gpu_title(results, gpu))
                if col == 0:
                    ax.set_ylabel(ylabel)
                if default_log if logy is None else logy:
                    ax.set_yscale("log")
                ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
        _rung_legend(fig, labels, max_rung)
        names = {"GFLOPS": "Throughput", "pct_cublas": "share of cuBLAS", "ms": "Time per call"}
        what = " and ".join(names[m] for m in metrics)
        fig.suptitle(f"{what[0].upper() + what[1:]} against problem size: every rung and cuBLAS",
                     fontweight="bold")
    return fig


def _cube_reference(ax, base: pd.DataFrame):
    """A dotted n³ line through cuBLAS's largest size: time that grows like the work."""
    if base.empty:
        return
    n = base["size"].to_numpy(dtype=float)
    ref = base["ms"].iloc[-1] * (n / n[-1]) ** 3
    ax.plot(n, ref, color="0.5", linestyle=":", linewidth=1.2, zorder=1)
    ax.text(n[0], ref[0], "  ∝ n³ (the work)", color="0.4", fontsize=8, va="top")


# --- accuracy ----------------------------------------------------------------------------------

def plot_accuracy(results: Results, gpus=None):
    """Norm-wise relative error against the FP64 reference over K, log-log, per rung; one column
    per input distribution, one row per GPU. The grey line is u·√K (u = 2⁻²⁴)."""
    a = results.accuracy
    a = a[[gpus is None or g in ([gpus] if isinstance(gpus, str) else gpus) for g in a["gpu"]]]
    if a.empty:
        return _empty("no accuracy rows in these results: run\n"
                      "sgemm_bench --accuracy-sweep --json bench/results/<gpu>.json", "Accuracy")
    gpu_list = _ordered_gpus(results, a["gpu"])
    inputs = sorted(a["input"].unique(), key=lambda s: (s != "uniform", s))
    max_rung = int(a["rung"].max())
    labels = dict(zip(a["rung"], a["label"]))
    with _style():
        fig, axes = _figure(len(gpu_list), len(inputs), 5.0 * len(inputs) + 2.4,
                            3.7 * len(gpu_list) + 0.6, _provenance(results, gpu_list),
                            sharex=True, sharey=True)
        for row, gpu in enumerate(gpu_list):
            for col, dist in enumerate(inputs):
                ax = axes[row][col]
                d = a[(a["gpu"] == gpu) & (a["input"] == dist)]
                for rung, r in d.groupby("rung"):
                    r = r.sort_values("K")
                    ax.plot(r["K"], r["rel_err"], **rung_style(rung, max_rung))
                ks = np.array(sorted(a["K"].unique()), dtype=float)
                ax.plot(ks, _U * np.sqrt(ks), color="0.55", linestyle=":", linewidth=1.4, zorder=1)
                ax.text(ks[-1], _U * math.sqrt(ks[-1]), "u·√K ", color="0.4", fontsize=8,
                        ha="right", va="bottom")
                ax.set_yscale("log")
                _log2_size_axis(ax, a["K"], "K (inner dimension)" if row == len(gpu_list) - 1 else "")
                mn = "·".join(sorted({f"{m}" for m in d["M"]})) or "?"
                ax.set_title(f"{_gpu_title(results, gpu)}: {dist} inputs, M = N = {mn}")
                if col == 0:
                    ax.set_ylabel(r"$\|C - C_{\mathrm{FP64}}\|_F \;/\; \|C_{\mathrm{FP64}}\|_F$")
        _rung_legend(fig, labels, max_rung)
        fig.suptitle("Accuracy against an FP64 reference as K grows (lower is better)",
                     fontweight="bold")
    return fig


# --- roofline ----------------------------------------------------------------------------------

def plot_roofline(ncu: pd.DataFrame, results: Results | None = None, gpus=None,
                  fallback_bandwidth_gbs: float = FALLBACK_BANDWIDTH_GBS):
    """Log-log roofline per GPU with ncu data: FP32 peak and DRAM ceilings, one point per rung
    (x: FLOPs / DRAM bytes from ncu; y: sgemm_bench GFLOP/s at the same shape, else ncu's)."""
    pts = roofline_points(ncu, results)
    if gpus is not None:
        pts = pts[pts["gpu"].isin([gpus] if isinstance(gpus, str) else gpus)]
    if pts.empty:
        return _empty("no <gpu>_ncu.csv (rung, flops, DRAM bytes, duration) in the results folder: run\n"
                      "tools/ncu_profile.py --all --csv bench/results/<gpu>_ncu.csv", "Roofline")
    gpu_list = _ordered_gpus(results, pts["gpu"])
    max_rung = int(pts["rung"].max())
    labels = dict(zip(pts["rung"], pts["label"]))
    footer = _provenance(results, gpu_list)
    sources = sorted(set(pts["gflops_source"]))
    footer.insert(0, ("x: FLOPs / DRAM bytes (Nsight Compute); y: GFLOP/s from "
                      + " or ".join(sources) + " at the profiled shape", "0.35"))
    with _style():
        fig, axes = _figure(1, len(gpu_list), 6.8 * len(gpu_list) + 2.6, 5.2, footer, sharey=True)
        for ax, gpu in zip(axes[0], gpu_list):
            p = pts[pts["gpu"] == gpu]
            ctx = results.context.loc[gpu] if results is not None and gpu in results.context.index else {}
            c = ceilings(ctx, fallback_bandwidth_gbs)
            lo = min(p["intensity"].min(), c.ridge or np.inf) / 10
            hi = max(p["intensity"].max(), c.ridge or 0) * 4
            x = np.logspace(np.log10(lo), np.log10(hi), 400)
            ax.plot(x, c.attainable(x), color="0.2", linewidth=2.2, zorder=2)
            ax.set_xscale("log")
            ax.set_yscale("log")
            top = max(c.peak_gflops or 0, p["gflops"].max())
            ax.set_ylim(min(p["gflops"].min(), c.bandwidth_gbs * lo) / 2, top * 2.2)
            ax.set_xlim(lo, hi)
            if c.peak_gflops:
                ax.text(hi / 1.15, c.peak_gflops * 1.12, c.peak_text(), ha="right", va="bottom",
                        fontsize=8, color="0.2")
                ax.axvline(c.ridge, color="0.6", linestyle=":", linewidth=1)
                ax.text(c.ridge * 1.08, ax.get_ylim()[0] * 1.3, f"ridge {c.ridge:.0f} FLOP/B",
                        fontsize=7.5, color="0.45")
            # Under the slope, where the roof rises away from the text.
            ax.text(lo * 1.25, c.bandwidth_gbs * lo * 0.8, c.bandwidth_text().replace(" (", "\n("),
                    fontsize=8, ha="left", va="top",
                    color="0.2" if c.bandwidth_measured else PEAK_COLOR)
            labelled = []  # (log x, log y) of points that got a label
            for _, r in p.sort_values("rung").iterrows():
                st = rung_style(r["rung"], max_rung)
                ax.plot(r["intensity"], r["gflops"], linestyle="none", marker=st["marker"],
                        markersize=st["markersize"] + 3, color=st["color"], zorder=st["zorder"],
                        markeredgecolor="white", markeredgewidth=0.6)
                here = (math.log10(r["intensity"]), math.log10(r["gflops"]))
                if all(abs(here[0] - a) > 0.12 or abs(here[1] - b) > 0.05 for a, b in labelled):
                    labelled.append(here)
                    ax.annotate(f"{int(r['rung']):02d}", (r["intensity"], r["gflops"]),
                                textcoords="offset points", xytext=(7, -3), fontsize=7.5,
                                color="0.25")
            ax.xaxis.set_major_formatter(FuncFormatter(_thousands))
            ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
            ax.set_xlabel("Arithmetic intensity (FLOP per DRAM byte)")
            ax.set_ylabel("Throughput (GFLOP/s)")
            shapes = sorted({f"{m}×{n}×{k}" for m, n, k in zip(p["M"], p["N"], p["K"])}) \
                if {"M", "N", "K"} <= set(p.columns) else []
            ax.set_title(f"{_gpu_title(results, gpu)}" + (f" at {', '.join(shapes)}" if shapes else ""))
        _rung_legend(fig, labels, max_rung, line=False)
        fig.suptitle("Roofline: where each rung sits against the FP32 and DRAM ceilings",
                     fontweight="bold")
    return fig


# --- SASS evolution ----------------------------------------------------------------------------

# Families in stacking order (bottom up): useful math, global memory, shared memory, sync,
# local memory (spills), integer / control overhead. Anything else keeps its name after these.
_FAMILIES = ["FFMA", "FMUL", "FADD", "LDG", "LDGSTS", "STG", "LDS", "STS", "LDSM", "BAR", "LDL",
             "STL", "IMAD", "IADD3", "ISETP", "LEA", "MOV", "BRA", "branch"]


def _family_rank(category: str) -> int:
    head = category.split(".")[0]
    return _FAMILIES.index(head) if head in _FAMILIES else len(_FAMILIES)


_ALWAYS = {"FFMA", "LDG", "LDGSTS", "STG", "LDS", "STS", "LDSM", "BAR", "LDL", "STL"}


# One hue per family, lighter for each further width of it (LDG.E, LDG.E.64, LDG.E.128...).
_FAMILY_COLORS = {
    "FFMA": ["#1f77b4"], "FMUL": ["#ff7f0e"], "FADD": ["#ffbb78"],
    "LDG": ["#2ca02c", "#74c476", "#c7e9c0"], "LDGSTS": ["#9467bd"],
    "STG": ["#8c564b", "#c49c94", "#e7cbc4"],
    "LDS": ["#d62728", "#ff9896", "#fcd5d4"], "STS": ["#e377c2", "#f7b6d2", "#fbe3ef"],
    "BAR": ["#bcbd22"], "LDL": ["#000000"], "STL": ["#525252"], "branch": ["#17becf"],
}
_OTHER_COLORS = ["#7f7f7f", "#a6a6a6", "#636363", "#bdbdbd"]


def sass_colors(categories: list[str]) -> dict[str, str]:
    """A colour per instruction category: families share a hue, "other" is light grey."""
    colors, used, spare = {}, {}, iter(_OTHER_COLORS * 4)
    for c in categories:
        family = c.split(".")[0]
        if c == "other":
            colors[c] = "#dddddd"
        elif family in _FAMILY_COLORS:
            shades = _FAMILY_COLORS[family]
            colors[c] = shades[used.get(family, 0) % len(shades)]
            used[family] = used.get(family, 0) + 1
        else:
            colors[c] = next(spare)
    return colors


def sass_categories(sass: pd.DataFrame, top: int = 14, min_share: float = 0.02) -> list[str]:
    """The instruction categories that get their own colour, in stacking order, then "other":
    FFMA and every memory, barrier and spill opcode present (the lessons are in them, however
    few), then the largest others with at least ``min_share`` of some rung; ``top`` at most."""
    share = sass.assign(share=sass["count"] / sass["total"].where(sass["total"] > 0))
    best = share[share["count"] > 0].groupby("category")["share"].max()
    best = best.drop([c for c in best.index if c.lower() == "other"])
    always = [c for c in best.index if c.split(".")[0] in _ALWAYS]
    rest = [c for c in best.sort_values(ascending=False).index
            if c not in always and best[c] >= min_share]
    keep = (always + rest)[:top]
    return sorted(keep, key=lambda c: (_family_rank(c), c)) + ["other"]


def plot_sass(sass: pd.DataFrame, results: Results | None = None, gpus=None, top: int = 14):
    """Per GPU: the SASS instruction mix of every rung as stacked shares (top) and the registers
    per thread with shared memory per block (bottom). From tools/sass_report.py."""
    if gpus is not None:
        sass = sass[sass["gpu"].isin([gpus] if isinstance(gpus, str) else gpus)]
    if sass.empty:
        return _empty("no <gpu>_sass.json in the results folder: run\n"
                      "tools/sass_report.py --all --json bench/results/<gpu>_sass.json",
                      "SASS evolution")
    cats = sass_categories(sass, top)
    colors = sass_colors(cats)
    gpu_list = _ordered_gpus(results, sass["gpu"])
    max_rung = int(sass["rung"].max())
    with _style():
        n_rungs = sass["rung"].nunique()
        fig, axes = _figure(2, len(gpu_list), (0.5 * n_rungs + 2.2) * len(gpu_list) + 1.8, 7.2,
                            _provenance(results, gpu_list), sharex="col",
                            gridspec_kw={"height_ratios": [3, 1.3]})
        for col, gpu in enumerate(gpu_list):
            d = sass[sass["gpu"] == gpu].assign(
                group=lambda f: f["category"].where(f["category"].isin(cats), "other"))
            mix = d.pivot_table(index="rung", columns="group", values="count", aggfunc="sum")
            mix = mix.reindex(columns=cats).fillna(0)
            share = mix.div(mix.sum(axis=1), axis=0) * 100
            meta = d.drop_duplicates("rung").set_index("rung").loc[share.index]
            x = np.arange(len(share))
            ax, axr = axes[0][col], axes[1][col]
            bottom = np.zeros(len(share))
            for cat in cats:
                ax.bar(x, share[cat], bottom=bottom, width=0.78, color=colors[cat], label=cat,
                       edgecolor="white", linewidth=0.4)
                bottom += share[cat].to_numpy()
            if "FFMA" in share:
                for xi, v in zip(x, share["FFMA"]):
                    if v >= 6:
                        ax.text(xi, v / 2, f"{v:.0f}%", ha="center", va="center", fontsize=7.5,
                                color=_text_color(colors["FFMA"]))
            ax.set_ylim(0, 100)
            ax.set_ylabel("Share of SASS instructions (%)")
            arch = d["gpu_arch"].iloc[0]
            ax.set_title(f"{_gpu_title(results, gpu)} ({arch}): instruction mix")
            ax.grid(axis="x", visible=False)
            bars = axr.bar(x, meta["registers"], width=0.6,
                           color=[rung_style(r, max_rung)["color"] for r in meta.index])
            axr.bar_label(bars, labels=[f"{int(v)}" for v in meta["registers"]], fontsize=7.5,
                          padding=1)
            local_ops = d[d["category"].str.split(".").str[0].isin(["LDL", "STL"]) & (d["count"] > 0)]
            spills = (meta["local_bytes"].fillna(0) > 0) | meta.index.isin(local_ops["rung"])
            for xi, spill in zip(x, spills):
                if spill:
                    axr.text(xi, 4, "spills", rotation=90, ha="center", va="bottom", fontsize=7,
                             color=PEAK_COLOR)
            axr.set_ylim(0, max(meta["registers"].max() * 1.3, 32))
            axr.set_ylabel("Registers / thread")
            axr.grid(axis="x", visible=False)
            smem = axr.twinx()
            smem.plot(x, meta["shared_bytes"].fillna(0) / 1024, linestyle="none", marker="D",
                      markersize=4.5, color="0.15",
                      label="static shared memory / block (KiB; dynamic not included)")
            smem.set_ylim(0, max(meta["shared_bytes"].max() / 1024 * 1.7, 1))
            smem.set_ylabel("Static shared memory (KiB)", fontsize=9)
            smem.grid(False)
            smem.spines["right"].set_visible(True)
            smem.legend(loc="upper left", fontsize=7.5)
            axr.set_xticks(x, meta["label"], rotation=40, ha="right")
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(handles[::-1], names[::-1], loc="outside right center", title="SASS opcode")
        fig.suptitle("SASS evolution: the instructions each rung compiles to (static counts)",
                     fontweight="bold")
    return fig
