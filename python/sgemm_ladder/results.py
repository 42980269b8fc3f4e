"""The ladder's result files, read in one place for every tool and notebook (standard library only).

One set of files per GPU under bench/results (or $SGEMM_RESULTS_DIR), named by a GPU tag:

  <tag>.json          `sgemm_bench --json`: Google Benchmark JSON, timing rows and accuracy rows
  <tag>_<suite>.json  another suite measured on the same GPU (h200_workloads.json): load(tag, suite=)
  <tag>_moduli.json   the moduli sweep of the Ozaki rungs (tools/moduli_sweep.py): load(tag, suite="moduli")
  <tag>_sass.json     `tools/sass_report.py --all --json`: load_sass(tag)
  <tag>_ncu.csv       `tools/ncu_profile.py --all --csv`: load_ncu(tag)
  <tag>_model.json    `bench/model/model_bench.py`: load_model(tag); model_gpus() lists them

    from sgemm_ladder import results
    for tag in results.gpus():                  # ["h100", "h200"]
        r = results.load(tag)
        row = r.row(7, 4096)                    # rung 7 at 4096^3
        print(r.gpu_name, row.gflops, row.pct, (row.pct_lo, row.pct_hi), row.verdict)

A timing row is named `rung<slug>/<M>x<N>x<K>` (then `/ld<lda>_<ldb>_<ldc>` when the leading
dimensions are not the defaults: those rows are left out here), or `rung<slug>/<shape name>` in a
suite (`sgemm_bench --suite`; M, N and K are its counters), or in the moduli sweep
`rung<slug>/<M>x<N>x<K>/<input>/moduli<n>` (n moduli forced) or `.../<input>/plan` (the rung's own
count; cuBLAS's rows `rung00_cublas/<M>x<N>x<K>/<input>`): Row.input is the row's top-level
"input" key ("" where a row has none) and Row.ozaki_moduli its counter (n, 0 for the plan, as on
every Ozaki row sgemm_bench writes; None on cuBLAS's rows and in files written before the counter),
so that such rows, which share one shape, are told apart by those two and not by row(), which
keeps one of them. An accuracy row
`accuracy/<slug>/<input>/<M>x<N>x<K>` (input "uniform", "normal", or "wide<E>": entries u * 2^e
with e in [-E, E]); Google Benchmark appends its own parts after these. A row
run several times (`sgemm_bench --repetitions N`) appears once per pass, then as aggregates:
"median" (the median of every counter) is the row, and the `pct_cublas` counters of "ci_lo" and
"ci_hi" are the interval of that median. Rows that failed (`error_occurred`, Google Benchmark
1.7 and 1.8) or were skipped (`skipped`, 1.8) are left out and listed in Results.skipped.
Counters an older file does not carry read as None.

The FP32 peak is the figure sgemm_bench wrote into the context (C++ computes it from the GPU's
properties); nothing here recomputes it.

The files are read with the json and csv modules; the rows are interpreted here because Google
Benchmark publishes no reader of its JSON as a library (its compare.py is a script), and the
tools must run on a bare `python3`.
"""
from __future__ import annotations

import csv
import json
import math
import os
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

RESULTS_ENV = "SGEMM_RESULTS_DIR"
# The square sizes of the geometric mean that the README and the rung pages quote.
GEOMEAN_SIZES = (1024, 1536, 2048, 3072, 4096, 6144, 8192)

_HERE = Path(__file__).resolve()
_TAG = re.compile(r"[A-Za-z0-9-]+")
_SHAPE = r"(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+)"
_TIMING_NAME = re.compile(r"rung(?P<slug>\d+_\w+?)/(?P<shape>[^/]+)(?P<rest>/.*)?")
_ACCURACY_NAME = re.compile(r"accuracy/(?P<slug>\d+_\w+?)/(?P<input>[^/]+)/" + _SHAPE + "(?P<rest>/.*)?")
_CUSTOM_LD = re.compile(r"/ld\d+_\d+_\d+(/|$)")
_WIDE_INPUT = re.compile(r"wide(?P<E>\d+)")


