"""The result files of every GPU as tidy pandas DataFrames, read through the project's one reader,
`sgemm_ladder.results` (python/sgemm_ladder/results.py): this module only turns its records into
tables. Nothing here knows how many rungs there are or what they are called: rung ids, slugs,
shapes and GPUs all come from the files (rung 0 is the cuBLAS baseline).
"""
from __future__ import annotations

import dataclasses
import os
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

REPO_ROOT = Path(__file__).resolve().parents[2]
try:
    from sgemm_ladder import results as reader
except ImportError:  # a checkout without the package installed: its source is python/
    sys.path.insert(0, str(REPO_ROOT / "python"))
    from sgemm_ladder import results as reader

sys.path.insert(0, str(REPO_ROOT / "tools"))
import figure_stamp  # noqa: E402  tools/figure_stamp.py: which files each README figure is drawn from
import roofline as roofline_tool  # noqa: E402  tools/roofline.py, the ladder's one roofline

RESULTS_ENV = reader.RESULTS_ENV
DEFAULT_RESULTS_DIR = REPO_ROOT / "bench" / "results"
BASELINE_RUNG = 0


def results_dir(default: str | os.PathLike | None = None) -> Path:
    """The results folder to read: $SGEMM_RESULTS_DIR when set (a relative value is taken from
    the repository root, wherever Jupyter runs), else `default` (the notebooks pass
    "../bench/results", relative to themselves), else the repository's bench/results."""
    if os.environ.get(RESULTS_ENV) or default is None:
        return reader.results_dir()
    return Path(default).expanduser().resolve()


def rung_label(rung: int, slug: str) -> str:
    """Display name of a rung: "07 bank conflict free"; rung 0 is "00 cuBLAS (baseline)"."""
    if int(rung) == BASELINE_RUNG:
        return f"{int(rung):02d} cuBLAS (baseline)"
    words = str(slug).split("_", 1)[-1].replace("_", " ")
    return f"{int(rung):02d} {words}"


@dataclass
class Results:
    """Everything `sgemm_bench --json` wrote, for every GPU found.

    timing    one row per (gpu, rung, shape): the fields of sgemm_ladder.results.Row (gflops, pct
              with pct_lo and pct_hi, ms with ms_q1 and ms_q3, ...), label, verdict, size (M for
              square shapes, else NaN), gflops_lo and gflops_hi (GFLOP/s at the quartiles of ms),
              choice (the Row's label: what a picking rung ran)
    accuracy  one row per (gpu, rung, input, shape) of the accuracy sweep
    context   one row per GPU (index: the GPU tag), the files' context as text
    by_gpu    the reader's Results of each GPU (FP32 peak, copy bandwidth, geomean, ...)
    refused   one row per (gpu, rung, input, shape) of the accuracy sweep that the rung refused:
              wide-exponent inputs it cannot keep FP32-accurate (the Ozaki rungs), with why
    """

    timing: pd.DataFrame
    accuracy: pd.DataFrame
    context: pd.DataFrame
    by_gpu: dict[str, reader.Results]
    refused: pd.DataFrame = dataclasses.field(default_factory=lambda: pd.DataFrame(columns=_REFUSED_COLUMNS))

    @property
    def gpus(self) -> list[str]:
        return list(self.by_gpu)

    def gpu_name(self, gpu: str) -> str:
        return self.by_gpu[gpu].gpu_name if gpu in self.by_gpu else gpu


_TIMING_COLUMNS = ["gpu", "label", "size", "verdict", "gflops_lo", "gflops_hi", "choice"] + [
    f.name for f in dataclasses.fields(reader.Row) if f.name != "label"]
_ACCURACY_COLUMNS = ["gpu", "label"] + [f.name for f in dataclasses.fields(reader.AccuracyRow)]
_REFUSED_COLUMNS = ["gpu", "rung", "slug", "label", "input", "M", "N", "K", "why"]
# An accuracy-sweep row of a wide-exponent input (entries u * 2^e, e in [-E, E]), as the reader
# names it. sgemm_bench records a rung's refusal of such inputs as a failed row but counts it as no
# failure (bench/session.cu: "the row records the refusal, which fails nothing"), and so does this.
_WIDE_ACCURACY_ROW = re.compile(r"accuracy/(?P<slug>(?P<rung>\d+)_\w+?)/(?P<input>wide\d+)/"
                                r"(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+)")


