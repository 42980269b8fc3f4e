"""Measure now, on this machine's GPU, instead of reading committed results.

Two ways, both ending in the same `Results` the plots take:

- `run_sgemm_bench(args)` runs build/release/bench/sgemm_bench with `--json` into a fresh
  temporary results folder (`live.json`), read back with `load_results`. `run_sass_report` and
  `run_ncu_profile` add `live_sass.json` / `live_ncu.csv` with the project's tools.
- `torch_ladder()` calls every rung on PyTorch tensors through the project's package,
  `sgemm_ladder.mm` (the C ABI of libsgemm_ladder.so), and times it between CUDA events.

Nothing here imports torch until torch_ladder is called, so the module loads anywhere.
"""
from __future__ import annotations

import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Sequence

from .data import MEASURED_NOW, REPO_ROOT, Results, frames, note_source, reader, results_dir

BENCH_ENV = "SGEMM_BENCH"
DEFAULT_BENCH = REPO_ROOT / "build" / "release" / "bench" / "sgemm_bench"
LIVE_TAG = "live"
EXIT_VERIFY_FAILED = 1  # sgemm_bench: the JSON is written, at least one row failed


def _run(cmd: list[str], what: str, ok=(0,)) -> subprocess.CompletedProcess:
    print("$", shlex.join(cmd), flush=True)
    proc = subprocess.run(cmd, text=True, capture_output=True, cwd=REPO_ROOT)
    print(proc.stdout, end="")
    if proc.returncode not in ok:
        raise RuntimeError(f"{what} exited with {proc.returncode}:\n{proc.stderr.strip()}")
    if proc.stderr.strip():
        print(proc.stderr, end="", file=sys.stderr)
    return proc


def run_sgemm_bench(args: Sequence[str] = (), out_dir=None, tag: str = LIVE_TAG, bench=None) -> Path:
    """Run `sgemm_bench ARGS --json OUT_DIR/<tag>.json` and return OUT_DIR (a new temporary
    folder unless given), ready for `load_results`. Verification failures (exit 1) only warn:
    the rows are in the JSON, marked unverified."""
    bench = Path(bench or os.environ.get(BENCH_ENV) or DEFAULT_BENCH)
    if not bench.exists():
        raise FileNotFoundError(f"sgemm_bench not found at {bench}: build it on a GPU machine with "
                                f"`cmake --workflow --preset release`, or set {BENCH_ENV}")
    out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="sgemm_live_"))
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / f"{tag}.json"
    proc = _run([str(bench), *map(str, args), "--json", str(json_path)], "sgemm_bench", ok=(0, EXIT_VERIFY_FAILED))
    if proc.returncode == EXIT_VERIFY_FAILED:
        warnings.warn("sgemm_bench: at least one row failed verification (see the table)")
    if not json_path.exists():
        raise RuntimeError(f"sgemm_bench wrote no JSON at {json_path}")
    return out


def run_tool(tool: str, option: str, out_file: Path) -> None:
    """`tools/<tool> --all <option> OUT_FILE` with this interpreter (sass_report.py, ncu_profile.py)."""
    _run([sys.executable, str(REPO_ROOT / "tools" / tool), "--all", option, str(out_file)], tool)


def pick_source(results_folder, gpus=None, live: bool = False, bench: Sequence | None = None,
                sass: bool = False, ncu: bool = False) -> tuple[Path, list[str] | None]:
    """Where a notebook reads from, and which GPUs: the committed results folder
    (`results_folder`, $SGEMM_RESULTS_DIR overriding) with the `gpus` filter, or, when `live`,
    a new temporary folder filled now by sgemm_bench `bench` args (if given), the SASS report
    (`sass`) and the ncu profile (`ncu`), with no filter (its one GPU is tagged "live")."""
    if not live:
        folder = results_dir(results_folder)
        print(f"Reading committed results from {folder}")
        return folder, gpus
    folder = Path(tempfile.mkdtemp(prefix="sgemm_live_"))
    print(f"LIVE: measuring on this machine into {folder}")
    if bench is not None:
        run_sgemm_bench(bench, out_dir=folder)
    if sass:
        run_tool("sass_report.py", "--json", folder / f"{LIVE_TAG}_sass.json")
    if ncu:
        run_tool("ncu_profile.py", "--csv", folder / f"{LIVE_TAG}_ncu.csv")
    return folder, None