def checkout() -> Path:
    """The repository this module lives in (python/sgemm_ladder/results.py), or the current
    folder when the package is installed elsewhere."""
    root = _HERE.parents[2]
    return root if (root / "bench").is_dir() else Path.cwd()


def results_dir() -> Path:
    """$SGEMM_RESULTS_DIR (a relative value is taken from the checkout's root, wherever the
    caller runs: a notebook runs in notebooks/), else the checkout's bench/results."""
    env = os.environ.get(RESULTS_ENV)
    if env:
        return (checkout() / Path(env).expanduser()).resolve()
    return checkout() / "bench" / "results"


def gpus(folder: str | os.PathLike | None = None, suffix: str = ".json") -> list[str]:
    """The GPU tags that have a `<tag>.json` in `folder` (default results_dir()), sorted; with
    `suffix` "_sass.json" or "_ncu.csv", those that have that file."""
    folder = Path(folder) if folder is not None else results_dir()
    tags = (p.name[:-len(suffix)] for p in folder.glob(f"*{suffix}"))
    return sorted(t for t in tags if _TAG.fullmatch(t))


# ----------------------------------------------------------------------------------------------
# Rows


@dataclass(frozen=True)
class Row:
    """One rung at one shape: the median over its launches (or over its passes, with repetitions)."""

    rung: int
    slug: str
    M: int
    N: int
    K: int
    name: str                    # the row's name in the file, less what Google Benchmark appends
    gflops: float
    ms: float                    # median time per launch
    ms_q1: float | None          # quartiles of the launch times
    ms_q3: float | None
    samples: int | None          # timed launches behind the median
    pct: float | None            # % of cuBLAS: cuBLAS's time over this rung's, same run, same inputs
    pct_lo: float | None         # the interval of pct (95%)
    pct_hi: float | None
    rel_err: float | None        # ||C - C_fp64||_F / ||C_fp64||_F
    verified: bool               # every element within the error bound (in every pass)
    checked: bool                # False under --no-check: verified then means nothing
    fp32_accurate: bool | None
    sm_clock_mhz: float | None   # median SM clock while timing
    sm_clock_min_mhz: float | None
    sm_clock_max_mhz: float | None
    clock_ok: bool | None        # the lowest clock stayed above sgemm_bench's --clock-threshold
    pct_cublas_tf32: float | None      # rungs that are not FP32-accurate: % of cuBLAS's TF32 GEMM
    cublas_tf32_rel_err: float | None  # ... and that GEMM's error on the same inputs
    cublas_ms: float | None = None     # cuBLAS's median time, interleaved with this row's
    max_abs_err: float | None = None
    remeasured: int | None = None      # times the row was measured again because its clock fell
    repetitions: int = 1               # passes behind the row (sgemm_bench --repetitions)
    label: str = ""                    # what a picking rung (the dispatch rung) ran for the row
    lda: int | None = None             # the leading dimensions the row ran with (None: not recorded)
    ldb: int | None = None
    ldc: int | None = None
    pct_cublas_3xtf32: float | None = None      # 3xTF32 rungs: % of the same method on cuBLAS's TF32 GEMM
    cublas_3xtf32_rel_err: float | None = None  # ... and that method's error on the same inputs
    pct_cublas_ozaki_int8: float | None = None      # Ozaki rungs: % of the scheme on cuBLAS's INT8 GEMM
    packed: bool | None = None  # the front door copied unaligned operands to aligned rows (None: not recorded)
    cublas_ozaki_int8_rel_err: float | None = None  # ... and its error on the same inputs
    layout: str = "nn"       # op(A)'s letter, then op(B)'s (sgemm_bench --layout); t: stored transposed
    batch: int = 1           # products per call (sgemm_bench --batch)
    bias: bool = False       # a bias added to every row (sgemm_bench --bias)
    pct_hot: float | None = None      # % of cuBLAS timed hot: CUDA graphs of launches (pct_cublas_hot)
    pct_hot_lo: float | None = None   # its interval (95%)
    pct_hot_hi: float | None = None
    ms_hot: float | None = None       # median ms per launch in a graph replay
    cublas_ms_hot: float | None = None
    pct_hbm_hot: float | None = None  # rows with M <= 16: % of the DRAM peak, hot
    predicted_ms: float | None = None  # a rung with a model (the dispatch rung): its predicted ms
    pct_gemmul8: float | None = None      # Ozaki rungs under --gemmul8 N: % of GEMMul8 with N moduli
    gemmul8_rel_err: float | None = None  # ... its error on the same inputs
    gemmul8_moduli: int | None = None     # ... N
    watts: float | None = None            # --energy: the rung's mean power alone, and its GFLOP per joule
    gflop_per_joule: float | None = None
    cublas_watts: float | None = None     # ... and cuBLAS's
    cublas_gflop_per_joule: float | None = None
    input: str = ""                     # the moduli sweep: "uniform" or "wide<E>" (the row's "input" key)
    ozaki_moduli: int | None = None     # ... on Ozaki rows: the moduli forced (n >= 1), 0 for the rung's plan
    commit: str = ""  # the commit that measured a row merged from another run (tools/refresh_results.py); "": the file's

    @property
    def plain(self) -> bool:
        """C = alpha A B + beta C, both operands as stored, one product, no bias."""
        return self.layout == "nn" and self.batch == 1 and not self.bias

    @property
    def verdict(self) -> str | None:
        """"faster" or "slower" than cuBLAS when the whole interval says so, else "level";
        None for a row without an interval."""
        if self.pct_lo is None or self.pct_hi is None:
            return None
        if self.pct_lo > 100:
            return "faster"
        if self.pct_hi < 100:
            return "slower"
        return "level"

    @property
    def flops(self) -> float:
        return 2.0 * self.M * self.N * self.K * self.batch

    @property
    def gflops_iqr(self) -> tuple[float, float] | None:
        """GFLOP/s at the slow and the fast quartile of the launch times, when the file has them."""
        if not self.ms_q1 or not self.ms_q3:
            return None
        return self.flops / self.ms_q3 * 1e-6, self.flops / self.ms_q1 * 1e-6


