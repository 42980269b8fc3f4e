"""One GEMM on the arrays of any framework: every check before any GPU work, then one launch.

C = alpha * op(A) @ op(B) + beta * C (+ bias), row-major, FP32, where op(X) is X or, when the
caller asks for it (transa, transb), X transposed. A and B are matrices (2-D) or batches of them
(3-D, the batch first); a 2-D operand against a 3-D one is used for every matrix of the batch, as
torch.matmul broadcasts it. The frameworks (torch_ops.py for PyTorch's Python path, cupy_ops.py for
CuPy) describe their arrays as ``Matrix`` records and lend a few operations through an ``ArrayAPI``
(copy, allocate, device guard, current stream); ``gemm`` does the rest the same way for all of them.
(PyTorch's compiled operator, csrc/torch_ops.cpp, makes the same plan in C++.)

Layouts: the library reads each operand in place when its matrices are row-major with any leading
dimension (a row stride at least the row length: a slice of a wider matrix) or column-major (a
transposed view such as ``w.t()``: read as op = T). Only other layouts (a broadcast row, a
stride-2 column) are copied to a contiguous array first; an ``out`` that is not row-major gets the
result through a contiguous copy. A 3-D operand against a 2-D one whose batch folds into its rows
(x of shape (batch, tokens, features), contiguous) is one product with batch x tokens rows;
otherwise the batch is one strided-batched call (the 2-D operand at stride 0).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ContextManager, Optional, Protocol

from . import library
from .library import LadderArgumentError

FLOAT32_BYTES = 4


def shape_text(shape) -> str:
    return "x".join(str(n) for n in shape)


@dataclass(frozen=True)
class Matrix:
    """What the checks need to know of one operand (a matrix or a batch of them, or the bias
    vector). Strides count elements, not bytes."""

    name: str             # "a", "b", "out" or "bias", for the messages
    shape: tuple
    strides: tuple
    dtype: str            # "float32"
    device: str           # "cuda:0", "cpu"
    ptr: Optional[int]    # address of element [0, 0]; None where there is none (fake tensors)

    @property
    def rows(self) -> int:
        return self.shape[-2]

    @property
    def cols(self) -> int:
        return self.shape[-1]

    @property
    def batch(self) -> int:
        """Matrices in a batch (3-D), 1 for a matrix."""
        return self.shape[0] if len(self.shape) == 3 else 1

    @property
    def batch_stride(self) -> int:
        return self.strides[0] if len(self.shape) == 3 else 0

    @property
    def row_major(self) -> bool:
        """Rows are contiguous and do not overlap: the library can read it as it is."""
        (rows, cols), (row_stride, col_stride) = self.shape[-2:], self.strides[-2:]
        return (cols <= 1 or col_stride == 1) and (rows <= 1 or row_stride >= max(1, cols))

    @property
    def column_major(self) -> bool:
        """Columns are contiguous and do not overlap (a transposed view of a row-major matrix):
        the library reads it in place as the transpose of a row-major matrix."""
        (rows, cols), (row_stride, col_stride) = self.shape[-2:], self.strides[-2:]
        return (rows <= 1 or row_stride == 1) and (cols <= 1 or col_stride >= max(1, rows))

    @property
    def ld(self) -> int:
        """The leading dimension to pass for a row-major matrix. With one row the row stride is
        never used, and any value >= the row length will do."""
        stride = self.strides[-2]
        return stride if stride >= max(1, self.cols) else max(1, self.cols)

    @property
    def ld_t(self) -> int:
        """The leading dimension to pass for a column-major matrix (its column stride)."""
        stride = self.strides[-1]
        return stride if stride >= max(1, self.rows) else max(1, self.rows)

    def t(self) -> "Matrix":
        """The transposed view (of every matrix of a batch): no data moves."""
        return replace(self, shape=(*self.shape[:-2], self.shape[-1], self.shape[-2]),
                       strides=(*self.strides[:-2], self.strides[-1], self.strides[-2]))

    @property
    def distinct_elements(self) -> bool:
        """No two elements share memory (false for broadcast views): it can be written."""
        dims = sorted((abs(s), n) for s, n in zip(self.strides, self.shape) if n > 1)
        if not dims:
            return True
        inner_stride, inner_size = dims[0]
        return inner_stride >= 1 and all(s >= inner_stride * inner_size for s, _ in dims[1:])

    def byte_range(self) -> tuple[int, int]:
        """[first, last) bytes the operand spans (strides may be negative in CuPy)."""
        if self.ptr is None or 0 in self.shape:
            return (0, 0)
        offsets = [(n - 1) * s for n, s in zip(self.shape, self.strides)]
        low = sum(o for o in offsets if o < 0)
        high = sum(o for o in offsets if o > 0)
        return (self.ptr + low * FLOAT32_BYTES, self.ptr + (high + 1) * FLOAT32_BYTES)


def _op(m: Matrix, trans: bool) -> Matrix:
    return m.t() if trans else m


def _op_name(name: str, trans: bool) -> str:
    return f"{name}ᵀ" if trans else name


def result_shape(a: Matrix, b: Matrix, transa: bool = False, transb: bool = False) -> tuple:
    """The shape of op(a) @ op(b): (M, N) for two matrices, (batch, M, N) when either is 3-D."""
    m, n = _op(a, transa).rows, _op(b, transb).cols
    if len(a.shape) == 2 and len(b.shape) == 2:
        return (m, n)
    return (max(a.batch, b.batch), m, n)


def check_shapes(a: Matrix, b: Matrix, out: Optional[Matrix], bias: Optional[Matrix] = None,
                 transa: bool = False, transb: bool = False) -> None:
    """The checks that hold on any device, fake and meta tensors included: dimensions, dtypes,
    shapes."""
    for m in (a, b):
        if len(m.shape) not in (2, 3):
            raise LadderArgumentError(f"{m.name} must be a matrix (2-D) or a batch of matrices (3-D), "
                                      f"got shape {m.shape}")
    if out is not None and len(out.shape) not in (2, 3):
        raise LadderArgumentError(f"out must be a matrix (2-D) or a batch of matrices (3-D), got shape {out.shape}")
    if bias is not None and len(bias.shape) != 1:
        raise LadderArgumentError(f"bias must be a vector (1-D), got shape {bias.shape}")
    for m in (a, b, out, bias):
        if m is not None and m.dtype != "float32":
            raise LadderArgumentError(f"{m.name} must be float32, got {m.dtype}")
    opa, opb = _op(a, transa), _op(b, transb)
    if opa.cols != opb.rows:
        raise LadderArgumentError(f"shapes do not chain: {_op_name('a', transa)} is {shape_text(opa.shape)}, "
                                  f"{_op_name('b', transb)} is {shape_text(opb.shape)}")
    if len(a.shape) == 3 and len(b.shape) == 3 and a.batch != b.batch and 1 not in (a.batch, b.batch):
        raise LadderArgumentError(f"batch sizes differ: a holds {a.batch} matrices, b {b.batch} "
                                  f"(they must be equal, or one of them 1, as for torch.matmul)")
    want = result_shape(a, b, transa, transb)
    if out is not None and tuple(out.shape) != want:
        what = "a's rows x b's columns" if len(want) == 2 else "the batch x a's rows x b's columns"
        raise LadderArgumentError(f"out must be {shape_text(want)} ({what}), got {out.shape}")
    if bias is not None and bias.shape[0] != want[-1]:
        raise LadderArgumentError(f"bias must hold {want[-1]} floats (one per column of the result), "
                                  f"got shape {bias.shape}")


def check(a: Matrix, b: Matrix, out: Optional[Matrix], rung, bias: Optional[Matrix] = None,
          transa: bool = False, transb: bool = False) -> library.Rung:
    """Every check that needs no GPU, in order: dimensions, dtypes, shapes, devices, the layout
    of ``out`` and its overlap with the inputs, then the rung. Returns the rung to run."""
    check_shapes(a, b, out, bias, transa, transb)
    operands = [m for m in (a, b, out, bias) if m is not None]
    for m in operands:
        if not m.device.startswith("cuda"):
            raise LadderArgumentError(f"{m.name} is on {m.device}: sgemm_ladder runs on CUDA devices")
    if any(m.device != a.device for m in operands):
        raise LadderArgumentError("operands on different devices: " +
                                  ", ".join(f"{m.name} on {m.device}" for m in operands))
    if out is not None:
        if not out.distinct_elements:
            raise LadderArgumentError(f"out has elements that share memory (strides {out.strides})")
        for m in (a, b, bias):
            if m is None:
                continue
            (lo, hi), (out_lo, out_hi) = m.byte_range(), out.byte_range()
            if lo < out_hi and out_lo < hi:
                raise LadderArgumentError(f"out overlaps {m.name} in memory: write the result elsewhere")
    return library.find_rung(rung)


# ---------------------------------------------------------------------------------------------
# The plan: how the library reads each operand, found from the records alone (no GPU, no data)


@dataclass(frozen=True)
class Plan:
    """The arguments of one ``sgemm_ladder_gemm`` call, or the copies to make before it.

    ``copy``: the operands ("a", "b", "bias") that must first be copied to a contiguous array
    (then planned again: a contiguous array never needs another copy). ``out_direct``: the
    result is written into ``out`` as it is (False: into a contiguous array, copied to ``out``
    after). ``fold``: a 3-D a's batch was folded into its rows (one product of batch x M rows).
    """

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
    shape: tuple          # the result's shape
    copy: tuple = ()
    out_direct: bool = True
    fold: bool = False

    @property
    def plain(self) -> bool:
        """What sgemm_ladder_run does: both operands row-major, one product (no bias: the caller)."""
        return self.transa == "N" and self.transb == "N" and self.batch == 1


def _layout(m: Matrix) -> Optional[tuple[str, int]]:
    """("N", ld) for a row-major matrix (or batch), ("T", ld) for a column-major one, None when the
    library cannot read it in place. A batch's stride must not be negative (CuPy's can be)."""
    if len(m.shape) == 3 and m.batch > 1 and m.batch_stride < 0:
        return None
    if m.row_major:
        return ("N", m.ld)
    if m.column_major:
        return ("T", m.ld_t)
    return None


def _fold(m: Matrix) -> Optional[Matrix]:
    """A batch (B, M, K) as one (B*M, K) matrix, when its batch and row dimensions merge into one
    (the batch stride is M row strides apart, or one of the two has size 1); None otherwise."""
    batch, rows = m.shape[0], m.shape[1]
    sb, sr = m.strides[0], m.strides[1]
    if batch == 1:
        stride = sr
    elif rows == 1:
        stride = sb
    elif sb == rows * sr:
        stride = sr
    else:
        return None
    return replace(m, shape=(batch * rows, m.shape[2]), strides=(stride, m.strides[2]))


def plan(a: Matrix, b: Matrix, out: Optional[Matrix] = None, bias: Optional[Matrix] = None,
         transa: bool = False, transb: bool = False) -> Plan:
    """How to run op(a) @ op(b) (+ bias) into ``out`` (or a new contiguous array), after check().
    Pure: it reads the records' shapes and strides only."""
    opa, opb = _op(a, transa), _op(b, transb)
    shape = result_shape(a, b, transa, transb)
    m, k, n = opa.rows, opa.cols, opb.cols
    batch = shape[0] if len(shape) == 3 else 1
    copy = [name for name, x in (("a", opa), ("b", opb)) if _layout(x) is None]
    if bias is not None and bias.shape[0] > 1 and bias.strides[0] != 1:
        copy.append("bias")
    if copy:
        return Plan("N", "N", m, n, k, 0, 0, 0, 0, 0, 0, batch, shape, copy=tuple(copy))
    # The output: out as it is when its matrices are row-major and the batch never writes an
    # element twice; else a contiguous array.
    out_direct = out is None or (_layout(out) or ("",))[0] == "N" and (
        len(out.shape) == 2 or batch == 1 or out.batch_stride >= out.shape[1] * out.ld)
    c = out if out is not None and out_direct else None
    ldc = c.ld if c is not None else max(1, n)
    stride_c = (c.batch_stride if c is not None and len(c.shape) == 3 else m * ldc) if batch > 1 else 0
    # A 3-D a against a 2-D b: one product of batch x M rows when a and C both fold.
    if len(a.shape) == 3 and len(b.shape) == 2 and batch > 1:
        folded_a = _fold(opa)
        folded_c = _fold(c) if c is not None else "fresh"
        if folded_a is not None and _layout(folded_a) is not None and folded_c is not None:
            ta, lda = _layout(folded_a)
            tb, ldb = _layout(opb)
            ldc_f = folded_c.ld if c is not None else max(1, n)
            return Plan(ta, tb, batch * m, n, k, lda, 0, ldb, 0, ldc_f, 0, 1, shape, out_direct=out_direct,
                        fold=True)
    ta, lda = _layout(opa)
    tb, ldb = _layout(opb)
    stride_a = opa.batch_stride if batch > 1 and opa.batch > 1 else 0
    stride_b = opb.batch_stride if batch > 1 and opb.batch > 1 else 0
    return Plan(ta, tb, m, n, k, lda, stride_a, ldb, stride_b, ldc, stride_c, batch, shape, out_direct=out_direct)


