"""roofline: points from the ncu CSV and the results file, the roofs, the figure."""
import json
import sys

import pytest

import roofline as rl
import sgemm_tools_common as common
from sgemm_ladder import results

FLOPS = 2.0 * 4096**3
RUNGS = [0, 1, 2, 6, 7, 10, 12, 15, 21, 23]


def test_points_take_gflops_and_spread_from_the_results(data_dir):
    pts = rl.roofline_points(data_dir / "h200_ncu.csv", data_dir / "h200.json")
    assert [p["rung"] for p in pts] == RUNGS
    p7 = next(p for p in pts if p["rung"] == 7)
    row = results.load("h200", data_dir).row(7, 4096)
    assert p7["slug"] == "07_bank_conflict_free" and (p7["M"], p7["N"], p7["K"]) == (4096, 4096, 4096)
    assert p7["gflops"] == row.gflops and p7["gflops_source"] == "results"
    assert (p7["gflops_lo"], p7["gflops_hi"]) == row.gflops_iqr
    assert (p7["pct_cublas"], p7["pct_lo"], p7["pct_hi"]) == (row.pct, row.pct_lo, row.pct_hi)
    ncu7 = results.load_ncu("h200", data_dir)[7]
    assert p7["arithmetic_intensity"] == pytest.approx(FLOPS / (ncu7["dram_bytes_read"] + ncu7["dram_bytes_write"]))
    by = {p["rung"]: p for p in pts}
    assert by[1]["arithmetic_intensity"] < by[2]["arithmetic_intensity"] < by[7]["arithmetic_intensity"]


def test_points_fall_back_to_ncu(data_dir):
    ncu7 = results.load_ncu("h200", data_dir)[7]
    for pts in (rl.roofline_points(data_dir / "h200_ncu.csv"),
                rl.roofline_points(data_dir / "h200_ncu.csv", data_dir / "h200.json", y_source="ncu")):
        p7 = next(p for p in pts if p["rung"] == 7)
        assert p7["gflops_source"] == "ncu" and p7["gflops"] == pytest.approx(FLOPS / ncu7["duration_ns"])
        assert p7["pct_cublas"] is None and p7["gflops_lo"] is None
    with pytest.raises(ValueError):
        rl.roofline_points(data_dir / "h200_ncu.csv", y_source="magic")


def test_points_accept_loaded_files(data_dir):
    expected = rl.roofline_points(data_dir / "h200_ncu.csv", data_dir / "h200.json")
    assert rl.roofline_points(results.load_ncu("h200", data_dir), results.load("h200", data_dir)) == expected


def test_points_without_dram_bytes_have_no_intensity():
    rows = {3: {"rung": 3, "slug": "03_smem_tiling", "M": 64, "N": 64, "K": 64, "duration_ns": 1000.0,
                "dram_bytes": None, "dram_bytes_read": None, "dram_bytes_write": None}}
    (p,) = rl.roofline_points(rows)
    assert p["arithmetic_intensity"] is None and p["gflops"] == pytest.approx(2 * 64**3 / 1000)


def test_roofs_come_from_the_results(data_dir):
    c = rl.ceilings(results.load("h200", data_dir), bandwidth_gbs=9999)
    assert c.peak_gflops == 66908 and c.bandwidth_gbs == 4210 and c.bandwidth_measured
    assert c.peak_label == "FP32 peak 66.9 TFLOP/s (132 SMs x 128 lanes x 2 x 1980 MHz)"
    assert "(measured)" in c.bandwidth_label
    assert c.ridge == pytest.approx(66908 / 4210)
    assert c.attainable(1.0) == 4210 and c.attainable(1e4) == 66908
    old = rl.ceilings(results.load("a100", data_dir))  # no fp32_lanes_per_sm: the figure alone
    assert old.peak_label == "FP32 peak 19.5 TFLOP/s" and old.peak_gflops == 19491


def test_roofs_without_results():
    c = rl.ceilings(None, bandwidth_gbs=4200)
    assert c.peak_gflops is None and c.bandwidth_gbs == 4200 and not c.bandwidth_measured
    assert "not measured" in c.bandwidth_label and c.ridge is None and c.attainable(2.0) == 8400
    c = rl.ceilings(None)
    assert c.bandwidth_gbs is None and c.bandwidth_label is None and c.attainable(2.0) is None


def test_cli_writes_png_and_json(data_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png, js = tmp_path / "fig" / "roof.png", tmp_path / "roof.json"
    assert rl.main(["--ncu", str(data_dir / "h200_ncu.csv"), "--results", str(data_dir / "h200.json"),
                    "--png", str(png), "--json", str(js)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads(js.read_text())
    assert doc["ceilings"]["bandwidth_measured"] and len(doc["points"]) == len(RUNGS)
    assert doc["ceilings"]["ridge"] == pytest.approx(66908 / 4210)
    out = capsys.readouterr().out
    assert "10_double_buffering" in out and "FP32 peak 66.9 TFLOP/s" in out


def test_cli_without_results_uses_given_bandwidth(data_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "roof.png"
    assert rl.main(["--ncu", str(data_dir / "h200_ncu.csv"), "--bandwidth-gbs", "4200", "--png", str(png)]) == 0
    assert png.is_file()
    captured = capsys.readouterr()
    assert "not measured" in captured.out and "no FP32 peak" in captured.err


def test_cli_without_matplotlib_says_so(data_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    argv = ["--ncu", str(data_dir / "h200_ncu.csv"), "--png", str(tmp_path / "r.png")]
    assert common.run_main("roofline", rl.main, argv) == 1
    assert "roofline: --png needs the Python package matplotlib" in capsys.readouterr().err


def test_cli_usage_errors(tmp_path):
    assert common.run_main("roofline", rl.main, ["--ncu", str(tmp_path / "missing.csv")]) == 2
    with pytest.raises(SystemExit) as e:
        rl.main([])
    assert e.value.code == 2
