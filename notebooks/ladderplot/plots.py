"""The ladder's figures. Each function takes loaded data and returns a matplotlib Figure; rungs,
sizes, inputs and GPUs all come from the data, every GPU in a panel of its own, side by side.
cuBLAS (rung 0) is always drawn in black, dashed, with a star: the baseline. The other rungs
follow one colour ramp in id order. Wherever the results carry a spread it is drawn: the
interval of % of cuBLAS, the quartiles of the launch times (as GFLOP/s or ms).
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

from .data import (BASELINE_RUNG, Results, ceilings, figure_source, figure_stamp, ladder_table, roofline_points,
                   roofline_tool, square_timing)

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

def rung_style(rung: int, rungs) -> dict:
    """Colour, marker and line of a rung among the rungs of a figure (ids need not be
    contiguous: the tracks are numbered apart), the same in every figure for the same rungs."""
    if int(rung) == BASELINE_RUNG:
        return dict(color=BASELINE_COLOR, marker="*", markersize=9, linestyle="--", linewidth=2.2,
                    zorder=5)
    others = sorted({int(r) for r in rungs} - {BASELINE_RUNG})
    i = others.index(int(rung)) if int(rung) in others else 0
    color = plt.get_cmap("viridis")(0.05 + 0.85 * i / max(1, len(others) - 1))
    return dict(color=color, marker=_MARKERS[i % len(_MARKERS)], markersize=5, linestyle="-",
                linewidth=1.5, zorder=3)


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


def _rung_legend(fig, labels: dict[int, str], title="Rung", line=True):
    def handle(rung):
        st = {k: v for k, v in rung_style(rung, labels).items() if k != "zorder"}
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
    notebooks/render_figures.py collects the notebooks' figures); otherwise do nothing.

    A README figure (a name of tools/figure_stamp.py's FIGURES) drawn from one results folder,
    every GPU in it (data.figure_source()), carries the hash of the files it was drawn from in
    two PNG text chunks; `tools/docs.py --check` compares it with bench/results. A figure of a live
    run, of a GPU filter or of several folders carries none, and so reads as stale there."""
    folder = os.environ.get(FIGURES_ENV)
    if not folder:
        return None
    from PIL import Image  # matplotlib's own dependency
    from PIL.PngImagePlugin import PngInfo

    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=STYLE["savefig.dpi"], bbox_inches="tight", facecolor="white")
    # 256 colours are plenty for a plot and make the committed PNG about three times smaller.
    image = Image.open(buf).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    info, source = PngInfo(), figure_source()
    if name in figure_stamp.FIGURES and source is not None:
        for key, text in figure_stamp.stamp(name, source).items():
            info.add_text(key, text)  # tEXt: Latin-1, uncompressed
    image.save(path, optimize=True, pnginfo=info)
    print(f"figure written to {path}" + (f" (inputs: {source})" if info.chunks else " (no input stamp)"))
    return path


# --- the ladder --------------------------------------------------------------------------------

def _pct_text(pct, lo, hi, verdict) -> str:
    """"77.4% of cuBLAS [76.8, 78.0], slower": the interval and verdict where the row has them."""
    text = f"{pct:.1f}% of cuBLAS"
    if not pd.isna(lo):
        text += f" [{lo:.1f}, {hi:.1f}]"
    return text + (f", {verdict}" if isinstance(verdict, str) else "")


def _spread(value, lo, hi):
    """Error-bar lengths [[below], [above]] of a value with its spread, or None without one."""
    return None if pd.isna(lo) or pd.isna(hi) else [[value - lo], [hi - value]]