class ArrayAPI(Protocol):
    """What ``gemm`` needs from a framework."""

    def describe(self, x: Any, name: str) -> Matrix: ...
    def device_guard(self, x: Any) -> ContextManager: ...   # makes x's device current
    def current_stream(self, x: Any) -> int: ...             # cudaStream_t of x's device
    def contiguous(self, x: Any) -> Any: ...                 # a row-major copy
    def empty(self, shape: tuple, like: Any) -> Any: ...     # float32, contiguous, on like's device
    def copy_into(self, dst: Any, src: Any) -> None: ...


def gemm(api: ArrayAPI, a, b, out, rung, alpha: float, beta: float, bias=None, transa: bool = False,
         transb: bool = False):
    """``out = alpha * op(a) @ op(b) + beta * out (+ bias)`` (a new array when ``out`` is None,
    then beta must be 0) with the rung ``rung`` on the device of ``a``, on its framework's current
    stream. Returns the result (``out`` itself when given)."""
    A, B = api.describe(a, "a"), api.describe(b, "b")
    C = api.describe(out, "out") if out is not None else None
    V = api.describe(bias, "bias") if bias is not None else None
    chosen = check(A, B, C, rung, V, transa, transb)
    p = plan(A, B, C, V, transa, transb)
    with api.device_guard(a):
        # From here on there is GPU work: copies of operands in other layouts, then the launch.
        if p.copy:
            if "a" in p.copy:
                a = api.contiguous(a)
                A = api.describe(a, "a")
            if "b" in p.copy:
                b = api.contiguous(b)
                B = api.describe(b, "b")
            if "bias" in p.copy:
                bias = api.contiguous(bias)
                V = api.describe(bias, "bias")
            p = plan(A, B, C, V, transa, transb)
        result = out if out is not None else api.empty(p.shape, like=a)
        target = result if p.out_direct else api.empty(p.shape, like=a)
        if not p.out_direct and beta != 0:
            api.copy_into(target, result)
        if 0 not in p.shape:  # M = 0 or N = 0 (or an empty batch): nothing to compute
            T = api.describe(target, "out")
            stream = api.current_stream(a)
            if p.plain and V is None:
                library.run(chosen.call_id, p.m, p.n, p.k, alpha, A.ptr, p.lda, B.ptr, p.ldb, beta, T.ptr, p.ldc, stream)
            else:
                library.gemm(chosen.call_id, p.transa, p.transb, p.m, p.n, p.k, alpha, A.ptr, p.lda, p.stride_a,
                             B.ptr, p.ldb, p.stride_b, beta, T.ptr, p.ldc, p.stride_c,
                             V.ptr if V is not None else 0, p.batch, stream)
        if target is not result:
            api.copy_into(result, target)
    return result
