"""The notebooks' tables: the reader's records as DataFrames, every GPU, the spread, SASS and ncu."""
import dataclasses
import json

import pytest

pytest.importorskip("pandas", reason="the notebooks' tables are pandas DataFrames")
pytest.importorskip("matplotlib", reason="ladderplot draws with matplotlib")
import ladderplot as lp  # noqa: E402
from ladderplot.data import reader  # noqa: E402

RUNGS = list(range(16)) + [21, 22, 23, 30]


def test_every_gpu_and_its_context(results):
    assert results.gpus == ["h100", "h200"]
    assert results.gpu_name("h200") == "NVIDIA H200" and results.gpu_name("other") == "other"
    assert results.context.loc["h200", "sm_count"] == "132"
    assert results.by_gpu["h200"].copy_bandwidth_gbs == 4270 and results.by_gpu["h100"].fp32_peak_gflops > 0
    table = lp.context_table(results)
    assert list(table.columns) == ["h100", "h200"] and table.loc["fp32_peak_gflops", "h200"] == "66908"


def test_rows_are_the_readers_records(results, data_dir):
    """The timing table is the reader's rows, nothing computed again."""
    direct = reader.load("h200", data_dir)
    row = results.timing.query("gpu == 'h200' and rung == 7 and M == 4096").iloc[0]
    want = direct.row(7, 4096)
    for key in ("gflops", "pct", "pct_lo", "pct_hi", "ms", "ms_q1", "ms_q3", "rel_err", "samples", "sm_clock_mhz"):
        assert row[key] == pytest.approx(getattr(want, key)), key
    assert row["verdict"] == want.verdict and bool(row["verified"])
    assert (row["gflops_lo"], row["gflops_hi"]) == pytest.approx(want.gflops_iqr)
    assert row["label"] == "07 bank conflict free" and row["size"] == 4096


def test_rungs_sizes_and_labels_come_from_the_data(results):
    h = results.timing[results.timing["gpu"] == "h200"]
    assert sorted(h["rung"].unique()) == RUNGS
    assert sorted(h["M"].unique()) == [256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192]
    labels = dict(zip(h["rung"], h["label"]))
    assert labels[0] == "00 cuBLAS (baseline)" and labels[23] == "23 wgmma 3xtf32"
    assert lp.rung_label(12, "12_stream_k") == "12 stream k"


def test_failed_rows_are_left_out_with_a_warning(data_dir):
    with pytest.warns(UserWarning, match=r"h100\.json: rung10_double_buffering.*lda=1001"):
        r = lp.load_results(data_dir, gpus="h100")
    assert not (r.timing["rung"].eq(10) & r.timing["M"].eq(1000)).any()
    assert not r.timing["M"].eq(1000).any()  # the custom-ld row is not the plain shape either
    assert 1000 not in lp.square_timing(r)["size"].values


def test_accuracy_rows(results):
    a = results.accuracy[results.accuracy["gpu"] == "h200"]
    assert len(a) == 4 * 2 * len(RUNGS)
    assert set(a["input"]) == {"uniform", "normal"} and set(a["M"]) == {1024} and a["K"].max() == 16384
    assert (a["rel_err"] > 0).all()
    assert a.loc[a["rung"] == 21, "cublas_tf32_rel_err"].notna().all()
    assert lp.accuracy_table(results, gpus="h200").shape == (8, len(RUNGS))


def test_gpu_filter_and_missing_results(data_dir, tmp_path):
    assert lp.load_results(data_dir, gpus=["h200"]).gpus == ["h200"]
    with pytest.raises(FileNotFoundError, match="SGEMM_RESULTS_DIR"):
        lp.load_results(tmp_path)
    with pytest.raises(FileNotFoundError, match="for GPUs"):
        lp.load_results(data_dir, gpus=["v100"])
    assert lp.load_results(tmp_path, missing_ok=True) is None
    assert not lp.has_results(tmp_path) and lp.has_results(data_dir)