# --- every rung through sgemm_ladder.mm on PyTorch tensors --------------------------------------

def gamma(n: int, u: float = 2.0**-24) -> float:
    """γ(n) = n·u / (1 − n·u), the error factor of an n-term FP32 dot product."""
    return n * u / (1 - n * u) if n * u < 1 else math.inf


def live_row(rung: int, slug: str, size: int, times_ms: list[float], cublas_ms: float, rel_err: float,
             verified: bool) -> reader.Row:
    """One rung's row of a torch_ladder run, as the results reader's Row: the median and
    quartiles of its launch times, % of cuBLAS from the medians (no interval: one round)."""
    q1, ms, q3 = statistics.quantiles(times_ms, n=4) if len(times_ms) > 1 else times_ms * 3
    return reader.Row(rung=rung, slug=slug, M=size, N=size, K=size, name=f"torch_ladder/{slug}/{size}",
                      gflops=2.0 * size**3 / ms * 1e-6, ms=ms, ms_q1=q1, ms_q3=q3, samples=len(times_ms),
                      pct=100.0 * cublas_ms / ms, pct_lo=None, pct_hi=None, rel_err=rel_err, verified=verified,
                      checked=True, fp32_accurate=None, sm_clock_mhz=None, sm_clock_min_mhz=None,
                      sm_clock_max_mhz=None, clock_ok=None, pct_cublas_tf32=None, cublas_tf32_rel_err=None,
                      cublas_ms=cublas_ms)


def torch_ladder(size: int = 4096, rungs: Sequence[int] | None = None, repeats: int = 20,
                 warmup: int = 3) -> Results:
    """Every rung of the registry (or `rungs`, cuBLAS always included) at M = N = K = `size`
    through `sgemm_ladder.mm` on PyTorch tensors: median of `repeats` launches between
    torch.cuda.Events, checked against an FP64 product with the bound γ(K+2)·|A||B|. A quick
    look, not the harness (no L2 rotation, no interleaving with cuBLAS, clocks not read)."""
    import sgemm_ladder
    import torch

    note_source(MEASURED_NOW)  # no results file behind these figures: save_figure stamps none
    registry = {r.id: r for r in sgemm_ladder.rungs()}
    baseline = next(r.id for r in registry.values() if not r.kernel)
    ids = [baseline] + [i for i in (rungs if rungs is not None else registry) if i != baseline]
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(0)
    A = torch.rand(size, size, device=dev, generator=gen) * 2 - 1
    B = torch.rand(size, size, device=dev, generator=gen) * 2 - 1
    ref = A.double() @ B.double()
    bound = gamma(size + 2) * (A.double().abs() @ B.double().abs())
    rows = []
    for rung in ids:
        C = torch.full((size, size), float("nan"), device=dev)
        sgemm_ladder.mm(A, B, rung=rung, out=C)
        torch.cuda.synchronize()
        err = C.double() - ref
        verified = bool((err.abs() <= bound).all())  # NaN (unwritten) compares false
        for _ in range(warmup):
            sgemm_ladder.mm(A, B, rung=rung, out=C)
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(repeats)]
        for start, stop in events:
            start.record()
            sgemm_ladder.mm(A, B, rung=rung, out=C)
            stop.record()
        torch.cuda.synchronize()
        times = [s.elapsed_time(e) for s, e in events]
        cublas_ms = rows[0].ms if rows else statistics.median(times)
        rows.append(live_row(rung, registry[rung].slug, size, times, cublas_ms,
                             float(err.norm() / ref.norm()), verified))
    p = torch.cuda.get_device_properties(dev)
    context = {"gpu_name": p.name, "gpu_arch": f"sm_{p.major}{p.minor}", "sm_count": str(p.multi_processor_count),
               "cuda_runtime": str(torch.version.cuda), "sgemm_ladder_git": "working tree",
               "timing": f"median of {repeats} launches between torch.cuda.Events, no L2 rotation",
               "command": f"ladderplot.live.torch_ladder(size={size})"}
    return frames({LIVE_TAG: reader.Results(tag=LIVE_TAG, path=Path("torch_ladder"), context=context, rows=rows,
                                            accuracy=[])})
