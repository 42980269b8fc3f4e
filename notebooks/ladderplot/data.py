"""Load the result files under bench/results into tidy pandas DataFrames.

One set of files per GPU, named by a GPU tag (``h200``):

- ``<gpu>.json``       Google Benchmark JSON written by ``sgemm_bench --json`` (timing rows and,
                       with ``--accuracy-sweep``, accuracy rows). Extra parts of the same GPU may
                       be split into ``<gpu>.<part>.json`` (``h200.sweep.json``): they are merged.
- ``<gpu>_sass.json``  ``tools/sass_report.py --json``: instruction mix and resources per rung.
- ``<gpu>_ncu.csv``    ``tools/ncu_profile.py --csv``: one Nsight Compute row per rung.

Nothing here knows how many rungs there are or what they are called: rung ids, slugs and shapes
all come from the files (rung 0 is the cuBLAS baseline).
"""
from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_RESULTS_DIR = REPO_ROOT / "bench" / "results"
RESULTS_ENV = "SGEMM_RESULTS_DIR"
BASELINE_RUNG = 0

# Numeric counters of a timing row (bench/harness/report.cpp) and of an accuracy row.
TIMING_COUNTERS = ["GFLOPS", "pct_cublas", "rel_err", "verified", "checked", "ms", "samples",
                   "max_abs_err", "sm_clock_mhz"]
ACCURACY_COUNTERS = ["rel_err", "max_abs_err", "verified"]
_LD_PART = re.compile(r"ld(\d+)_(\d+)_(\d+)")


def results_dir(default: str | os.PathLike | None = None) -> Path:
    """The results folder to read: $SGEMM_RESULTS_DIR when set (a relative path is taken from
    the repository root, wherever Jupyter runs), else ``default`` (the notebooks pass
    ``"../bench/results"``, relative to themselves), else the repository's bench/results."""
    env = os.environ.get(RESULTS_ENV)
    if env:
        return (REPO_ROOT / Path(env).expanduser()).resolve()
    return Path(default).expanduser().resolve() if default is not None else DEFAULT_RESULTS_DIR


def rung_label(rung: int, slug: str) -> str:
    """Display name of a rung: ``"07 bank conflict free"``; rung 0 is ``"00 cuBLAS (baseline)"``."""
    if int(rung) == BASELINE_RUNG:
        return f"{int(rung):02d} cuBLAS (baseline)"
    words = re.sub(r"^\d+_", "", str(slug)).replace("_", " ")
    return f"{int(rung):02d} {words}"


@dataclass
class Results:
    """Everything ``sgemm_bench --json`` wrote, for every GPU found.

    timing    one row per (gpu, rung, shape): GFLOPS, pct_cublas, rel_err, verified, ms, ...
    accuracy  one row per (gpu, rung, input, K) of the accuracy sweep
    context   one row per GPU (index: the GPU tag), the JSON context as strings
    """

    timing: pd.DataFrame
    accuracy: pd.DataFrame
    context: pd.DataFrame
    source: Path

    @property
    def gpus(self) -> list[str]:
        return list(self.context.index)

    def gpu_name(self, gpu: str) -> str:
        name = self.context.get("gpu_name")
        return str(name[gpu]) if name is not None and isinstance(name.get(gpu), str) else gpu


def _gb_files(folder: Path) -> dict[str, list[Path]]:
    """Google Benchmark files by GPU tag (``h200.json``, ``h200.sweep.json`` -> ``h200``)."""
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("*.json")):
        if path.name.endswith("_sass.json"):
            continue
        found.setdefault(path.name.split(".")[0], []).append(path)
    return found


def has_results(folder: str | os.PathLike) -> bool:
    """Whether ``folder`` holds any sgemm_bench JSON (``<gpu>.json``)."""
    folder = Path(folder)
    return folder.is_dir() and any(_gb_files(folder))