def test_results_dir_default_and_environment(monkeypatch, tmp_path):
    assert lp.results_dir() == lp.REPO_ROOT / "bench" / "results"
    assert lp.results_dir(tmp_path) == tmp_path.resolve()
    monkeypatch.setenv(lp.RESULTS_ENV, str(tmp_path))
    assert lp.results_dir("../bench/results") == tmp_path.resolve()
    monkeypatch.setenv(lp.RESULTS_ENV, "notebooks/tests/data")  # relative: from the repo root
    assert lp.results_dir("../bench/results") == lp.REPO_ROOT / "notebooks" / "tests" / "data"


def test_a_new_rung_is_picked_up_without_edits(copy_gpu):
    folder, doc = copy_gpu("h200")
    extra = []
    for r in doc["benchmarks"]:
        if r["name"].startswith(("rung23_wgmma_3xtf32/", "accuracy/23_wgmma_3xtf32/")):
            name = r["name"].replace("23_wgmma_3xtf32", "24_tma_3xtf32")
            extra.append(dict(r, name=name, run_name=name, rung=24))
    doc["benchmarks"] += extra
    (folder / "h200.json").write_text(json.dumps(doc))
    r = lp.load_results(folder)
    table = lp.ladder_table(r, 4096)
    assert table.index.get_level_values("rung").tolist() == sorted(RUNGS + [24])
    assert table.loc[("h200", 24), "kernel"] == "24 tma 3xtf32"
    assert 24 in set(r.accuracy["rung"])
    assert len(lp.plot_ladder(r, 4096).axes[0].get_yticklabels()) == len(RUNGS) + 1


def test_ladder_table_carries_the_spread_and_its_display(results):
    t = lp.ladder_table(results, 4096)
    assert list(t.columns[:8]) == ["kernel", "GFLOP/s", "GFLOP/s lo", "GFLOP/s hi", "% cuBLAS", "% lo", "% hi",
                                   "verdict"]
    assert t.loc[("h200", 0), "% cuBLAS"] == pytest.approx(100)
    assert t.loc[("h200", 21), "verdict"] == "faster" and t.loc[("h200", 1), "verdict"] == "slower"
    with pytest.raises(ValueError, match="sizes measured"):
        lp.ladder_table(results, 4097)
    shown = lp.format_ladder_table(t.assign(verified=lambda d: d.index.get_level_values(1) != 3))
    assert shown.loc[("h200", 3), "verified"] == "NO"
    assert shown.loc[("h200", 0), "GFLOP/s"].replace(",", "").isdigit()
    lo, hi = t.loc[("h200", 7), ["% lo", "% hi"]]
    assert shown.loc[("h200", 7), "% cuBLAS [interval]"].endswith(f"[{lo:.1f}, {hi:.1f}]")
    assert shown.loc[("h200", 7), "ms [quartiles]"].count("[") == 1
    scaling = lp.scaling_table(results)
    assert scaling.loc[("h100", 0)].columns.tolist()[:2] == [256, 512]


def test_older_files_show_no_spread(tmp_path, data_dir):
    """A file from before the spread was measured: the table says "-" where it has nothing."""
    doc = json.loads((data_dir / "h100.json").read_text())
    for b in doc["benchmarks"]:
        for key in ("pct_cublas_lo", "pct_cublas_hi", "ms_q1", "ms_q3"):
            b.pop(key, None)
    (tmp_path / "old.json").write_text(json.dumps(doc))
    with pytest.warns(UserWarning):
        t = lp.ladder_table(lp.load_results(tmp_path), 4096)
    shown = lp.format_ladder_table(t)
    assert t["% lo"].isna().all() and t["verdict"].isna().all()
    assert "[" not in shown.loc[("old", 7), "% cuBLAS [interval]"] and shown.loc[("old", 7), "verdict"] == "-"