def refusals(res: reader.Results) -> tuple[list[dict], list[tuple[str, str]]]:
    """The rows `res` left out, split in two: the accuracy sweep's wide-input rows a rung refused
    (records of _REFUSED_COLUMNS less gpu and label), and every other failed row (name, why)."""
    refused, failed = [], []
    for name, why in res.skipped:
        m = _WIDE_ACCURACY_ROW.fullmatch(name)
        if m:
            refused.append({"rung": int(m["rung"]), "slug": m["slug"], "input": m["input"], "M": int(m["M"]),
                            "N": int(m["N"]), "K": int(m["K"]), "why": why})
        else:
            failed.append((name, why))
    return refused, failed


def frames(by_gpu: dict[str, reader.Results]) -> Results:
    """The DataFrames of the reader's Results of each GPU (keyed by GPU tag)."""
    timing = [{**dataclasses.asdict(r), "gpu": gpu, "label": rung_label(r.rung, r.slug), "choice": r.label,
               "size": r.M if r.M == r.N == r.K else None, "verdict": r.verdict,
               **dict(zip(("gflops_lo", "gflops_hi"), r.gflops_iqr or (None, None)))}
              for gpu, res in by_gpu.items() for r in res.rows]
    accuracy = [{"gpu": gpu, "label": rung_label(a.rung, a.slug), **dataclasses.asdict(a)}
                for gpu, res in by_gpu.items() for a in res.accuracy]
    refused = [{"gpu": gpu, "label": rung_label(r["rung"], r["slug"]), **r}
               for gpu, res in by_gpu.items() for r in refusals(res)[0]]
    context = pd.DataFrame.from_dict({gpu: res.context for gpu, res in by_gpu.items()}, orient="index")
    context.index.name = "gpu"
    timing = pd.DataFrame(timing, columns=_TIMING_COLUMNS).astype({"size": "Float64"})
    return Results(timing=timing.sort_values(["gpu", "M", "N", "K", "rung"], ignore_index=True),
                   accuracy=pd.DataFrame(accuracy, columns=_ACCURACY_COLUMNS).sort_values(
                       ["gpu", "input", "M", "N", "K", "rung"], ignore_index=True),
                   context=context, by_gpu=by_gpu, refused=pd.DataFrame(refused, columns=_REFUSED_COLUMNS))


def _folder(folder) -> Path:
    """A folder given (pick_source's, a live run's) as it is; none: results_dir()."""
    return Path(folder).expanduser().resolve() if folder is not None else results_dir()


# What this process has read: (results folder, GPU filter or None) of every load_* call, and
# "measured now" for a live run that read no folder. save_figure stamps a figure with the hash of
# its inputs only when all of it came from one folder, every GPU in it (figure_source()).
_SOURCES: set[tuple[str, tuple[str, ...] | None]] = set()
MEASURED_NOW = "<measured now>"


def note_source(folder, gpus=None) -> None:
    """Record that the figures to come draw on `folder` (filtered to `gpus`)."""
    _SOURCES.add((str(folder), None if gpus is None else tuple([gpus] if isinstance(gpus, str) else gpus)))


def figure_source() -> Path | None:
    """The one results folder everything loaded so far came from, whole (no GPU filter), or None
    when nothing was loaded, several folders were, a filter was applied or a run was live."""
    if len(_SOURCES) != 1:
        return None
    folder, gpus = next(iter(_SOURCES))
    return Path(folder) if gpus is None and folder != MEASURED_NOW else None


def _tags(folder: Path, gpus, suffix: str = ".json") -> list[str]:
    note_source(folder, gpus)
    wanted = None if gpus is None else ([gpus] if isinstance(gpus, str) else list(gpus))
    return [t for t in reader.gpus(folder, suffix) if wanted is None or t in wanted]


