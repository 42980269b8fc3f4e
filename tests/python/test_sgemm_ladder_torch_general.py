"""GPU tests of the general operator on PyTorch tensors: transposed operands read in place, batches
in one launch, the bias, gradients against torch's, sgemm_ladder.nn.Linear, CUDA graphs, side
streams and torch.compile. References in FP64; bounds from each rung's precision model
(gemm_bounds.py). Skipped without PyTorch or a CUDA device."""
import itertools

import pytest

import sgemm_ladder
from sgemm_ladder import library

from gemm_bounds import gemm_tolerance

M, N, K, B = 33, 40, 24, 3


@pytest.fixture(scope="module")
def torch(torch_cuda):
    return torch_cuda


def rand(torch, *shape, seed=0):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    return torch.rand(*shape, device="cuda", generator=gen) * 2 - 1


def op(x, trans):
    return x.mT if trans else x


def expect_close(torch, rung, result, ref, scale, k):
    """|result - ref| within the rung's bound for a k-deep product, relative to `scale`
    (the same product on absolute values), element by element."""
    torch.cuda.synchronize()
    atol = gemm_tolerance(rung, k) * (scale.max().item() if scale.numel() else 0.0)
    torch.testing.assert_close(result.double(), ref, rtol=0.0, atol=atol)


def reference(torch, a, b, bias, transa, transb, alpha=1.0):
    """alpha * op(a) @ op(b) + bias in FP64, and the scale of its error bound."""
    a64, b64 = a.double(), b.double()
    ref = alpha * torch.matmul(op(a64, transa), op(b64, transb))
    scale = abs(alpha) * torch.matmul(op(a64, transa).abs(), op(b64, transb).abs())
    if bias is not None:
        ref, scale = ref + bias.double(), scale + bias.double().abs()
    return ref, scale


def make(torch, rows, cols, trans, batch, stored_transposed, seed):
    """An operand whose op() is rows x cols (batch x rows x cols): asked for with the trans flag,
    and stored as a transposed view or not."""
    shape = (cols, rows) if trans else (rows, cols)
    if stored_transposed:
        x = rand(torch, *((batch,) if batch else ()), shape[1], shape[0], seed=seed).mT
    else:
        x = rand(torch, *((batch,) if batch else ()), *shape, seed=seed)
    return x


LAYOUTS = list(itertools.product([False, True], [False, True]))  # (flag, stored as a transposed view)
BATCHES = [(0, 0), (B, 0), (0, B), (B, B), (1, B)]


@pytest.mark.parametrize("la", LAYOUTS, ids=lambda f: f"a{'T' if f[0] else 'N'}{'v' if f[1] else ''}")
@pytest.mark.parametrize("lb", LAYOUTS, ids=lambda f: f"b{'T' if f[0] else 'N'}{'v' if f[1] else ''}")
@pytest.mark.parametrize("batches", BATCHES, ids=lambda b: f"batch{b[0]}x{b[1]}")
@pytest.mark.parametrize("with_bias", [False, True], ids=["", "bias"])
def test_layouts_batches_and_bias_in_one_launch(torch, rungs, launches, la, lb, batches, with_bias):
    """Every layout (the flag, and a transposed view or not), every batch shape, with and without a
    bias: one launch, operands read where they are, the result within the bound."""
    rung = library.find_rung("auto")
    a = make(torch, M, K, la[0], batches[0], la[1], seed=1)
    b = make(torch, K, N, lb[0], batches[1], lb[1], seed=2)
    bias = rand(torch, N, seed=3) if with_bias else None
    c = sgemm_ladder.gemm(a, b, bias, transa=la[0], transb=lb[0], alpha=1.5)
    ref, scale = reference(torch, a, b, bias, la[0], lb[0], alpha=1.5)
    assert c.shape == ref.shape and c.is_contiguous()
    expect_close(torch, rung, c, ref, scale, K)
    (launch,) = launches
    assert (launch.a, launch.b, launch.c) == (a.data_ptr(), b.data_ptr(), c.data_ptr())  # nothing copied
    assert launch.bias == (bias.data_ptr() if with_bias else 0)