def plot_ladder(results: Results, size: int = 4096, gpus=None):
    """Horizontal bars: GFLOP/s of every rung at M = N = K = ``size`` with the quartiles of its
    launch times as error bars, each labelled with its % of cuBLAS, that figure's interval and
    the verdict; cuBLAS and the FP32 peak drawn as vertical lines. One panel per GPU."""
    table = ladder_table(results, size, gpus).reset_index()
    gpu_list = _ordered_gpus(results, table["gpu"])
    rungs = sorted(table["rung"].unique())
    labels = dict(zip(table["rung"], table["kernel"]))
    footer = _provenance(results, gpu_list)
    with _style():
        fig, axes = _figure(1, len(gpu_list), 8.2 * len(gpu_list), 0.36 * len(rungs) + 2.3,
                            footer, sharey=True)
        for ax, gpu in zip(axes[0], gpu_list):
            t = table[table["gpu"] == gpu].set_index("rung")
            peak = results.by_gpu[gpu].fp32_peak_gflops
            base = t["GFLOP/s"].get(BASELINE_RUNG)
            xmax = max(peak or 0, t["GFLOP/s"].max()) * 1.04
            for y, rung in enumerate(rungs):
                if rung not in t.index:
                    ax.text(xmax * 0.01, y, "no result", va="center", fontsize=8, color="0.4")
                    continue
                row = t.loc[rung]
                st = rung_style(rung, rungs)
                is_base = rung == BASELINE_RUNG
                ax.barh(y, row["GFLOP/s"], height=0.72, color=_BASE_BAR if is_base else st["color"],
                        xerr=_spread(row["GFLOP/s"], row["GFLOP/s lo"], row["GFLOP/s hi"]),
                        error_kw={"elinewidth": 1, "capsize": 2, "ecolor": "0.2"})
                pct = "baseline" if is_base else _pct_text(row["% cuBLAS"], row["% lo"], row["% hi"],
                                                           row["verdict"])
                text = f"{row['GFLOP/s']:,.0f} GFLOP/s · {pct}"
                if not row["checked"]:
                    text += " · unchecked"
                elif not row["verified"]:
                    text += " · NOT VERIFIED"
                inside = row["GFLOP/s"] > 0.55 * xmax
                color = PEAK_COLOR if (row["checked"] and not row["verified"]) else (
                    _text_color(_BASE_BAR if is_base else st["color"]) if inside else "black")
                ax.text(row["GFLOP/s"] + (-0.02 if inside else 0.02) * xmax, y, text,
                        ha="right" if inside else "left", va="center", fontsize=8, color=color,
                        fontweight="bold" if is_base else None)
            # The two reference lines, labelled in the two rows kept free above the bars.
            for value, y, color, style, text in (
                    (base, -0.85, BASELINE_COLOR, "--", "cuBLAS = 100% "),
                    (peak, -1.45, PEAK_COLOR, ":", f"FP32 peak, {(peak or 0):,.0f} GFLOP/s ")):
                if value:
                    ax.axvline(value, color=color, linestyle=style, linewidth=1.4)
                    ax.text(value, y, text, ha="right", va="center", fontsize=8, color=color, zorder=6,
                            bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.6})  # over the other line
            ax.set_xlim(0, xmax)
            ax.set_yticks(range(len(rungs)), [labels[r] for r in rungs])
            ax.set_ylim(len(rungs) - 0.5, -1.8)
            ax.grid(axis="y", visible=False)
            ax.xaxis.set_major_formatter(FuncFormatter(_thousands))
            ax.set_xlabel("Throughput (GFLOP/s, higher is better)" + (
                "\nerror bars: quartiles of the launch times; % of cuBLAS [its 95% interval], verdict"
                if t["% lo"].notna().any() else ""))
            ax.set_title(_gpu_title(results, gpu))
        fig.suptitle(f"SGEMM ladder at M = N = K = {size}: throughput per rung vs. cuBLAS", fontweight="bold")
    return fig


# --- scaling -----------------------------------------------------------------------------------

# metric: (axis label, log axis by default, the columns of its spread, the spread's name)
_METRICS = {
    "gflops": ("Throughput (GFLOP/s)", True, ("gflops_lo", "gflops_hi"), "quartiles of the launch times"),
    "pct": ("% of cuBLAS (same run, same inputs)", False, ("pct_lo", "pct_hi"), "95% interval"),
    "ms": ("Time per call (ms, median)", True, ("ms_q1", "ms_q3"), "quartiles"),
}


def plot_scaling(results: Results, gpus=None, metrics=("gflops", "pct"), logy: bool | None = None):
    """Every rung and cuBLAS against M = N = K on a log-2 size axis: one row per metric
    (gflops and ms on a log axis, pct linear, unless ``logy`` says otherwise), one column per
    GPU; a shaded band around each line where the results carry its spread."""
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    for metric in metrics:
        if metric not in _METRICS:
            raise ValueError(f"metric must be one of {list(_METRICS)}, not {metric!r}")
    t = square_timing(results, gpus)
    if t.empty:
        return _empty("no square timing rows (M = N = K) in these results", "Scaling")
    gpu_list = _ordered_gpus(results, t["gpu"])
    labels = dict(zip(t["rung"], t["label"]))
    with _style():
        fig, axes = _figure(len(metrics), len(gpu_list), 6.2 * len(gpu_list) + 2.4,
                            3.7 * len(metrics) + 0.9, _provenance(results, gpu_list),
                            sharex="col", sharey="row")
        for row, metric in enumerate(metrics):
            ylabel, default_log, (lo, hi), spread = _METRICS[metric]
            for col, gpu in enumerate(gpu_list):
                ax = axes[row][col]
                g = t[t["gpu"] == gpu]
                for rung, d in g.groupby("rung"):
                    d = d.sort_values("size")
                    st = rung_style(rung, labels)
                    ax.plot(d["size"], d[metric], **st)
                    band = d[d[lo].notna()]
                    ax.fill_between(band["size"], band[lo].astype(float), band[hi].astype(float),
                                    color=st["color"], alpha=0.18, linewidth=0, zorder=st["zorder"] - 1)
                _log2_size_axis(ax, g["size"], "M = N = K" if row == len(metrics) - 1 else "")
                if g[lo].notna().any():
                    ax.text(0.99, 0.01, f"bands: {spread}", transform=ax.transAxes, ha="right",
                            va="bottom", fontsize=7.5, color="0.4")
                if metric == "pct":
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
        _rung_legend(fig, labels)
        names = {"gflops": "Throughput", "pct": "share of cuBLAS", "ms": "Time per call"}
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
                    ax.plot(r["K"], r["rel_err"], **rung_style(rung, labels))
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
        _rung_legend(fig, labels)
        fig.suptitle("Accuracy against an FP64 reference as K grows (lower is better)",
                     fontweight="bold")
    return fig


