"""Measure now, on this machine's GPU, instead of reading committed results.

Two ways, both ending in the same ``Results`` the plots take:

- ``run_sgemm_bench(args)`` runs build/release/bench/sgemm_bench with ``--json`` into a fresh
  temporary results folder (``live.json``), read back with ``load_results``. ``run_sass_report``
  and ``run_ncu_profile`` add ``live_sass.json`` / ``live_ncu.csv`` with the project's tools.
- ``SgemmLadder`` wraps the C ABI of libsgemm_ladder.so with ctypes (kernels/sgemm_ladder.h);
  ``SgemmLadder.gemm`` runs one rung on PyTorch tensors and ``torch_ladder`` times every rung.

Nothing here imports torch until a PyTorch function is called, so the module loads anywhere.
"""
from __future__ import annotations

import ctypes
import math
import os
import shlex
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .data import REPO_ROOT, Results, make_results
from .data import results_dir as results_dir_of

BENCH_ENV = "SGEMM_BENCH"
LIB_ENV = "SGEMM_LADDER_LIB"
DEFAULT_BENCH = REPO_ROOT / "build" / "release" / "bench" / "sgemm_bench"
DEFAULT_LIB = REPO_ROOT / "build" / "release" / "kernels" / "libsgemm_ladder.so"
LIVE_TAG = "live"
EXIT_VERIFY_FAILED = 1  # sgemm_bench: the JSON is written, at least one row failed


def _existing(path, env: str, default: Path, what: str) -> Path:
    path = Path(path or os.environ.get(env) or default)
    if not path.exists():
        raise FileNotFoundError(f"{what} not found at {path}: build it on a GPU machine with "
                                f"`cmake --workflow --preset release`, or set {env}")
    return path


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
    """Run ``sgemm_bench ARGS --json OUT_DIR/<tag>.json`` and return OUT_DIR (a new temporary
    folder unless given), ready for ``load_results``. Verification failures (exit 1) only warn:
    the rows are in the JSON, marked unverified."""
    bench = _existing(bench, BENCH_ENV, DEFAULT_BENCH, "sgemm_bench")
    out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="sgemm_live_"))
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / f"{tag}.json"
    proc = _run([str(bench), *map(str, args), "--json", str(json_path)], "sgemm_bench",
                ok=(0, EXIT_VERIFY_FAILED))
    if proc.returncode == EXIT_VERIFY_FAILED:
        warnings.warn("sgemm_bench: at least one row failed verification (see the table)")
    if not json_path.exists():
        raise RuntimeError(f"sgemm_bench wrote no JSON at {json_path}")
    return out


def run_sass_report(out_dir, tag: str = LIVE_TAG) -> Path:
    """``tools/sass_report.py --all --json OUT_DIR/<tag>_sass.json``; returns OUT_DIR."""
    out = Path(out_dir)
    _run([sys.executable, str(REPO_ROOT / "tools" / "sass_report.py"), "--all", "--json",
          str(out / f"{tag}_sass.json")], "sass_report.py")
    return out


def run_ncu_profile(out_dir, tag: str = LIVE_TAG) -> Path:
    """``tools/ncu_profile.py --all --csv OUT_DIR/<tag>_ncu.csv``; returns OUT_DIR."""
    out = Path(out_dir)
    _run([sys.executable, str(REPO_ROOT / "tools" / "ncu_profile.py"), "--all", "--csv",
          str(out / f"{tag}_ncu.csv")], "ncu_profile.py")
    return out


def pick_source(results_dir, gpus=None, live: bool = False, bench: Sequence | None = None,
                sass: bool = False, ncu: bool = False) -> tuple[Path, list[str] | None]:
    """Where a notebook reads from, and which GPUs: the committed results folder
    (``results_dir``, $SGEMM_RESULTS_DIR overriding) with the ``gpus`` filter, or, when ``live``,
    a new temporary folder filled now by sgemm_bench ``bench`` args (if given), the SASS report
    (``sass``) and the ncu profile (``ncu``), with no filter (its one GPU is tagged "live")."""
    if not live:
        folder = results_dir_of(results_dir)
        print(f"Reading committed results from {folder}")
        return folder, gpus
    folder = Path(tempfile.mkdtemp(prefix="sgemm_live_"))
    print(f"LIVE: measuring on this machine into {folder}")
    if bench is not None:
        run_sgemm_bench(bench, out_dir=folder)
    if sass:
        run_sass_report(folder)
    if ncu:
        run_ncu_profile(folder)
    return folder, None


