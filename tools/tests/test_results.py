"""sgemm_ladder.results, the one reader of the result files: today's counters (with and without
repetitions), the counters of older files, failed rows of Google Benchmark 1.7 and 1.8, suites,
the SASS report and the ncu CSV."""
import dataclasses
import json
import math

import pytest

from sgemm_ladder import results


def test_gpus_are_the_tags_with_a_results_file(data_dir, tmp_path):
    # h200_workloads.json, h200_sass.json and registry_rungs.json are not GPUs of their own
    assert results.gpus(data_dir) == ["a100", "h100", "h200"]
    assert results.gpus(data_dir, "_sass.json") == results.gpus(data_dir, "_ncu.csv") == ["h200"]
    assert results.gpus(tmp_path) == [] and results.gpus(tmp_path / "missing") == []


def test_results_dir_is_the_checkout_or_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(results.RESULTS_ENV, raising=False)
    assert results.results_dir() == results.checkout() / "bench" / "results"
    monkeypatch.setenv(results.RESULTS_ENV, str(tmp_path))
    assert results.results_dir() == tmp_path.resolve()
    monkeypatch.setenv(results.RESULTS_ENV, "tools/tests/data")  # relative: from the checkout's root
    assert results.results_dir() == results.checkout() / "tools" / "tests" / "data"
    assert results.gpus() == ["a100", "h100", "h200"]


def test_load_by_tag_path_and_suite(data_dir):
    by_tag = results.load("h200", data_dir)
    by_path = results.load(data_dir / "h200.json")
    assert by_tag.tag == by_path.tag == "h200" and by_tag.path == by_path.path
    assert by_tag.rows == by_path.rows
    suite = results.load("h200", data_dir, suite="workloads")
    assert suite.tag == "h200" and suite.shapes() == [(1, 4096, 4096), (512, 6144, 4096), (4096, 4096, 256)]
    with pytest.raises(FileNotFoundError, match="sgemm_bench --json"):
        results.load("v100", data_dir)
    with pytest.raises(ValueError, match="not `sgemm_bench --json` output"):
        results.load(data_dir / "h200_sass.json")


@pytest.fixture(scope="module")
def h200(request):
    return results.load(request.path.parent / "data" / "h200.json")


def test_suite_rows_are_named_by_shape_and_carry_the_dispatch_choice(data_dir):
    suite = results.load("h200", data_dir, suite="workloads")
    assert results.gpus(data_dir, "_workloads.json") == ["h200"]
    decode = suite.row(30, 1, 4096, 4096)
    assert decode.name == "rung30_auto/decode_q_b1" and decode.name.split("/")[1] == "decode_q_b1"
    assert decode.label == "gemv M<=8" and suite.row(0, 1, 4096, 4096).label == ""
    assert (decode.M, decode.N, decode.K) == (1, 4096, 4096)  # from the counters: the name has none
    by_name = suite.by_name(30)
    assert list(by_name) == ["decode_q_b1", "prefill_qkv_512", "small_k"] and by_name["decode_q_b1"] is decode
    assert suite.by_name(29) == {} and set(suite.by_name(0)) == set(by_name)


def test_context_and_what_it_says(h200):
    assert h200.gpu_name == "NVIDIA H200" and h200.context["sm_count"] == "132"
    assert all(isinstance(v, str) for v in h200.context.values())
    assert json.loads(h200.context["caches"]) == []
    assert h200.fp32_peak_gflops == 66908 and h200.copy_bandwidth_gbs == 4210
    assert h200.context_number("gpu_name") is None and h200.context_number("sm_clock_max_mhz") == 1980