def test_a_linear_layers_product_folds_its_batch(torch, launches):
    """x (batch x tokens x in) against wᵀ: one product of batch x tokens rows, w read as T."""
    x, w, bias = rand(torch, B, M, K), rand(torch, N, K, seed=1), rand(torch, N, seed=2)
    y = sgemm_ladder.gemm(x, w, bias, transb=True)
    (launch,) = launches
    assert (launch.transa, launch.transb, launch.m, launch.n, launch.k, launch.batch) == ("N", "T", B * M, N, K, 1)
    ref, scale = reference(torch, x, w, bias, False, True)
    expect_close(torch, library.find_rung("auto"), y, ref, scale, K)


def test_every_rung_takes_every_layout_batch_and_bias(torch, rungs):
    """Through the package, every rung (those that do not take a layout, a batch or a bias get it
    from the library's front door) on a ragged transposed batch with a bias."""
    a = make(torch, M, K, True, B, False, seed=4)
    b = make(torch, K, N, False, 0, True, seed=5)
    bias = rand(torch, N, seed=6)
    ref, scale = reference(torch, a, b, bias, True, False)
    for rung in rungs:
        c = sgemm_ladder.gemm(a, b, bias, transa=True, rung=rung.id)
        expect_close(torch, rung, c, ref, scale, K)


@pytest.mark.parametrize("la", [False, True], ids=["aN", "aT"])
@pytest.mark.parametrize("lb", [False, True], ids=["bN", "bT"])
@pytest.mark.parametrize("batches", BATCHES, ids=lambda b: f"batch{b[0]}x{b[1]}")
def test_gradients_match_torch(torch, rungs, la, lb, batches):
    """dA, dB and the bias's gradient against FP64 autograd through torch.matmul; each bound is
    the product's bound on absolute values (autograd of the same expression on |a|, |b|, |grad|)."""
    rung = library.find_rung("auto")
    a = make(torch, M, K, la, batches[0], False, seed=7).requires_grad_()
    b = make(torch, K, N, lb, batches[1], False, seed=8).requires_grad_()
    bias = rand(torch, N, seed=9).requires_grad_()
    c = sgemm_ladder.gemm(a, b, bias, transa=la, transb=lb, alpha=0.75)
    grad = rand(torch, *c.shape, seed=10)
    c.backward(grad)

    def fp64(x, absolute):
        x = x.detach().double()
        return (x.abs() if absolute else x).requires_grad_()

    want, scale = [], []
    for absolute, into in ((False, want), (True, scale)):
        a64, b64, bias64 = fp64(a, absolute), fp64(b, absolute), fp64(bias, absolute)
        c64 = 0.75 * torch.matmul(op(a64, la), op(b64, lb)) + bias64
        c64.backward(grad.double().abs() if absolute else grad.double())
        into += [a64.grad, b64.grad, bias64.grad]
    depth = max(M, N, K) * max(batches + (1,))  # the longest sum behind any gradient element
    for got, ref, s in zip((a.grad, b.grad, bias.grad), want, scale):
        assert got.shape == ref.shape
        expect_close(torch, rung, got, ref, s, depth)


def test_mm_is_differentiable(torch, rungs):
    a, b = rand(torch, M, K).requires_grad_(), rand(torch, K, N, seed=1).requires_grad_()
    sgemm_ladder.mm(a, b).sum().backward()
    a64, b64 = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
    (a64 @ b64).sum().backward()
    rung = library.find_rung("auto")
    ones = torch.ones(M, N, device="cuda", dtype=torch.float64)
    expect_close(torch, rung, a.grad, a64.grad, ones @ b64.detach().abs().T, N)
    expect_close(torch, rung, b.grad, b64.grad, a64.detach().abs().T @ ones, M)


def test_linear_backward_reads_in_place(torch, launches):
    """A linear layer's backward pass: two launches (dx, dW), each reading its operands where
    they are (the weight, the saved input and the incoming gradient), nothing copied."""
    layer = sgemm_ladder.nn.Linear(K, N, device="cuda")
    x = rand(torch, B, M, K).requires_grad_()
    y = layer(x)
    launches.clear()
    grad = rand(torch, *y.shape, seed=1)
    y.backward(grad)
    assert len(launches) == 2
    by_output = {launch.m * launch.n: launch for launch in launches}
    dx, dw = by_output[B * M * K], by_output[N * K]
    assert (dx.transa, dx.transb, dx.a, dx.b) == ("N", "N", grad.data_ptr(), layer.weight.data_ptr())
    assert (dw.transa, dw.transb, dw.k, dw.a, dw.b) == ("T", "N", B * M, grad.data_ptr(), x.data_ptr())


