"""Loading sgemm_bench's Google Benchmark JSON, the SASS report and the ncu CSV."""
import json

import numpy as np
import pandas as pd
import pytest

import ladderplot as lp


def test_every_gpu_and_its_context(results):
    assert results.gpus == ["a100", "h200"]
    assert results.gpu_name("h200") == "NVIDIA H200"
    assert results.context.loc["h200", "sm_count"] == "132"
    assert lp.context_number(results.context.loc["h200"], "copy_bandwidth_gbs") == 4210
    assert lp.context_number(results.context.loc["a100"], "copy_bandwidth_gbs") is None
    table = lp.context_table(results)
    assert list(table.columns) == ["a100", "h200"] and table.loc["gpu_arch", "a100"] == "sm_80"


def test_rungs_sizes_and_labels_come_from_the_data(results):
    h = results.timing[results.timing["gpu"] == "h200"]
    assert sorted(h["rung"].unique()) == list(range(11))
    assert sorted(h["M"].unique()) == [256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192]
    labels = dict(zip(h["rung"], h["label"]))
    assert labels[0] == "00 cuBLAS (baseline)"
    assert labels[7] == "07 bank conflict free"
    assert lp.rung_label(12, "12_tensor_cores") == "12 tensor cores"


def test_timing_rows_carry_the_counters(results, data_dir):
    raw = json.loads((data_dir / "h200.json").read_text())["benchmarks"]
    want = next(r for r in raw if r["name"].startswith("rung07_bank_conflict_free/4096x4096x4096/"))
    row = results.timing.query("gpu == 'h200' and rung == 7 and M == 4096").iloc[0]
    for key in ("GFLOPS", "pct_cublas", "rel_err", "ms", "samples", "sm_clock_mhz"):
        assert row[key] == pytest.approx(want[key])
    assert row["verified"] is np.True_ or row["verified"] is True
    base = results.timing.query("gpu == 'h200' and rung == 0 and M == 4096").iloc[0]
    assert row["pct_cublas"] == pytest.approx(100 * base["ms"] / row["ms"], rel=1e-4)


def test_errored_rows_are_skipped_with_a_warning(data_dir):
    with pytest.warns(UserWarning, match=r"a100\.json: rung10_double_buffering.*lda=1001"):
        r = lp.load_results(data_dir, gpus="a100")
    custom = r.timing[r.timing["custom_ld"]]
    assert custom[["rung", "lda", "ldb", "ldc"]].values.tolist() == [[0, 1004, 1004, 1004]]
    assert not (r.timing["rung"].eq(10) & r.timing["M"].eq(1000)).any()
    # ladder tables, scaling and the ladder chart use square shapes with default ld only
    assert 1000 not in lp.square_timing(r)["size"].values


def test_accuracy_rows(results):
    a = results.accuracy[results.accuracy["gpu"] == "h200"]
    assert len(a) == 7 * 2 * 11
    assert set(a["input"]) == {"uniform", "normal"}
    assert set(a["M"]) == {1024} and sorted(a["K"].unique())[-1] == 16384
    assert (a["rel_err"] > 0).all()
    # accuracy rows never leak into the timing rows
    assert not results.timing["name"].str.startswith("accuracy/").any()
    table = lp.accuracy_table(results, gpus="h200")
    assert table.shape == (14, 11)


def test_gpu_filter_and_missing_results(data_dir, tmp_path, monkeypatch):
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
        if r["name"].startswith("rung10_double_buffering/") or r["name"].startswith(
                "accuracy/10_double_buffering/"):
            new = dict(r, name=r["name"].replace("10_double_buffering", "11_tensor_cores")
                       .replace("rung10_", "rung11_"), rung=11)
            new["run_name"] = new["name"]
            extra.append(new)
    doc["benchmarks"] += extra
    (folder / "h200.json").write_text(json.dumps(doc))
    r = lp.load_results(folder)
    table = lp.ladder_table(r, 4096)
    assert table.index.get_level_values("rung").tolist() == list(range(12))
    assert table.loc[("h200", 11), "kernel"] == "11 tensor cores"
    assert r.accuracy["rung"].max() == 11
    fig = lp.plot_ladder(r, 4096)
    assert len(fig.axes[0].get_yticklabels()) == 12


