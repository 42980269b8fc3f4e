"""GPU tests of sgemm_ladder.mm on PyTorch tensors, against torch.mm in FP64.

Skipped without PyTorch or a CUDA device. Every rung takes every valid shape and leading
dimension (ragged ones included), so none may refuse. Tolerances come from each rung's precision
model (the registry's fp32_accurate says which one), relative to |alpha||A||B| + |beta||C|.
"""
import pytest

import sgemm_ladder
from sgemm_ladder import library

from gemm_bounds import gemm_tolerance

ALIGNED = [(64, 64, 64), (128, 96, 32), (256, 128, 512)]
RAGGED = [(1, 1, 1), (7, 13, 5), (33, 65, 17), (129, 257, 67)]
EMPTY = [(0, 8, 8), (8, 0, 8), (8, 8, 0)]


@pytest.fixture(scope="module")
def torch(torch_cuda):
    return torch_cuda


def pick(rungs, which):
    """A rung chosen by what it is rather than by its id: the TF32 rung is the first that is not
    FP32-accurate."""
    if which == "tf32":
        return next(r for r in rungs if not r.fp32_accurate)
    return library.find_rung(which)


def uniform(torch, rows, cols, generator):
    """Uniform on [-1, 1): every product and sum carries rounding error."""
    return torch.rand(rows, cols, device="cuda", generator=generator) * 2 - 1


def operands(torch, m, n, k, seed=0):
    """a (m x k), b (k x n), c (m x n)."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    return uniform(torch, m, k, gen), uniform(torch, k, n, gen), uniform(torch, m, n, gen)


def expect_gemm(torch, rung, result, a, b, c0=None, alpha=1.0, beta=0.0):
    """result == alpha * a @ b + beta * c0 within the rung's bound, checked with torch.mm in FP64."""
    torch.cuda.synchronize()
    ref = alpha * torch.mm(a.double(), b.double())
    scale = abs(alpha) * torch.mm(a.double().abs(), b.double().abs())
    if c0 is not None and beta != 0:
        ref += beta * c0.double()
        scale += abs(beta) * c0.double().abs()
    atol = gemm_tolerance(rung, a.shape[1]) * (scale.max().item() if scale.numel() else 0.0)
    torch.testing.assert_close(result, ref.float(), rtol=0.0, atol=atol)


@pytest.mark.parametrize("which", ["auto", 0, 1, "tf32"])
@pytest.mark.parametrize("m, n, k", ALIGNED + RAGGED + EMPTY)
def test_matches_torch_mm(torch, rungs, which, m, n, k):
    rung = pick(rungs, which)
    a, b, _ = operands(torch, m, n, k)
    c = sgemm_ladder.mm(a, b, rung=rung.id)
    assert c.shape == (m, n) and c.dtype == torch.float32 and c.device == a.device
    expect_gemm(torch, rung, c, a, b)


@pytest.mark.parametrize("which", ["auto", 0, "tf32"])
@pytest.mark.parametrize("m, n, k", [ALIGNED[1], RAGGED[2]])
@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (-1.5, 0.5), (0.0, 2.0)])
def test_alpha_beta_out(torch, rungs, which, m, n, k, alpha, beta):
    rung = pick(rungs, which)
    a, b, c0 = operands(torch, m, n, k, seed=1)
    out = c0.clone()
    assert sgemm_ladder.mm(a, b, rung=rung.id, alpha=alpha, beta=beta, out=out) is out
    expect_gemm(torch, rung, out, a, b, c0, alpha, beta)


def test_beta_zero_never_reads_out(torch, rungs):
    rung = pick(rungs, "auto")
    a, b, _ = operands(torch, 64, 64, 64)
    out = torch.full((64, 64), float("nan"), device="cuda")
    sgemm_ladder.mm(a, b, rung="auto", out=out)
    expect_gemm(torch, rung, out, a, b)


def test_a_wider_row_stride_is_passed_as_is(torch, rungs, launches):
    """Row-major slices of wider matrices keep their leading dimension: no copy."""
    a_full, b_full, c_full = operands(torch, 64, 96, 80)
    c_before = c_full.clone()
    a, b, out = a_full[:, :48], b_full[:48, :64], c_full[:, :64]
    sgemm_ladder.mm(a, b, rung="auto", out=out)
    (launch,) = launches
    assert (launch.m, launch.n, launch.k) == (64, 64, 48)
    assert (launch.a, launch.lda, launch.b, launch.ldb, launch.c, launch.ldc) == (
        a.data_ptr(), 80, b.data_ptr(), 96, out.data_ptr(), 96)
    expect_gemm(torch, pick(rungs, "auto"), out, a, b)
    assert torch.equal(c_full[:, 64:], c_before[:, 64:])  # the columns beyond out: not written


