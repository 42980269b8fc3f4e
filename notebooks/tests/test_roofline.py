"""Ceilings from the context and roofline points."""
import pytest

import ladderplot as lp


def test_h200_ceilings_are_measured(results):
    c = lp.ceilings(results.context.loc["h200"])
    assert c.peak_gflops == pytest.approx(132 * 128 * 2 * 1980e-3)
    assert c.bandwidth_gbs == 4210 and c.bandwidth_measured
    assert c.ridge == pytest.approx(c.peak_gflops / 4210)
    assert "measured copy" in c.bandwidth_text()
    assert c.attainable([1, 1e4]).tolist() == pytest.approx([4210, c.peak_gflops])


def test_fallback_bandwidth_is_labelled_not_measured(results):
    c = lp.ceilings(results.context.loc["a100"], fallback_bandwidth_gbs=1500)
    assert c.bandwidth_gbs == 1500 and not c.bandwidth_measured
    assert "not measured" in c.bandwidth_text()
    assert c.lanes == 64 and c.peak_gflops == pytest.approx(108 * 64 * 2 * 1410e-3)
    table = lp.ceilings_table(results)
    assert table.loc["h200", "bandwidth measured"] and not table.loc["a100", "bandwidth measured"]


def test_points_use_the_benchmark_when_it_has_the_shape(ncu, results):
    pts = lp.roofline_points(ncu, results)
    assert len(pts) == 11 and set(pts["gflops_source"]) == {"sgemm_bench"}
    bench = results.timing.query("gpu == 'h200' and rung == 5 and M == 4096")["GFLOPS"].iloc[0]
    p5 = pts[pts["rung"] == 5].iloc[0]
    assert p5["gflops"] == pytest.approx(bench)
    assert p5["intensity"] == pytest.approx(p5["flops"] / p5["dram_bytes"])
    alone = lp.roofline_points(ncu)
    assert set(alone["gflops_source"]) == {"ncu"}
    assert alone["gflops"].iloc[0] == pytest.approx(ncu["flops"].iloc[0] / ncu["duration_ns"].iloc[0])
    assert lp.roofline_points(ncu.iloc[0:0]).empty