def _row(name, rung, gflops, run_type="iteration", aggregate=None, **extra):
    r = {"name": name + (f"_{aggregate}" if aggregate else ""), "run_name": name,
         "run_type": run_type, "time_unit": "ms", "real_time": 1.0, "rung": rung, "M": 1024,
         "N": 1024, "K": 1024, "GFLOPS": gflops, "pct_cublas": 50.0, "rel_err": 1e-7,
         "verified": 1, "checked": 1, "ms": 1.0, "samples": 10, "max_abs_err": 1e-6,
         "sm_clock_mhz": 1980}
    if aggregate:
        r["aggregate_name"] = aggregate
    r.update(extra)
    return r


def test_repetitions_aggregates_and_skipped_rows(tmp_path):
    """--benchmark_repetitions: iteration rows are merged (median), aggregates are not results
    unless a run has only aggregates (then its median); Google Benchmark 1.8 'skipped' rows
    are dropped with a warning."""
    n0 = "rung00_cublas/1024x1024x1024/min_time:0.250/manual_time"
    n1 = "rung01_naive/1024x1024x1024/iterations:20/manual_time"
    n2 = "rung02_coalesced/1024x1024x1024/min_time:0.250/manual_time"
    rows = [_row(n0, 0, g) for g in (100.0, 300.0, 200.0)]
    rows += [_row(n0, 0, 999.0, "aggregate", "mean"), _row(n0, 0, 5.0, "aggregate", "stddev")]
    rows += [_row(n1, 1, 10.0, verified=1), _row(n1, 1, 12.0, verified=0)]
    rows += [_row(n2, 2, 40.0, "aggregate", "mean"), _row(n2, 2, 42.0, "aggregate", "median"),
             _row(n2, 2, 1.0, "aggregate", "cv")]
    rows += [{"name": "rung03_smem_tiling/1024x1024x1024/manual_time", "run_type": "iteration",
              "skipped": True, "skip_message": "not supported here"}]
    (tmp_path / "gpu.json").write_text(json.dumps({"context": {"gpu_name": "X"}, "benchmarks": rows}))
    with pytest.warns(UserWarning, match="not supported here"):
        r = lp.load_results(tmp_path)
    t = r.timing.set_index("rung")
    assert sorted(t.index) == [0, 1, 2]
    assert t.loc[0, "GFLOPS"] == 200.0 and t.loc[0, "samples"] == 30
    assert t.loc[1, "GFLOPS"] == 11.0 and not t.loc[1, "verified"]
    assert t.loc[2, "GFLOPS"] == 42.0


def test_split_files_of_one_gpu_are_merged(copy_gpu):
    folder, doc = copy_gpu("h200")
    acc = [r for r in doc["benchmarks"] if r["name"].startswith("accuracy/")]
    doc["benchmarks"] = [r for r in doc["benchmarks"] if not r["name"].startswith("accuracy/")]
    (folder / "h200.json").write_text(json.dumps(doc))
    (folder / "h200.accuracy.json").write_text(json.dumps({"context": doc["context"], "benchmarks": acc}))
    (folder / "h200_autotune.json").write_text(json.dumps({"tool": "autotune"}))  # not ours: ignored
    r = lp.load_results(folder)
    assert r.gpus == ["h200"] and len(r.accuracy) == len(acc) and len(r.timing) == 99


def test_ladder_table_and_its_display(results):
    t = lp.ladder_table(results, 4096)
    assert list(t.columns[:5]) == ["kernel", "GFLOP/s", "% cuBLAS", "rel_err", "verified"]
    assert t.loc[("h200", 0), "% cuBLAS"] == pytest.approx(100)
    with pytest.raises(ValueError, match="sizes measured"):
        lp.ladder_table(results, 4097)
    shown = lp.format_ladder_table(t.assign(verified=lambda d: d.index.get_level_values(1) != 3))
    assert shown.loc[("h200", 3), "verified"] == "NO"
    assert shown.loc[("h200", 0), "GFLOP/s"].replace(",", "").isdigit()
    scaling = lp.scaling_table(results)
    assert scaling.loc[("a100", 0)].columns.tolist()[:2] == [256, 512]