def test_repeated_rows_are_their_median_and_its_interval(h200, data_dir):
    raw = json.loads((data_dir / "h200.json").read_text())["benchmarks"]
    passes = [b for b in raw if b["run_name"].startswith("rung07_bank_conflict_free/4096x4096x4096/")]
    assert [b.get("aggregate_name") for b in passes] == [None, None, None, "median", "ci_lo", "ci_hi"]
    row = h200.row(7, 4096)
    assert row.name == "rung07_bank_conflict_free/4096x4096x4096" and row.slug == "07_bank_conflict_free"
    assert row.repetitions == 3
    pcts = sorted(b["pct_cublas"] for b in passes[:3])
    assert row.pct == pcts[1] and (row.pct_lo, row.pct_hi) == (pcts[0], pcts[2])
    assert row.gflops == passes[3]["GFLOPS"] and row.ms == passes[3]["ms"]
    assert row.ms_q1 < row.ms < row.ms_q3
    lo, hi = row.gflops_iqr
    assert lo < row.gflops < hi and lo == pytest.approx(row.flops / row.ms_q3 * 1e-6)
    assert (row.sm_clock_min_mhz, row.sm_clock_mhz, row.sm_clock_max_mhz) == (1965, 1980, 1980)
    assert row.verified and row.checked and row.fp32_accurate and row.clock_ok and row.remeasured == 0
    assert row.verdict == "slower"


def test_shapes_rungs_and_both_tracks(h200):
    assert h200.rungs() == [0, 1, 2, 6, 7, 10, 12, 15, 21, 23]
    assert h200.shapes() == [(1024, 8192, 8192), (4096, 4096, 4096), (8192, 8192, 8192)]
    assert h200.sizes() == [4096, 8192]
    assert h200.row(7, 1024, 8192, 8192).M == 1024 and h200.row(1, 8192) is None
    assert h200.slugs()[23] == "23_wgmma_3xtf32"
    tf32 = h200.row(21, 4096)
    assert not tf32.fp32_accurate and tf32.pct_cublas_tf32 < 100 and tf32.cublas_tf32_rel_err > 0
    assert h200.row(7, 4096).pct_cublas_tf32 is None
    assert tf32.verdict == "faster"


def test_failed_rows_and_custom_leading_dimensions_are_left_out(h200):
    # Google Benchmark 1.8: error_occurred (a refused row) and skipped
    assert [name for name, _ in h200.skipped] == ["rung10_double_buffering/1000x1000x1000/ld1001_1001_1001",
                                                  "rung23_wgmma_3xtf32/64x64x64"]
    assert "lda=1001" in h200.skipped[0][1] and h200.skipped[1][1] == "not built for this GPU"
    assert h200.row(0, 1000) is None  # its row ran with ld1004: not the plain shape
    assert h200.row(23, 64) is None

    # ... unless asked for: the unaligned results files hold only such rows.
    with_ld = results.load(h200.path, custom_ld=True)
    row = with_ld.row(0, 1000)
    assert row is not None and row.name.endswith("/ld1004_1004_1004")


def test_a_row_without_repetitions_carries_its_own_interval(data_dir):
    h100 = results.load("h100", data_dir)
    row = h100.row(7, 4096)
    assert row.repetitions == 1 and row.pct_lo < row.pct < row.pct_hi
    fell = h100.row(12, 8192)
    assert fell.clock_ok is False and fell.remeasured == 1 and fell.sm_clock_min_mhz == 1410
    assert h100.skipped == [("rung23_wgmma_3xtf32/4096x4096x4096",
                             "23_wgmma_3xtf32: not built for this GPU's architecture")]  # Google Benchmark 1.7


def test_older_files_read_none_for_the_counters_they_lack(data_dir):
    a100 = results.load("a100", data_dir)
    row = a100.row(7, 8192)
    assert row.pct is not None and row.gflops > 0 and row.verified
    for absent in ("ms_q1", "ms_q3", "pct_lo", "pct_hi", "cublas_ms", "sm_clock_min_mhz", "sm_clock_max_mhz",
                   "clock_ok", "remeasured"):
        assert getattr(row, absent) is None, absent
    assert row.verdict is None and row.gflops_iqr is None
    assert a100.fp32_peak_gflops == 19491  # from fp32_peak_gflops_at_max_clock
    assert len(a100.accuracy) == 2 and a100.accuracy[0].rel_err > 0


def test_accuracy_rows(h200):
    acc = h200.accuracy
    assert len(acc) == 2 * 2 * 3
    assert {a.input for a in acc} == {"uniform", "normal"} and {a.K for a in acc} == {256, 4096}
    tf32 = next(a for a in acc if a.rung == 21)
    assert tf32.slug == "21_mma_tf32" and tf32.cublas_tf32_rel_err == 2.4e-04 and tf32.verified
    assert all(a.M == a.N == 1024 for a in acc)


