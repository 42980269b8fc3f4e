"""CPU tests of the ctypes layer: the library's registry read through the C ABI, the version, the
declared C types against sgemm_ladder.h, where the library is looked for, and rung lookup. No GPU."""
import ctypes
import dataclasses
import re
from pathlib import Path

import pytest

import sgemm_ladder
from sgemm_ladder import library

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "kernels" / "include" / "sgemm_ladder.h"
needs_checkout = pytest.mark.skipif(not HEADER.is_file(), reason="not a source checkout")


def _header_without_comments() -> str:
    return re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)


C_TYPES = {"int": ctypes.c_int, "int64_t": ctypes.c_int64, "float": ctypes.c_float, "char": ctypes.c_char,
           "const char*": ctypes.c_char_p, "void*": ctypes.c_void_p, "const float*": ctypes.c_void_p,
           "float*": ctypes.c_void_p, "sgemm_ladder_kernel_desc*": ctypes.POINTER(library._KernelDesc)}


def _c_type(declaration: str, named: bool = True):
    """ctypes type of a C declaration: 'int64_t lda' -> c_int64, 'const float* A' -> c_void_p,
    'void' -> None; ``named=False`` for a type alone ('const char*')."""
    declaration = re.sub(r"\s*\*\s*", "* ", declaration.strip()).strip()
    if declaration == "void":
        return None
    return C_TYPES[declaration.rsplit(" ", 1)[0] if named else declaration]


@needs_checkout
def test_signatures_match_the_header():
    prototypes = {m["name"]: m for m in re.finditer(
        r"(?P<result>[\w\s*]+?)\s*\b(?P<name>sgemm_ladder_\w+)\s*\((?P<args>[^)]*)\)\s*;",
        re.sub(r"^#.*$", "", _header_without_comments(), flags=re.M))}  # without the preprocessor's lines
    assert set(prototypes) == set(library.SIGNATURES)
    for name, (restype, argtypes) in library.SIGNATURES.items():
        proto = prototypes[name]
        assert restype == _c_type(proto["result"], named=False), name
        declared = [_c_type(arg) for arg in proto["args"].split(",")]
        assert argtypes == [t for t in declared if t is not None], name


@needs_checkout
def test_kernel_desc_fields_match_the_header():
    struct = re.search(r"typedef struct sgemm_ladder_kernel_desc \{(.*?)\}", _header_without_comments(), re.S)
    fields = re.findall(r"(\w[\w\s*]*?)\s*\b(\w+);", struct.group(1))
    assert [(name, _c_type(ctype, named=False)) for ctype, name in fields] == library._KernelDesc._fields_


@needs_checkout
def test_status_codes_match_the_header():
    text = _header_without_comments()
    assert re.search(rf"SGEMM_LADDER_OK = {library.OK},", text)
    assert re.search(rf"SGEMM_LADDER_ERR_UNKNOWN_KERNEL = {library.ERR_UNKNOWN_KERNEL},", text)
    assert re.search(rf"SGEMM_LADDER_ERR_INVALID_TRANS = {library.ERR_INVALID_TRANS},", text)
    assert re.search(rf"SGEMM_LADDER_ERR_INVALID_BATCH = {library.ERR_INVALID_BATCH}\b", text)


@needs_checkout
def test_takes_bits_match_the_header():
    text = _header_without_comments()
    for name in ("LAYOUTS", "BATCH", "BIAS"):
        assert re.search(rf"#define SGEMM_LADDER_TAKES_{name} {getattr(library, 'TAKES_' + name)}\b", text), name


def test_rungs_are_the_registry(lib, rungs):
    assert len(rungs) == lib.sgemm_ladder_kernel_count() > 0
    assert [r.id for r in rungs] == [lib.sgemm_ladder_kernel_id(i) for i in range(len(rungs))]
    assert [r.slug for r in rungs] == [lib.sgemm_ladder_kernel_name(r.id).decode() for r in rungs]
    assert len({r.id for r in rungs}) == len(rungs)
    baseline = rungs[0]
    assert (baseline.id, baseline.track, baseline.builds_on) == (0, "baseline", None)
    ids = {r.id for r in rungs}
    for r in rungs:
        assert r.slug.startswith(f"{r.id:02d}_"), r
        assert r.builds_on is None or r.builds_on in ids, r
        assert r.title and r.lesson and r.arch.startswith("sm_"), r
        assert isinstance(r.fp32_accurate, bool)
    assert any(not r.fp32_accurate for r in rungs), "a TF32 rung, which the GPU tests rely on"