def _wanted(gpus, tag: str) -> bool:
    return gpus is None or tag in ([gpus] if isinstance(gpus, str) else list(gpus))


def _error_message(row: dict) -> str | None:
    """Why a row has no result (Google Benchmark 1.7: error_occurred; 1.8: skipped too)."""
    for flag, message in (("error_occurred", "error_message"), ("skipped", "skip_message")):
        if row.get(flag):
            return str(row.get(message) or row.get("error_message") or flag)
    if "rung" not in row:
        return "no counters"
    return None


def _parse_row(row: dict) -> dict:
    """Kind, slug, input and leading dimensions from a row's name and counters."""
    parts = str(row.get("run_name") or row["name"]).split("/")
    out = {"name": row["name"], "run_name": row.get("run_name", row["name"]),
           "run_type": row.get("run_type", "iteration"), "aggregate_name": row.get("aggregate_name", "")}
    if parts[0] == "accuracy":
        out["kind"] = "accuracy"
        out["slug"] = parts[1] if len(parts) > 1 else ""
        named = parts[2] if len(parts) > 2 else "uniform"
        out["input"] = ("normal" if row["input_normal"] else "uniform") if "input_normal" in row else named
    else:
        out["kind"] = "accuracy" if row.get("accuracy_sweep") else "timing"
        out["slug"] = parts[0][len("rung"):] if parts[0].startswith("rung") else parts[0]
        out["input"] = ""
    ld = next((m for m in map(_LD_PART.fullmatch, parts) if m), None)
    out["lda"], out["ldb"], out["ldc"] = (int(g) for g in ld.groups()) if ld else (np.nan,) * 3
    out["custom_ld"] = ld is not None
    return out


def _read_benchmark_file(path: Path, tag: str) -> tuple[dict, list[dict]]:
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or "benchmarks" not in doc:
        raise ValueError(f"{path}: not Google Benchmark JSON (no 'benchmarks' list)")
    rows = []
    for raw in doc["benchmarks"]:
        why = _error_message(raw)
        if why is not None:
            warnings.warn(f"{path.name}: {raw.get('name', '?')}: {why} (row ignored)", stacklevel=3)
            continue
        rec = _parse_row(raw)
        rec.update({k: raw[k] for k in ("rung", "M", "N", "K", *TIMING_COUNTERS) if k in raw})
        rec.update(gpu=tag, file=path.name)
        rows.append(rec)
    return doc.get("context", {}), rows


def _one_run_per_name(df: pd.DataFrame) -> pd.DataFrame:
    """Iteration rows; a run reported only as aggregates (--benchmark_report_aggregates_only)
    contributes its median (else its mean). Other aggregates (stddev, cv) are not results."""
    run = df["gpu"] + "/" + df["run_name"]
    aggregate = df["run_type"] == "aggregate"
    keep = ~aggregate
    for name in ("median", "mean"):
        keep |= aggregate & (df["aggregate_name"] == name) & ~run.isin(run[keep])
    return df[keep]


