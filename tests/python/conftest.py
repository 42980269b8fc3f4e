"""Fixtures of the sgemm_ladder package's tests.

Skips, each with its reason: tests that need the library skip when it is neither installed nor
built (unless $SGEMM_LADDER_LIB names one: then a missing or broken library fails); GPU tests skip
without PyTorch, CuPy or a CUDA device.
"""
import os

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


@pytest.fixture
def no_gpu_work(monkeypatch):
    """Fails the test if GPU work starts: gemm() does all of it (copies, allocation, the launch)
    inside the framework's device guard, entered after every check."""
    def forbidden(*args, **kwargs):
        raise AssertionError("GPU work started before the error was raised")

    monkeypatch.setattr(library, "run", forbidden)
    monkeypatch.setattr(sgemm_ladder.cupy_ops.CupyArrays, "device_guard", forbidden)
    if sgemm_ladder.torch_ops is not None:
        monkeypatch.setattr(sgemm_ladder.torch_ops.TorchArrays, "device_guard", forbidden)


@pytest.fixture
def launches(monkeypatch):
    """The arguments of every sgemm_ladder_run call (the calls still happen)."""
    calls = []
    real = library.run

    def spy(*args):
        calls.append(args)
        real(*args)

    monkeypatch.setattr(library, "run", spy)
    return calls