@dataclass(frozen=True)
class AccuracyRow:
    """One rung at one shape of the accuracy sweep (`sgemm_bench --accuracy-sweep`)."""

    rung: int
    slug: str
    input: str                   # "uniform", "normal", "wide20", ...
    M: int
    N: int
    K: int
    rel_err: float | None
    verified: bool
    cublas_tf32_rel_err: float | None = None
    max_abs_err: float | None = None
    wide_exponent: int | None = None  # E of a wide row (entries u * 2^e, e in [-E, E]); None for the others
    cublas_3xtf32_rel_err: float | None = None  # 3xTF32 rungs: the method on cuBLAS's TF32 GEMM, same inputs
    cublas_ozaki_int8_rel_err: float | None = None  # Ozaki rungs: the scheme on cuBLAS's INT8 GEMM, same inputs


@dataclass(frozen=True)
class SuiteSummary:
    """One rung over a workload suite (Results.suite_summary), as rung 30's page and
    tools/suite_diff.py report it: geometric means of % of cuBLAS cold and hot, over every shape and
    over those not tiny (max(M, N, K) above `tiny`: cuBLAS's cold launches swing there), the shapes
    below `below` percent in the suite's order (None where no row has the figure), the lowest shape
    (name, %), the shapes with one row of C, and whether every row was verified."""

    shapes: int
    verified: bool
    cold: float | None
    hot: float | None
    cold_not_tiny: float | None
    hot_not_tiny: float | None
    cold_below: list[str] | None
    hot_below: list[str] | None
    lowest_cold: tuple[str, float] | None
    lowest_hot: tuple[str, float] | None
    one_row: list[str]