def load_results(folder: str | os.PathLike | None = None, gpus=None, missing_ok: bool = False) -> Results | None:
    """Every `<gpu>.json` under `folder` (default: results_dir()), or the GPUs `gpus` (a tag or a
    list). Rows that failed are left out with a warning; the accuracy sweep's wide-input rows that
    a rung refused are no failure (sgemm_bench counts them as none) and go to Results.refused
    without one. When there is none: None if `missing_ok`, else FileNotFoundError saying what to
    do."""
    folder = _folder(folder)
    by_gpu = {tag: reader.load(tag, folder) for tag in _tags(folder, gpus)}
    for tag, res in by_gpu.items():
        for name, why in refusals(res)[1]:
            warnings.warn(f"{res.path.name}: {name}: {why} (row left out)", stacklevel=2)
    if not by_gpu:
        if missing_ok:
            return None
        wanted = "" if gpus is None else f" for GPUs {gpus!r}"
        raise FileNotFoundError(
            f"no sgemm_bench results{wanted} under {folder}: expected <gpu>.json written by "
            f"`sgemm_bench --json` (see tools/gpu_session.sh). To look at the test fixtures set "
            f"{RESULTS_ENV}=notebooks/tests/data, or set LIVE = True on a GPU machine.")
    return frames(by_gpu)


def has_results(folder: str | os.PathLike) -> bool:
    """Whether `folder` holds any sgemm_bench results file (`<gpu>.json`)."""
    return bool(reader.gpus(folder))


# sass_report counts NOP padding (and never-executed @!PT placeholders) and the FFMA operands
# flagged .reuse, but neither is an instruction of the mix.
SASS_NOT_INSTRUCTIONS = {"NOP", "FFMA.reuse"}
_SASS_COLUMNS = ["gpu", "gpu_arch", "rung", "slug", "label", "function", "registers", "shared_bytes",
                 "local_bytes", "stack_bytes", "total", "ffma_share", "category", "count"]


def load_sass(folder: str | os.PathLike | None = None, gpus=None) -> pd.DataFrame:
    """Every `<gpu>_sass.json` under `folder`, tidy: one row per (gpu, rung, category) with the
    reported kernel's resources (registers, shared_bytes, local_bytes, stack_bytes, total,
    ffma_share) on each row; NOP and .reuse flags left out. Empty (same columns) without any."""
    folder = _folder(folder)
    rows = []
    for tag in _tags(folder, gpus, "_sass.json"):
        for rung, e in reader.load_sass(tag, folder).items():
            base = {c: e.get(c) for c in _SASS_COLUMNS[1:-2]}
            base.update(gpu=tag, rung=rung, label=rung_label(rung, e.get("slug", "")))
            rows += [{**base, "category": c, "count": n} for c, n in (e.get("counts") or {}).items()
                     if c not in SASS_NOT_INSTRUCTIONS]
    return pd.DataFrame(rows, columns=_SASS_COLUMNS)


def load_ncu(folder: str | os.PathLike | None = None, gpus=None) -> pd.DataFrame:
    """Every `<gpu>_ncu.csv` under `folder`: one row per (gpu, rung) with every column
    ncu_profile wrote (NaN where a metric was n/a) and label. Empty DataFrame without any."""
    folder = _folder(folder)
    rows = [{"gpu": tag, "label": rung_label(rung, r.get("slug", "")), **r}
            for tag in _tags(folder, gpus, "_ncu.csv") for rung, r in reader.load_ncu(tag, folder).items()]
    columns = None if rows else ["gpu", "rung", "slug", "label", "flops", "dram_bytes", "duration_ns"]
    return pd.DataFrame(rows, columns=columns).fillna(float("nan")).infer_objects()


# --- tables ------------------------------------------------------------------------------------

def _of(df: pd.DataFrame, gpus) -> pd.DataFrame:
    return df if gpus is None else df[df["gpu"].isin([gpus] if isinstance(gpus, str) else gpus)]