# --- the C ABI through ctypes ------------------------------------------------------------------

# int sgemm_ladder_run(int kernel_id, int64_t M, int64_t N, int64_t K, float alpha,
#                      const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
#                      float* C, int64_t ldc, void* stream)
RUN_ARGTYPES = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_float,
                ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_float,
                ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p]
SIGNATURES = {  # name: (restype, argtypes)
    "sgemm_ladder_run": (ctypes.c_int, RUN_ARGTYPES),
    "sgemm_ladder_status_string": (ctypes.c_char_p, [ctypes.c_int]),
    "sgemm_ladder_last_error": (ctypes.c_char_p, []),
    "sgemm_ladder_kernel_count": (ctypes.c_int, []),
    "sgemm_ladder_kernel_name": (ctypes.c_char_p, [ctypes.c_int]),
}


class SgemmLadderError(RuntimeError):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Set the argument and result types of the C ABI on ``lib`` (a CDLL of the library)."""
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def _text(b) -> str:
    return b.decode() if b else ""


class SgemmLadder:
    """libsgemm_ladder.so: every rung, row-major C = alpha·A·B + beta·C in FP32.

        ladder = SgemmLadder()                    # build/release/kernels/libsgemm_ladder.so
        ladder.kernels()                          # {0: "00_cublas", 1: "01_naive", ...}
        ladder.gemm(7, A, B, C)                   # torch.float32 CUDA tensors, current stream
    """

    def __init__(self, path=None, cdll: ctypes.CDLL | None = None):
        if cdll is None:
            path = _existing(path, LIB_ENV, DEFAULT_LIB, "libsgemm_ladder.so")
            cdll = ctypes.CDLL(str(path))
        self.path = path
        self.lib = declare(cdll)

    def kernel_count(self) -> int:
        return self.lib.sgemm_ladder_kernel_count()

    def kernel_name(self, kernel_id: int) -> str | None:
        name = self.lib.sgemm_ladder_kernel_name(kernel_id)
        return name.decode() if name is not None else None

    def kernels(self) -> dict[int, str]:
        return {i: self.kernel_name(i) for i in range(self.kernel_count())}

    def status_string(self, status: int) -> str:
        return _text(self.lib.sgemm_ladder_status_string(status))

    def last_error(self) -> str:
        return _text(self.lib.sgemm_ladder_last_error())

    def run(self, kernel_id: int, M: int, N: int, K: int, alpha: float, A: int, lda: int, B: int,
            ldb: int, beta: float, C: int, ldc: int, stream: int | None = 0) -> None:
        """Raw call with device pointers as integers; raises SgemmLadderError on a bad status."""
        status = self.lib.sgemm_ladder_run(int(kernel_id), int(M), int(N), int(K), float(alpha),
                                           A, int(lda), B, int(ldb), float(beta), C, int(ldc),
                                           stream or None)
        if status != 0:
            detail = self.last_error()
            raise SgemmLadderError(status, f"sgemm_ladder_run(kernel {kernel_id}): "
                                   f"{self.status_string(status)}" + (f": {detail}" if detail else ""))

    def gemm(self, kernel_id: int, A, B, C, alpha: float = 1.0, beta: float = 0.0, stream=None):
        """C = alpha·A·B + beta·C with rung ``kernel_id`` on PyTorch tensors (2-D, float32, rows
        contiguous: stride(1) == 1; the row stride is the leading dimension). ``stream``: a
        cudaStream_t as an integer, default PyTorch's current stream. Returns C."""
        M, K = _matrix(A, "A")
        K2, N = _matrix(B, "B")
        if K2 != K or tuple(_matrix(C, "C")) != (M, N):
            raise ValueError(f"shapes do not chain: A {M}x{K}, B {K2}x{N}, C {tuple(C.shape)}")
        if stream is None:
            import torch  # only here: the module must load without PyTorch
            stream = torch.cuda.current_stream(A.device).cuda_stream
        self.run(kernel_id, M, N, K, alpha, A.data_ptr(), A.stride(0), B.data_ptr(), B.stride(0),
                 beta, C.data_ptr(), C.stride(0), stream)
        return C