# ----------------------------------------------------------------------------------------------
# One GPU's file


@dataclass
class Results:
    """Everything one `sgemm_bench --json` file holds."""

    tag: str
    path: Path
    context: dict[str, str]
    rows: list[Row]
    accuracy: list[AccuracyRow]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (row name, why) of failed rows

    def __post_init__(self):
        # row() finds the plain products (NN, one product, no bias); the others through row_in().
        self._index = {(r.rung, r.M, r.N, r.K): r for r in self.rows if r.plain}
        self._general = {(r.rung, r.M, r.N, r.K, r.layout, r.batch, r.bias): r for r in self.rows}

    def context_number(self, key: str) -> float | None:
        """A numeric context value (the file keeps them as text), or None."""
        return _number(self.context.get(key))

    @property
    def gpu_name(self) -> str:
        return self.context.get("gpu_name") or self.tag

    @property
    def fp32_peak_gflops(self) -> float | None:
        """The FP32 peak sgemm_bench wrote (files older than the key: its earlier name)."""
        peak = self.context_number("fp32_peak_gflops")
        return peak if peak is not None else self.context_number("fp32_peak_gflops_at_max_clock")

    @property
    def copy_bandwidth_gbs(self) -> float | None:
        return self.context_number("copy_bandwidth_gbs")

    def row(self, rung: int, m: int, n: int | None = None, k: int | None = None) -> Row | None:
        """The row of `rung` at M x N x K (N and K default to M), or None."""
        return self._index.get((rung, m, m if n is None else n, m if k is None else k))

    def row_in(self, rung: int, m: int, n: int, k: int, layout: str = "nn", batch: int = 1,
               bias: bool = False) -> Row | None:
        """The row of `rung` at M x N x K in a layout, batch and bias (sgemm_bench's general entry)."""
        return self._general.get((rung, m, n, k, layout, batch, bias))

    def by_name(self, rung: int) -> dict[str, Row]:
        """A suite's rows of `rung` by shape name (the part of the row name after the slug)."""
        return {r.name.split("/")[1]: r for r in self.rows if r.rung == rung and "/" in r.name}

    def layouts(self) -> list[str]:
        """The layouts measured, in the order nn, nt, tn, tt."""
        return [x for x in ("nn", "nt", "tn", "tt") if any(r.layout == x for r in self.rows)]

    def rungs(self) -> list[int]:
        return sorted({r.rung for r in self.rows})

    def commit_of(self, rung: int) -> str:
        """The commit that measured `rung`'s rows: a merged row's own (tools/refresh_results.py), else
        the file's (its context's sgemm_ladder_git; "?" where it records none)."""
        own = sorted({r.commit for r in self.rows if r.rung == rung and r.commit})
        return ", ".join(own) if own else self.context.get("sgemm_ladder_git", "?")

    def slugs(self) -> dict[int, str]:
        return {r.rung: r.slug for r in self.rows}

    def shapes(self) -> list[tuple[int, int, int]]:
        return sorted({(r.M, r.N, r.K) for r in self.rows})

    def sizes(self) -> list[int]:
        """The square sizes measured (M = N = K)."""
        return sorted({m for m, n, k in self.shapes() if m == n == k})

    def suite_summary(self, rung: int, tiny: int = 256, below: float = 90.0) -> SuiteSummary:
        """`rung` over this file's suite rows (by_name): SuiteSummary's figures."""
        rows = self.by_name(rung)

        def figures(attr: str, names) -> list[tuple[str, float]]:
            return [(n, getattr(rows[n], attr)) for n in names if getattr(rows[n], attr) is not None]

        big = [n for n, r in rows.items() if max(r.M, r.N, r.K) > tiny]
        out = {}
        for key, attr in (("cold", "pct"), ("hot", "pct_hot")):
            every = figures(attr, rows)
            out[key] = geomean(v for _, v in every)
            out[key + "_not_tiny"] = geomean(v for _, v in figures(attr, big))
            out[key + "_below"] = [n for n, v in every if v < below] if every else None
            out["lowest_" + key] = min(every, key=lambda x: x[1]) if every else None
        return SuiteSummary(shapes=len(rows), verified=all(r.verified for r in rows.values()),
                            one_row=[n for n, r in rows.items() if r.M == 1], **out)

    def geomean_pct(self, rung: int, sizes: Iterable[int] = GEOMEAN_SIZES) -> float | None:
        """Geometric mean of `rung`'s % of cuBLAS over the square sizes present; None when none."""
        return geomean(row.pct for s in sizes if (row := self.row(rung, s)) is not None and row.pct)


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean of the positive values given (None and zeros left out); None when there are none."""
    values = [v for v in values if v]
    return math.exp(statistics.fmean(map(math.log, values))) if values else None


def load(tag_or_path: str | os.PathLike, folder: str | os.PathLike | None = None,
         suite: str | None = None, custom_ld: bool = False) -> Results:
    """The results of one GPU: `<tag>.json` (or `<tag>_<suite>.json`) in `folder` (default
    results_dir()), or the file at a path. Rows run with leading dimensions other than the row
    lengths are left out unless `custom_ld` (the file `<tag>_unaligned.json` holds only those)."""
    path = _file(tag_or_path, folder, f"_{suite}.json" if suite else ".json")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise ValueError(f"{path}: not `sgemm_bench --json` output (no 'benchmarks' list)")
    context = {k: v if isinstance(v, str) else json.dumps(v) for k, v in doc.get("context", {}).items()}
    rows, accuracy, skipped = [], [], []
    for name, passes, aggregates in _runs(doc["benchmarks"], skipped):
        if m := _TIMING_NAME.fullmatch(name):
            if custom_ld or not _CUSTOM_LD.search(m["rest"] or ""):
                rows.append(_timing_row(name, m, passes, aggregates))
        elif m := _ACCURACY_NAME.fullmatch(name):
            accuracy.append(_accuracy_row(m, passes, aggregates))
    return Results(tag=path.name.split("_")[0].split(".")[0], path=path, context=context, rows=rows,
                   accuracy=accuracy, skipped=skipped)


def _file(tag_or_path, folder, suffix: str) -> Path:
    """A tag names `<folder>/<tag><suffix>`; anything with a folder or a file extension is a path."""
    text = os.fspath(tag_or_path)
    if _TAG.fullmatch(text):
        folder = Path(folder) if folder is not None else results_dir()
        path = folder / f"{text}{suffix}"
    else:
        path = Path(text)
    if not path.is_file():
        raise FileNotFoundError(f"no results file {path} ({_MAKES.get(suffix, _MAKES['.json'])})")
    return path


_MAKES = {
    ".json": "written by `sgemm_bench --json` on a GPU",
    "_sass.json": "written by `tools/sass_report.py --all --json`",
    "_ncu.csv": "written by `tools/ncu_profile.py --all --csv`",
    "_model.json": "written by `bench/model/model_bench.py` on a GPU",
    "_moduli.json": "written by `tools/moduli_sweep.py`, tools/gpu_session.sh's `moduli` step",
}


def _runs(benchmarks: list[dict], skipped: list) -> list[tuple[str, list[dict], dict[str, dict]]]:
    """(name, passes, aggregates by name) of every row that has counters, in file order; the
    rows that failed go to `skipped` as (name, message)."""
    runs: dict[str, tuple[list, dict]] = {}
    for b in benchmarks:
        name = _row_name(b)
        if b.get("error_occurred") or b.get("skipped"):
            skipped.append((name, str(b.get("error_message") or b.get("skip_message") or "failed")))
            continue
        if "rung" not in b:  # a row that carries no counters
            continue
        passes, aggregates = runs.setdefault(name, ([], {}))
        if b.get("run_type") == "aggregate":
            aggregates[b.get("aggregate_name", "")] = b
        else:
            passes.append(b)
    return [(name, passes, aggregates) for name, (passes, aggregates) in runs.items()
            if passes or "median" in aggregates]  # aggregates alone, without a median, are no row


def _row_name(b: dict) -> str:
    """The row's own name: Google Benchmark's run_name less the parts it appends
    (`/iterations:1`, `/min_time:0.100`, `/manual_time`, `/repeats:3`)."""
    name = str(b.get("run_name") or b.get("name", ""))
    return re.sub(r"(/(iterations|min_time|min_warmup_time|repeats|threads):[^/]*|/manual_time|/real_time)+$",
                  "", name)


def _median_counters(passes: list[dict], aggregates: dict[str, dict]) -> dict[str, Any]:
    """The counters of the row: its median aggregate, else the median over its passes."""
    if "median" in aggregates:
        return aggregates["median"]
    if len(passes) == 1:
        return passes[0]
    keys = {k for p in passes for k, v in p.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return {k: statistics.median(p[k] for p in passes if k in p) for k in keys}


def _all(passes: list[dict], median: dict, key: str) -> bool | None:
    """A yes/no counter over every pass (a median of 0s and 1s would hide a failed pass)."""
    values = [p[key] for p in passes or [median] if key in p]
    return all(v >= 1 for v in values) if values else None


def _timing_row(name: str, m: re.Match, passes: list[dict], aggregates: dict[str, dict]) -> Row:
    c = _median_counters(passes, aggregates)
    dims = re.fullmatch(_SHAPE, m["shape"])  # a suite's shape name has none: the counters say
    M, N, K = (int(c[d]) if d in c else int(dims[d]) for d in "MNK")
    first = aggregates.get("median") or passes[0]
    lo, hi = c.get("pct_cublas_lo"), c.get("pct_cublas_hi")
    if "ci_lo" in aggregates and "ci_hi" in aggregates:  # the interval of the median over passes
        lo, hi = aggregates["ci_lo"].get("pct_cublas"), aggregates["ci_hi"].get("pct_cublas")
    return Row(
        rung=int(c.get("rung", m["slug"].split("_")[0])), slug=m["slug"],
        M=M, N=N, K=K, name=name, gflops=float(c.get("GFLOPS", 0.0)), ms=float(c.get("ms", 0.0)),
        ms_q1=_number(c.get("ms_q1")), ms_q3=_number(c.get("ms_q3")), samples=_integer(c.get("samples")),
        pct=_number(c.get("pct_cublas")), pct_lo=_number(lo), pct_hi=_number(hi),
        rel_err=_number(c.get("rel_err")), verified=bool(_all(passes, c, "verified")),
        checked=_all(passes, c, "checked") is not False, fp32_accurate=_all(passes, c, "fp32_accurate"),
        sm_clock_mhz=_clock(c.get("sm_clock_mhz")), sm_clock_min_mhz=_clock(c.get("sm_clock_min_mhz")),
        sm_clock_max_mhz=_clock(c.get("sm_clock_max_mhz")), clock_ok=_all(passes, c, "clock_ok"),
        pct_cublas_tf32=_number(c.get("pct_cublas_tf32")),
        cublas_tf32_rel_err=_number(c.get("cublas_tf32_rel_err")), cublas_ms=_number(c.get("cublas_ms")),
        max_abs_err=_number(c.get("max_abs_err")), remeasured=_integer(c.get("remeasured")),
        repetitions=max(1, len(passes)), label=str(first.get("label", "")),
        lda=_integer(c.get("lda")), ldb=_integer(c.get("ldb")), ldc=_integer(c.get("ldc")),
        pct_cublas_3xtf32=_number(c.get("pct_cublas_3xtf32")),
        cublas_3xtf32_rel_err=_number(c.get("cublas_3xtf32_rel_err")),
        pct_cublas_ozaki_int8=_number(c.get("pct_cublas_ozaki_int8")),
        packed=_all(passes, c, "packed"),
        cublas_ozaki_int8_rel_err=_number(c.get("cublas_ozaki_int8_rel_err")),
        layout=str(first.get("layout", "nn")), batch=_integer(c.get("batch")) or 1, bias=bool(_all(passes, c, "bias")),
        pct_hot=_number(c.get("pct_cublas_hot")), pct_hot_lo=_number(c.get("pct_cublas_hot_lo")),
        pct_hot_hi=_number(c.get("pct_cublas_hot_hi")), ms_hot=_number(c.get("ms_hot")),
        cublas_ms_hot=_number(c.get("cublas_ms_hot")), pct_hbm_hot=_number(c.get("pct_hbm_hot")),
        predicted_ms=_number(c.get("predicted_ms")), pct_gemmul8=_number(c.get("pct_gemmul8")),
        gemmul8_rel_err=_number(c.get("gemmul8_rel_err")), gemmul8_moduli=_integer(c.get("gemmul8_moduli")),
        watts=_number(c.get("watts")), gflop_per_joule=_number(c.get("gflop_per_joule")),
        cublas_watts=_number(c.get("cublas_watts")), cublas_gflop_per_joule=_number(c.get("cublas_gflop_per_joule")),
        input=str(first.get("input", "")), ozaki_moduli=_integer(c.get("ozaki_moduli")),
        commit=str(first.get("sgemm_ladder_git", "")))


def _accuracy_row(m: re.Match, passes: list[dict], aggregates: dict[str, dict]) -> AccuracyRow:
    c = _median_counters(passes, aggregates)
    wide = _WIDE_INPUT.fullmatch(m["input"])
    exponent = _integer(c.get("input_wide_exponent")) if wide else None
    return AccuracyRow(
        rung=int(c.get("rung", m["slug"].split("_")[0])), slug=m["slug"], input=m["input"],
        M=int(c.get("M", m["M"])), N=int(c.get("N", m["N"])), K=int(c.get("K", m["K"])),
        rel_err=_number(c.get("rel_err")), verified=bool(_all(passes, c, "verified")),
        cublas_tf32_rel_err=_number(c.get("cublas_tf32_rel_err")), max_abs_err=_number(c.get("max_abs_err")),
        wide_exponent=(exponent if exponent is not None else int(wide["E"])) if wide else None,
        cublas_3xtf32_rel_err=_number(c.get("cublas_3xtf32_rel_err")),
        cublas_ozaki_int8_rel_err=_number(c.get("cublas_ozaki_int8_rel_err")))


def _number(value: Any) -> float | None:
    """A finite float, or None (absent, empty, not a number)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _integer(value: Any) -> int | None:
    x = _number(value)
    return None if x is None else int(x)


