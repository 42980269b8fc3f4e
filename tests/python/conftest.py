"""Fixtures of the sgemm_ladder package's tests.

Skips, each with its reason: tests that need the library skip when it is neither installed nor
built (unless $SGEMM_LADDER_LIB names one: then a missing or broken library fails); GPU tests skip
without PyTorch, CuPy or a CUDA device.

The PyTorch tests run the operators the package loaded: the C++ ones where libsgemm_ladder_torch.so
is built for this torch, else (or with SGEMM_LADDER_TORCH_OPS=python) the Python ones
(tools/gpu_session.sh's python step runs both).
"""
import os
from typing import NamedTuple

import pytest

import sgemm_ladder
from sgemm_ladder import library


@pytest.fixture(scope="session")
def lib():
    """The loaded library (ctypes.CDLL), or a skip when none is built or installed."""
    try:
        return library.load()
    except sgemm_ladder.LibraryNotFoundError as err:
        if os.environ.get(library.LIB_ENV):
            raise
        pytest.skip(f"no library to test: {err}")


@pytest.fixture(scope="session")
def rungs(lib):
    return sgemm_ladder.rungs()


@pytest.fixture(scope="session")
def torch_cpu():
    """PyTorch, GPU or not."""
    return pytest.importorskip("torch", reason="PyTorch is not installed")


@pytest.fixture(scope="session")
def torch_cuda(torch_cpu, lib):
    """PyTorch with a CUDA device, and FP32 matmuls that stay FP32 for the references."""
    if not torch_cpu.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch")
    torch_cpu.backends.cuda.matmul.allow_tf32 = False
    return torch_cpu


@pytest.fixture(scope="session")
def cupy_cuda(lib):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device for CuPy")
    except cupy.cuda.runtime.CUDARuntimeError as err:
        pytest.skip(f"no CUDA device for CuPy: {err}")
    return cupy


def _compiled_ops():
    """sgemm_ladder.torch_ops when its operators are the C++ ones (which log launches themselves)."""
    ops = sgemm_ladder.torch_ops
    return ops if ops is not None and ops.BACKEND == "c++" else None


@pytest.fixture
def no_gpu_work(monkeypatch):
    """Fails the test if GPU work starts: gemm() does all of it (copies, allocation, the launch)
    inside the framework's device guard, entered after every check; the C++ operators' launch
    log must stay empty."""
    def forbidden(*args, **kwargs):
        raise AssertionError("GPU work started before the error was raised")

    monkeypatch.setattr(library, "run", forbidden)
    monkeypatch.setattr(library, "gemm", forbidden)
    monkeypatch.setattr(sgemm_ladder.cupy_ops.CupyArrays, "device_guard", forbidden)
    if sgemm_ladder.torch_ops is not None:
        monkeypatch.setattr(sgemm_ladder.torch_ops.TorchArrays, "device_guard", forbidden)
    compiled = _compiled_ops()
    if compiled is not None:
        compiled.launch_log(True)
    yield
    if compiled is not None:
        assert compiled.launch_log(False) == [], "the C++ operators launched before the error was raised"


class Launch(NamedTuple):
    """One call of the library's entries, as sgemm_ladder_gemm's arguments (sgemm_ladder_run's as
    'N', 'N', batch 1, no bias); pointers and the stream as integers."""

    rung: int
    transa: str
    transb: str
    m: int
    n: int
    k: int
    lda: int
    stride_a: int
    ldb: int
    stride_b: int
    ldc: int
    stride_c: int
    batch: int
    a: int
    b: int
    c: int
    bias: int
    stream: int


class Launches:
    """The launches of a test so far, from either implementation: the ctypes path's calls (spied)
    and the C++ operators' log (read when looked at)."""

    def __init__(self, compiled):
        self._seen, self._compiled = [], compiled

    def _rows(self):
        if self._compiled is not None:
            self._seen += [Launch(*row) for row in self._compiled.launch_log(True)]
        return self._seen

    def __len__(self):
        return len(self._rows())

    def __getitem__(self, i):
        return self._rows()[i]

    def __iter__(self):
        return iter(list(self._rows()))

    def clear(self):
        self._rows().clear()


@pytest.fixture
def launches(monkeypatch):
    """Every launch of the test (the calls still happen)."""
    compiled = _compiled_ops()
    log = Launches(compiled)
    run, gemm = library.run, library.gemm

    def spy_run(rung, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream):
        log._seen.append(Launch(rung, "N", "N", m, n, k, lda, 0, ldb, 0, ldc, 0, 1, a, b, c, 0, stream))
        run(rung, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream)

    def spy_gemm(rung, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, bias, batch, stream):
        log._seen.append(Launch(rung, ta, tb, m, n, k, lda, sa, ldb, sb, ldc, sc, batch, a, b, c, bias or 0, stream))
        gemm(rung, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, bias, batch, stream)

    monkeypatch.setattr(library, "run", spy_run)
    monkeypatch.setattr(library, "gemm", spy_gemm)
    if compiled is not None:
        compiled.launch_log(True)
    yield log
    if compiled is not None:
        compiled.launch_log(False)
