"""The model benchmark (bench/model/model_bench.py) as tables and a figure: every `<gpu>_model.json`
of a results folder, read by the project's one reader (sgemm_ladder.results.load_model)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .data import REPO_ROOT, _folder, _tags, reader
from .live import LIVE_TAG, pick_source
from .plots import PEAK_COLOR, _empty, _figure, _style

LADDER_COLOR, TORCH_COLOR = "#1f77b4", "0.45"
PASS_NAMES = {"forward": "x·Wᵀ", "backward_input": "dY·W", "backward_weight": "dYᵀ·X"}


def load_model_results(folder: str | os.PathLike | None = None, gpus=None) -> dict:
    """tag -> sgemm_ladder.results.ModelResults for every `<gpu>_model.json` in `folder` (or the
    GPUs `gpus`); {} when there is none."""
    folder = _folder(folder)
    return {tag: reader.load_model(tag, folder) for tag in _tags(folder, gpus, reader.MODEL_SUFFIX)}


def pick_model_source(results_folder, gpus=None, live: bool = False, args=()) -> tuple[Path, list[str] | None]:
    """The committed results folder (as pick_source), or, when `live`, a new folder holding a run
    of bench/model/model_bench.py on this machine's GPU now (`args` passed to it)."""
    folder, gpus = pick_source(results_folder, gpus, live=live)
    if live:
        bench = REPO_ROOT / "bench" / "model" / "model_bench.py"
        subprocess.run([sys.executable, str(bench), "--json", str(folder / f"{LIVE_TAG}{reader.MODEL_SUFFIX}"),
                        *map(str, args)], check=True)
    return folder, gpus


def model_table(models: dict) -> pd.DataFrame:
    """One row per GPU and model row (prefill, decode, train): times, % of torch with its interval,
    tokens per second."""
    columns = ["gpu", "row", "batch", "tokens", "cache", "ms", "torch_ms", "pct_torch", "pct_torch_lo", "pct_torch_hi",
               "tokens_per_s", "torch_tokens_per_s"]
    rows = [{"gpu": tag, "row": r["name"], **{c: r.get(c) for c in columns[2:]}}
            for tag, m in models.items() for r in m.phases]
    return pd.DataFrame(rows, columns=columns)


def model_projection_table(models: dict) -> pd.DataFrame:
    """Each projection's products: layout, shape, calls per step, share of the step, % of torch,
    GFLOP/s, arithmetic intensity, % of the FP32 peak and of the roof."""
    columns = ["gpu", "phase", "projection", "product", "layout", "M", "N", "K", "calls", "share", "torch_share",
               "pct_torch", "pct_torch_lo", "pct_torch_hi", "gflops", "torch_gflops", "intensity", "pct_peak",
               "pct_roof"]
    rows = [{"gpu": tag, "product": PASS_NAMES.get(r.get("pass"), r.get("pass")), **{c: r.get(c) for c in columns
                                                                                      if c not in ("gpu", "product")}}
            for tag, m in models.items() for r in m.projections]
    return pd.DataFrame(rows, columns=columns)


def model_overhead_table(models: dict) -> pd.DataFrame:
    columns = ["gpu", "M", "N", "K", "eager_us", "graph_us", "overhead_us", "host_us", "torch_eager_us",
               "torch_graph_us", "torch_overhead_us", "torch_host_us"]
    return pd.DataFrame([{"gpu": tag, **{c: r.get(c) for c in columns[1:]}} for tag, m in models.items()
                         for r in m.overhead], columns=columns)


def model_accuracy_table(models: dict) -> pd.DataFrame:
    columns = ["gpu", "name", "rel_err", "torch_rel_err", "worst_parameter"]
    return pd.DataFrame([{"gpu": tag, **{c: r.get(c) for c in columns[1:]}} for tag, m in models.items()
                         for r in m.accuracy], columns=columns)


def _footer(models: dict) -> list[tuple[str, str]]:
    lines, synthetic = [], False
    for tag, m in models.items():
        c = m.context
        lines.append((f"{m.gpu_name} [{tag}]: torch {c.get('torch_version', '?')}, transformers "
                      f"{c.get('transformers_version', '?')}, {c.get('operators', '?')} operators, rung "
                      f"{c.get('rung_slug', c.get('rung', '?'))}, sgemm_ladder {c.get('sgemm_ladder_git', '?')}",
                      "0.35"))
        synthetic |= "fixture" in c
    if synthetic:
        lines.append(("SYNTHETIC TEST DATA (notebooks/tests/data): not a measurement", PEAK_COLOR))
    return lines


