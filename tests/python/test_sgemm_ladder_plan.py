"""CPU tests of the plan (gemm.plan): how each layout and batch reaches sgemm_ladder_gemm, with no
copy where the library can read an operand in place. And the C++ operators' plan against it, on
meta tensors of the same shapes and strides (when libsgemm_ladder_torch.so is loaded). No GPU."""
import itertools
import random

import pytest

from sgemm_ladder.gemm import Matrix, plan

M, N, K, B = 6, 5, 4, 3


def op(name, shape, strides=None):
    """An operand record; contiguous unless strides are given."""
    if strides is None:
        strides, step = [], 1
        for n in reversed(shape):
            strides.insert(0, step)
            step *= max(1, n)
    return Matrix(name=name, shape=tuple(shape), strides=tuple(strides), dtype="float32", device="cuda:0",
                  ptr=1 << 20)


def t(m: Matrix) -> Matrix:
    """m's transposed view, as .t() / .mT gives it."""
    return m.t()


# name: (a, b, out, bias, transa, transb, what the plan must say)
CASES = {
    "nn": (op("a", (M, K)), op("b", (K, N)), None, None, False, False,
           dict(transa="N", transb="N", m=M, n=N, k=K, lda=K, ldb=N, ldc=N, batch=1, copy=())),
    "b is w.t(): read as T in place": (op("a", (M, K)), t(op("b", (N, K))), None, None, False, False,
                                       dict(transa="N", transb="T", ldb=K, copy=())),
    "transb asks for wᵀ": (op("a", (M, K)), op("b", (N, K)), None, None, False, True,
                          dict(transb="T", ldb=K, n=N, copy=())),
    "transa of a transposed view: row-major again": (t(op("a", (M, K))), op("b", (K, N)), None, None, True, False,
                                                     dict(transa="N", lda=K, m=M, copy=())),
    "transa of a stored Kx M": (op("a", (K, M)), op("b", (K, N)), None, None, True, False,
                                dict(transa="T", lda=M, m=M, k=K, copy=())),
    "slices keep their leading dimensions": (op("a", (M, K), (K + 3, 1)), op("b", (K, N), (N + 7, 1)), None, None,
                                             False, False, dict(lda=K + 3, ldb=N + 7, copy=())),
    "broadcast rows are copied": (op("a", (M, K), (0, 1)), op("b", (K, N)), None, None, False, False,
                                  dict(copy=("a",))),
    "stride-2 columns are copied": (op("a", (M, K)), op("b", (K, N), (2 * N, 2)), None, None, False, False,
                                    dict(copy=("b",))),
    "x @ wᵀ folds the batch into rows": (op("a", (B, M, K)), op("b", (N, K)), None, op("bias", (N,)), False, True,
                                         dict(transa="N", transb="T", m=B * M, lda=K, ldb=K, ldc=N, batch=1,
                                              stride_a=0, stride_c=0, fold=True, shape=(B, M, N))),
    "a batch that does not fold is one strided call": (
        op("a", (B, M, K), (2 * M * K, K, 1)), op("b", (K, N)), None, None, False, False,
        dict(m=M, batch=B, stride_a=2 * M * K, stride_b=0, ldc=N, stride_c=M * N, fold=False)),
    "a batch of transposed matrices": (op("a", (B, K, M)), op("b", (K, N)), None, None, True, False,
                                       dict(transa="T", lda=M, stride_a=K * M, batch=B, fold=False)),
    "a matrix against a batch: stride 0": (op("a", (M, K)), op("b", (B, K, N)), None, None, False, False,
                                          dict(batch=B, stride_a=0, stride_b=K * N, stride_c=M * N)),
    "a batch of one against three": (op("a", (1, M, K)), op("b", (B, K, N)), None, None, False, False,
                                     dict(batch=B, stride_a=0, stride_b=K * N)),
    "two batches": (op("a", (B, M, K)), t(op("b", (B, N, K))), None, None, False, False,
                    dict(transb="T", ldb=K, batch=B, stride_a=M * K, stride_b=N * K, stride_c=M * N)),
    "out with a wider row is written in place": (op("a", (M, K)), op("b", (K, N)), op("out", (M, N), (N + 1, 1)),
                                                 None, False, False, dict(ldc=N + 1, out_direct=True)),
    "a column-major out gets the result through a copy": (op("a", (M, K)), op("b", (K, N)), t(op("out", (N, M))),
                                                         None, False, False, dict(ldc=N, out_direct=False)),
    "a batched out with gaps: no fold, its own batch stride": (
        op("a", (B, M, K)), op("b", (K, N)), op("out", (B, M, N), (M * N + 8, N, 1)), None, False, False,
        dict(fold=False, batch=B, stride_c=M * N + 8, out_direct=True)),
    "a strided bias is copied": (op("a", (M, K)), op("b", (K, N)), None, op("bias", (N,), (2,)), False, False,
                                 dict(copy=("bias",))),
    "a negative batch stride (CuPy) is copied": (op("a", (B, M, K), (-M * K, K, 1)), op("b", (K, N)), None, None,
                                                 False, False, dict(copy=("a",))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_plan(name):
    a, b, out, bias, transa, transb, want = CASES[name]
    p = plan(a, b, out, bias, transa, transb)
    got = {field: getattr(p, field) for field in want}
    assert got == want


def test_a_plain_call_is_sgemm_ladder_run():
    assert plan(op("a", (M, K)), op("b", (K, N))).plain
    assert not plan(op("a", (M, K)), t(op("b", (N, K)))).plain
    assert not plan(op("a", (B, M, K)), op("b", (B, K, N))).plain


def test_after_its_copies_a_plan_needs_none():
    """What the plan copies comes back contiguous, and a contiguous operand is read as it is."""
    for a, b, out, bias, transa, transb, _ in CASES.values():
        p = plan(a, b, out, bias, transa, transb)
        copied = {name: op(name, x.shape) for name, x in (("a", a), ("b", b), ("bias", bias)) if name in p.copy}
        again = plan(copied.get("a", a), copied.get("b", b), out, copied.get("bias", bias), transa, transb)
        assert again.copy == ()


# --- The C++ operators' plan: the same, field for field ------------------------------------------

def as_list(p) -> list[int]:
    return [ord(p.transa), ord(p.transb), p.m, p.n, p.k, p.lda, p.stride_a, p.ldb, p.stride_b, p.ldc, p.stride_c,
            p.batch, "a" in p.copy, "b" in p.copy, "bias" in p.copy, p.out_direct, p.fold]


@pytest.fixture(scope="module")
def compiled(torch_cpu, lib):
    import sgemm_ladder

    if sgemm_ladder.torch_ops.BACKEND != "c++":
        pytest.skip(f"the C++ operators are not loaded: {sgemm_ladder.torch_ops.WHY_PYTHON}")
    return sgemm_ladder.torch_ops


def meta(torch, m):
    if m is None:
        return None
    return torch.empty_strided(m.shape, [max(s, 0) for s in m.strides], device="meta")


def random_operand(rng, name, rows, cols, batch):
    """A matrix or batch in one of the layouts the operators meet: contiguous, transposed, a slice
    of a wider matrix, broadcast rows, a padded batch."""
    layout = rng.choice(["row", "col", "wide", "broadcast"])
    if layout == "row":
        strides = [cols, 1]
    elif layout == "col":
        strides = [1, rows]
    elif layout == "wide":
        strides = [cols + rng.randint(1, 5), 1]
    else:
        strides = [0, 1]
    shape = [rows, cols]
    if batch:
        span = max(strides[0] * rows, strides[1] * cols, 1)
        shape.insert(0, batch)
        strides.insert(0, rng.choice([span, span + 4, 0]))  # 0: one matrix broadcast over the batch
    return op(name, shape, strides)


def test_cpp_plan_is_the_python_plan(torch_cpu, compiled):
    torch = torch_cpu
    cases = [c[:6] for c in CASES.values() if all(x is None or min(x.strides) >= 0 for x in c[:4])]
    rng = random.Random(39)
    for transa, transb, batches in itertools.product([False, True], [False, True],
                                                      [(0, 0), (3, 0), (0, 3), (3, 3), (1, 3)]):
        for _ in range(8):
            m, n, k = rng.randint(1, 7), rng.randint(1, 7), rng.randint(1, 7)
            a = random_operand(rng, "a", *((k, m) if transa else (m, k)), batches[0])
            b = random_operand(rng, "b", *((n, k) if transb else (k, n)), batches[1])
            bias = op("bias", (n,), (rng.choice([1, 2]),)) if rng.random() < 0.5 else None
            cases.append((a, b, None, bias, transa, transb))
    for a, b, out, bias, transa, transb in cases:
        want = as_list(plan(a, b, out, bias, transa, transb))
        got = compiled.plan_of(meta(torch, a), meta(torch, b), meta(torch, out), meta(torch, bias), transa, transb)
        assert got == want, (a.shape, a.strides, b.shape, b.strides, transa, transb)