@needs_checkout
def test_rung_sources_exist(rungs):
    for r in rungs:
        assert (ROOT / "kernels" / r.source).is_file(), r


def test_rungs_are_immutable_records(rungs):
    with pytest.raises(dataclasses.FrozenInstanceError):
        rungs[0].slug = "changed"
    assert [f.name for f in dataclasses.fields(sgemm_ladder.Rung)] == [
        "id", "slug", "track", "builds_on", "title", "lesson", "fp32_accurate", "source", "arch",
        "kernel", "tile", "capstone", "takes", "call_flags"]
    mine = sgemm_ladder.rungs()
    mine.clear()  # a fresh list each call: changing it changes no one else's
    assert sgemm_ladder.rungs() == rungs


def test_one_version(lib):
    assert sgemm_ladder.__version__ == library.version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", sgemm_ladder.__version__)


@needs_checkout
def test_version_is_cmakes():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert f"project(sgemm_ladder VERSION {sgemm_ladder.__version__} " in cmake


def test_find_rung_by_id_slug_and_text(rungs):
    some = rungs[len(rungs) // 2]
    assert library.find_rung(some.id) == some
    assert library.find_rung(str(some.id)) == some
    assert library.find_rung(some.slug) == some


def test_unknown_rung_carries_the_library_status(rungs):
    with pytest.raises(sgemm_ladder.LadderArgumentError) as caught:
        library.find_rung("no_such_rung")
    err = caught.value
    assert err.status == library.ERR_UNKNOWN_KERNEL
    assert err.reason and err.reason in str(err)
    assert rungs[1].slug in err.detail  # the message lists the rungs
    assert isinstance(err, ValueError) and isinstance(err, RuntimeError)


def test_one_capstone_ends_the_cuda_core_track(rungs):
    """The registry marks one capstone, the last rung of the CUDA-core track; the package reports
    it as the C ABI does (tests/cpu/test_registry.cpp checks the table's side)."""
    marked = [r for r in rungs if r.capstone]
    assert len(marked) == 1
    cap = marked[0]
    assert library.capstone() == cap
    assert cap.track == "cuda-core"
    assert cap == [r for r in rungs if r.track == cap.track][-1]


def test_names_resolve_in_the_library(rungs):
    """"auto", "auto_cuda_cores" and "capstone" mean what the library says they mean
    (sgemm_ladder_kernel_lookup, the one resolution the package and the PyTorch operators share)."""
    dispatch = [r for r in rungs if r.track == library.DISPATCH_TRACK]
    cap = library.capstone()
    assert library.find_rung("capstone") == cap
    assert library.find_rung("auto") == (dispatch[-1] if dispatch else cap)
    kept = library.find_rung(library.AUTO_CUDA_CORES)
    if dispatch:
        assert kept.id == dispatch[-1].id and kept.call_id == dispatch[-1].id | library.CUDA_CORES
        assert library.find_rung("auto").call_id == dispatch[-1].id, "plain auto carries no flag"
    else:
        assert kept == cap, "no dispatch rung: the capstone, all CUDA cores"
    lib = library.load()
    for r in rungs:
        assert lib.sgemm_ladder_kernel_lookup(r.slug.encode()) == r.id
        assert lib.sgemm_ladder_kernel_lookup(str(r.id).encode()) == r.id
    assert lib.sgemm_ladder_kernel_lookup(b"auto ") == -1 and lib.sgemm_ladder_kernel_lookup(None) == -1


def test_tensor_switches_set_and_restore():
    before = sgemm_ladder.set_tensor_cores(False)
    try:
        assert sgemm_ladder.tensor_cores() is False
        with sgemm_ladder.cuda_cores_only():
            assert sgemm_ladder.tensor_cores() is False
        sgemm_ladder.set_tensor_cores(True)
        with sgemm_ladder.cuda_cores_only():
            assert sgemm_ladder.tensor_cores() is False
        assert sgemm_ladder.tensor_cores() is True
    finally:
        sgemm_ladder.set_tensor_cores(before)
    budget = sgemm_ladder.set_tensor_workspace(None)
    assert budget >= 1 << 20
    assert sgemm_ladder.set_tensor_workspace(budget) == budget
    with pytest.raises(sgemm_ladder.LadderArgumentError):
        sgemm_ladder.set_tensor_workspace(-1)


def test_library_path_prefers_the_environment_in_a_checkout(tmp_path, monkeypatch):
    if (library.PACKAGE_DIR / library.LIB_NAME).is_file():
        pytest.skip("an installed package uses its own library")
    fake = tmp_path / library.LIB_NAME
    fake.write_bytes(b"")
    monkeypatch.setenv(library.LIB_ENV, str(fake))
    assert library.library_path() == fake


def test_missing_library_says_how_to_get_one(tmp_path, monkeypatch):
    if (library.PACKAGE_DIR / library.LIB_NAME).is_file():
        pytest.skip("an installed package uses its own library")
    monkeypatch.setenv(library.LIB_ENV, str(tmp_path / "nowhere.so"))
    with pytest.raises(sgemm_ladder.LibraryNotFoundError, match="pip install .*cmake --build"):
        library.library_path()


def test_library_errors_read_status_and_detail(lib):
    """A call the library refuses without touching the GPU: M = -1."""
    with pytest.raises(sgemm_ladder.LadderError) as caught:
        library.run(0, -1, 1, 1, 1.0, 0, 1, 0, 1, 0.0, 0, 1, 0)
    err = caught.value
    assert err.status == 1  # SGEMM_LADDER_ERR_INVALID_SIZE
    assert err.reason == lib.sgemm_ladder_status_string(1).decode()
    assert "M=-1" in err.detail and "M=-1" in str(err)
    assert not isinstance(err, ValueError)  # found by the library, not by the Python checks


def test_an_older_library_says_to_rebuild_for_the_general_entry(lib):
    """A library built before sgemm_ladder_gemm loads (rungs, sgemm_ladder_run); the general entry
    says what to do instead of failing on a missing symbol."""
    if library.has("sgemm_ladder_gemm"):
        pytest.skip("this library has the general entry")
    with pytest.raises(sgemm_ladder.LadderError, match="predates sgemm_ladder_gemm .*rebuild"):
        library.gemm(0, "N", "N", 1, 1, 1, 1.0, 0, 1, 0, 0, 1, 0, 0.0, 0, 1, 0, 0, 1, 0)


def test_general_entry_refusals_read_status_and_detail(lib):
    """A call the general entry refuses without touching the GPU: a transpose flag of 'X'."""
    if not library.has("sgemm_ladder_gemm"):
        pytest.skip("this library predates the general entry")
    with pytest.raises(sgemm_ladder.LadderError) as caught:
        library.gemm(0, "X", "N", 1, 1, 1, 1.0, 0, 1, 0, 0, 1, 0, 0.0, 0, 1, 0, 0, 1, 0)
    assert caught.value.status == library.ERR_INVALID_TRANS


def test_refusals_read_back_from_text(lib):
    """The C++ operators report a refusal as text; error_from_message recovers its status."""
    reason = lib.sgemm_ladder_status_string(6).decode()
    err = library.error_from_message(f"sgemm_ladder_gemm(rung 7, NT, M=1, N=2, K=3, batch=1): {reason}: too big")
    assert (err.status, err.reason, err.detail) == (6, reason, "too big") and not isinstance(err, ValueError)
    assert library.error_from_message("CUDA out of memory") is None


@needs_checkout
def test_docs_and_package_agree_on_the_capstone(rungs, monkeypatch):
    """tools/docs.py takes the capstone from the same registry field the package reads, and the
    README it generated names that rung (tools/docs.py --check keeps the README current)."""
    import sys
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    sys.modules.pop("docs", None)
    import docs
    cap = library.capstone()
    assert docs.capstone(rungs) == cap
    readme = " ".join(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", (ROOT / "README.md").read_text()).split())  # links as text
    assert f"{docs.short_title(cap)} (the capstone)" in readme  # the track list
    assert set(re.findall(r"capstone \(rung (\d+)\)", readme)) <= {str(cap.id)}  # the headline, where results exist
