"""CPU tests of sgemm_ladder.mm's argument checks: layouts, the errors found before any GPU work,
and the PyTorch operators on meta tensors (shapes only, gradients' shapes too), torch.compile
included. No GPU. (The plan of each layout and batch: test_sgemm_ladder_plan.py.)"""
import pytest

import sgemm_ladder
from sgemm_ladder.gemm import Matrix, check, check_shapes, result_shape

F32 = 4  # bytes


def matrix(shape, strides, name="m", dtype="float32", device="cuda:0", ptr=1 << 20):
    return Matrix(name=name, shape=shape, strides=strides, dtype=dtype, device=device, ptr=ptr)


@pytest.mark.parametrize("shape, strides, row_major, ld", [
    ((4, 8), (8, 1), True, 8),       # contiguous
    ((4, 8), (12, 1), True, 12),     # a slice of a wider matrix: passed as it is
    ((4, 8), (1, 4), False, None),   # transposed view: copied
    ((4, 8), (0, 1), False, None),   # broadcast rows: copied
    ((4, 8), (4, 1), False, None),   # rows overlap
    ((1, 8), (3, 1), True, 8),       # one row: its row stride is never used
    ((1, 8), (16, 1), True, 16),     # ... and kept when it is a valid leading dimension
    ((5, 1), (1, 7), True, 1),       # one column: the column stride is never used
    ((0, 8), (8, 1), True, 8),
])
def test_row_major_and_leading_dimension(shape, strides, row_major, ld):
    m = matrix(shape, strides)
    assert m.row_major == row_major
    if row_major:
        assert m.ld == ld


@pytest.mark.parametrize("shape, strides, column_major, ld_t", [
    ((4, 8), (1, 4), True, 4),       # transposed view of a contiguous 8 x 4: read as op = T
    ((4, 8), (1, 6), True, 6),       # ... of a slice of a wider matrix
    ((4, 8), (8, 1), False, None),   # row-major
    ((4, 8), (1, 3), False, None),   # columns overlap
    ((4, 8), (2, 4), False, None),   # stride-2 rows: copied
    ((4, 1), (1, 1), True, 4),       # one column: its stride is never used
    ((2, 3, 4), (12, 1, 3), True, 3),  # a batch of transposed views
])
def test_column_major_and_its_leading_dimension(shape, strides, column_major, ld_t):
    m = matrix(shape, strides)
    assert m.column_major == column_major
    if column_major:
        assert m.ld_t == ld_t
        assert m.t().row_major and m.t().ld == ld_t  # the same storage, read the other way


@pytest.mark.parametrize("shape, strides, distinct", [
    ((4, 8), (8, 1), True), ((4, 8), (1, 4), True), ((4, 8), (16, 2), True),
    ((4, 8), (0, 1), False), ((4, 8), (4, 1), False), ((4, 1), (0, 1), False), ((1, 1), (0, 0), True),
])
def test_out_must_not_repeat_elements(shape, strides, distinct):
    assert matrix(shape, strides).distinct_elements == distinct


def test_byte_range():
    assert matrix((2, 3), (5, 1), ptr=1000).byte_range() == (1000, 1000 + 8 * F32)
    assert matrix((2, 3), (-5, 1), ptr=1000).byte_range() == (1000 - 5 * F32, 1000 + 3 * F32)
    assert matrix((0, 3), (3, 1)).byte_range() == (0, 0)


def chain(m=4, k=8, n=4, **out):
    """a (m x k), b (k x n) and out (m x n, with any field replaced), far apart in memory."""
    a = matrix((m, k), (k, 1), "a", ptr=1 << 20)
    b = matrix((k, n), (n, 1), "b", ptr=2 << 20)
    fields = dict(name="out", shape=(m, n), strides=(n, 1), ptr=3 << 20) | out
    return a, b, matrix(**fields)


