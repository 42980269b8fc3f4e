"""Shared helpers of the inspection tools (sass_report, ncu_profile, roofline, update_evidence).

Not a command. Holds what more than one tool needs, once: exit codes and the error types that
map to them, finding NVIDIA executables (cuobjdump, nvdisasm, ncu), telling a kernel's rung from
its name, and reading the three result files the tools exchange:

  bench/results/<gpu>.json       Google Benchmark JSON written by `sgemm_bench --json`
  bench/results/<gpu>_sass.json  written by `tools/sass_report.py --all --json`
  bench/results/<gpu>_ncu.csv    written by `tools/ncu_profile.py --all --csv`

Standard library only, so that every tool runs with a bare `python3`.
"""
from __future__ import annotations

import csv
import gzip
import json
import math
import os
import re
import shutil
import site
import sys
import sysconfig
from pathlib import Path
from typing import Any, Callable, Iterable

EXIT_OK = 0
EXIT_FAILURE = 1  # the tool could not do its job (missing program, unreadable input, ...)
EXIT_USAGE = 2  # bad command line (argparse uses 2 as well)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LIB = REPO_ROOT / "build/release/kernels/libsgemm_ladder.so"
DEFAULT_BENCH = REPO_ROOT / "build/release/bench/sgemm_bench"
DEFAULT_RESULTS = REPO_ROOT / "bench/results/h200.json"
DEFAULT_SASS_JSON = REPO_ROOT / "bench/results/h200_sass.json"
DEFAULT_NCU_CSV = REPO_ROOT / "bench/results/h200_ncu.csv"
KERNELS_DIR = REPO_ROOT / "kernels"

BUILD_HINT = "build it first: cmake --preset release && cmake --build --preset release"


class ToolError(Exception):
    """A failure reported as one line on stderr and a non-zero exit code."""

    exit_code = EXIT_FAILURE


class UsageError(ToolError):
    """A bad command line: reported like ToolError, exit code 2."""

    exit_code = EXIT_USAGE


