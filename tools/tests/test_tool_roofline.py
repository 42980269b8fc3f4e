"""roofline: points from the ncu CSV and the results JSON, ceilings, the figure."""
import json

import pytest

import roofline as rl
import sgemm_tools_common as common

FLOPS = 2.0 * 4096**3


def test_points_take_gflops_from_the_results(data_dir):
    pts = rl.roofline_points(data_dir / "h200_ncu.csv", data_dir / "h200.json")
    assert [p["rung"] for p in pts] == list(range(11))
    p7 = pts[7]
    assert p7["slug"] == "07_bank_conflict_free" and (p7["M"], p7["N"], p7["K"]) == (4096, 4096, 4096)
    assert p7["gflops"] == pytest.approx(33460) and p7["gflops_source"] == "results"
    assert p7["pct_cublas"] == pytest.approx(100 * 33460 / 47250, rel=1e-4)
    ncu7 = common.load_ncu_csv(data_dir / "h200_ncu.csv")[7]
    assert p7["arithmetic_intensity"] == pytest.approx(FLOPS / (ncu7["dram_bytes_read"] + ncu7["dram_bytes_write"]))
    # intensity grows as the tiles grow
    assert pts[1]["arithmetic_intensity"] < pts[3]["arithmetic_intensity"] < pts[5]["arithmetic_intensity"]


def test_points_fall_back_to_ncu(data_dir):
    ncu7 = common.load_ncu_csv(data_dir / "h200_ncu.csv")[7]
    for pts in (rl.roofline_points(data_dir / "h200_ncu.csv"),
                rl.roofline_points(data_dir / "h200_ncu.csv", data_dir / "h200.json", y_source="ncu")):
        assert pts[7]["gflops_source"] == "ncu"
        assert pts[7]["gflops"] == pytest.approx(FLOPS / ncu7["duration_ns"])
        assert pts[7]["pct_cublas"] is None
    with pytest.raises(ValueError):
        rl.roofline_points(data_dir / "h200_ncu.csv", y_source="magic")


def test_points_accept_rows_raw_json_and_dataframes(data_dir):
    rows = common.load_ncu_csv(data_dir / "h200_ncu.csv")
    raw = json.loads((data_dir / "h200.json").read_text())
    expected = rl.roofline_points(data_dir / "h200_ncu.csv", data_dir / "h200.json")
    assert rl.roofline_points(rows, raw) == expected
    assert rl.roofline_points(rows, common.load_results(data_dir / "h200.json")) == expected
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(data_dir / "h200_ncu.csv")
    got = rl.roofline_points(df, raw)
    assert [p["rung"] for p in got] == list(range(11))
    assert got[7]["arithmetic_intensity"] == pytest.approx(expected[7]["arithmetic_intensity"])
    assert got[7]["gflops"] == pytest.approx(expected[7]["gflops"])


def test_points_without_dram_bytes_have_no_intensity():
    rows = [{"rung": "3", "slug": "03_smem_tiling", "M": "64", "N": "64", "K": "64", "duration_ns": "1000",
             "dram_bytes": "", "dram_bytes_read": "", "dram_bytes_write": ""}]
    (p,) = rl.roofline_points(rows)
    assert p["arithmetic_intensity"] is None and p["gflops"] == pytest.approx(2 * 64**3 / 1000)


def test_ceilings():
    ctx = {"sm_count": "132", "sm_clock_max_mhz": "1980", "copy_bandwidth_gbs": "4210"}
    c = rl.ceilings(ctx, bandwidth_gbs=9999)
    assert c["peak_gflops"] == pytest.approx(66908.16)
    assert c["bandwidth_gbs"] == 4210 and c["bandwidth_measured"]
    assert "132 SMs x 128 x 2 x 1980 MHz" in c["peak_label"] and "(measured)" in c["bandwidth_label"]
    c = rl.ceilings({"fp32_peak_gflops_at_max_clock": "66908"}, bandwidth_gbs=4200)
    assert c["peak_gflops"] == 66908 and c["bandwidth_gbs"] == 4200 and not c["bandwidth_measured"]
    assert "not measured" in c["bandwidth_label"]
    c = rl.ceilings(None)
    assert c["peak_gflops"] is None and c["bandwidth_gbs"] is None and c["bandwidth_label"] is None


def test_cli_writes_png_and_json(data_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png, js = tmp_path / "fig" / "roof.png", tmp_path / "roof.json"
    assert rl.main(["--ncu", str(data_dir / "h200_ncu.csv"), "--results", str(data_dir / "h200.json"),
                    "--png", str(png), "--json", str(js)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads(js.read_text())
    assert doc["ceilings"]["bandwidth_measured"] and len(doc["points"]) == 11
    out = capsys.readouterr().out
    assert "10_double_buffering" in out and "FP32 peak 66.9 TFLOP/s" in out


def test_cli_without_results_uses_given_bandwidth(data_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "roof.png"
    assert rl.main(["--ncu", str(data_dir / "h200_ncu.csv"), "--bandwidth-gbs", "4200", "--png", str(png)]) == 0
    assert png.is_file()
    captured = capsys.readouterr()
    assert "not measured" in captured.out and "no FP32 peak" in captured.err


def test_cli_usage_errors(tmp_path):
    assert common.run_main("roofline", rl.main, ["--ncu", str(tmp_path / "missing.csv")]) == 2
    with pytest.raises(SystemExit) as e:
        rl.main([])
    assert e.value.code == 2
