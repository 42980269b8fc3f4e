"""libsgemm_ladder.so through ctypes: where it is, the C ABI's types, the registry, one GEMM.

The C ABI is kernels/include/sgemm_ladder.h; every function used here has its argument and result
types declared below (leading dimensions are int64_t: left undeclared, ctypes would pass them as
32-bit ints). Reading the registry needs no GPU; only ``run`` launches work.

Two entries launch work: ``sgemm_ladder_run`` (row-major, one product: every library has it) and
``sgemm_ladder_gemm`` (transposed operands, a batch, a bias; added in 0.3.0). A library built
before the general entry still loads: ``run`` works, and ``gemm`` says to rebuild.

Where the library is looked for, first found wins:
  1. inside this package (``pip install .`` puts it there);
  2. $SGEMM_LADDER_LIB (a source checkout with python/ on sys.path);
  3. build/release/kernels/libsgemm_ladder.so of the checkout this file sits in.
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Optional, Union

LIB_NAME = "libsgemm_ladder.so"
LIB_ENV = "SGEMM_LADDER_LIB"
PACKAGE_DIR = Path(__file__).resolve().parent
CHECKOUT = PACKAGE_DIR.parent.parent  # python/sgemm_ladder/ -> the repository, in a source checkout
CHECKOUT_LIB = CHECKOUT / "build" / "release" / "kernels" / LIB_NAME

# Status codes of sgemm_ladder.h that this package raises itself (tests compare them with the header).
OK = 0
ERR_UNKNOWN_KERNEL = 5
ERR_INVALID_TRANS = 14
ERR_INVALID_BATCH = 15

# The bits of sgemm_ladder_kernel_desc.takes: what a rung's kernel does itself in the general entry
# (the library does the rest around it: copies, a loop of launches, a pass for the bias).
TAKES_LAYOUTS = 1
TAKES_BATCH = 2
TAKES_BIAS = 4

AUTO = "auto"
DISPATCH_TRACK = "dispatch"  # a rung that picks among the others per shape: "auto" prefers it,
# else "auto" is the capstone (the registry's rung with Rung.capstone set)
# "auto" kept to the CUDA cores for the call: the dispatch rung with the C ABI's SGEMM_LADDER_CUDA_CORES
# flag (its FFMA kernels only: bitwise those kernels' results, the same for every batch).
AUTO_CUDA_CORES = "auto_cuda_cores"
CUDA_CORES = 0x10000


class LadderError(RuntimeError):
    """An error of SGEMM Ladder.

    ``status``: the C ABI's status code (``sgemm_ladder_status`` in sgemm_ladder.h), or None for an
    argument error found in Python that the C ABI has no code for; ``reason``: the library's
    one-line text for the status (``sgemm_ladder_status_string``); ``detail``: what went wrong
    with this call (``sgemm_ladder_last_error``, or the Python check's message).
    """

    def __init__(self, message: str, status: Optional[int] = None, reason: str = "", detail: str = ""):
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.detail = detail


class LadderArgumentError(LadderError, ValueError):
    """A bad argument (shape, dtype, device, layout, rung), found before any GPU work."""


class LibraryNotFoundError(LadderError):
    """libsgemm_ladder.so is neither installed with the package nor built in the checkout."""


class _KernelDesc(ctypes.Structure):
    """struct sgemm_ladder_kernel_desc, field for field."""

    _fields_ = [("id", ctypes.c_int), ("slug", ctypes.c_char_p), ("track", ctypes.c_char_p),
                ("builds_on", ctypes.c_int), ("title", ctypes.c_char_p), ("lesson", ctypes.c_char_p),
                ("fp32_accurate", ctypes.c_int), ("source", ctypes.c_char_p), ("arch", ctypes.c_char_p),
                ("kernel", ctypes.c_char_p), ("tile", ctypes.c_char_p), ("capstone", ctypes.c_int),
                ("takes", ctypes.c_int)]


_i64, _f32, _ptr, _str, _chr = ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char
# name: (result type, argument types), in the header's order.
SIGNATURES = {
    "sgemm_ladder_run": (ctypes.c_int, [ctypes.c_int, _i64, _i64, _i64, _f32, _ptr, _i64, _ptr, _i64,
                                        _f32, _ptr, _i64, _ptr]),
    "sgemm_ladder_gemm": (ctypes.c_int, [ctypes.c_int, _chr, _chr, _i64, _i64, _i64, _f32, _ptr, _i64, _i64,
                                         _ptr, _i64, _i64, _f32, _ptr, _i64, _i64, _ptr, _i64, _ptr]),
    "sgemm_ladder_status_string": (_str, [ctypes.c_int]),
    "sgemm_ladder_last_error": (_str, []),
    "sgemm_ladder_version": (_str, []),
    "sgemm_ladder_kernel_count": (ctypes.c_int, []),
    "sgemm_ladder_kernel_id": (ctypes.c_int, [ctypes.c_int]),
    "sgemm_ladder_kernel_name": (_str, [ctypes.c_int]),
    "sgemm_ladder_kernel_describe": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_KernelDesc)]),
    "sgemm_ladder_set_tensor_cores": (ctypes.c_int, [ctypes.c_int]),
    "sgemm_ladder_tensor_cores": (ctypes.c_int, []),
    "sgemm_ladder_set_tensor_workspace": (_i64, [_i64]),
    "sgemm_ladder_kernel_lookup": (ctypes.c_int, [ctypes.c_char_p]),
}
# Functions a library of an older version lacks (it loads all the same; see ``gemm``).
ADDED_LATER = {"sgemm_ladder_gemm": "0.3.0", "sgemm_ladder_set_tensor_cores": "0.3.0",
               "sgemm_ladder_tensor_cores": "0.3.0", "sgemm_ladder_set_tensor_workspace": "0.3.0",
               "sgemm_ladder_kernel_lookup": "0.3.0"}


@dataclass(frozen=True)
class Rung:
    """One row of the library's registry (``sgemm_ladder_kernel_describe``)."""

    id: int
    slug: str            # "07_bank_conflict_free"
    track: str           # "baseline", "cuda-core", "tensor-core"
    builds_on: Optional[int]  # the rung this one started from, None for the first of a track
    title: str
    lesson: str          # the one thing the rung changes
    fp32_accurate: bool  # False: reduced precision (TF32 operands)
    source: str          # its file under kernels/
    arch: str            # the oldest GPU architecture it runs on, e.g. "sm_80"
    kernel: str          # text in the name of the kernel that carries the lesson
    tile: str            # its tile parameters
    capstone: bool = False  # the one rung the CUDA-core track leads up to (the registry says which)
    takes: int = 0  # TAKES_* bits: what its kernel does itself in the general entry (0 from older libraries)
    call_flags: int = 0  # OR-ed into the id of a call (CUDA_CORES for AUTO_CUDA_CORES)

    @property
    def call_id(self) -> int:
        """The kernel id a call passes: the id with its call flags."""
        return self.id | self.call_flags


def library_path() -> Path:
    """The libsgemm_ladder.so this package uses (see the module's docstring for the order)."""
    packaged = PACKAGE_DIR / LIB_NAME
    if packaged.is_file():
        return packaged
    from_env = os.environ.get(LIB_ENV)
    path = Path(from_env) if from_env else CHECKOUT_LIB
    if path.is_file():
        return path
    looked_at = f"${LIB_ENV}={from_env}" if from_env else f"{packaged} and {CHECKOUT_LIB}"
    raise LibraryNotFoundError(
        f"{LIB_NAME} not found (looked at {looked_at}). Install the package with `pip install .` "
        f"from the repository, or build the library in the checkout with `cmake --preset release && "
        f"cmake --build --preset release --target sgemm_ladder`, or point ${LIB_ENV} at one.")


@lru_cache(maxsize=None)
def load() -> ctypes.CDLL:
    """Open the library once and declare the types of every function of its C ABI."""
    path = library_path()
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as err:
        raise LadderError(f"cannot load {path}: {err} (the CUDA runtime and cuBLAS it needs must be "
                          f"findable: ldconfig or LD_LIBRARY_PATH)") from err
    for name, (restype, argtypes) in SIGNATURES.items():
        function = getattr(lib, name, None)
        if function is None and name in ADDED_LATER:
            continue  # an older library: has() says so, and the call that needs it explains
        if function is None:
            raise LadderError(f"{path} lacks {name}: it is not a libsgemm_ladder.so of this package")
        function.restype, function.argtypes = restype, argtypes
    return lib


def has(name: str) -> bool:
    """Whether the loaded library exports the C function `name` (an older one lacks ADDED_LATER's)."""
    return hasattr(load(), name)


def _text(raw: Optional[bytes]) -> str:
    return raw.decode() if raw else ""


def version() -> str:
    """``sgemm_ladder_version()``: the version the library was built as."""
    return _text(load().sgemm_ladder_version())


def error(status: int, what: str, detail: Optional[str] = None) -> LadderError:
    """The exception for a non-zero status: the library's text for it, and the detail (by default
    ``sgemm_ladder_last_error()`` of this thread)."""
    lib = load()
    reason = _text(lib.sgemm_ladder_status_string(status))
    detail = _text(lib.sgemm_ladder_last_error()) if detail is None else detail
    cls = LadderArgumentError if status == ERR_UNKNOWN_KERNEL else LadderError
    return cls(f"{what}: {reason}" + (f": {detail}" if detail else ""), status, reason, detail)


def error_from_message(message: str) -> Optional[LadderError]:
    """The exception for a refusal of the library that reached Python as text, from PyTorch's C++
    operators ("sgemm_ladder_gemm(...): <the status's text>: <detail>", as ``error`` writes it), with
    its status found from the text; None for text of another origin."""
    if not message.startswith(("sgemm_ladder_gemm(", "sgemm_ladder_run(")):
        return None
    _, _, rest = message.partition("): ")
    lib = load()
    for status in range(1, 64):
        reason = _text(lib.sgemm_ladder_status_string(status))
        if reason and (rest == reason or rest.startswith(reason + ": ")):
            cls = LadderArgumentError if status == ERR_UNKNOWN_KERNEL else LadderError
            return cls(message, status, reason, rest[len(reason) + 2:])
    return LadderError(message)


@lru_cache(maxsize=None)
def _registry() -> tuple[Rung, ...]:
    lib = load()
    table = []
    for index in range(lib.sgemm_ladder_kernel_count()):
        kernel_id = lib.sgemm_ladder_kernel_id(index)
        desc = _KernelDesc()
        status = lib.sgemm_ladder_kernel_describe(kernel_id, ctypes.byref(desc))
        if status != OK:
            raise error(status, f"sgemm_ladder_kernel_describe({kernel_id})")
        table.append(Rung(id=desc.id, slug=_text(desc.slug), track=_text(desc.track),
                          builds_on=desc.builds_on if desc.builds_on >= 0 else None,
                          title=_text(desc.title), lesson=_text(desc.lesson),
                          fp32_accurate=bool(desc.fp32_accurate), source=_text(desc.source),
                          arch=_text(desc.arch), kernel=_text(desc.kernel), tile=_text(desc.tile),
                          capstone=bool(desc.capstone), takes=desc.takes))
    return tuple(table)


def rungs() -> list[Rung]:
    """Every kernel of the library's registry (the cuBLAS baseline and the rungs), in its order."""
    return list(_registry())


def capstone() -> Optional[Rung]:
    """The capstone: the rung the registry marks as the one the CUDA-core track leads up to (the
    README's headline rung), or None for a registry without one."""
    return next((r for r in _registry() if r.capstone), None)


def find_rung(rung: Union[int, str]) -> Rung:
    """The rung for an id (7, or "7"), a slug ("07_bank_conflict_free"), "capstone", "auto" (the
    dispatch rung when the registry has one, else the capstone) or "auto_cuda_cores" (the dispatch
    rung with the CUDA_CORES call flag; else the capstone, all CUDA cores), as the library resolves
    names (``sgemm_ladder_kernel_lookup``, the one place that does)."""
    _needs("sgemm_ladder_kernel_lookup")
    lib = load()
    found = lib.sgemm_ladder_kernel_lookup(str(rung).encode())
    if found < 0:
        raise error(ERR_UNKNOWN_KERNEL, f"rung {rung!r}", _text(lib.sgemm_ladder_last_error()))
    kernel_id, flags = found & ~CUDA_CORES, found & CUDA_CORES
    chosen = next(r for r in _registry() if r.id == kernel_id)
    return replace(chosen, call_flags=flags) if flags else chosen


def run(rung_id: int, m: int, n: int, k: int, alpha: float, a: int, lda: int, b: int, ldb: int,
        beta: float, c: int, ldc: int, stream: int) -> None:
    """``sgemm_ladder_run`` with device pointers and the stream (a cudaStream_t) as integers.
    Asynchronous like a kernel launch; raises LadderError on a non-zero status (C not written)."""
    status = load().sgemm_ladder_run(rung_id, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream)
    if status != OK:
        raise error(status, f"sgemm_ladder_run(rung {rung_id}, M={m}, N={n}, K={k})")


def gemm(rung_id: int, transa: str, transb: str, m: int, n: int, k: int, alpha: float, a: int, lda: int,
         stride_a: int, b: int, ldb: int, stride_b: int, beta: float, c: int, ldc: int, stride_c: int,
         bias: int, batch: int, stream: int) -> None:
    """``sgemm_ladder_gemm``: C = alpha * op(A) op(B) + beta * C (+ bias), ``batch`` products, with
    device pointers, the stream and a NULL bias as integers (0), trans as "N" or "T".
    Asynchronous; raises LadderError on a non-zero status (C not written)."""
    lib = load()
    if not hasattr(lib, "sgemm_ladder_gemm"):
        raise LadderError(f"{library_path()} predates sgemm_ladder_gemm (added in {ADDED_LATER['sgemm_ladder_gemm']}"
                          f", version {version()} here): rebuild it from this checkout for transposed operands, "
                          f"batches and a bias")
    status = lib.sgemm_ladder_gemm(rung_id, transa.encode(), transb.encode(), m, n, k, alpha, a, lda, stride_a,
                                   b, ldb, stride_b, beta, c, ldc, stride_c, bias or None, batch, stream)
    if status != OK:
        raise error(status, f"sgemm_ladder_gemm(rung {rung_id}, {transa}{transb}, M={m}, N={n}, K={k}, "
                            f"batch={batch})")


def _needs(name: str) -> None:
    if not has(name):
        raise LadderError(f"{library_path()} is older than {ADDED_LATER[name]} and has no {name}: reinstall the package")


def set_tensor_cores(on: bool) -> bool:
    """The process-wide switch of the dispatch rung's tensor path ("auto" may run rung 32's Ozaki
    scheme where it is faster); returns the setting before. Off: "auto" keeps to the CUDA cores,
    as ``rung="auto_cuda_cores"`` does for one call. The environment's SGEMM_LADDER_TENSOR_CORES=0
    starts the process with it off."""
    _needs("sgemm_ladder_set_tensor_cores")
    return bool(load().sgemm_ladder_set_tensor_cores(1 if on else 0))


def tensor_cores() -> bool:
    """Whether the dispatch rung's tensor path is switched on (set_tensor_cores)."""
    _needs("sgemm_ladder_tensor_cores")
    return bool(load().sgemm_ladder_tensor_cores())


def set_tensor_workspace(nbytes: Optional[int]) -> int:
    """The most workspace one call's tensor path may take (default 2 GiB, or the environment's
    SGEMM_LADDER_TENSOR_WORKSPACE_MB); None only asks. Returns the budget before, in bytes."""
    _needs("sgemm_ladder_set_tensor_workspace")
    if nbytes is not None and nbytes < 0:
        raise LadderArgumentError(f"a workspace budget of {nbytes} bytes: give 0 or more")
    return int(load().sgemm_ladder_set_tensor_workspace(-1 if nbytes is None else int(nbytes)))