def _combine(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per key: repetitions and files measuring the same thing are merged (median of the
    numbers, verified only if every repetition was, samples summed)."""
    if df.empty:
        return df
    numeric = [c for c in df.columns if c not in keys and pd.api.types.is_numeric_dtype(df[c])]
    how = {c: "median" for c in numeric}
    how.update({c: "min" for c in ("verified",) if c in df})
    how.update({c: "max" for c in ("checked",) if c in df})
    how.update({c: "sum" for c in ("samples",) if c in df})
    how.update({c: "last" for c in df.columns if c not in keys and c not in how})
    return df.groupby(keys, dropna=False, sort=False).agg(how).reset_index()


def load_results(folder: str | os.PathLike | None = None, gpus=None,
                 missing_ok: bool = False) -> Results | None:
    """Read every ``<gpu>.json`` (and ``<gpu>.<part>.json``) under ``folder``.

    ``gpus``: None for every GPU found, or a tag / list of tags. Rows that errored are skipped
    with a warning. When nothing is there: None if ``missing_ok``, else FileNotFoundError
    saying what to do.
    """
    folder = results_dir(folder) if folder is None else Path(folder).expanduser().resolve()
    files = {tag: paths for tag, paths in _gb_files(folder).items() if _wanted(gpus, tag)}
    contexts, rows = {}, []
    for tag, paths in files.items():
        for path in paths:
            try:
                ctx, file_rows = _read_benchmark_file(path, tag)
            except ValueError:
                continue  # another tool's JSON sharing the folder
            contexts.setdefault(tag, {}).update(ctx)
            rows += file_rows
    if not contexts:
        if missing_ok:
            return None
        wanted = "" if gpus is None else f" for GPUs {gpus!r}"
        raise FileNotFoundError(
            f"no sgemm_bench results{wanted} under {folder}: expected <gpu>.json written by "
            f"`sgemm_bench --json` (see tools/gpu_session.sh). To look at the test fixtures set "
            f"{RESULTS_ENV}=notebooks/tests/data, or set LIVE = True on a GPU machine.")
    df = _one_run_per_name(pd.DataFrame(rows))
    return make_results(df[df["kind"] == "timing"], df[df["kind"] == "accuracy"], contexts, folder)


_KEYS = ["gpu", "rung", "slug", "label", "M", "N", "K", "lda", "ldb", "ldc", "custom_ld"]


def make_results(timing: pd.DataFrame, accuracy: pd.DataFrame | None, contexts: dict[str, dict],
                 source) -> Results:
    """Results from raw rows (columns: gpu, rung, slug, M, N, K, the counters; lda/ldb/ldc and
    custom_ld optional; accuracy rows also input): labels added, duplicates merged, sorted."""
    frames = []
    for df, extra, counters in ((timing, [], TIMING_COUNTERS),
                                (accuracy, ["input"], ACCURACY_COUNTERS)):
        df = pd.DataFrame(columns=_KEYS + extra) if df is None or df.empty else df.copy()
        for col, default in (("lda", np.nan), ("ldb", np.nan), ("ldc", np.nan), ("custom_ld", False),
                             ("name", ""), ("file", "")):
            if col not in df:
                df[col] = default
        for col in ("rung", "M", "N", "K"):
            df[col] = df[col].astype("int64")
        df["label"] = [rung_label(r, s) for r, s in zip(df["rung"], df["slug"])]
        df["custom_ld"] = df["custom_ld"].astype(bool)
        df = _combine(df[_KEYS + extra + [c for c in counters if c in df] + ["name", "file"]],
                      _KEYS + extra)
        for col in ("verified", "checked"):
            if col in df:
                df[col] = df[col].fillna(0).astype(bool)
        frames.append(df)
    timing = frames[0].sort_values(["gpu", "M", "N", "K", "custom_ld", "rung"], ignore_index=True)
    accuracy = frames[1].sort_values(["gpu", "input", "M", "N", "K", "rung"], ignore_index=True)
    context = pd.DataFrame.from_dict(contexts, orient="index")
    context.index.name = "gpu"
    return Results(timing=timing, accuracy=accuracy, context=context, source=Path(source))


def context_number(context: pd.Series | dict, key: str) -> float | None:
    """A numeric context value (they are all strings in the JSON), or None when absent."""
    value = context.get(key) if hasattr(context, "get") else None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if np.isfinite(number) else None


# sass_report counts NOP padding (and never-executed @!PT placeholders) but leaves it out of
# "total": it is not part of the instruction mix.
SASS_NOT_INSTRUCTIONS = {"NOP"}


def load_sass(folder: str | os.PathLike | None = None, gpus=None) -> pd.DataFrame:
    """Every ``<gpu>_sass.json`` under ``folder``, tidy: one row per (gpu, rung, category) with
    the rung's resources (registers, shared_bytes, local_bytes, stack_bytes, total, ffma_share)
    repeated on each row; NOP left out. Empty DataFrame (same columns) when there is none."""
    folder = results_dir(folder) if folder is None else Path(folder).expanduser().resolve()
    columns = ["gpu", "gpu_arch", "rung", "slug", "label", "function", "registers", "shared_bytes",
               "local_bytes", "stack_bytes", "total", "ffma_share", "category", "count"]
    rows = []
    for path in sorted(folder.glob("*_sass.json")):
        tag = path.name[: -len("_sass.json")]
        if not _wanted(gpus, tag):
            continue
        with open(path) as f:
            doc = json.load(f)
        for r in doc.get("rungs", []):
            base = {c: r.get(c) for c in columns[2:-2]}
            base.update(gpu=tag, gpu_arch=doc.get("gpu_arch", ""),
                        label=rung_label(r["rung"], r.get("slug", "")))
            counts = {c: n for c, n in (r.get("counts") or {}).items() if c not in SASS_NOT_INSTRUCTIONS}
            if base["total"] is None:
                base["total"] = sum(counts.values())
            if base["ffma_share"] is None:
                base["ffma_share"] = counts.get("FFMA", 0) / base["total"] if base["total"] else 0.0
            rows += [{**base, "category": c, "count": n} for c, n in counts.items()]
    df = pd.DataFrame(rows, columns=columns)
    return df.sort_values(["gpu", "rung"], kind="stable", ignore_index=True)


def load_ncu(folder: str | os.PathLike | None = None, gpus=None) -> pd.DataFrame:
    """Every ``<gpu>_ncu.csv`` under ``folder`` with a ``gpu`` column in front. Columns vary with
    the metrics collected; ``dram_bytes`` is added as read + write when only those exist and
    ``flops`` as 2·M·N·K when missing. Empty DataFrame when there is none."""
    folder = results_dir(folder) if folder is None else Path(folder).expanduser().resolve()
    frames = []
    for path in sorted(folder.glob("*_ncu.csv")):
        tag = path.name[: -len("_ncu.csv")]
        if not _wanted(gpus, tag):
            continue
        df = pd.read_csv(path)
        df.insert(0, "gpu", tag)
        if "dram_bytes" not in df and {"dram_bytes_read", "dram_bytes_write"} <= set(df.columns):
            df["dram_bytes"] = df["dram_bytes_read"] + df["dram_bytes_write"]
        if "flops" not in df and {"M", "N", "K"} <= set(df.columns):
            df["flops"] = 2.0 * df["M"] * df["N"] * df["K"]
        if "slug" in df and "rung" in df:
            df.insert(3, "label", [rung_label(r, s) for r, s in zip(df["rung"], df["slug"])])
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["gpu", "rung", "slug", "label", "flops", "dram_bytes", "duration_ns"])
    return pd.concat(frames, ignore_index=True).sort_values(["gpu", "rung"], ignore_index=True)


# --- tables ------------------------------------------------------------------------------------

def square_timing(results: Results, gpus=None) -> pd.DataFrame:
    """Timing rows of square shapes (M = N = K) with default leading dimensions, plus ``size``."""
    t = results.timing
    t = t[(t["M"] == t["N"]) & (t["N"] == t["K"]) & ~t["custom_ld"]]
    t = t[[_wanted(gpus, g) for g in t["gpu"]]]
    return t.assign(size=t["M"])


def ladder_table(results: Results, size: int = 4096, gpus=None) -> pd.DataFrame:
    """GFLOP/s, % of cuBLAS, rel_err and verified per rung at M = N = K = ``size``, indexed by
    (gpu, rung). Raises ValueError listing the sizes there are when ``size`` was not measured."""
    t = square_timing(results, gpus)
    at = t[t["size"] == size]
    if at.empty:
        have = sorted(t["size"].unique().tolist())
        raise ValueError(f"no timing rows at {size}x{size}x{size}; sizes measured: {have}")
    table = at.set_index(["gpu", "rung"])[["label", "GFLOPS", "pct_cublas", "rel_err", "verified",
                                           "checked", "ms", "sm_clock_mhz"]]
    return table.rename(columns={"label": "kernel", "GFLOPS": "GFLOP/s", "pct_cublas": "% cuBLAS",
                                 "sm_clock_mhz": "SM MHz"})


def format_ladder_table(table: pd.DataFrame) -> pd.DataFrame:
    """The ladder table as text for display: thousands separators, one decimal, errors in
    scientific notation, verified as yes / NO / unchecked."""
    out = pd.DataFrame(index=table.index)
    out["kernel"] = table["kernel"]
    out["GFLOP/s"] = table["GFLOP/s"].map("{:,.0f}".format)
    out["% cuBLAS"] = table["% cuBLAS"].map("{:.1f}".format)
    out["ms"] = table["ms"].map("{:.3f}".format)
    out["rel_err"] = [f"{e:.2e}" if c else "-" for e, c in zip(table["rel_err"], table["checked"])]
    out["verified"] = ["yes" if v else ("NO" if c else "unchecked")
                       for v, c in zip(table["verified"], table["checked"])]
    return out


def scaling_table(results: Results, metric: str = "GFLOPS", gpus=None) -> pd.DataFrame:
    """``metric`` for every rung (rows) against size (columns), one block of rows per GPU."""
    t = square_timing(results, gpus)
    return t.pivot_table(index=["gpu", "rung", "label"], columns="size", values=metric)


# Our context keys (sgemm_bench.cpp, device_info.cpp), in reading order.
CONTEXT_KEYS = ["gpu_name", "gpu_arch", "sm_count", "sm_clock_max_mhz", "sm_clock_at_start_mhz",
                "mem_clock_max_mhz", "l2_bytes", "fp32_peak_gflops_at_max_clock",
                "copy_bandwidth_gbs", "driver_version", "cuda_runtime", "cublas_version",
                "cublas_baseline", "timing", "input", "sgemm_ladder_git", "command", "date",
                "host_name", "fixture"]


def context_table(results: Results) -> pd.DataFrame:
    """What was measured where: our context keys (rows) for every GPU (columns)."""
    keys = [k for k in CONTEXT_KEYS if k in results.context.columns]
    return results.context[keys].T.fillna("")


def accuracy_table(results: Results, gpus=None) -> pd.DataFrame:
    """rel_err of the accuracy sweep: rows (gpu, input, K), one column per rung."""
    a = results.accuracy[[_wanted(gpus, g) for g in results.accuracy["gpu"]]]
    return a.pivot_table(index=["gpu", "input", "K"], columns="label", values="rel_err")


def ncu_table(ncu: pd.DataFrame) -> pd.DataFrame:
    """Every numeric column of the ncu rows, one row per (gpu, rung): whatever was collected."""
    index = [c for c in ("gpu", "rung", "label") if c in ncu.columns]
    numeric = [c for c in ncu.columns if c not in index and pd.api.types.is_numeric_dtype(ncu[c])]
    return ncu.set_index(index)[numeric]


def sass_table(sass: pd.DataFrame) -> pd.DataFrame:
    """Instruction counts: rows (gpu, category), one column per rung; categories no rung uses
    are left out."""
    table = sass.pivot_table(index=["gpu", "category"], columns="label", values="count",
                             aggfunc="sum", fill_value=0)
    return table[(table > 0).any(axis=1)]


def sass_resources(sass: pd.DataFrame) -> pd.DataFrame:
    """Per (gpu, rung): registers, shared/local/stack bytes, total instructions, FFMA share."""
    cols = ["gpu", "rung", "label", "function", "registers", "shared_bytes", "local_bytes",
            "stack_bytes", "total", "ffma_share"]
    return sass.drop_duplicates(["gpu", "rung"])[cols].set_index(["gpu", "rung"])