def plot_model(models: dict):
    """Per GPU, three panels: % of torch for prefill, decode and train with the 95% interval; each
    projection's share of the ladder's step, phase by phase; the projections' roofline points
    under the FP32 peak and the DRAM roof."""
    if not models:
        return _empty("no <gpu>_model.json in the results folder: run\n"
                      "bench/model/model_bench.py on a GPU (docs/model.md)", "The ladder in a model")
    tags = sorted(models)
    with _style():
        fig, axes = _figure(len(tags), 3, 15, 4.2 * len(tags), _footer({t: models[t] for t in tags}))
        for row, tag in enumerate(tags):
            m = models[tag]
            _panel_phases(axes[row][0], m)
            _panel_shares(axes[row][1], m)
            _panel_roofline(axes[row][2], m)
    return fig


def _panel_phases(ax, m):
    names = [r["name"].split("/", 1)[1] for r in m.phases]
    pct = np.array([r.get("pct_torch", np.nan) for r in m.phases], dtype=float)
    lo = np.array([r.get("pct_torch_lo", np.nan) for r in m.phases], dtype=float)
    hi = np.array([r.get("pct_torch_hi", np.nan) for r in m.phases], dtype=float)
    x = np.arange(len(names))
    ax.bar(x, pct, color=LADDER_COLOR, width=0.6)
    ax.errorbar(x, pct, yerr=[pct - lo, hi - pct], fmt="none", ecolor="black", capsize=4, linewidth=1)
    ax.axhline(100, color=TORCH_COLOR, linestyle="--", linewidth=1.2, label="torch")
    # Around 100%: the differences are a few percent, and the interval is what decides.
    low, high = np.nanmin(np.append(lo, 100)), np.nanmax(np.append(hi, 100))
    margin = max(5.0, 0.25 * (high - low))
    ax.set_ylim(max(0.0, low - margin), high + margin)
    for xi, r in zip(x, m.phases):
        if r.get("tokens_per_s"):
            ax.text(xi, ax.get_ylim()[0] + 0.4, f"{r['tokens_per_s']:,.0f}\ntok/s", ha="center", va="bottom",
                    fontsize=7.5, color="white")
    ax.set_xticks(x, names)
    ax.set_ylabel("% of torch's speed (>100: ladder faster)")
    ax.set_title(f"{m.gpu_name}: the model")
    ax.legend(loc="upper right")


def _panel_shares(ax, m):
    phases = list(dict.fromkeys(r["phase"] for r in m.projections))
    projections = list(dict.fromkeys(r["projection"] for r in m.projections))
    if not phases:
        ax.axis("off")
        ax.text(0.5, 0.5, "no projection rows", ha="center", va="center", transform=ax.transAxes)
        return
    colors = dict(zip(projections, [f"C{i}" for i in range(len(projections))]))
    bottom = np.zeros(len(phases))
    for name in projections:
        share = np.array([100 * sum(r.get("share") or 0 for r in m.projections
                                    if r["phase"] == phase and r["projection"] == name) for phase in phases])
        ax.bar(phases, share, bottom=bottom, color=colors[name], label=name, width=0.6)
        bottom += share
    ax.bar(phases, np.clip(100 - bottom, 0, None), bottom=bottom, color="0.85", label="rest of the step", width=0.6)
    ax.set_ylim(0, max(100, float(bottom.max()) * 1.05))
    ax.set_ylabel("share of the ladder model's step (%)")
    ax.set_title("where the time goes")
    ax.legend(fontsize=7, ncol=2, loc="upper right")


def _panel_roofline(ax, m):
    c = m.context
    peak, bandwidth = c.get("fp32_peak_gflops"), c.get("dram_peak_gbps")
    points = [r for r in m.projections if r.get("intensity") and r.get("gflops")]
    if not points:
        ax.axis("off")
        return
    for phase, marker in zip(("prefill", "decode", "train"), "osD"):
        these = [r for r in points if r["phase"] == phase]
        if these:
            ax.scatter([r["intensity"] for r in these], [r["gflops"] for r in these], marker=marker, s=28,
                       color=LADDER_COLOR, label=f"{phase} (ladder)", zorder=3)
            ax.scatter([r["intensity"] for r in these], [r.get("torch_gflops") or np.nan for r in these],
                       marker=marker, s=28, facecolors="none", edgecolors=TORCH_COLOR, label=f"{phase} (torch)",
                       zorder=2)
    xs = np.array([r["intensity"] for r in points])
    x = np.geomspace(max(xs.min() / 2, 0.1), xs.max() * 2, 200)
    if peak and bandwidth:
        ax.plot(x, np.minimum(float(peak), float(bandwidth) * x), color=PEAK_COLOR, linewidth=1.2,
                label="FP32 peak / DRAM roof")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("projections on the roofline")
    ax.legend(fontsize=7, loc="lower right")
