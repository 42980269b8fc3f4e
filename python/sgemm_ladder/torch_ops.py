"""PyTorch integration: ``sgemm_ladder.mm`` and ``sgemm_ladder.gemm`` on tensors are custom operators.

Three operators, registered when this module is imported:

  torch.ops.sgemm_ladder.gemm(a, b, bias=None, rung="auto", alpha=1.0, transa=False, transb=False)
      alpha * op(a) @ op(b) + bias, a new tensor; op(x) is x, or x with its last two dimensions
      swapped when transa / transb ask for it. a and b are matrices or batches of them (3-D); a
      2-D operand against a 3-D one serves every matrix of the batch, as in torch.matmul.
  torch.ops.sgemm_ladder.mm(a, b, rung, alpha) -> Tensor            alpha * a @ b, a new tensor
  torch.ops.sgemm_ladder.mm_out(a, b, out, rung, alpha, beta)       out = alpha * a @ b + beta * out

Every operand is read in place: a transposed view (``w.t()``, ``x.mT``) as op = T, a slice of a
wider matrix with its leading dimension; only layouts the library cannot read (a broadcast row, a
stride-2 column) are copied. ``gemm`` and ``mm`` are differentiable: the gradients are the same
operator on the same rung with the transposes flipped (dA = dC op(B)ᵀ, dB = op(A)ᵀ dC), reading
their operands in place; the bias's is dC summed over its rows.

Two implementations of the same operators, one loaded per process:

  - C++ (``csrc/torch_ops.cpp``, libsgemm_ladder_torch.so beside libsgemm_ladder.so), built when
    PyTorch is present at build time: checks, plan, allocation, launch and the autograd formula
    in compiled code, so a call costs what torch.mm's does on the host. Tied to the torch version
    it was built against (libsgemm_ladder_torch.version): another version, or a library that
    fails to load, falls back to the Python operators with a warning.
  - Python (below): the same checks and the same plan (gemm.py), through ctypes. Used when the
    C++ library is not built or cannot serve this torch, or when $SGEMM_LADDER_TORCH_OPS is "python".

``BACKEND`` says which is loaded. Both raise ValueError (argument errors) and RuntimeError (the
library's refusals) with the same text; ``sgemm_ladder.mm`` and ``sgemm_ladder.gemm`` turn them into
LadderArgumentError and LadderError. The fake implementations, which torch.compile traces with
(``fullgraph=True`` holds, dynamic shapes too), are Python for both. ``rung`` is text in the schema
("auto", "7", "07_bank_conflict_free"): an operator argument has one type.

Arrays of other frameworks that speak DLPack (other than CuPy, which cupy_ops.py serves on CuPy's
own stream) are viewed as tensors, multiplied here, and the result handed back as their kind.
"""
from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Optional

import torch

from . import gemm, library
from .library import LadderArgumentError, LadderError

OPS_ENV = "SGEMM_LADDER_TORCH_OPS"     # "python": the Python operators even where the C++ ones are built
COMPILED_ENV = "SGEMM_LADDER_TORCH_LIB"  # another libsgemm_ladder_torch.so than the one beside the library
COMPILED_NAME = "libsgemm_ladder_torch.so"
VERSION_NAME = "libsgemm_ladder_torch.version"  # the torch version it was built against, written by CMake

# The operators' schemas: csrc/torch_ops.cpp's TORCH_LIBRARY block says the same (a test compares).
SCHEMAS = {
    "gemm": 'gemm(Tensor a, Tensor b, Tensor? bias=None, str rung="auto", float alpha=1.0, bool transa=False, '
            'bool transb=False) -> Tensor',
    "mm": "mm(Tensor a, Tensor b, str rung, float alpha) -> Tensor",
    "mm_out": "mm_out(Tensor a, Tensor b, Tensor(a!) out, str rung, float alpha, float beta) -> ()",
}


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
    def empty(shape: tuple, like):
        return torch.empty(shape, dtype=torch.float32, device=like.device)

    @staticmethod
    def copy_into(dst, src) -> None:
        dst.copy_(src)


# ---------------------------------------------------------------------------------------------
# Which implementation: the C++ library when it is built for this torch, else Python.


def compiled_library() -> Optional[Path]:
    """Where the C++ operators would be: $SGEMM_LADDER_TORCH_LIB, else beside libsgemm_ladder.so."""
    override = os.environ.get(COMPILED_ENV)
    if override:
        return Path(override)
    try:
        return library.library_path().parent / COMPILED_NAME
    except library.LibraryNotFoundError:
        return None