def _matrix(t, name: str) -> tuple[int, int]:
    if t.dim() != 2:
        raise ValueError(f"{name} must be 2-D, got {t.dim()}-D")
    if not str(t.dtype).endswith("float32"):
        raise TypeError(f"{name} must be float32, got {t.dtype}")
    if t.shape[1] > 1 and t.stride(1) != 1:
        raise ValueError(f"{name} must have contiguous rows (stride(1) == 1), got {t.stride()}")
    if getattr(t, "is_cuda", True) is False:
        raise ValueError(f"{name} must be on the GPU")
    return int(t.shape[0]), int(t.shape[1])


def _sm_clock_max_mhz(device: int) -> float:
    """cudaDevAttrClockRate through the CUDA runtime already loaded, or NaN."""
    for soname in ("libcudart.so.12", "libcudart.so.13", "libcudart.so"):
        try:
            rt = ctypes.CDLL(soname)
            khz = ctypes.c_int()
            if rt.cudaDeviceGetAttribute(ctypes.byref(khz), 13, device) == 0:
                return khz.value / 1000
        except (OSError, AttributeError):
            continue
    return float("nan")


def torch_ladder(size: int = 4096, kernels: Sequence[int] | None = None, repeats: int = 20,
                 warmup: int = 3, ladder: SgemmLadder | None = None) -> Results:
    """Every rung (or ``kernels``) at M = N = K = ``size`` through the C ABI on PyTorch tensors:
    median of ``repeats`` launches between torch.cuda.Events, checked against an FP64 product
    with the bound γ(K+2)·|A||B|. A quick look, not the harness (no L2 rotation)."""
    import torch

    ladder = ladder or SgemmLadder()
    names = ladder.kernels()
    ids = list(names) if kernels is None else [0] + [k for k in kernels if k != 0]
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(0)
    A = torch.rand(size, size, device=dev, generator=gen) * 2 - 1
    B = torch.rand(size, size, device=dev, generator=gen) * 2 - 1
    ref = A.double() @ B.double()
    bound = gamma(size + 2) * (A.double().abs() @ B.double().abs())
    rows = []
    for kid in ids:
        C = torch.full((size, size), float("nan"), device=dev)
        ladder.gemm(kid, A, B, C)
        torch.cuda.synchronize()
        err = C.double() - ref
        ok = bool((err.abs() <= bound).all())  # NaN (unwritten) compares false
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(repeats)]
        for _ in range(warmup):
            ladder.gemm(kid, A, B, C)
        for start, stop in events:
            start.record()
            ladder.gemm(kid, A, B, C)
            stop.record()
        torch.cuda.synchronize()
        ms = float(np.median([s.elapsed_time(e) for s, e in events]))
        rows.append(dict(gpu=LIVE_TAG, rung=kid, slug=names[kid], M=size, N=size, K=size,
                         GFLOPS=2.0 * size**3 / ms * 1e-6, rel_err=float(err.norm() / ref.norm()),
                         verified=ok, checked=True, ms=ms, samples=repeats,
                         max_abs_err=float(err.abs().max()), sm_clock_mhz=np.nan,
                         name=f"torch_ladder/{names[kid]}/{size}"))
    timing = pd.DataFrame(rows)
    base = timing.loc[timing["rung"] == 0, "ms"]
    timing["pct_cublas"] = 100 * base.iloc[0] / timing["ms"] if not base.empty else np.nan
    p = torch.cuda.get_device_properties(dev)
    context = {"gpu_name": p.name, "gpu_arch": f"sm_{p.major}{p.minor}",
               "sm_count": str(p.multi_processor_count),
               "sm_clock_max_mhz": str(_sm_clock_max_mhz(dev.index or 0)),
               "cuda_runtime": str(torch.version.cuda), "driver_version": "?", "cublas_version": "?",
               "sgemm_ladder_git": "working tree",
               "timing": f"median of {repeats} launches between torch.cuda.Events, no L2 rotation",
               "command": f"ladderplot.live.torch_ladder(size={size})"}
    return make_results(timing, None, {LIVE_TAG: context}, source="torch_ladder")


def gamma(n: int, u: float = 2.0**-24) -> float:
    """γ(n) = n·u / (1 − n·u), the error factor of an n-term FP32 dot product."""
    return n * u / (1 - n * u) if n * u < 1 else math.inf