def square_timing(results: Results, gpus=None) -> pd.DataFrame:
    """Timing rows of square shapes (M = N = K), with their `size`."""
    t = _of(results.timing, gpus)
    return t[t["size"].notna()].astype({"size": "int64"})


def ladder_table(results: Results, size: int = 4096, gpus=None) -> pd.DataFrame:
    """Per (gpu, rung) at M = N = K = `size`: kernel, GFLOP/s with its quartiles, % cuBLAS with
    its interval and verdict, rel_err, verified, checked, ms with its quartiles, SM clock. Raises ValueError
    listing the sizes there are when `size` was not measured."""
    t = square_timing(results, gpus)
    at = t[t["size"] == size]
    if at.empty:
        raise ValueError(f"no timing rows at {size}x{size}x{size}; sizes measured: {sorted(t['size'].unique())}")
    columns = {"label": "kernel", "gflops": "GFLOP/s", "gflops_lo": "GFLOP/s lo", "gflops_hi": "GFLOP/s hi",
               "pct": "% cuBLAS", "pct_lo": "% lo", "pct_hi": "% hi",
               "verdict": "verdict", "rel_err": "rel_err", "verified": "verified", "checked": "checked",
               "ms": "ms", "ms_q1": "ms q1", "ms_q3": "ms q3", "sm_clock_mhz": "SM MHz"}
    return at.set_index(["gpu", "rung"])[list(columns)].rename(columns=columns)


def _number(x, fmt: str) -> str:
    return "-" if pd.isna(x) else fmt.format(x)


def format_ladder_table(table: pd.DataFrame) -> pd.DataFrame:
    """The ladder table as text: thousands separators, % of cuBLAS with its interval and verdict,
    ms with its quartiles, errors in scientific notation, verified as yes / NO / unchecked."""
    out = pd.DataFrame(index=table.index)
    out["kernel"] = table["kernel"]
    out["GFLOP/s"] = table["GFLOP/s"].map("{:,.0f}".format)
    out["% cuBLAS [interval]"] = [
        _number(p, "{:.1f}") + ("" if pd.isna(lo) else f" [{lo:.1f}, {hi:.1f}]")
        for p, lo, hi in zip(table["% cuBLAS"], table["% lo"], table["% hi"])]
    out["verdict"] = table["verdict"].fillna("-")
    out["ms [quartiles]"] = [
        f"{ms:.3f}" + ("" if pd.isna(q1) else f" [{q1:.3f}, {q3:.3f}]")
        for ms, q1, q3 in zip(table["ms"], table["ms q1"], table["ms q3"])]
    out["rel_err"] = [_number(e, "{:.2e}") if c else "-" for e, c in zip(table["rel_err"], table["checked"])]
    out["verified"] = ["yes" if v else ("NO" if c else "unchecked")
                       for v, c in zip(table["verified"], table["checked"])]
    return out


def scaling_table(results: Results, metric: str = "gflops", gpus=None) -> pd.DataFrame:
    """`metric` for every rung (rows) against size (columns), one block of rows per GPU."""
    t = square_timing(results, gpus)
    return t.pivot_table(index=["gpu", "rung", "label"], columns="size", values=metric)


# Context keys sgemm_bench writes, in reading order.
CONTEXT_KEYS = ["gpu_name", "gpu_arch", "sm_count", "sm_clock_max_mhz", "sm_clock_at_start_mhz", "sm_clock_source",
                "mem_clock_max_mhz", "l2_bytes", "fp32_lanes_per_sm", "fp32_peak_gflops",
                "fp32_peak_gflops_at_max_clock", "copy_bandwidth_gbs", "driver_version", "cuda_runtime",
                "cublas_version", "cublas_baseline", "timing", "interval", "rounds", "repetitions",
                "clock_threshold_pct", "input", "sgemm_ladder_version", "sgemm_ladder_git", "command", "date",
                "host_name", "fixture"]


def context_table(results: Results) -> pd.DataFrame:
    """What was measured where: the context keys sgemm_bench writes (rows) for every GPU (columns)."""
    keys = [k for k in CONTEXT_KEYS if k in results.context.columns]
    return results.context[keys].T.fillna("")