def test_transposed_views_are_read_in_place(torch, rungs, launches):
    """A column-major operand (a transposed view) is read where it is, as op = T; an out in that
    layout gets the result through a contiguous array."""
    gen = torch.Generator(device="cuda").manual_seed(2)
    a = uniform(torch, 64, 128, gen).t()    # 128 x 64, strides (1, 128)
    b = uniform(torch, 64, 64, gen)
    out = uniform(torch, 64, 128, gen).t()  # 128 x 64, strides (1, 128)
    c0 = out.clone()
    assert sgemm_ladder.mm(a, b, rung="auto", alpha=2.0, beta=1.0, out=out) is out
    (launch,) = launches
    assert (launch.transa, launch.transb, launch.m, launch.n, launch.k) == ("T", "N", 128, 64, 64)
    assert (launch.a, launch.lda, launch.b, launch.ldb, launch.ldc) == (a.data_ptr(), 128, b.data_ptr(), 64, 64)
    assert launch.c != out.data_ptr()  # a contiguous result, copied into out
    expect_gemm(torch, pick(rungs, "auto"), out, a, b, c0, 2.0, 1.0)


def test_runs_on_the_current_stream(torch, rungs, launches):
    a, b, _ = operands(torch, 256, 256, 256)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())  # a and b were made on the default stream
    with torch.cuda.stream(stream):
        c = sgemm_ladder.mm(a, b, rung="auto")
    assert launches[0].stream == stream.cuda_stream != torch.cuda.default_stream().cuda_stream
    stream.synchronize()
    expect_gemm(torch, pick(rungs, "auto"), c, a, b)


def test_runs_on_the_tensors_device(torch, rungs, launches):
    """Tensors on device 1 run there, on device 1's current stream, whatever device is current."""
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    a, b, _ = (x.to("cuda:1") for x in operands(torch, 64, 64, 64))
    with torch.cuda.device(0):
        c = sgemm_ladder.mm(a, b, rung="auto")
        assert torch.cuda.current_device() == 0
    assert launches[0].stream == torch.cuda.current_stream(1).cuda_stream and c.device == a.device
    expect_gemm(torch, pick(rungs, "auto"), c, a, b)


def test_compiled_matches_eager(torch, rungs):
    def f(a, b, c):
        d = sgemm_ladder.mm(a, b, alpha=2.0)
        sgemm_ladder.mm(a, b, rung=0, beta=1.0, out=c)
        return d + c

    a, b, c = operands(torch, 128, 64, 96)
    eager_c, compiled_c = c.clone(), c.clone()
    expected = f(a, b, eager_c)
    got = torch.compile(f, fullgraph=True)(a, b, compiled_c)
    torch.cuda.synchronize()
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(compiled_c, eager_c)
    expect_gemm(torch, pick(rungs, 0), compiled_c, a, b, c, 1.0, 1.0)


class Foreign:
    """An array kind sgemm_ladder does not know: it speaks DLPack and names its namespace (the
    array API's __array_namespace__), whose from_dlpack makes another Foreign."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, **kwargs):
        return self.tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()

    def __array_namespace__(self):
        return ForeignNamespace


class ForeignNamespace:
    @staticmethod
    def from_dlpack(x):
        import torch

        return Foreign(torch.from_dlpack(x))


def test_other_dlpack_producers_get_their_kind_back(torch, rungs):
    a, b, c = operands(torch, 96, 64, 32)
    result = sgemm_ladder.mm(Foreign(a), Foreign(b), rung=0)
    assert isinstance(result, Foreign)
    expect_gemm(torch, pick(rungs, 0), result.tensor, a, b)
    out = Foreign(c.clone())
    assert sgemm_ladder.mm(Foreign(a), Foreign(b), rung=0, beta=-1.0, out=out) is out
    expect_gemm(torch, pick(rungs, 0), out.tensor, a, b, c, 1.0, -1.0)


@pytest.mark.parametrize("case, message", [
    ("dtype", "b must be float32, got float16"),
    ("shapes", "shapes do not chain"),
    ("cpu", "b is on cpu"),
    ("out shape", "out must be 64x32"),
    ("out overlaps", "out overlaps a"),
    ("out broadcast", "out has elements that share memory"),
    ("rung", "rung 'no_such_rung': unknown kernel id"),
])
def test_errors_come_before_any_gpu_work(torch, lib, no_gpu_work, case, message):
    storage = torch.ones(48, 64, device="cuda")
    a = storage.t()  # 64 x 48 column-major: read in place (op = T) once the checks pass
    b = torch.ones(48, 32, device="cuda")
    kwargs = {}
    if case == "dtype":
        b = b.half()
    elif case == "shapes":
        b = b[:40]
    elif case == "cpu":
        b = b.cpu()
    elif case == "out shape":
        kwargs["out"] = torch.empty(64, 31, device="cuda")
    elif case == "out overlaps":
        kwargs["out"] = storage.t()[:, :32]
    elif case == "out broadcast":
        kwargs["out"] = torch.empty(1, 32, device="cuda").expand(64, 32)
    else:
        kwargs["rung"] = "no_such_rung"
    with pytest.raises(sgemm_ladder.LadderArgumentError, match=message):
        sgemm_ladder.mm(a, b, **kwargs)
