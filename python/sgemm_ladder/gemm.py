"""One GEMM on the arrays of any framework: every check before any GPU work, then one launch.

C = alpha * A @ B + beta * C, row-major, FP32. The frameworks (torch_ops.py for PyTorch,
cupy_ops.py for CuPy) describe their arrays as ``Matrix`` records and lend a few operations through
an ``ArrayAPI`` (copy, allocate, device guard, current stream); ``gemm`` does the rest the same way
for all of them.

Layouts: the library reads row-major operands with any leading dimension (a row stride at least the
row length: a slice of a wider matrix is passed as it is). Any other layout, such as a transposed
view, is copied to a contiguous array first; an ``out`` in such a layout gets the result copied back.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ContextManager, Optional, Protocol

from . import library
from .library import LadderArgumentError

FLOAT32_BYTES = 4


@dataclass(frozen=True)
class Matrix:
    """What the checks need to know of one operand. Strides count elements, not bytes."""

    name: str             # "a", "b" or "out", for the messages
    shape: tuple
    strides: tuple
    dtype: str            # "float32"
    device: str           # "cuda:0", "cpu"
    ptr: Optional[int]    # address of element [0, 0]; None where there is none (fake tensors)

    @property
    def rows(self) -> int:
        return self.shape[0]

    @property
    def cols(self) -> int:
        return self.shape[1]

    @property
    def row_major(self) -> bool:
        """Rows are contiguous and do not overlap: the library can read it as it is."""
        (rows, cols), (row_stride, col_stride) = self.shape, self.strides
        return (cols <= 1 or col_stride == 1) and (rows <= 1 or row_stride >= max(1, cols))

    @property
    def ld(self) -> int:
        """The leading dimension to pass for a row-major matrix. With one row the row stride is
        never used, and any value >= the row length will do."""
        return self.strides[0] if self.strides[0] >= max(1, self.cols) else max(1, self.cols)

    @property
    def distinct_elements(self) -> bool:
        """No two elements share memory (false for broadcast views): it can be written."""
        dims = sorted((abs(s), n) for s, n in zip(self.strides, self.shape) if n > 1)
        if not dims:
            return True
        inner_stride, inner_size = dims[0]
        return inner_stride >= 1 and all(s >= inner_stride * inner_size for s, _ in dims[1:])

    def byte_range(self) -> tuple[int, int]:
        """[first, last) bytes the matrix spans (strides may be negative in CuPy)."""
        if self.ptr is None or 0 in self.shape:
            return (0, 0)
        offsets = [(n - 1) * s for n, s in zip(self.shape, self.strides)]
        low = sum(o for o in offsets if o < 0)
        high = sum(o for o in offsets if o > 0)
        return (self.ptr + low * FLOAT32_BYTES, self.ptr + (high + 1) * FLOAT32_BYTES)


def check_shapes(a: Matrix, b: Matrix, out: Optional[Matrix]) -> None:
    """The checks that hold on any device, fake and meta tensors included: dimensions, dtypes,
    shapes."""
    operands = [m for m in (a, b, out) if m is not None]
    for m in operands:
        if len(m.shape) != 2:
            raise LadderArgumentError(f"{m.name} must be a matrix (2-D), got shape {m.shape}")
    for m in operands:
        if m.dtype != "float32":
            raise LadderArgumentError(f"{m.name} must be float32, got {m.dtype}")
    if a.cols != b.rows:
        raise LadderArgumentError(f"shapes do not chain: a is {a.rows}x{a.cols}, b is {b.rows}x{b.cols}")
    if out is not None and out.shape != (a.rows, b.cols):
        raise LadderArgumentError(f"out must be {a.rows}x{b.cols} (a's rows x b's columns), got {out.shape}")


def check(a: Matrix, b: Matrix, out: Optional[Matrix], rung) -> library.Rung:
    """Every check that needs no GPU, in order: dimensions, dtypes, shapes, devices, the layout
    of ``out`` and its overlap with the inputs, then the rung. Returns the rung to run."""
    check_shapes(a, b, out)
    operands = [m for m in (a, b, out) if m is not None]
    for m in operands:
        if not m.device.startswith("cuda"):
            raise LadderArgumentError(f"{m.name} is on {m.device}: sgemm_ladder runs on CUDA devices")
    if any(m.device != a.device for m in operands):
        raise LadderArgumentError("operands on different devices: " +
                                  ", ".join(f"{m.name} on {m.device}" for m in operands))
    if out is not None:
        if not out.distinct_elements:
            raise LadderArgumentError(f"out has elements that share memory (strides {out.strides})")
        for m in (a, b):
            (lo, hi), (out_lo, out_hi) = m.byte_range(), out.byte_range()
            if lo < out_hi and out_lo < hi:
                raise LadderArgumentError(f"out overlaps {m.name} in memory: write the result elsewhere")
    return library.find_rung(rung)


class ArrayAPI(Protocol):
    """What ``gemm`` needs from a framework."""

    def describe(self, x: Any, name: str) -> Matrix: ...
    def device_guard(self, x: Any) -> ContextManager: ...   # makes x's device current
    def current_stream(self, x: Any) -> int: ...             # cudaStream_t of x's device
    def contiguous(self, x: Any) -> Any: ...                 # a row-major copy
    def empty(self, rows: int, cols: int, like: Any) -> Any: ...  # float32, on like's device
    def copy_into(self, dst: Any, src: Any) -> None: ...


def gemm(api: ArrayAPI, a, b, out, rung, alpha: float, beta: float):
    """``out = alpha * a @ b + beta * out`` (a new array when ``out`` is None, then beta must be 0)
    with the rung ``rung`` on the device of ``a``, on its framework's current stream. Returns the
    result (``out`` itself when given)."""
    A, B = api.describe(a, "a"), api.describe(b, "b")
    C = api.describe(out, "out") if out is not None else None
    chosen = check(A, B, C, rung)
    m, k, n = A.rows, A.cols, B.cols
    with api.device_guard(a):
        # From here on there is GPU work: copies of operands in other layouts, then the launch.
        if not A.row_major:
            a = api.contiguous(a)
            A = api.describe(a, "a")
        if not B.row_major:
            b = api.contiguous(b)
            B = api.describe(b, "b")
        result = out if out is not None else api.empty(m, n, like=a)
        target = result if C is None or C.row_major else api.contiguous(result)
        T = api.describe(target, "out")
        library.run(chosen.id, m, n, k, alpha, A.ptr, A.ld, B.ptr, B.ld, beta, T.ptr, T.ld,
                    api.current_stream(a))
        if target is not result:
            api.copy_into(result, target)
    return result