def run_main(prog: str, main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Run a tool's main(), turning ToolError into its message and exit code."""
    try:
        return main(argv)
    except ToolError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_FAILURE


# ----------------------------------------------------------------------------------------------
# Finding executables


def site_package_dirs() -> list[Path]:
    """The current interpreter's site-packages folders (where pip puts NVIDIA's wheels)."""
    dirs: list[str] = []
    for key in ("purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            dirs.append(p)
    try:
        dirs += site.getsitepackages()
    except AttributeError:  # some virtualenv builds lack it
        pass
    try:
        dirs.append(site.getusersitepackages())
    except AttributeError:
        pass
    seen, out = set(), []
    for d in dirs:
        if d not in seen and Path(d).is_dir():
            seen.add(d)
            out.append(Path(d))
    return out


def find_executable(name: str, env_var: str | None = None, extra_dirs: Iterable[Path | str] = (),
                    wheel_paths: Iterable[str] = ()) -> Path | None:
    """First match of: $env_var, PATH, extra_dirs, then wheel_paths inside site-packages."""
    if env_var and os.environ.get(env_var):
        p = Path(os.environ[env_var]).expanduser()
        return p if p.is_file() and os.access(p, os.X_OK) else None
    hit = shutil.which(name)
    if hit:
        return Path(hit)
    for d in extra_dirs:
        p = Path(d) / name
        if p.is_file() and os.access(p, os.X_OK):
            return p
    for sp in site_package_dirs():
        for rel in wheel_paths:
            p = sp / rel
            if p.is_file() and os.access(p, os.X_OK):
                return p
    return None


# ----------------------------------------------------------------------------------------------
# Rungs and kernel names

RUNG_RE = re.compile(r"sgemm_(\d\d)_")
_SLUG_RE = re.compile(r"sgemm_(\d\d_[A-Za-z0-9_]+)")


def rung_of_name(name: str) -> int | None:
    """Rung number of a kernel name (mangled or demangled): sgemm_07_... -> 7; None otherwise."""
    m = RUNG_RE.search(name)
    return int(m.group(1)) if m else None


def mangled_components(name: str) -> list[str]:
    """The source names of an Itanium-mangled nested name: _ZN5sgemm6rung0114sgemm_01_naiveE... ->
    ['sgemm', 'rung01', 'sgemm_01_naive']. Each carries its length, which says where it ends."""
    m = re.match(r"_ZN?", name)
    pos, out = (m.end() if m else 0), []
    while pos < len(name):
        if name[pos] == "L":  # internal linkage marker
            pos += 1
        d = re.match(r"\d+", name[pos:])
        if not d:
            break
        pos += d.end()
        out.append(name[pos:pos + int(d.group())])
        pos += int(d.group())
    return out


def slug_of_name(name: str) -> str | None:
    """Slug of a kernel name: '..sgemm_07_bank_conflict_free<..>(..)' -> '07_bank_conflict_free'."""
    if name.startswith("_Z"):
        for comp in mangled_components(name):
            if RUNG_RE.match(comp):
                return comp[len("sgemm_"):]
        return None
    m = _SLUG_RE.search(name)
    return m.group(1) if m else None


def rung_header_files(kernels_dir: Path = KERNELS_DIR) -> dict[int, Path]:
    """kernels/NN_slug.cuh by rung number."""
    out = {}
    for p in sorted(Path(kernels_dir).glob("[0-9][0-9]_*.cuh")):
        out[int(p.name[:2])] = p
    return out


# ----------------------------------------------------------------------------------------------
# Numbers


def parse_number(text: Any) -> float | None:
    """'1,234.5' -> 1234.5; '', 'n/a', 'nan', None -> None. Numbers pass through."""
    if text is None:
        return None
    if isinstance(text, (int, float)):
        return None if isinstance(text, float) and math.isnan(text) else float(text)
    s = str(text).strip().replace(",", "").rstrip("%").strip()
    if not s or s.lower() in ("n/a", "na", "nan", "none", "-"):
        return None
    try:
        v = float(s)
    except ValueError:
        return None
    return None if math.isnan(v) else v


def fmt_si(x: float | None, digits: int = 3) -> str:
    """Compact number: 1234567 -> '1.23M', 0.5 -> '0.5', None -> 'n/a'."""
    if x is None:
        return "n/a"
    a = abs(x)
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= scale:
            return f"{x / scale:.{digits}g}{suffix}"
    if a == 0 or a >= 0.01:
        return f"{x:.{digits}g}"
    return f"{x:.2e}"


# ----------------------------------------------------------------------------------------------
# Files


def open_text(path: Path | str):
    """Open a text file for reading; a .gz file is decompressed."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def require_file(path: Path | str, what: str, hint: str = "") -> Path:
    path = Path(path)
    if not path.is_file():
        raise ToolError(f"{what} not found: {path}" + (f" ({hint})" if hint else ""))
    return path


# Google Benchmark JSON written by sgemm_bench --json.

_ROW_NAME_RE = re.compile(r"^rung(\d\d_[A-Za-z0-9_]+)/")


def load_results(path: Path | str) -> dict[str, Any]:
    """Read sgemm_bench's JSON: {'context': {...}, 'rows': [row, ...]}.

    A row is one rung at one shape: rung, slug, M, N, K, gflops, pct_cublas, ms, rel_err, verified,
    checked, name. Rows with errors, accuracy-sweep rows and aggregates other than the median are left
    out; when repetitions produced a median aggregate, it replaces the single runs."""
    with open_text(path) as f:
        data = json.load(f)
    return results_from_json(data)


def results_from_json(data: dict[str, Any]) -> dict[str, Any]:
    rows: dict[tuple, dict] = {}
    from_median: set[tuple] = set()
    for b in data.get("benchmarks", []):
        m = _ROW_NAME_RE.match(b.get("name", ""))
        if not m or b.get("error_occurred") or "GFLOPS" not in b:
            continue
        is_agg = b.get("run_type") == "aggregate"
        if is_agg and b.get("aggregate_name") != "median":
            continue
        if "/ld" in b["name"]:  # custom leading dimensions: not the plain shape
            continue
        row = {
            "name": b["name"],
            "rung": int(b.get("rung", int(m.group(1)[:2]))),
            "slug": m.group(1),
            "M": int(b.get("M", 0)), "N": int(b.get("N", 0)), "K": int(b.get("K", 0)),
            "gflops": float(b.get("GFLOPS", 0.0)),
            "pct_cublas": float(b.get("pct_cublas", 0.0)),
            "ms": float(b.get("ms", 0.0)),
            "rel_err": float(b.get("rel_err", 0.0)),
            "verified": bool(b.get("verified", 0)),
            "checked": bool(b.get("checked", 1)),
        }
        key = (row["rung"], row["M"], row["N"], row["K"])
        if is_agg:
            rows[key] = row
            from_median.add(key)
        elif key not in from_median and key not in rows:
            rows[key] = row
    return {"context": dict(data.get("context", {})), "rows": list(rows.values())}


def result_at(results: dict[str, Any], rung: int, m: int, n: int, k: int) -> dict | None:
    for r in results.get("rows", []):
        if (r["rung"], r["M"], r["N"], r["K"]) == (rung, m, n, k):
            return r
    return None


def context_number(context: dict[str, Any], key: str) -> float | None:
    return parse_number(context.get(key))


def fp32_peak_gflops(context: dict[str, Any]) -> float | None:
    """FP32 SIMT peak from a results context: SMs x 128 lanes x 2 FLOP x max SM clock."""
    sms, mhz = context_number(context, "sm_count"), context_number(context, "sm_clock_max_mhz")
    if sms and mhz:
        return sms * 128 * 2 * mhz * 1e-3
    return context_number(context, "fp32_peak_gflops_at_max_clock")


# sass_report JSON


def load_sass_json(path: Path | str) -> dict[str, Any]:
    """Read sass_report's JSON: the document with 'by_rung' added (rung number -> entry)."""
    with open_text(path) as f:
        data = json.load(f)
    if data.get("tool") != "sass_report" or not isinstance(data.get("rungs"), list):
        raise ToolError(f"{path}: not a sass_report JSON file (no 'tool': 'sass_report' / 'rungs')")
    data["by_rung"] = {int(r["rung"]): r for r in data["rungs"]}
    return data


# ncu_profile CSV

NCU_TEXT_COLUMNS = ("slug", "kernel", "block_size", "grid_size")


def load_ncu_csv(path: Path | str) -> list[dict[str, Any]]:
    """Read ncu_profile's CSV: one dict per rung, numbers as float (None where empty), rung as int."""
    with open_text(path) as f:
        rows = list(csv.DictReader(f))
    return [normalise_ncu_row(r) for r in rows]


def normalise_ncu_row(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in row.items():
        if k is None:
            continue
        if k in NCU_TEXT_COLUMNS:
            out[k] = "" if v is None else str(v)
        elif k == "rung":
            out[k] = int(float(v))
        else:
            out[k] = parse_number(v)
    return out