def _clock(value: Any) -> float | None:
    """A clock in MHz; sgemm_bench writes -1 (and older files 0) where it could not read one."""
    x = _number(value)
    return x if x is not None and x > 0 else None


# ----------------------------------------------------------------------------------------------
# The SASS report and the Nsight Compute profile


def _report(tag_or_path, folder, suffix: str) -> Path | None:
    """The file of a GPU's SASS report or ncu profile; None when a GPU (a tag) has none: not every
    GPU with results has been profiled. A path given is expected to exist."""
    try:
        return _file(tag_or_path, folder, suffix)
    except FileNotFoundError:
        if _TAG.fullmatch(os.fspath(tag_or_path)):
            return None
        raise


def load_sass(tag_or_path: str | os.PathLike, folder: str | os.PathLike | None = None) -> dict[int, dict]:
    """`<tag>_sass.json` by rung id: each rung's reported kernel as sass_report wrote it
    (slug, function, registers, shared_bytes, local_bytes, stack_bytes, counts, total,
    ffma_share, other_kernels) plus gpu_arch, the architecture the counts are for.
    {} when the GPU has no SASS report."""
    path = _report(tag_or_path, folder, "_sass.json")
    if path is None:
        return {}
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("tool") != "sass_report" or not isinstance(doc.get("rungs"), list):
        raise ValueError(f"{path}: not `tools/sass_report.py --json` output")
    return {int(r["rung"]): {**r, "gpu_arch": doc.get("gpu_arch", "")} for r in doc["rungs"]}