def test_geomean_over_the_sizes_present(h200):
    pcts = [h200.row(7, s).pct for s in (4096, 8192)]
    assert h200.geomean_pct(7) == pytest.approx(math.sqrt(pcts[0] * pcts[1]))
    assert h200.geomean_pct(7, sizes=(4096,)) == pytest.approx(pcts[0])
    assert h200.geomean_pct(1, sizes=(8192,)) is None and h200.geomean_pct(99) is None


@pytest.mark.parametrize("lo, hi, verdict", [(100.2, 102.0, "faster"), (97.0, 99.9, "slower"),
                                             (99.5, 100.5, "level"), (100.0, 101.0, "level"), (None, None, None)])
def test_verdict(h200, lo, hi, verdict):
    assert dataclasses.replace(h200.row(7, 4096), pct_lo=lo, pct_hi=hi).verdict == verdict


def _doc(rows):
    return {"context": {"gpu_name": "X"}, "benchmarks": rows}


def _bench(name, **counters):
    return {"name": name + "/iterations:1/manual_time", "run_name": name + "/iterations:1/manual_time",
            "run_type": "iteration", "rung": 7, "M": 64, "N": 64, "K": 64, "GFLOPS": 1.0, "ms": 1.0,
            "pct_cublas": 90.0, "verified": 1, **counters}


def test_passes_without_aggregates_give_their_median_and_any_failed_pass_fails_the_row(tmp_path):
    name = "rung07_bank_conflict_free/64x64x64"
    rows = [_bench(name, GFLOPS=g, pct_cublas=p, verified=v, repetition_index=i)
            for i, (g, p, v) in enumerate(((1.0, 90.0, 1), (3.0, 95.0, 0), (2.0, 80.0, 1)))]
    (tmp_path / "x.json").write_text(json.dumps(_doc(rows)))
    (row,) = results.load("x", tmp_path).rows
    assert row.gflops == 2.0 and row.pct == 90.0 and row.repetitions == 3
    assert not row.verified  # a median of 1, 0, 1 would say verified


def test_rows_without_counters_and_other_aggregates_are_not_rows(tmp_path):
    name = "rung07_bank_conflict_free/64x64x64"
    mean = dict(_bench(name, GFLOPS=99.0), run_type="aggregate", aggregate_name="mean")
    bare = {"name": "something_else", "run_type": "iteration"}
    (tmp_path / "x.json").write_text(json.dumps(_doc([_bench(name), mean, bare])))
    (row,) = results.load("x", tmp_path).rows
    assert row.gflops == 1.0 and row.repetitions == 1 and row.checked


def test_sass_report_by_rung(data_dir):
    sass = results.load_sass("h200", data_dir)
    assert sorted(sass) == list(range(1, 16)) + [21, 22, 23, 30]  # cuBLAS has no SASS of ours
    assert sass[7]["slug"] == "07_bank_conflict_free" and sass[7]["gpu_arch"] == "sm_90"
    assert sass[12]["function"].startswith("void sgemm::rung12::sgemm_12_stream_k<true,")
    with pytest.raises(ValueError, match="sass_report"):
        results.load_sass(data_dir / "h200.json")
    assert results.load_sass("h100", data_dir) == {}  # a GPU without a SASS report
    with pytest.raises(FileNotFoundError, match="sass_report.py --all --json"):
        results.load_sass(data_dir / "h100_sass.json")


def test_ncu_rows_by_rung(data_dir):
    ncu = results.load_ncu("h200", data_dir)
    assert sorted(ncu) == [0, 1, 2, 6, 7, 10, 12, 15, 21, 23]
    r7 = ncu[7]
    assert r7["slug"] == "07_bank_conflict_free" and r7["kernel"] == "sgemm_07_bank_conflict_free"
    assert isinstance(r7["rung"], int) and isinstance(r7["M"], int) and isinstance(r7["duration_ns"], float)
    assert r7["smem_ld_insts"] is None  # an empty cell: n/a
    assert results.load_ncu(data_dir / "h200_ncu.csv") == ncu
    assert results.load_ncu("a100", data_dir) == {}  # a GPU without an ncu profile
    with pytest.raises(FileNotFoundError, match="ncu_profile.py --all --csv"):
        results.load_ncu(data_dir / "a100_ncu.csv")
