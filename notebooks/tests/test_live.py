"""The live paths without a GPU: the C ABI's ctypes signatures and argument marshalling (against
the header, a stand-in library compiled here, and the real library when it is built), and
sgemm_bench runs through a stand-in executable."""
import ctypes
import json
import re
import shutil
import subprocess
import textwrap

import pytest

import ladderplot as lp
from ladderplot import live

HEADER = lp.REPO_ROOT / "kernels" / "sgemm_ladder.h"
C_TYPES = {"int": ctypes.c_int, "int64_t": ctypes.c_int64, "float": ctypes.c_float,
           "const char*": ctypes.c_char_p}


def _ctype(decl: str):
    """ctypes type of a C declaration like 'const float* A' or 'int64_t lda'."""
    decl = re.sub(r"\s+", " ", decl).strip()
    if decl == "void":
        return None
    typ = re.sub(r"\s*\b\w+$", "", decl) if not decl.endswith("*") else decl
    typ = typ.replace(" *", "*")
    if typ in C_TYPES:
        return C_TYPES[typ]
    assert typ.endswith("*"), f"unexpected C type {typ!r}"
    return ctypes.c_void_p


def test_signatures_match_the_header():
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    protos = {m["name"]: m for m in re.finditer(
        r"(?P<ret>[\w\s\*]+?)\s*\b(?P<name>sgemm_ladder_\w+)\s*\((?P<args>[^)]*)\)\s*;", text)}
    assert set(protos) == set(live.SIGNATURES)
    for name, (restype, argtypes) in live.SIGNATURES.items():
        ret = re.sub(r"\s+", " ", protos[name]["ret"]).strip().replace(" *", "*")
        assert C_TYPES.get(ret) == restype, name
        args = [a for a in protos[name]["args"].split(",") if a.strip() not in ("", "void")]
        assert [_ctype(a) for a in args] == argtypes, name


FAKE_C = textwrap.dedent("""
    #include <stdint.h>
    static int64_t ints[11];
    static double floats[2];
    int sgemm_ladder_run(int id, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                         int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                         int64_t ldc, void* stream) {
      int64_t v[11] = {id, M, N, K, lda, ldb, ldc, (int64_t)(intptr_t)A, (int64_t)(intptr_t)B,
                       (int64_t)(intptr_t)C, (int64_t)(intptr_t)stream};
      for (int i = 0; i < 11; ++i) ints[i] = v[i];
      floats[0] = alpha; floats[1] = beta;
      return id == 2 ? 6 : 0;
    }
    const char* sgemm_ladder_status_string(int s) { return s == 6 ? "unsupported" : "success"; }
    const char* sgemm_ladder_last_error(void) { return ints[0] == 2 ? "A is not 16-byte aligned" : ""; }
    int sgemm_ladder_kernel_count(void) { return 3; }
    const char* sgemm_ladder_kernel_name(int i) {
      static const char* n[] = {"00_cublas", "01_naive", "02_coalesced"};
      return i >= 0 && i < 3 ? n[i] : 0;
    }
    void fake_last(int64_t* i, double* f) {
      for (int k = 0; k < 11; ++k) i[k] = ints[k];
      f[0] = floats[0]; f[1] = floats[1];
    }
""")


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler for the stand-in library")
    d = tmp_path_factory.mktemp("fake")
    (d / "fake.c").write_text(FAKE_C)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(d / "libfake.so"), str(d / "fake.c")], check=True)
    cdll = ctypes.CDLL(str(d / "libfake.so"))
    ladder = live.SgemmLadder(cdll=cdll)

    def last():
        ints, floats = (ctypes.c_int64 * 11)(), (ctypes.c_double * 2)()
        cdll.fake_last(ints, floats)
        return list(ints), list(floats)
    return ladder, last


class FakeTensor:
    """What SgemmLadder.gemm reads of a torch.Tensor."""

    def __init__(self, rows, cols, ld=None, ptr=0x7F0000001000, dtype="torch.float32", col_stride=1):
        self.shape, self._stride = (rows, cols), (ld or cols, col_stride)
        self._ptr, self.dtype, self.is_cuda, self.device = ptr, dtype, True, "cuda:0"

    def dim(self):
        return 2

    def stride(self, d=None):
        return self._stride if d is None else self._stride[d]

    def data_ptr(self):
        return self._ptr


def test_run_marshals_every_argument(fake):
    ladder, last = fake
    big = 2**33 + 5  # needs all 64 bits
    ladder.run(1, big, 3, 7, 0.5, 0x1000, 11, 0x2000, 13, 3.0, 0x3000, 17, stream=0xBEEF0)
    ints, floats = last()
    assert ints == [1, big, 3, 7, 11, 13, 17, 0x1000, 0x2000, 0x3000, 0xBEEF0]
    assert floats == [0.5, 3.0]
    ladder.run(1, 1, 1, 1, 1.0, 0x10, 1, 0x20, 1, 0.0, 0x30, 1, stream=None)
    assert last()[0][-1] == 0  # the default stream is NULL


def test_errors_carry_status_and_detail(fake):
    ladder, _ = fake
    with pytest.raises(live.SgemmLadderError, match="unsupported: A is not 16-byte aligned") as e:
        ladder.run(2, 4, 4, 4, 1.0, 0x10, 4, 0x20, 4, 0.0, 0x30, 4)
    assert e.value.status == 6