@pytest.mark.parametrize("a_kw, b_kw, out_kw, message", [
    (dict(shape=(4, 8, 1, 1), strides=(8, 1, 1, 1)), {}, {}, r"a must be a matrix \(2-D\) or a batch"),
    (dict(dtype="float64"), {}, {}, "a must be float32, got float64"),
    ({}, dict(dtype="float16"), {}, "b must be float32"),
    ({}, dict(shape=(7, 4)), {}, "shapes do not chain: a is 4x8, b is 7x4"),
    ({}, {}, dict(shape=(4, 5), strides=(5, 1)), "out must be 4x4"),
    (dict(device="cpu"), {}, {}, "a is on cpu"),
    ({}, {}, dict(device="cuda:1"), "different devices"),
    ({}, {}, dict(strides=(0, 1)), "out has elements that share memory"),
    ({}, {}, dict(ptr=(1 << 20) + 16), "out overlaps a"),
])
def test_check_finds_each_bad_argument(a_kw, b_kw, out_kw, message):
    a, b, out = chain(**out_kw)
    a = matrix(**(dict(name="a", shape=a.shape, strides=a.strides, ptr=a.ptr) | a_kw))
    b = matrix(**(dict(name="b", shape=b.shape, strides=b.strides, ptr=b.ptr) | b_kw))
    with pytest.raises(sgemm_ladder.LadderArgumentError, match=message):
        check(a, b, out, "auto")