def test_linear_matches_torch_linear(torch, rungs):
    """The same state dict in both layers; forward and backward within the bound."""
    ref_layer = torch.nn.Linear(K, N, device="cuda")
    layer = sgemm_ladder.nn.Linear(K, N, device="cuda", rung="auto")
    layer.load_state_dict(ref_layer.state_dict())
    x = rand(torch, B, M, K)
    xr, xl = x.clone().requires_grad_(), x.clone().requires_grad_()
    yr, yl = ref_layer(xr), layer(xl)
    rung = library.find_rung("auto")
    scale = x.abs() @ layer.weight.detach().abs().T + layer.bias.detach().abs()
    expect_close(torch, rung, yl, yr.double(), scale.double() * 2, K)  # both carry rounding: twice the bound
    yr.sum().backward()
    yl.sum().backward()
    for got, want in ((xl.grad, xr.grad), (layer.weight.grad, ref_layer.weight.grad),
                      (layer.bias.grad, ref_layer.bias.grad)):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4 * want.abs().max().item())


def test_swapped_model_matches(torch):
    model = torch.nn.Sequential(torch.nn.Linear(K, 64), torch.nn.GELU(), torch.nn.Linear(64, N)).cuda()
    x = rand(torch, B, M, K)
    want = model(x)
    sgemm_ladder.nn.swap_linears(model)
    assert all(type(m) is sgemm_ladder.nn.Linear for m in model if isinstance(m, torch.nn.Linear))
    torch.testing.assert_close(model(x), want, rtol=1e-4, atol=1e-4)


def test_cuda_graph_capture_on_a_side_stream(torch):
    """The operator records into a CUDA graph (captured on a side stream, as torch requires) and
    each replay recomputes from the current inputs."""
    x, w, bias = rand(torch, B, M, K), rand(torch, N, K, seed=1), rand(torch, N, seed=2)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        sgemm_ladder.gemm(x, w, bias, transb=True)  # warm-up on the capture stream, outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        y = sgemm_ladder.gemm(x, w, bias, transb=True)
    for seed in (3, 4):
        x.copy_(rand(torch, B, M, K, seed=seed))
        graph.replay()
        ref, scale = reference(torch, x, w, bias, False, True)
        expect_close(torch, library.find_rung("auto"), y, ref, scale, K)


def test_side_stream_orders_after_its_inputs(torch):
    x, w = rand(torch, 256, 512), rand(torch, 384, 512, seed=1)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        y = sgemm_ladder.gemm(x, w, transb=True)
    stream.synchronize()
    ref, scale = reference(torch, x, w, None, False, True)
    expect_close(torch, library.find_rung("auto"), y, ref, scale, 512)


def test_compiled_linear_matches_eager(torch):
    """torch.compile (fullgraph, dynamic) of a model with ladder Linears, forward and backward."""
    model = sgemm_ladder.nn.swap_linears(
        torch.nn.Sequential(torch.nn.Linear(K, 64), torch.nn.SiLU(), torch.nn.Linear(64, N)).cuda())
    compiled = torch.compile(model, fullgraph=True, dynamic=True)
    for tokens in (M, M + 7):
        x = rand(torch, B, tokens, K)
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)
    x = rand(torch, B, M, K)
    compiled(x).sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for got, want in zip(grads, (p.grad for p in model.parameters())):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case, message", [
    ("batch", "batch sizes differ: a holds 3 matrices, b 2"),
    ("bias", "bias must hold 40 floats"),
    ("bias dtype", "bias must be float32, got float64"),
    ("bias device", "bias is on cpu"),
    ("dims", r"a must be a matrix \(2-D\) or a batch of matrices \(3-D\)"),
])
def test_general_errors_come_before_any_gpu_work(torch, lib, no_gpu_work, case, message):
    a, b, bias = torch.ones(B, M, K, device="cuda"), torch.ones(B, K, N, device="cuda"), None
    if case == "batch":
        b = b[:2]
    elif case == "bias":
        bias = torch.ones(N - 1, device="cuda")
    elif case == "bias dtype":
        bias = torch.ones(N, device="cuda", dtype=torch.float64)
    elif case == "bias device":
        bias = torch.ones(N)
    else:
        a = a[None]
    with pytest.raises(sgemm_ladder.LadderArgumentError, match=message):
        sgemm_ladder.gemm(a, b, bias)
