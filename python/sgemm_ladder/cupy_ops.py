"""CuPy integration: ``sgemm_ladder.mm`` on cupy.ndarray runs on CuPy's current stream of the
arrays' device and returns a cupy.ndarray. Needs no PyTorch. CuPy is imported only when an array
of it is passed (which means it is already imported)."""
from . import gemm
from .library import LadderArgumentError


def is_cupy(x) -> bool:
    return type(x).__module__.partition(".")[0] == "cupy"


class CupyArrays:
    """gemm.ArrayAPI for cupy.ndarray."""

    @staticmethod
    def describe(x, name: str) -> gemm.Matrix:
        if not is_cupy(x) or not hasattr(x, "strides"):
            raise LadderArgumentError(f"{name} must be a cupy.ndarray like a, got {type(x).__name__}")
        return gemm.Matrix(name=name, shape=tuple(x.shape),
                           strides=tuple(s // x.itemsize for s in x.strides), dtype=x.dtype.name,
                           device=f"cuda:{x.device.id}", ptr=x.data.ptr)

    @staticmethod
    def device_guard(x):
        return x.device  # a cupy.cuda.Device is a context manager that makes it current

    @staticmethod
    def current_stream(x) -> int:
        import cupy

        return cupy.cuda.get_current_stream().ptr

    @staticmethod
    def contiguous(x):
        import cupy

        return cupy.ascontiguousarray(x)

    @staticmethod
    def empty(shape: tuple, like):
        import cupy

        return cupy.empty(shape, dtype=cupy.float32)  # on the current device: like's

    @staticmethod
    def copy_into(dst, src) -> None:
        dst[...] = src


def mm(a, b, rung: str, alpha: float, beta: float, out):
    """sgemm_ladder.mm for CuPy arrays (arguments already checked by it)."""
    return gemm.gemm(CupyArrays, a, b, out, rung, alpha, beta)


def gemm_op(a, b, bias, rung: str, alpha: float, transa: bool, transb: bool):
    """sgemm_ladder.gemm for CuPy arrays (arguments already checked by it)."""
    return gemm.gemm(CupyArrays, a, b, None, rung, alpha, 0.0, bias, transa, transb)