def accuracy_table(results: Results, gpus=None) -> pd.DataFrame:
    """rel_err of the accuracy sweep: rows (gpu, input, K), one column per rung."""
    return _of(results.accuracy, gpus).pivot_table(index=["gpu", "input", "K"], columns="label", values="rel_err")


def ncu_table(ncu: pd.DataFrame) -> pd.DataFrame:
    """Every numeric column of the ncu rows, one row per (gpu, rung): whatever was collected."""
    index = [c for c in ("gpu", "rung", "label") if c in ncu.columns]
    numeric = [c for c in ncu.columns if c not in index and pd.api.types.is_numeric_dtype(ncu[c])]
    return ncu.set_index(index)[numeric]


def sass_table(sass: pd.DataFrame) -> pd.DataFrame:
    """Instruction counts: rows (gpu, category), one column per rung; categories no rung uses
    are left out."""
    table = sass.pivot_table(index=["gpu", "category"], columns="label", values="count", aggfunc="sum",
                             fill_value=0)
    return table[(table > 0).any(axis=1)]


def sass_resources(sass: pd.DataFrame) -> pd.DataFrame:
    """Per (gpu, rung): the reported kernel, registers, shared/local/stack bytes, total
    instructions, FFMA share."""
    cols = ["gpu", "rung", "label", "function", "registers", "shared_bytes", "local_bytes", "stack_bytes", "total",
            "ffma_share"]
    return sass.drop_duplicates(["gpu", "rung"])[cols].set_index(["gpu", "rung"])


# --- roofline (computed by tools/roofline.py) ---------------------------------------------------

def roofline_points(ncu: pd.DataFrame, results: Results | None = None) -> pd.DataFrame:
    """tools/roofline.py's points of every GPU with ncu rows, one row per (gpu, rung): intensity
    (FLOP per DRAM byte), gflops with its spread (gflops_lo, gflops_hi) and gflops_source
    ("results": sgemm_bench at the profiled shape; "ncu": ncu's duration), pct with its interval."""
    frames = []
    for gpu, group in ncu.groupby("gpu", sort=False):
        rows = group.astype(object).where(group.notna(), None).to_dict("records")  # NaN -> None
        bench = results.by_gpu.get(gpu) if results is not None else None
        points = roofline_tool.roofline_points({int(r["rung"]): r for r in rows}, bench)
        frames.append(pd.DataFrame(points).assign(gpu=gpu, label=[rung_label(p["rung"], p["slug"]) for p in points]))
    if not frames:
        return pd.DataFrame(columns=["gpu", "rung", "label", "arithmetic_intensity", "gflops", "gflops_source"])
    points = pd.concat(frames, ignore_index=True)
    return points[["gpu", "rung", "label"] + [c for c in points.columns if c not in ("gpu", "rung", "label")]]


def ceilings(results: Results | None, gpu: str, bandwidth_gbs: float | None = None):
    """tools/roofline.py's roofs of one GPU: the FP32 peak and copy bandwidth of its results file
    (`bandwidth_gbs`, drawn as not measured, where the file has no copy bandwidth)."""
    bench = results.by_gpu.get(gpu) if results is not None else None
    return roofline_tool.ceilings(bench, bandwidth_gbs)


def ceilings_table(results: Results, bandwidth_gbs: float | None = None) -> pd.DataFrame:
    """The roofs of every GPU: FP32 peak (GFLOP/s), DRAM bandwidth (GB/s) and whether it was
    measured, the ridge (FLOP/byte)."""
    rows = {}
    for gpu in results.gpus:
        c = ceilings(results, gpu, bandwidth_gbs)
        rows[gpu] = {"FP32 peak (GFLOP/s)": c.peak_gflops, "DRAM bandwidth (GB/s)": c.bandwidth_gbs,
                     "bandwidth measured": c.bandwidth_measured, "ridge (FLOP/byte)": c.ridge}
    return pd.DataFrame.from_dict(rows, orient="index")