def test_kernel_names(fake):
    ladder, _ = fake
    assert ladder.kernels() == {0: "00_cublas", 1: "01_naive", 2: "02_coalesced"}
    assert ladder.kernel_name(99) is None


def test_gemm_reads_shapes_and_leading_dimensions_from_tensors(fake):
    ladder, last = fake
    A = FakeTensor(5, 3, ld=8, ptr=0xA000)
    B = FakeTensor(3, 4, ptr=0xB000)
    C = FakeTensor(5, 4, ld=12, ptr=0xC000)
    assert ladder.gemm(1, A, B, C, alpha=2.0, beta=0.25, stream=0x5) is C
    ints, floats = last()
    assert ints == [1, 5, 4, 3, 8, 4, 12, 0xA000, 0xB000, 0xC000, 0x5] and floats == [2.0, 0.25]
    with pytest.raises(ValueError, match="do not chain"):
        ladder.gemm(1, A, FakeTensor(4, 4), C, stream=0)
    with pytest.raises(TypeError, match="float32"):
        ladder.gemm(1, FakeTensor(5, 3, dtype="torch.float64"), B, C, stream=0)
    with pytest.raises(ValueError, match="contiguous rows"):
        ladder.gemm(1, FakeTensor(5, 3, col_stride=5), B, C, stream=0)


def test_the_real_library_when_built():
    if not live.DEFAULT_LIB.exists():
        pytest.skip(f"{live.DEFAULT_LIB} not built")
    try:
        ladder = live.SgemmLadder()
    except OSError as e:
        pytest.skip(f"cannot load the library here: {e}")
    names = ladder.kernels()
    assert names[0] == "00_cublas" and len(names) == ladder.kernel_count() >= 2
    # lda < K is refused before any GPU work: the message shows int64 values got through in order
    with pytest.raises(live.SgemmLadderError, match=r"lda=2 is smaller than max\(1, K=4\)") as e:
        ladder.run(1, 4, 4, 4, 1.0, 0x10, 2, 0x20, 4, 0.0, 0x30, 4)
    assert e.value.status == 2
    with pytest.raises(live.SgemmLadderError, match="unknown kernel id"):
        ladder.run(ladder.kernel_count(), 4, 4, 4, 1.0, 0x10, 4, 0x20, 4, 0.0, 0x30, 4)


def test_torch_ladder_on_a_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not live.DEFAULT_LIB.exists():
        pytest.skip("needs PyTorch with CUDA and the built library")
    r = live.torch_ladder(size=256, repeats=3, warmup=1)
    t = lp.ladder_table(r, 256)
    assert t["verified"].all() and t.loc[("live", 0), "% cuBLAS"] == pytest.approx(100)


@pytest.fixture
def fake_bench(tmp_path, data_dir, monkeypatch):
    script = tmp_path / "sgemm_bench"
    script.write_text(textwrap.dedent("""\
        #!/bin/sh
        out=""; prev=""
        for a in "$@"; do [ "$prev" = "--json" ] && out="$a"; prev="$a"; done
        echo "$@" > "$(dirname "$0")/args.txt"
        cp "$FAKE_FIXTURE" "$out"
        echo "fake table"
        echo "fake complaint" >&2
        exit ${FAKE_RC:-0}
        """))
    script.chmod(0o755)
    monkeypatch.setenv("FAKE_FIXTURE", str(data_dir / "h200.json"))
    return script


def test_run_sgemm_bench_writes_a_results_folder(fake_bench, tmp_path, capsys):
    out = live.run_sgemm_bench(["--size", 4096], out_dir=tmp_path / "out", bench=fake_bench)
    args = (tmp_path / "args.txt").read_text().split()
    assert args == ["--size", "4096", "--json", str(tmp_path / "out" / "live.json")]
    assert "fake table" in capsys.readouterr().out
    r = lp.load_results(out)
    assert r.gpus == ["live"] and r.gpu_name("live") == "NVIDIA H200"


def test_run_sgemm_bench_exit_codes(fake_bench, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_RC", "1")
    with pytest.warns(UserWarning, match="failed verification"):
        live.run_sgemm_bench([], out_dir=tmp_path / "a", bench=fake_bench)
    monkeypatch.setenv("FAKE_RC", "3")
    with pytest.raises(RuntimeError, match="exited with 3:\nfake complaint"):
        live.run_sgemm_bench([], out_dir=tmp_path / "b", bench=fake_bench)
    with pytest.raises(FileNotFoundError, match="cmake --workflow --preset release"):
        live.run_sgemm_bench([], bench=tmp_path / "missing")


def test_pick_source(fake_bench, data_dir, monkeypatch):
    folder, gpus = lp.pick_source(lp.DEFAULT_RESULTS_DIR, ["h200"])
    assert folder == lp.REPO_ROOT / "bench" / "results" and gpus == ["h200"]
    monkeypatch.setenv(lp.RESULTS_ENV, str(data_dir))
    assert lp.pick_source("../bench/results", None) == (data_dir, None)
    monkeypatch.setenv(live.BENCH_ENV, str(fake_bench))
    folder, gpus = lp.pick_source("ignored", ["h200"], live=True, bench=["--size", 64])
    assert gpus is None and json.loads((folder / "live.json").read_text())["benchmarks"]
