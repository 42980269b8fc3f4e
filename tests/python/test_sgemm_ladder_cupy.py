"""GPU tests of sgemm_ladder.mm on CuPy arrays (no PyTorch needed), against CuPy's matmul in FP64.
Skipped without CuPy or a CUDA device."""
import pytest

import sgemm_ladder
from sgemm_ladder import library

from gemm_bounds import gemm_tolerance


@pytest.fixture(scope="module")
def cupy(cupy_cuda):
    return cupy_cuda


def uniform(cupy, rows, cols):
    return cupy.random.uniform(-1, 1, (rows, cols)).astype(cupy.float32)


def expect_gemm(cupy, rung, result, a, b, c0=None, alpha=1.0, beta=0.0):
    """result == alpha * a @ b + beta * c0 within the rung's bound (reference in FP64)."""
    cupy.cuda.get_current_stream().synchronize()
    a64, b64 = a.astype(cupy.float64), b.astype(cupy.float64)
    ref, scale = alpha * (a64 @ b64), abs(alpha) * (abs(a64) @ abs(b64))
    if c0 is not None and beta != 0:
        ref, scale = ref + beta * c0, scale + abs(beta) * abs(c0.astype(cupy.float64))
    atol = gemm_tolerance(rung, a.shape[1]) * float(scale.max())
    cupy.testing.assert_allclose(result, ref, rtol=0, atol=atol)


@pytest.mark.parametrize("rung, m, n, k", [(0, 129, 257, 67), ("auto", 128, 96, 64), (1, 7, 13, 5)])
def test_cupy_in_cupy_out(cupy, rung, m, n, k):
    cupy.random.seed(0)
    a, b = uniform(cupy, m, k), uniform(cupy, k, n)
    c = sgemm_ladder.mm(a, b, rung=rung)
    assert isinstance(c, cupy.ndarray) and c.shape == (m, n) and c.dtype == cupy.float32
    expect_gemm(cupy, library.find_rung(rung), c, a, b)


def test_out_alpha_beta_and_layouts(cupy, launches):
    """A transposed a is read in place (op = T); out is written in place and returned."""
    cupy.random.seed(1)
    a, b, c0 = uniform(cupy, 64, 128).T, uniform(cupy, 64, 32), uniform(cupy, 128, 32)
    out = c0.copy()
    assert sgemm_ladder.mm(a, b, rung="auto", alpha=-2.0, beta=0.5, out=out) is out
    (launch,) = launches
    assert (launch.transa, launch.m, launch.n, launch.k, launch.lda, launch.ldb, launch.ldc) == ("T", 128, 32, 64,
                                                                                                 128, 32, 32)
    assert (launch.a, launch.c) == (a.data.ptr, out.data.ptr)
    expect_gemm(cupy, library.find_rung("auto"), out, a, b, c0, -2.0, 0.5)


def test_gemm_batches_and_bias(cupy, launches):
    """sgemm_ladder.gemm on CuPy: x @ w.T + bias over a batch, one launch, the batch folded."""
    cupy.random.seed(2)
    x, w, bias = (cupy.random.uniform(-1, 1, s).astype(cupy.float32) for s in ((3, 40, 24), (16, 24), (16,)))
    y = sgemm_ladder.gemm(x, w, bias, transb=True)
    assert isinstance(y, cupy.ndarray) and y.shape == (3, 40, 16)
    (launch,) = launches
    assert (launch.transa, launch.transb, launch.m, launch.batch, launch.bias) == ("N", "T", 120, 1, bias.data.ptr)
    cupy.cuda.get_current_stream().synchronize()
    x64, w64 = x.astype(cupy.float64), w.astype(cupy.float64)
    ref, scale = x64 @ w64.T + bias, abs(x64) @ abs(w64.T) + abs(bias.astype(cupy.float64))
    atol = gemm_tolerance(library.find_rung("auto"), 24) * float(scale.max())
    cupy.testing.assert_allclose(y, ref, rtol=0, atol=atol)


def test_runs_on_cupys_current_stream(cupy, launches):
    a, b = uniform(cupy, 256, 256), uniform(cupy, 256, 256)
    stream = cupy.cuda.Stream()  # blocking: ordered after the default stream, where a and b were made
    with stream:
        c = sgemm_ladder.mm(a, b, rung="auto")
        expect_gemm(cupy, library.find_rung("auto"), c, a, b)
    assert launches[0].stream == stream.ptr != 0


@pytest.mark.parametrize("case, message", [
    ("dtype", "b must be float32, got float64"),
    ("shapes", "shapes do not chain"),
    ("numpy", "b must be a cupy.ndarray like a, got ndarray"),
    ("rung", "rung 'no_such_rung': unknown kernel id"),
])
def test_errors_come_before_any_gpu_work(cupy, no_gpu_work, case, message):
    a = uniform(cupy, 48, 64).T  # 64 x 48 column-major: read in place (op = T) once the checks pass
    b, kwargs = cupy.ones((48, 32), dtype=cupy.float32), {}
    if case == "dtype":
        b = b.astype(cupy.float64)
    elif case == "shapes":
        b = b[:40]
    elif case == "numpy":
        b = cupy.asnumpy(b)
    else:
        kwargs["rung"] = "no_such_rung"
    with pytest.raises(sgemm_ladder.LadderArgumentError, match=message):
        sgemm_ladder.mm(a, b, **kwargs)
