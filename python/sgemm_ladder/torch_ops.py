"""PyTorch integration: ``sgemm_ladder.mm`` on tensors is a custom operator.

Two operators, registered with torch.library when this module is imported:

  torch.ops.sgemm_ladder.mm(a, b, rung, alpha) -> Tensor            alpha * a @ b, a new tensor
  torch.ops.sgemm_ladder.mm_out(a, b, out, rung, alpha, beta)       out = alpha * a @ b + beta * out

Each has a fake implementation that only works out the result's shape, so torch.compile traces
through them (``fullgraph=True`` holds) and runs the real one at run time: the library, on the
tensors' device and PyTorch's current stream there. ``rung`` is text in the schema ("auto", "7",
"07_bank_conflict_free"): an operator argument has one type.

Arrays of other frameworks that speak DLPack (other than CuPy, which cupy_ops.py serves on CuPy's
own stream) are viewed as tensors, multiplied here, and the result handed back as their kind.
"""
import sys

import torch

from . import gemm
from .library import LadderArgumentError


def _matrix(x, name: str, with_address: bool = True) -> gemm.Matrix:
    if not isinstance(x, torch.Tensor):
        raise LadderArgumentError(f"{name} must be a torch.Tensor like a, got {type(x).__name__}")
    return gemm.Matrix(name=name, shape=tuple(x.shape), strides=tuple(x.stride()),
                       dtype=str(x.dtype).replace("torch.", ""), device=str(x.device),
                       ptr=x.data_ptr() if with_address else None)


class TorchArrays:
    """gemm.ArrayAPI for torch.Tensor."""

    describe = staticmethod(_matrix)

    @staticmethod
    def device_guard(x):
        return torch.cuda.device(x.device)

    @staticmethod
    def current_stream(x) -> int:
        return torch.cuda.current_stream(x.device).cuda_stream

    @staticmethod
    def contiguous(x):
        return x.contiguous()

    @staticmethod
    def empty(rows: int, cols: int, like):
        return torch.empty((rows, cols), dtype=torch.float32, device=like.device)

    @staticmethod
    def copy_into(dst, src) -> None:
        dst.copy_(src)


def _check_fake(a, b, out) -> None:
    """What a fake tensor can be checked for (no address, any device): dimensions, dtype, shapes."""
    gemm.check_shapes(_matrix(a, "a", with_address=False), _matrix(b, "b", with_address=False),
                      None if out is None else _matrix(out, "out", with_address=False))


@torch.library.custom_op("sgemm_ladder::mm", mutates_args=())
def _mm(a: torch.Tensor, b: torch.Tensor, rung: str, alpha: float) -> torch.Tensor:
    return gemm.gemm(TorchArrays, a, b, None, rung, alpha, 0.0)


@_mm.register_fake
def _mm_fake(a, b, rung, alpha):
    _check_fake(a, b, None)
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.custom_op("sgemm_ladder::mm_out", mutates_args=("out",))
def _mm_out(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, rung: str, alpha: float,
            beta: float) -> None:
    gemm.gemm(TorchArrays, a, b, out, rung, alpha, beta)


@_mm_out.register_fake
def _mm_out_fake(a, b, out, rung, alpha, beta):
    _check_fake(a, b, out)


def is_tensor(x) -> bool:
    return isinstance(x, torch.Tensor)


def mm(a, b, rung: str, alpha: float, beta: float, out):
    """sgemm_ladder.mm for tensors (arguments already checked by it): one of the two operators."""
    for name, x in (("b", b), ("out", out)):
        if x is not None and not isinstance(x, torch.Tensor):
            raise LadderArgumentError(f"a is a torch.Tensor, so {name} must be one too, "
                                      f"got {type(x).__name__}")
    if out is None:
        return torch.ops.sgemm_ladder.mm(a, b, rung, alpha)
    torch.ops.sgemm_ladder.mm_out(a, b, out, rung, alpha, beta)
    return out


def _namespace_of(x):
    """Where ``from_dlpack`` of x's kind is: its array-API namespace, else its top-level module."""
    if hasattr(x, "__array_namespace__"):
        return x.__array_namespace__()
    module = sys.modules.get(type(x).__module__.partition(".")[0])
    if module is None or not hasattr(module, "from_dlpack"):
        raise LadderArgumentError(f"cannot hand back a {type(x).__name__}: neither it nor its module "
                                  f"offers from_dlpack")
    return module


def _as_tensor(x, name: str):
    if not hasattr(x, "__dlpack__"):
        raise LadderArgumentError(f"{name} must be a CUDA array (torch, CuPy or any DLPack producer), "
                                  f"got {type(x).__name__}")
    return torch.from_dlpack(x)  # a view: no copy; the producer's stream is ordered before ours


def mm_dlpack(a, b, rung: str, alpha: float, beta: float, out):
    """sgemm_ladder.mm for other DLPack producers, through PyTorch; returns a's kind (or out)."""
    tensors = [None if x is None else _as_tensor(x, name) for x, name in ((a, "a"), (b, "b"), (out, "out"))]
    if out is not None:
        mm(*tensors[:2], rung, alpha, beta, tensors[2])
        return out
    namespace = _namespace_of(a)  # before the GPU work, which mm starts only after its checks
    return namespace.from_dlpack(mm(*tensors[:2], rung, alpha, beta, None))
