"""SGEMM Ladder from Python: the rungs of libsgemm_ladder.so on PyTorch tensors, CuPy arrays and
any other DLPack producer.

    import sgemm_ladder
    sgemm_ladder.rungs()                      # the registry: Rung(id=0, slug="00_cublas", ...), ...
    c = sgemm_ladder.mm(a, b)                 # alpha * a @ b with the "auto" rung, a new array
    sgemm_ladder.mm(a, b, rung=7, alpha=2.0, beta=1.0, out=c)   # c = 2 * a @ b + c, in place
    y = sgemm_ladder.gemm(x, w, bias, transb=True)   # x @ w.T + bias: w read in place, x 2-D or 3-D
    sgemm_ladder.nn.swap_linears(model)       # every torch.nn.Linear of a model on the ladder

Operands may be transposed views (read in place) and batches (3-D, one launch for the batch; a 2-D
operand against a 3-D one serves every matrix, as in torch.matmul).

PyTorch is optional: without it, ``rungs()`` and CuPy arrays still work. With it, ``mm`` and
``gemm`` on tensors are the custom operators ``torch.ops.sgemm_ladder.mm`` and ``.gemm``
(registered on import, see torch_ops.py), differentiable, which torch.compile keeps in its graph.
"""
import importlib.util
import re

from . import cupy_ops, library
from .library import (LadderArgumentError, LadderError, LibraryNotFoundError, Rung, rungs, set_tensor_cores,
                      set_tensor_workspace, tensor_cores)

if importlib.util.find_spec("torch") is not None:
    from . import nn, torch_ops
else:
    torch_ops = nn = None

__all__ = ["LadderArgumentError", "LadderError", "LibraryNotFoundError", "Rung", "__version__",
           "cuda_cores_only", "gemm", "mm", "nn", "rungs", "set_tensor_cores", "set_tensor_workspace",
           "tensor_cores"]


def _version() -> str:
    try:
        from ._version import version  # written into the wheel by scikit-build-core

        return version
    except ImportError:  # a source checkout: the version's one place, the top CMakeLists.txt
        text = (library.CHECKOUT / "CMakeLists.txt").read_text()
        return re.search(r"project\(sgemm_ladder VERSION ([0-9.]+)", text).group(1)


__version__ = _version()


# DLPack device types (dlpack.h): the memory a CUDA kernel of ours can read.
_DLPACK_CUDA = 2
_DLPACK_CUDA_MANAGED = 13


def _refuse_host_array(x, name: str) -> None:
    """A DLPack array in host memory (a NumPy array, say) is refused with what to do instead."""
    device = getattr(x, "__dlpack_device__", None)
    if device is None:
        return
    try:
        kind = int(device()[0])
    except Exception:  # an exotic producer: leave the verdict to the framework that imports it
        return
    if kind not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        raise LadderArgumentError(f"{name} is a {type(x).__module__.partition('.')[0]}.{type(x).__name__} "
                                  f"in host memory (DLPack device type {kind}); sgemm_ladder runs on the GPU: "
                                  f"copy it there first, e.g. cupy.asarray({name}) or torch.from_numpy({name}).cuda()")


def _rung_text(rung) -> str:
    if isinstance(rung, bool) or not isinstance(rung, (int, str)):
        raise LadderArgumentError(f"rung must be an id, a slug, 'auto', 'auto_cuda_cores' or 'capstone', got {rung!r}")
    return str(rung)


def mm(a, b, *, rung="auto", alpha=1.0, beta=0.0, out=None):
    """C = alpha * a @ b + beta * out with one rung of the ladder, on a's GPU.

    a (M x K), b (K x N) and out (M x N, optional) are float32 matrices on one CUDA device, all
    torch tensors or all CuPy arrays or all of another DLPack-speaking kind; either may be a batch
    (3-D), and out is then (batch x M x N). Transposed views are read in place. Without ``out`` the
    result is a new array of a's kind (and beta must be 0); with it, ``out`` is written and
    returned. ``rung``: an id (7), a slug ("07_bank_conflict_free"), "auto" (the dispatch rung:
    FP32-accurate, on the tensor cores where that is faster, see set_tensor_cores) or
    "auto_cuda_cores" (the dispatch rung's CUDA-core kernels alone); see library.find_rung. The
    work runs on the framework's current stream, asynchronously.

    Raises LadderArgumentError (a ValueError) for bad arguments before any GPU work, and
    LadderError with the library's status text and detail when the library refuses, e.g. a rung
    this GPU cannot run (its shared memory or registers) or a size past 32-bit indexing. On
    tensors the result is differentiable (without ``out``).
    """
    rung = _rung_text(rung)
    if beta != 0 and out is None:
        raise LadderArgumentError("beta multiplies out: give out= (or beta=0)")
    args = (a, b, rung, float(alpha), float(beta), out)
    if torch_ops is not None and torch_ops.is_tensor(a):
        return torch_ops.mm(*args)
    if cupy_ops.is_cupy(a):
        return cupy_ops.mm(*args)
    for x, name in ((a, "a"), (b, "b"), (out, "out")):
        _refuse_host_array(x, name)
    if torch_ops is None:
        raise LadderArgumentError(f"a is a {type(a).__name__}: sgemm_ladder takes CuPy arrays, or "
                                  f"torch tensors and other DLPack arrays once PyTorch is installed")
    return torch_ops.mm_dlpack(*args)


def gemm(a, b, bias=None, *, transa=False, transb=False, rung="auto", alpha=1.0):
    """alpha * op(a) @ op(b) + bias with one rung of the ladder, a new array on a's GPU.

    op(x) is x, or x transposed (its last two dimensions) when ``transa`` / ``transb`` say so:
    ``gemm(x, w, bias, transb=True)`` is a linear layer's x @ w.T + bias with the weight read in
    place. a and b are float32 matrices or batches of them (3-D): two batches multiply matrix by
    matrix (one of them may hold a single matrix), and a matrix against a batch serves every
    matrix of it, in one launch. ``bias`` (optional) holds one float per column of the result and
    is added in the product's epilogue. Torch tensors (a differentiable custom operator,
    ``torch.ops.sgemm_ladder.gemm``) or CuPy arrays. Errors as for ``mm``.
    """
    rung = _rung_text(rung)
    args = (a, b, bias, rung, float(alpha), bool(transa), bool(transb))
    if torch_ops is not None and torch_ops.is_tensor(a):
        return torch_ops.gemm_op(*args)
    if cupy_ops.is_cupy(a):
        return cupy_ops.gemm_op(*args)
    for x, name in ((a, "a"), (b, "b"), (bias, "bias")):
        _refuse_host_array(x, name)
    raise LadderArgumentError(f"a is a {type(a).__name__}: sgemm_ladder.gemm takes torch tensors and CuPy arrays")


class cuda_cores_only:
    """``with sgemm_ladder.cuda_cores_only():`` every "auto" call of the process keeps to the CUDA
    cores inside the block (the process-wide switch, set_tensor_cores, set back after it)."""

    def __enter__(self):
        self._before = set_tensor_cores(False)
        return self

    def __exit__(self, *exc):
        set_tensor_cores(self._before)
        return False