def test_sass_report(sass):
    h = sass[sass["gpu"] == "h200"]
    assert sorted(h["rung"].unique()) == RUNGS[1:]  # cuBLAS has no SASS of ours
    res = lp.sass_resources(sass).loc["h200"]
    assert res.loc[10, "registers"] == 255 and res.loc[10, "shared_bytes"] == 1024
    assert "sgemm_12_stream_k<" in res.loc[12, "function"]  # the registry's kernel, not the shares
    counts = lp.sass_table(sass).loc["h200"]
    assert counts.loc["LDGSTS", "10 double buffering"] == 96  # cp.async, the lesson of rung 10
    assert counts.loc["LDGSTS", "09 warptiling"] == 0
    assert counts.loc["HGMMA", "23 wgmma 3xtf32"] > 0
    assert "LDS.64" not in counts.index  # no rung uses it
    assert not {"NOP", "FFMA.reuse"} & set(h["category"])  # not instructions of the mix
    for rung, g in h.groupby("rung"):
        assert g["count"].sum() == g["total"].iloc[0]
        assert g["ffma_share"].iloc[0] == pytest.approx(
            g.loc[g["category"] == "FFMA", "count"].sum() / g["total"].iloc[0])
    assert lp.load_sass("/nonexistent").empty


def test_ncu_csv(ncu):
    assert ncu["gpu"].unique().tolist() == ["h200"]
    table = lp.ncu_table(ncu)
    assert {"achieved_occupancy_pct", "stall_long_scoreboard", "dram_bytes"} <= set(table.columns)
    assert not {"kernel", "block_size", "slug"} & set(table.columns)  # text stays out
    assert table["smem_ld_insts"].isna().all()  # a metric the profile did not collect
    assert lp.load_ncu("/nonexistent").empty


def test_roofline_points_are_the_tools(ncu, results, data_dir):
    pts = lp.roofline_points(ncu, results)
    assert len(pts) == len(RUNGS) and set(pts["gflops_source"]) == {"results"}
    p7 = pts[pts["rung"] == 7].iloc[0]
    row = results.by_gpu["h200"].row(7, 4096)
    assert p7["gflops"] == row.gflops and (p7["gflops_lo"], p7["gflops_hi"]) == pytest.approx(row.gflops_iqr)
    assert p7["arithmetic_intensity"] == pytest.approx(p7["flops"] / p7["dram_bytes"])
    alone = lp.roofline_points(ncu)
    assert set(alone["gflops_source"]) == {"ncu"}
    assert lp.roofline_points(ncu.iloc[0:0]).empty
    table = lp.ceilings_table(results, bandwidth_gbs=1000)
    assert table.loc["h200", "FP32 peak (GFLOP/s)"] == 66908 and table.loc["h200", "bandwidth measured"]
    assert table.loc["h200", "ridge (FLOP/byte)"] == pytest.approx(66908 / 4270)


def test_frames_of_records_like_a_live_run():
    """The shape live.torch_ladder builds: the reader's rows of one GPU, no accuracy sweep."""
    rows = [lp.live.live_row(0, "00_cublas", 512, [1.0, 1.1, 0.9], 1.0, 1e-7, True),
            dataclasses.replace(lp.live.live_row(1, "01_naive", 512, [30.0], 1.0, 1e-7, True), label="picked")]
    r = lp.frames({"live": reader.Results("live", None, {"gpu_name": "Some GPU"}, rows, [])})
    assert r.accuracy.empty and r.gpus == ["live"]
    t = lp.ladder_table(r, 512)
    assert t.loc[("live", 1), "kernel"] == "01 naive" and t.loc[("live", 1), "% cuBLAS"] == pytest.approx(100 / 30)
    assert t.loc[("live", 0), "ms"] == 1.0 and t.loc[("live", 0), "ms q1"] < 1.0 < t.loc[("live", 0), "ms q3"]
    assert r.timing["choice"].tolist() == ["", "picked"]  # the reader's Row.label: what a picking rung ran
    assert lp.plot_ladder(r, 512).axes[0].get_title() == "Some GPU"