def _load_compiled() -> tuple[bool, str]:
    """(loaded, why not). Warns when a library is there but cannot serve this torch."""
    # (At a343939 the C++ operators were opt-in: on an H200 every call that failed a check crashed
    # while c10 formatted its message with std::ostream. Since 9385d90 the library builds every
    # message as one std::string, and the package's tests, error tests included, pass with them on
    # an H100 and an H200.)
    if os.environ.get(OPS_ENV, "").lower() == "python":
        return False, f"${OPS_ENV}=python asks for the Python operators"
    path = compiled_library()
    if path is None or not path.is_file():
        return False, f"{COMPILED_NAME} is not built (PyTorch was not found when the library was built)"
    version_file = path.with_name(VERSION_NAME)
    built_for = version_file.read_text().strip() if version_file.is_file() else ""
    if built_for and built_for != torch.__version__:
        why = (f"{path} was built against torch {built_for}, this is torch {torch.__version__}; rebuild it "
               f"(pip install --no-build-isolation .) for the C++ operators")
    else:
        try:
            library.load()  # libsgemm_ladder.so first: the operators' library needs it
            torch.ops.load_library(str(path))
            return True, ""
        except Exception as err:  # an ABI mismatch shows as a missing symbol
            why = f"{path} does not load ({err.__cause__ or err})"
    warnings.warn(f"sgemm_ladder: {why}; using the Python operators, which cost more host time per call",
                  RuntimeWarning, stacklevel=3)
    return False, why


_LOADED, WHY_PYTHON = _load_compiled()
BACKEND = "c++" if _LOADED else "python"


# ---------------------------------------------------------------------------------------------
# The Python operators (only when the C++ ones are not loaded)


def _schema_args(name: str) -> str:
    return SCHEMAS[name][len(name):]


if not _LOADED:
    @torch.library.custom_op("sgemm_ladder::gemm", mutates_args=(), schema=_schema_args("gemm"))
    def _gemm_python(a, b, bias=None, rung="auto", alpha=1.0, transa=False, transb=False):
        return gemm.gemm(TorchArrays, a, b, None, rung, alpha, 0.0, bias, transa, transb)

    @torch.library.custom_op("sgemm_ladder::mm", mutates_args=(), schema=_schema_args("mm"))
    def _mm_python(a, b, rung, alpha):
        return gemm.gemm(TorchArrays, a, b, None, rung, alpha, 0.0)

    @torch.library.custom_op("sgemm_ladder::mm_out", mutates_args=("out",), schema=_schema_args("mm_out"))
    def _mm_out_python(a, b, out, rung, alpha, beta):
        gemm.gemm(TorchArrays, a, b, out, rung, alpha, beta)


# ---------------------------------------------------------------------------------------------
# Fake implementations (shapes only), for both: what torch.compile and meta tensors run.


def _check_fake(a, b, out, bias=None, transa=False, transb=False) -> tuple:
    """What a fake tensor can be checked for (no address, any device): dimensions, dtype, shapes.
    Returns the result's shape."""
    A, B = _matrix(a, "a", with_address=False), _matrix(b, "b", with_address=False)
    C = None if out is None else _matrix(out, "out", with_address=False)
    V = None if bias is None else _matrix(bias, "bias", with_address=False)
    gemm.check_shapes(A, B, C, V, transa, transb)
    return gemm.result_shape(A, B, transa, transb)


@torch.library.register_fake("sgemm_ladder::gemm")
def _gemm_fake(a, b, bias=None, rung="auto", alpha=1.0, transa=False, transb=False):
    return a.new_empty(_check_fake(a, b, None, bias, transa, transb))


@torch.library.register_fake("sgemm_ladder::mm")
def _mm_fake(a, b, rung, alpha):
    return a.new_empty(_check_fake(a, b, None))


@torch.library.register_fake("sgemm_ladder::mm_out")
def _mm_out_fake(a, b, out, rung, alpha, beta):
    _check_fake(a, b, out)


_GEMM = torch.ops.sgemm_ladder.gemm.default
_MM = torch.ops.sgemm_ladder.mm.default
_MM_OUT = torch.ops.sgemm_ladder.mm_out.default


# ---------------------------------------------------------------------------------------------
# Gradients. The C++ operators carry theirs in csrc/torch_ops.cpp (gemm_grads, the same formula).