def test_sass_report(sass):
    h = sass[sass["gpu"] == "h200"]
    assert sorted(h["rung"].unique()) == list(range(1, 11))
    res = lp.sass_resources(sass).loc["h200"]
    assert res.loc[10, "registers"] == 219 and res.loc[10, "shared_bytes"] == 1024
    counts = lp.sass_table(sass).loc["h200"]
    assert counts.loc["LDGSTS", "10 double buffering"] == 18  # cp.async, the lesson of rung 10
    assert counts.loc["LDGSTS", "09 warptiling"] == 0
    assert "LDS.64" not in counts.index  # no rung uses it
    assert "NOP" not in set(h["category"])  # padding, not in the mix
    for rung, g in h.groupby("rung"):
        assert g["count"].sum() == g["total"].iloc[0]
        assert g["ffma_share"].iloc[0] == pytest.approx(
            g.loc[g["category"] == "FFMA", "count"].sum() / g["total"].iloc[0])


def test_sass_missing_totals_are_computed(tmp_path):
    doc = {"tool": "sass_report", "gpu_arch": "sm_90",
           "rungs": [{"rung": 1, "slug": "01_naive", "counts": {"FFMA": 3, "LDG.E": 1, "NOP": 5}}]}
    (tmp_path / "x_sass.json").write_text(json.dumps(doc))
    s = lp.load_sass(tmp_path)
    assert s["total"].tolist() == [4, 4] and s["ffma_share"].iloc[0] == 0.75
    assert lp.load_sass(tmp_path / "nothing").empty


def test_ncu_csv(ncu, tmp_path):
    assert ncu["gpu"].unique().tolist() == ["h200"]
    table = lp.ncu_table(ncu)
    assert {"achieved_occupancy_pct", "stall_long_scoreboard", "smem_ld_bank_conflicts"} <= set(table.columns)
    assert not {"kernel", "block_size", "slug"} & set(table.columns)  # text stays out
    # other column sets: only read and write bytes, no flops
    pd.DataFrame({"rung": [1], "slug": ["01_naive"], "M": [64], "N": [64], "K": [64],
                  "duration_ns": [1000], "dram_bytes_read": [3000], "dram_bytes_write": [1096]}
                 ).to_csv(tmp_path / "g_ncu.csv", index=False)
    other = lp.load_ncu(tmp_path)
    assert other["flops"].iloc[0] == 2 * 64**3 and other["dram_bytes"].iloc[0] == 4096
    assert lp.load_ncu(tmp_path / "nothing").empty


def test_make_results_from_rows_like_torch_ladder():
    """The shape live.torch_ladder builds: timing rows only, no accuracy, a sparse context."""
    rows = [dict(gpu="live", rung=r, slug=s, M=512, N=512, K=512, GFLOPS=g, rel_err=1e-7,
                 verified=True, checked=True, ms=2 * 512**3 / g * 1e-6, samples=5,
                 max_abs_err=1e-6, sm_clock_mhz=float("nan"), name=s)
             for r, s, g in ((0, "00_cublas", 9000.0), (1, "01_naive", 300.0))]
    timing = pd.DataFrame(rows).assign(pct_cublas=[100.0, 300 / 90])
    r = lp.make_results(timing, None, {"live": {"gpu_name": "Some GPU", "sm_count": "10",
                                                "sm_clock_max_mhz": "nan"}}, "torch_ladder")
    assert r.accuracy.empty and r.gpus == ["live"]
    assert lp.ladder_table(r, 512).loc[("live", 1), "kernel"] == "01 naive"
    assert lp.plot_ladder(r, 512).axes[0].get_title() == "Some GPU"
