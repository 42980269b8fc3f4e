"""CPU tests of sgemm_ladder.mm's argument checks: layouts, the errors found before any GPU work,
and the PyTorch operators on meta tensors (shapes only), torch.compile included. No GPU."""
import pytest

import sgemm_ladder
from sgemm_ladder.gemm import Matrix, check

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
    (dict(shape=(4, 8, 1), strides=(8, 1, 1)), {}, {}, "a must be a matrix"),
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


def test_compile_keeps_the_operators_in_one_graph(torch_cpu, lib):
    """torch.compile(fullgraph=True) raises on any graph break; the graph it hands the backend
    must hold both operators (not a trace through them)."""
    torch = torch_cpu
    graphs = []

    def backend(graph_module, example_inputs):
        graphs.append(graph_module)
        return graph_module.forward

    def f(a, b, c):
        d = sgemm_ladder.mm(a, b, alpha=2.0)
        sgemm_ladder.mm(a, b, rung=1, beta=1.0, out=c)
        return d + c

    a, b, c = (torch.empty(s, device="meta") for s in ((8, 4), (4, 6), (8, 6)))
    assert torch.compile(f, fullgraph=True, backend=backend)(a, b, c).shape == (8, 6)
    assert len(graphs) == 1
    targets = {str(node.target) for node in graphs[0].graph.nodes if node.op == "call_function"}
    assert {"sgemm_ladder.mm", "sgemm_ladder.mm_out"} <= targets