# Columns of ncu_profile's CSV that are text; every other one is a number.
NCU_TEXT_COLUMNS = ("slug", "kernel", "block_size", "grid_size", "sgemm_ladder_git", "sgemm_ladder_clean",
                    "fingerprint", "source")


def load_ncu(tag_or_path: str | os.PathLike, folder: str | os.PathLike | None = None) -> dict[int, dict]:
    """`<tag>_ncu.csv` by rung id: one profiled launch per rung, numbers as float (None where
    the cell is empty: a metric ncu reported as n/a), rung, M, N and K as int. {} when the GPU
    has no ncu profile."""
    path = _report(tag_or_path, folder, "_ncu.csv")
    if path is None:
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for row in rows:
        rec = {k: (v or "") if k in NCU_TEXT_COLUMNS else _number(v) for k, v in row.items() if k}
        for key in ("rung", "M", "N", "K"):
            if rec.get(key) is not None:
                rec[key] = int(rec[key])
        out[rec["rung"]] = rec
    return out


# ----------------------------------------------------------------------------------------------
# The model benchmark (bench/model/model_bench.py)

MODEL_SUFFIX = "_model.json"


@dataclass(frozen=True)
class ModelResults:
    """`<tag>_model.json`: a Llama-like model with every Linear on the ladder against the same
    model on PyTorch. Each list holds the file's rows as dicts (model_bench.py documents their
    keys): ``phases`` the rows model/prefill, model/decode and model/train (ms, torch_ms,
    pct_torch with pct_torch_lo and pct_torch_hi, tokens_per_s, ...); ``projections`` each
    projection's products alone (share of the step, GFLOP/s, intensity, layout); ``overhead``
    the host overhead per call; ``accuracy`` the logits' and gradients' error against FP64."""

    tag: str
    path: Path
    context: dict
    phases: list
    projections: list
    overhead: list
    accuracy: list

    @property
    def gpu_name(self) -> str:
        return str(self.context.get("gpu_name", self.tag))

    def phase(self, name: str) -> dict | None:
        """The row model/<name> ("prefill", "decode", "train"), or None."""
        return next((r for r in self.phases if r.get("name") == f"model/{name}"), None)


def model_gpus(folder: str | os.PathLike | None = None) -> list[str]:
    """The GPU tags that have a `<tag>_model.json` in `folder` (default results_dir())."""
    return gpus(folder, MODEL_SUFFIX)


def load_model(tag_or_path: str | os.PathLike, folder: str | os.PathLike | None = None) -> ModelResults:
    """The model benchmark's results of one GPU (a tag in `folder`, or a path)."""
    path = _file(tag_or_path, folder, MODEL_SUFFIX)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise ValueError(f"{path}: not bench/model/model_bench.py output (no 'benchmarks' list)")
    rows = [r for r in doc["benchmarks"] if isinstance(r, dict) and str(r.get("name", "")).startswith("model/")]
    return ModelResults(tag=path.name.split("_")[0], path=path, context=dict(doc.get("context", {})), phases=rows,
                        projections=list(doc.get("projections", [])), overhead=list(doc.get("overhead", [])),
                        accuracy=list(doc.get("accuracy", [])))