# --- roofline ----------------------------------------------------------------------------------

def plot_roofline(ncu: pd.DataFrame, results: Results | None = None, gpus=None,
                  bandwidth_gbs: float | None = None):
    """A roofline per GPU with ncu data, drawn by tools/roofline.py: the FP32 peak and DRAM roofs
    of the GPU's results file, one point per rung (x: FLOPs / DRAM bytes from ncu; y: sgemm_bench
    GFLOP/s at the same shape with the quartiles of its launch times as bars, else ncu's)."""
    pts = roofline_points(ncu, results)
    if gpus is not None:
        pts = pts[pts["gpu"].isin([gpus] if isinstance(gpus, str) else gpus)]
    pts = pts[pts["arithmetic_intensity"].notna() & pts["gflops"].notna()]
    if pts.empty:
        return _empty("no <gpu>_ncu.csv (rung, flops, DRAM bytes, duration) in the results folder: run\n"
                      "tools/ncu_profile.py --all --csv bench/results/<gpu>_ncu.csv", "Roofline")
    gpu_list = _ordered_gpus(results, pts["gpu"])
    labels = dict(zip(pts["rung"], pts["label"]))
    footer = _provenance(results, gpu_list)
    sources = sorted({"sgemm_bench" if s == "results" else "ncu" for s in pts["gflops_source"]})
    footer.insert(0, ("x: FLOPs / DRAM bytes (Nsight Compute); y: GFLOP/s from "
                      + " or ".join(sources) + " at the profiled shape", "0.35"))

    def style(point):
        st = rung_style(point["rung"], labels)
        return {"color": st["color"], "marker": st["marker"], "markersize": st["markersize"] + 3,
                "label": "_nolegend_"}

    with _style():
        fig, axes = _figure(1, len(gpu_list), 6.8 * len(gpu_list) + 2.6, 5.2, footer, sharey=True)
        for ax, gpu in zip(axes[0], gpu_list):
            p = pts[pts["gpu"] == gpu]
            roofline_tool.draw_roofline(ax, p.to_dict("records"), ceilings(results, gpu, bandwidth_gbs), style)
            ax.legend(loc="lower right", fontsize=7.5)
            ax.xaxis.set_major_formatter(FuncFormatter(_thousands))
            ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
            shapes = sorted({f"{m}×{n}×{k}" for m, n, k in zip(p["M"], p["N"], p["K"])})
            ax.set_title(f"{_gpu_title(results, gpu)} at {', '.join(shapes)}")
        _rung_legend(fig, labels, line=False)
        fig.suptitle("Roofline: where each rung sits against the FP32 and DRAM roofs", fontweight="bold")
    return fig


# --- SASS evolution ----------------------------------------------------------------------------

# Families in stacking order (bottom up): useful math, global memory, shared memory, sync,
# local memory (spills), integer / control overhead. Anything else keeps its name after these.
_FAMILIES = ["FFMA", "HMMA", "HGMMA", "FMUL", "FADD", "LDG", "LDGSTS", "STG", "LDS", "STS", "LDSM", "BAR",
             "LDL", "STL", "IMAD", "IADD3", "ISETP", "LEA", "MOV", "BRA", "branch"]


def _family_rank(category: str) -> int:
    head = category.split(".")[0]
    return _FAMILIES.index(head) if head in _FAMILIES else len(_FAMILIES)


_ALWAYS = {"FFMA", "HMMA", "HGMMA", "LDG", "LDGSTS", "STG", "LDS", "STS", "LDSM", "BAR", "LDL", "STL"}


# One hue per family, lighter for each further width of it (LDG.E, LDG.E.64, LDG.E.128...).
_FAMILY_COLORS = {
    "FFMA": ["#1f77b4"], "HMMA": ["#17a589"], "HGMMA": ["#0e6655"], "FMUL": ["#ff7f0e"], "FADD": ["#ffbb78"],
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
    rungs = sorted(sass["rung"].unique())
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
                           color=[rung_style(r, rungs)["color"] for r in meta.index])
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