def dense(shape, name="m", ptr=1 << 20):
    """A contiguous operand of `shape`."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(1, n)
    return matrix(tuple(shape), tuple(strides), name, ptr=ptr)


@pytest.mark.parametrize("a_shape, b_shape, flags, bias, out_shape, message", [
    ((4, 8), (4, 7), (False, False), None, None, "shapes do not chain: a is 4x8, b is 4x7"),
    ((4, 8), (5, 7), (True, False), None, None, "shapes do not chain: aᵀ is 8x4, b is 5x7"),
    ((2, 4, 8), (7, 8), (False, True), (7,), (2, 4, 7), None),      # x @ wᵀ + bias: chains
    ((2, 4, 8), (3, 8, 5), (False, False), None, None, "batch sizes differ: a holds 2 matrices, b 3"),
    ((1, 4, 8), (3, 8, 5), (False, False), None, (3, 4, 5), None),  # a batch of one serves all three
    ((4, 8), (3, 8, 5), (False, False), None, (3, 4, 5), None),     # so does a matrix
    ((2, 4, 8), (8, 5), (False, False), None, (4, 5), r"out must be 2x4x5 \(the batch x"),
    ((4, 8), (8, 5), (False, False), (4,), None, r"bias must hold 5 floats .*got shape \(4,\)"),
    ((4, 8), (8, 5), (False, False), (1, 5), None, r"bias must be a vector \(1-D\)"),
])
def test_check_layouts_batches_and_bias(a_shape, b_shape, flags, bias, out_shape, message):
    a, b = dense(a_shape, "a", 1 << 20), dense(b_shape, "b", 2 << 20)
    out = dense(out_shape, "out", 3 << 20) if out_shape else None
    v = dense(bias, "bias", 4 << 20) if bias else None
    if message is None:
        check_shapes(a, b, out, v, *flags)
        assert result_shape(a, b, *flags) == out_shape
        return
    with pytest.raises(sgemm_ladder.LadderArgumentError, match=message):
        check_shapes(a, b, out, v, *flags)


def test_check_resolves_the_rung(rungs):
    a, b, out = chain()
    assert check(a, b, out, "1") == rungs[1]
    with pytest.raises(sgemm_ladder.LadderArgumentError, match="unknown") as caught:
        check(a, b, out, "no_such_rung")
    assert caught.value.status == sgemm_ladder.library.ERR_UNKNOWN_KERNEL


@pytest.mark.parametrize("kwargs, message", [
    (dict(rung=True), "rung must be"), (dict(rung=7.0), "rung must be"),
    (dict(beta=1.0), "beta multiplies out"),
])
def test_mm_keywords(kwargs, message, no_gpu_work):
    with pytest.raises(sgemm_ladder.LadderArgumentError, match=message):
        sgemm_ladder.mm(object(), object(), **kwargs)


def test_mm_refuses_what_is_not_an_array(no_gpu_work):
    with pytest.raises(sgemm_ladder.LadderArgumentError, match="list"):
        sgemm_ladder.mm([[1.0]], [[1.0]])


# --- PyTorch without a GPU: CPU and meta tensors -------------------------------------------------

@pytest.mark.parametrize("case, message", [
    ("dtype", "a must be float32, got float64"),
    ("shapes", "shapes do not chain"),
    ("cpu", "a is on cpu"),
    ("mixed", "so b must be one too"),
])
def test_torch_errors_without_a_gpu(torch_cpu, lib, no_gpu_work, case, message):
    torch = torch_cpu
    a, b = torch.ones(4, 8), torch.ones(8, 4)
    a, b = {"dtype": (a.double(), b), "shapes": (a, b[:7]), "cpu": (a, b), "mixed": (a, [[1.0]])}[case]
    with pytest.raises(sgemm_ladder.LadderArgumentError, match=message):
        sgemm_ladder.mm(a, b)


def test_dlpack_from_the_cpu_is_refused(torch_cpu, lib, no_gpu_work):
    numpy = pytest.importorskip("numpy")
    a = numpy.ones((4, 8), dtype=numpy.float32)
    with pytest.raises(sgemm_ladder.LadderArgumentError, match="a is a numpy.ndarray in host memory"):
        sgemm_ladder.mm(a, a.T.copy())


def test_a_host_array_is_refused_as_such_without_torch(lib, monkeypatch):
    """Without PyTorch too, a NumPy array is refused for being in host memory, not for want of torch."""
    numpy = pytest.importorskip("numpy")
    monkeypatch.setattr(sgemm_ladder, "torch_ops", None)
    a = numpy.ones((4, 8), dtype=numpy.float32)
    with pytest.raises(sgemm_ladder.LadderArgumentError, match="b is a numpy.ndarray in host memory") as e:
        sgemm_ladder.mm(FakeCudaArray(), a.T.copy())
    assert "once PyTorch is installed" not in str(e.value)


class FakeCudaArray:
    """Speaks DLPack from a CUDA device; never read (the refusal comes first)."""
    def __dlpack_device__(self):
        return (2, 0)


def test_fake_implementations_give_shapes(torch_cpu, lib):
    torch = torch_cpu
    a, b = torch.empty(5, 3, device="meta"), torch.empty(3, 7, device="meta")
    assert sgemm_ladder.mm(a, b).shape == (5, 7)
    out = torch.empty(5, 7, device="meta")
    assert sgemm_ladder.mm(a, b, beta=1.0, out=out) is out
    with pytest.raises(sgemm_ladder.LadderArgumentError, match="shapes do not chain"):
        sgemm_ladder.mm(a, torch.empty(4, 7, device="meta"))
    x, w, bias = torch.empty(2, 5, 3, device="meta"), torch.empty(7, 3, device="meta"), torch.empty(7, device="meta")
    assert sgemm_ladder.gemm(x, w, bias, transb=True).shape == (2, 5, 7)
    assert sgemm_ladder.gemm(x, x, transa=True).shape == (2, 3, 3)
    assert sgemm_ladder.mm(torch.empty(4, 5, 3, device="meta"), b).shape == (4, 5, 7)
    with pytest.raises(sgemm_ladder.LadderArgumentError, match="bias must hold 7 floats"):
        sgemm_ladder.gemm(x, w, bias[:6], transb=True)


def test_the_operators_schemas(torch_cpu, lib):
    """Both implementations (C++ and Python) define the schemas of torch_ops.SCHEMAS."""
    torch = torch_cpu
    for name, schema in sgemm_ladder.torch_ops.SCHEMAS.items():
        loaded = getattr(torch.ops.sgemm_ladder, name).default._schema
        assert str(loaded) == str(torch._C.parse_schema(f"sgemm_ladder::{schema}")), name


@pytest.mark.parametrize("transa", [False, True])
@pytest.mark.parametrize("transb", [False, True])
@pytest.mark.parametrize("batch_a, batch_b", [(0, 0), (3, 0), (0, 3), (3, 3), (1, 3), (3, 1)])
def test_gradients_have_the_operands_shapes(torch_cpu, lib, transa, transb, batch_a, batch_b):
    """The backward pass, on meta tensors: every layout and batch, a matrix against a batch and a
    batch of one against three included, gives each operand a gradient of its own shape."""
    torch = torch_cpu
    m, n, k = 5, 7, 3

    def operand(rows, cols, trans, batch):
        shape = (cols, rows) if trans else (rows, cols)
        return torch.empty((batch, *shape) if batch else shape, device="meta", requires_grad=True)

    a, b = operand(m, k, transa, batch_a), operand(k, n, transb, batch_b)
    bias = torch.empty(n, device="meta", requires_grad=True)
    c = sgemm_ladder.gemm(a, b, bias, transa=transa, transb=transb, alpha=2.0)
    assert c.shape == torch.matmul(a.mT if transa else a, b.mT if transb else b).shape
    c.sum().backward()
    assert (a.grad.shape, b.grad.shape, bias.grad.shape) == (a.shape, b.shape, bias.shape)


def test_mm_is_differentiable(torch_cpu, lib):
    torch = torch_cpu
    a = torch.empty(5, 3, device="meta", requires_grad=True)
    b = torch.empty(3, 7, device="meta", requires_grad=True)
    sgemm_ladder.mm(a, b, alpha=0.5).sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape


def test_linear_is_a_torch_linear(torch_cpu, lib):
    """Same parameters, state dict and initialisation as torch.nn.Linear; a torch layer's state dict
    loads into it and back."""
    torch = torch_cpu
    torch.manual_seed(0)
    ref = torch.nn.Linear(6, 4)
    torch.manual_seed(0)
    layer = sgemm_ladder.nn.Linear(6, 4, rung=7)
    assert isinstance(layer, torch.nn.Linear) and layer.rung == "7" and "rung='7'" in repr(layer)
    assert layer.state_dict().keys() == ref.state_dict().keys()
    assert all(torch.equal(layer.state_dict()[k], ref.state_dict()[k]) for k in ref.state_dict())
    other = torch.nn.Linear(6, 4)
    layer.load_state_dict(other.state_dict())
    assert torch.equal(layer.weight, other.weight) and torch.equal(layer.bias, other.bias)
    ref.load_state_dict(layer.state_dict())
    assert torch.equal(ref.weight, other.weight)
    assert sgemm_ladder.nn.Linear(6, 4, bias=False).bias is None


@pytest.mark.parametrize("shape", [(6,), (3, 6), (2, 3, 6), (2, 2, 3, 6)])
def test_linear_takes_any_batch_of_inputs(torch_cpu, lib, shape):
    torch = torch_cpu
    layer = sgemm_ladder.nn.Linear(6, 4, device="meta")
    assert layer(torch.empty(shape, device="meta")).shape == (*shape[:-1], 4)


def test_swap_linears_shares_the_parameters(torch_cpu, lib):
    torch = torch_cpu
    emb = torch.nn.Embedding(10, 6)
    head = torch.nn.Linear(6, 10, bias=False)
    head.weight = emb.weight  # tied, as a language model's head often is
    model = torch.nn.Sequential(emb, torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.ReLU()), head)
    model.eval()
    before = {name: p for name, p in model.named_parameters()}
    keys = model.state_dict().keys()
    assert sgemm_ladder.nn.swap_linears(model, rung=3) is model
    swapped = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert len(swapped) == 2 and all(type(m) is sgemm_ladder.nn.Linear and m.rung == "3" for m in swapped)
    assert {name: p for name, p in model.named_parameters()} == before  # the same Parameter objects
    assert model[2].weight is model[0].weight and not model[2].training
    assert model.state_dict().keys() == keys
    single = torch.nn.Linear(2, 2)
    assert type(sgemm_ladder.nn.swap_linears(single)) is sgemm_ladder.nn.Linear


def test_a_compiled_library_for_another_torch_is_not_loaded(torch_cpu, lib, tmp_path, monkeypatch):
    """A libsgemm_ladder_torch.so built against another torch, or one that does not load, leaves the
    Python operators in charge, with a warning that says why."""
    ops = sgemm_ladder.torch_ops
    fake = tmp_path / ops.COMPILED_NAME
    fake.write_bytes(b"not a library")
    monkeypatch.setenv(ops.COMPILED_ENV, str(fake))
    monkeypatch.delenv(ops.OPS_ENV, raising=False)
    (tmp_path / ops.VERSION_NAME).write_text("0.0.1\n")
    with pytest.warns(RuntimeWarning, match="built against torch 0.0.1, this is torch"):
        assert ops._load_compiled()[0] is False
    (tmp_path / ops.VERSION_NAME).write_text(torch_cpu.__version__ + "\n")
    with pytest.warns(RuntimeWarning, match="does not load"):
        assert ops._load_compiled()[0] is False
    monkeypatch.setenv(ops.OPS_ENV, "python")
    assert ops._load_compiled() == (False, f"${ops.OPS_ENV}=python asks for the Python operators")


def operators(graph_module) -> list[str]:
    """The functions a traced graph calls, overloads named as their operator ("sgemm_ladder.mm")."""
    return [str(node.target).removesuffix(".default") for node in graph_module.graph.nodes
            if node.op == "call_function"]


def test_compile_keeps_the_operators_in_one_graph(torch_cpu, lib):
    """torch.compile(fullgraph=True) raises on any graph break; the graph it hands the backend
    must hold both operators (not a trace through them)."""
    torch = torch_cpu
    graphs = []

    def backend(graph_module, example_inputs):
        graphs.append(graph_module)
        return graph_module.forward

    def f(a, b, c, w, bias):
        d = sgemm_ladder.mm(a, b, alpha=2.0)
        sgemm_ladder.mm(a, b, rung=1, beta=1.0, out=c)
        return d + c + sgemm_ladder.gemm(a, w, bias, transb=True)

    a, b, c, w, bias = (torch.empty(s, device="meta") for s in ((8, 4), (4, 6), (8, 6), (6, 4), (6,)))
    assert torch.compile(f, fullgraph=True, backend=backend)(a, b, c, w, bias).shape == (8, 6)
    assert len(graphs) == 1
    assert {"sgemm_ladder.mm", "sgemm_ladder.mm_out", "sgemm_ladder.gemm"} <= set(operators(graphs[0]))


def test_compile_with_dynamic_shapes_keeps_the_operator(torch_cpu, lib):
    """dynamic=True: the shapes are symbols, and the linear layer's operator stays one node."""
    torch = torch_cpu
    graphs = []

    def backend(graph_module, example_inputs):
        graphs.append(graph_module)
        return graph_module.forward

    layer = sgemm_ladder.nn.Linear(16, 8, device="meta")
    compiled = torch.compile(layer, fullgraph=True, dynamic=True, backend=backend)
    for tokens in (5, 9):
        assert compiled(torch.empty(2, tokens, 16, device="meta")).shape == (2, tokens, 8)
    assert len(graphs) == 1  # one graph for both lengths
    assert operators(graphs[0]).count("sgemm_ladder.gemm") == 1