def _batch_sum_to(grad, shape):
    """The gradient of an operand that served every matrix of a batch: summed over the batch."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    return grad.sum(0) if len(shape) == 2 else grad.sum(0, keepdim=True)


def gradients(grad, a, b, has_bias: bool, rung: str, alpha: float, transa: bool, transb: bool,
              need_a: bool, need_b: bool, need_bias: bool):
    """(da, db, dbias) of C = alpha * op(a) op(b) + bias for the gradient ``grad`` of C, each
    product on the ladder with the transposes flipped (nothing copied: transposes are flags)."""
    da = db = dbias = None
    if need_a:  # d op(a) = alpha * grad op(b)ᵀ; with transa, da = (d op(a))ᵀ = alpha * op(b) gradᵀ
        da = (_GEMM(b, grad, None, rung, alpha, transb, True) if transa
              else _GEMM(grad, b, None, rung, alpha, False, not transb))
        da = _batch_sum_to(da, a.shape)
    if need_b:  # d op(b) = alpha * op(a)ᵀ grad; with transb, db = alpha * gradᵀ op(a)
        if b.dim() == 2 and a.dim() == 3:  # a weight against a batch: one product over all its rows
            k = a.shape[1] if transa else a.shape[2]
            rows = (a.transpose(1, 2) if transa else a).reshape(-1, k)
            g = grad.reshape(-1, grad.shape[2])
            db = (_GEMM(g, rows, None, rung, alpha, True, False) if transb
                  else _GEMM(rows, g, None, rung, alpha, True, False))
        else:
            db = (_GEMM(grad, a, None, rung, alpha, True, transa) if transb
                  else _GEMM(a, grad, None, rung, alpha, not transa, False))
            db = _batch_sum_to(db, b.shape)
    if need_bias and has_bias:
        dbias = grad.sum(tuple(range(grad.dim() - 1)))
    return da, db, dbias


if not _LOADED:
    def _gemm_setup(ctx, inputs, output):
        a, b, bias, rung, alpha, transa, transb = inputs
        ctx.save_for_backward(a, b)
        ctx.args = (bias is not None, rung, alpha, transa, transb)

    def _gemm_backward(ctx, grad):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (*gradients(grad, a, b, *ctx.args, need[0], need[1], need[2]), None, None, None, None)

    def _mm_setup(ctx, inputs, output):
        a, b, rung, alpha = inputs
        ctx.save_for_backward(a, b)
        ctx.args = (False, rung, alpha, False, False)

    def _mm_backward(ctx, grad):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        da, db, _ = gradients(grad, a, b, *ctx.args, need[0], need[1], False)
        return da, db, None, None

    torch.library.register_autograd("sgemm_ladder::gemm", _gemm_backward, setup_context=_gemm_setup)
    torch.library.register_autograd("sgemm_ladder::mm", _mm_backward, setup_context=_mm_setup)


# ---------------------------------------------------------------------------------------------
# sgemm_ladder.mm and sgemm_ladder.gemm on tensors


def is_tensor(x) -> bool:
    return isinstance(x, torch.Tensor)


def _ladder_error(err: Exception) -> Exception:
    """The package's exception for an operator's error (the C++ operators raise ValueError and
    RuntimeError); the error itself when it is not one of ours."""
    if isinstance(err, LadderError):
        return err
    if isinstance(err, ValueError):
        return LadderArgumentError(str(err), detail=str(err))
    return library.error_from_message(str(err)) or err


def _same_kind(**others) -> None:
    for name, x in others.items():
        if x is not None and not isinstance(x, torch.Tensor):
            raise LadderArgumentError(f"a is a torch.Tensor, so {name} must be one too, got {type(x).__name__}")


def mm(a, b, rung: str, alpha: float, beta: float, out):
    """sgemm_ladder.mm for tensors (arguments already checked by it): one of the two operators."""
    _same_kind(b=b, out=out)
    if torch.compiler.is_compiling():  # traced: the operators' fake implementations check
        if out is None:
            return _MM(a, b, rung, alpha)
        _MM_OUT(a, b, out, rung, alpha, beta)
        return out
    try:
        if out is None:
            return _MM(a, b, rung, alpha)
        _MM_OUT(a, b, out, rung, alpha, beta)
        return out
    except (ValueError, RuntimeError) as err:
        raise _ladder_error(err) from None


def gemm_op(a, b, bias, rung: str, alpha: float, transa: bool, transb: bool):
    """sgemm_ladder.gemm for tensors (arguments already checked by it)."""
    _same_kind(b=b, bias=bias)
    if torch.compiler.is_compiling():
        return _GEMM(a, b, bias, rung, alpha, transa, transb)
    try:
        return _GEMM(a, b, bias, rung, alpha, transa, transb)
    except (ValueError, RuntimeError) as err:
        raise _ladder_error(err) from None


def launch_log(enable: bool) -> list[tuple]:
    """The C++ operators' launches since the last call, then logging on or off (for the tests):
    tuples (rung, transa, transb, M, N, K, lda, strideA, ldb, strideB, ldc, strideC, batch, A, B, C,
    bias, stream) with the flags as "N"/"T" and the pointers as integers."""
    rows = torch.ops.sgemm_ladder._launch_log(enable).tolist()
    return [(r[0], chr(r[1]), chr(r[2]), *r[3:]) for r in rows]


def plan_of(a, b, out=None, bias=None, transa=False, transb=False) -> list[int]:
    """The C++ operators' plan for these operands (shapes and strides only; meta tensors will do),
    in gemm.Plan's order: transa, transb (character codes), M, N, K, lda, strideA, ldb, strideB,
    ldc, strideC, batch, then the copies of a, b and bias, out_direct and fold as 0/1."""
    return list(torch.ops.sgemm_ladder._plan(a, b, out, bias, transa, transb))


# ---------------------------------------------------------------------------------------------
# Other DLPack producers


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
