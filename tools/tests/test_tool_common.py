"""sgemm_tools_common: exit codes, executables, kernel names against the registry, files, numbers."""
import gzip
import lzma
import os
import stat

import pytest

import sgemm_tools_common as common


STREAM_K = "void sgemm::rung12::sgemm_12_stream_k{}<{}, sgemm::rung12::Config<64> >(int)"


@pytest.mark.parametrize("name, text, matches", [
    (STREAM_K.format("", "true"), "sgemm_12_stream_k<true", True),
    (STREAM_K.format("", "false"), "sgemm_12_stream_k<true", False),  # the unaligned instance
    (STREAM_K.format("_shares", "true"), "sgemm_12_stream_k<true", False),
    ("sgemm_12_stream_k", "sgemm_12_stream_k<true", True),  # ncu's bare function name
    ("sgemm::rung12::sgemm_12_stream_k", "sgemm_12_stream_k<true", True),
    ("sgemm_12_stream_k_shares", "sgemm_12_stream_k<true", False),
    ("void sgemm::rung30::sgemm_30_gemv<8>(int, int, int)", "sgemm_30_gemv<", True),
    ("sgemm::rung01::sgemm_01_naive(int, int, int, float)", "sgemm_01_naive", True),
    ("sgemm_01_naive", "sgemm_01_naive", True),
    ("sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8", "", False),  # cuBLAS: no text
])
def test_kernel_matches(name, text, matches):
    assert common.kernel_matches(name, text) == matches


def test_registry_comes_from_the_package(registry):
    assert common.registry() == registry
    by_id = {r.id: r for r in common.registry()}
    assert by_id[0].kernel == "" and by_id[12].kernel == "sgemm_12_stream_k<true" and by_id[21].track == "tensor-core"
    assert by_id[30].track == "dispatch"


def test_fmt_si():
    assert common.fmt_si(None) == "n/a"
    assert common.fmt_si(0) == "0"
    assert common.fmt_si(33_100_000) == "33.1M"
    assert common.fmt_si(1204) == "1.2k"
    assert common.fmt_si(0.22) == "0.22"


def test_format_table():
    text = common.format_table(["rung", "GFLOP/s"], [["7", "39.7k"], ["10", "49k"]], rule=False)
    assert text.splitlines() == ["rung  GFLOP/s", "7       39.7k", "10        49k"]
    assert common.format_table(["a"], [["x"]]).splitlines()[1] == "-"


def test_open_text_reads_plain_gzip_and_xz(tmp_path):
    for name, opener in (("a.txt", open), ("a.txt.gz", gzip.open), ("a.txt.xz", lzma.open)):
        with opener(tmp_path / name, "wt") as f:
            f.write("FFMA\n")
        with common.open_text(tmp_path / name) as f:
            assert f.read() == "FFMA\n"


def test_find_executable_order(tmp_path, monkeypatch):
    exe = tmp_path / "bin" / "mytool"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("MYTOOL", raising=False)
    assert common.find_executable("mytool", "MYTOOL", [exe.parent]) == exe
    assert common.find_executable("mytool", "MYTOOL") is None
    monkeypatch.setenv("PATH", str(exe.parent) + os.pathsep + os.environ["PATH"])
    assert common.find_executable("mytool", "MYTOOL").resolve() == exe.resolve()
    monkeypatch.setenv("MYTOOL", str(tmp_path / "nope"))  # an explicit choice is not second-guessed
    assert common.find_executable("mytool", "MYTOOL", [exe.parent]) is None


def test_run_main_maps_errors_to_exit_codes(capsys):
    def fail(_):
        raise common.ToolError("broken")

    def usage(_):
        raise common.UsageError("bad flag")

    def no_pandas(_):
        raise common.missing_package("pandas")

    assert common.run_main("t", fail, []) == 1
    assert common.run_main("t", usage, []) == 2
    assert "t: broken" in capsys.readouterr().err
    assert common.run_main("t", no_pandas, []) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("t: needs the Python package pandas: pip install")
