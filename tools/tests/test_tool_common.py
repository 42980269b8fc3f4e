"""sgemm_tools_common: names, numbers and the result-file readers shared by the tools."""
import json
import os
import stat

import pytest

import sgemm_tools_common as common


@pytest.mark.parametrize("name, rung, slug", [
    ("_ZN5sgemm6rung0421sgemm_04_blocktile_1dILi64ELi64ELi8ELi8EEEviiifPKfiS3_ifPfi", 4, "04_blocktile_1d"),
    ("_ZN5sgemm6rung0114sgemm_01_naiveEiiifPKfiS2_ifPfi", 1, "01_naive"),
    ("void sgemm::rung07::sgemm_07_bank_conflict_free<128, 128, 8, 8, 8>(int, int, int, float, "
     "float const*, int, float const*, int, float, float*, int)", 7, "07_bank_conflict_free"),
    ("sgemm_10_double_buffering", 10, "10_double_buffering"),
    ("sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8", None, None),
    ("_ZN5sgemm38_GLOBAL__N__edbe322e_6_api_cu_d52821a314scale_c_kernelEllfPfl", None, None),
])
def test_rung_and_slug_of_kernel_names(name, rung, slug):
    assert common.rung_of_name(name) == rung
    assert common.slug_of_name(name) == slug


@pytest.mark.parametrize("text, value", [
    ("1,234", 1234.0), ("1,754,023,817.52", 1754023817.52), ("0.41", 0.41), (" 12.5% ", 12.5),
    ("n/a", None), ("", None), (None, None), ("nan", None), (7, 7.0), ("4.0e-05", 4e-05), ("abc", None),
])
def test_parse_number(text, value):
    assert common.parse_number(text) == value


def test_fmt_si():
    assert common.fmt_si(None) == "n/a"
    assert common.fmt_si(0) == "0"
    assert common.fmt_si(33_100_000) == "33.1M"
    assert common.fmt_si(1204) == "1.2k"
    assert common.fmt_si(0.22) == "0.22"


def test_load_results_skips_errors_accuracy_and_custom_ld(data_dir):
    res = common.load_results(data_dir / "h200.json")
    assert res["context"]["gpu_name"] == "NVIDIA H200"
    names = [r["name"] for r in res["rows"]]
    assert not any(n.startswith("accuracy/") for n in names)
    assert not any("/ld" in n for n in names)
    r7 = common.result_at(res, 7, 4096, 4096, 4096)
    assert r7["slug"] == "07_bank_conflict_free" and r7["gflops"] == pytest.approx(33460)
    assert r7["verified"] and r7["checked"]
    assert common.result_at(res, 1, 8192, 8192, 8192) is None


def test_results_prefer_the_median_aggregate():
    def b(run_type, gflops, agg=None):
        d = {"name": "rung07_bank_conflict_free/4096x4096x4096/manual_time", "run_type": run_type,
             "GFLOPS": gflops, "rung": 7, "M": 4096, "N": 4096, "K": 4096, "pct_cublas": 70}
        if agg:
            d["aggregate_name"] = agg
        return d

    doc = {"context": {}, "benchmarks": [b("iteration", 1.0), b("iteration", 2.0), b("aggregate", 3.0, "mean"),
                                         b("aggregate", 4.0, "median")]}
    rows = common.results_from_json(doc)["rows"]
    assert len(rows) == 1 and rows[0]["gflops"] == 4.0


def test_fp32_peak_from_context():
    assert common.fp32_peak_gflops({"sm_count": "132", "sm_clock_max_mhz": "1980"}) == pytest.approx(66908.16)
    assert common.fp32_peak_gflops({"fp32_peak_gflops_at_max_clock": "66908"}) == 66908
    assert common.fp32_peak_gflops({}) is None


def test_load_sass_json_rejects_other_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"benchmarks": []}))
    with pytest.raises(common.ToolError):
        common.load_sass_json(p)


def test_load_ncu_csv_types(data_dir):
    rows = common.load_ncu_csv(data_dir / "h200_ncu.csv")
    assert [r["rung"] for r in rows] == list(range(11))
    assert rows[7]["slug"] == "07_bank_conflict_free"
    assert isinstance(rows[7]["duration_ns"], float)
    assert rows[7]["smem_ld_insts"] is None  # empty cell


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

    assert common.run_main("t", fail, []) == 1
    assert common.run_main("t", usage, []) == 2
    assert "t: broken" in capsys.readouterr().err
