"""The figures: structure, labels, axes, the baseline, the spread, empty data."""
import pytest

pytest.importorskip("pandas", reason="the notebooks' tables are pandas DataFrames")
plt = pytest.importorskip("matplotlib.pyplot", reason="the notebooks' figures need matplotlib")
import ladderplot as lp  # noqa: E402
from ladderplot.plots import BASELINE_NAME  # noqa: E402

RUNGS = 20  # 0-15, 21-23 and 30 in the fixtures


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.texts]


def _legend_texts(fig):
    return [t.get_text() for lg in fig.legends for t in lg.get_texts()]


def test_ladder_chart(results):
    fig = lp.plot_ladder(results, 4096)
    h100, h200 = fig.axes
    assert h200.get_title() == "NVIDIA H200" and h100.get_title() == "NVIDIA H100 80GB HBM3"
    assert "4096" in fig._suptitle.get_text() and "GFLOP/s" in h200.get_xlabel()
    assert [t.get_text() for t in h100.get_yticklabels()][0] == "00 cuBLAS (baseline)"
    texts = _texts(fig)
    pct = [t for t in texts if "% of cuBLAS" in t]
    assert len(pct) == 2 * (RUNGS - 1)  # every rung but cuBLAS, two GPUs
    assert all("[" in t and t.endswith(("faster", "slower", "level")) for t in pct)  # interval, verdict
    assert any(t.startswith("cuBLAS = 100%") for t in texts)
    assert any("FP32 peak, 66,908 GFLOP/s" in t for t in texts)
    assert any("SYNTHETIC" in t for t in texts)  # fixture data is marked as such
    errorbars = [c for c in h200.containers if type(c).__name__ == "ErrorbarContainer"]
    assert len(errorbars) == RUNGS  # the quartiles of the launch times


def test_ladder_chart_flags_unverified_rows(results):
    r = lp.Results(results.timing.assign(verified=results.timing["rung"] != 4), results.accuracy,
                   results.context, results.by_gpu)
    assert sum("NOT VERIFIED" in t for t in _texts(lp.plot_ladder(r, 4096, gpus="h200"))) == 1


def test_scaling(results):
    fig = lp.plot_scaling(results)
    axes = [ax for ax in fig.axes]
    assert len(axes) == 4  # GFLOP/s and % cuBLAS rows, h100 and h200 columns
    top = axes[0]
    assert top.get_xscale() == "log" and top.get_yscale() == "log"
    assert axes[2].get_yscale() == "linear" and "%" in axes[2].get_ylabel()
    assert len(top.get_lines()) == RUNGS
    assert len(top.collections) == RUNGS and len(axes[2].collections) == RUNGS  # the spread as bands
    assert "bands: 95% interval" in _texts(fig)
    assert _legend_texts(fig)[0] == BASELINE_NAME and len(_legend_texts(fig)) == RUNGS
    ms = lp.plot_scaling(results, metrics="ms", gpus="h200")
    assert ms.axes[0].get_yscale() == "log" and any("n³" in t for t in _texts(ms))
    with pytest.raises(ValueError):
        lp.plot_scaling(results, metrics="watts")


def test_accuracy(results):
    fig = lp.plot_accuracy(results)
    assert len(fig.axes) == 4
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "uniform" in ax.get_title() and "normal" in fig.axes[1].get_title()
    assert len(ax.get_lines()) == RUNGS + 1  # every rung and the u·√K reference
    assert BASELINE_NAME in _legend_texts(fig)


def _roof_labels(fig):
    return [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]


def test_roofline(ncu, results):
    fig = lp.plot_roofline(ncu, results)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "FLOP" in ax.get_xlabel() and "GFLOP/s" in ax.get_ylabel()
    labels = _roof_labels(fig)
    assert labels == ["copy bandwidth 4.27 TB/s (measured)",
                      "FP32 peak 66.9 TFLOP/s (132 SMs x 128 lanes x 2 x 1980 MHz)"]
    assert len(_legend_texts(fig)) == RUNGS
    assert ax.get_title() == "NVIDIA H200 at 4096×4096×4096"


def test_roofline_without_a_measured_bandwidth(ncu, results):
    h200 = results.by_gpu["h200"]
    context = {k: v for k, v in h200.context.items() if k != "copy_bandwidth_gbs"}
    unmeasured = lp.frames({"h200": lp.data.reader.Results("h200", h200.path, context, h200.rows, [])})
    assert not any("bandwidth" in t for t in _roof_labels(lp.plot_roofline(ncu, unmeasured)))
    assert "bandwidth 4.20 TB/s (not measured)" in _roof_labels(lp.plot_roofline(ncu, unmeasured, bandwidth_gbs=4200))


def test_sass(sass, results):
    cats = lp.sass_categories(sass)
    assert cats[0] == "FFMA" and cats[-1] == "other"
    assert {"LDGSTS", "LDG.E.128", "BAR"} <= set(cats)  # rare but meaningful opcodes keep a colour
    assert "NOP" not in cats and "FFMA.reuse" not in cats  # not instructions
    assert "LDL" in cats and "LDS.64" not in cats  # the dispatch GEMV's local memory; absent everywhere
    fig = lp.plot_sass(sass, results)
    assert "Registers" in fig.axes[2].get_ylabel() or "Registers" in fig.axes[1].get_ylabel()
    assert set(_legend_texts(fig)) == set(cats)
    assert "NVIDIA H200 (sm_90)" in " ".join(ax.get_title() for ax in fig.axes)


def test_empty_inputs_give_a_message_not_an_error(results, ncu, sass):
    for fig in (lp.plot_roofline(ncu.iloc[0:0], results), lp.plot_sass(sass.iloc[0:0]),
                lp.plot_accuracy(lp.Results(results.timing, results.accuracy.iloc[0:0],
                                            results.context, results.by_gpu))):
        assert any("run" in t or "no " in t for t in _texts(fig))


def test_save_figure_only_when_asked(tmp_path, monkeypatch, results):
    fig = plt.figure()
    assert lp.save_figure(fig, "x") is None and not list(tmp_path.iterdir())
    monkeypatch.setenv(lp.FIGURES_ENV, str(tmp_path))
    path = lp.save_figure(fig, "x")
    assert path == tmp_path / "x.png" and path.read_bytes()[:4] == b"\x89PNG"


def test_rung_colours_are_stable_and_spread_over_the_rungs_present():
    rungs = [0, 1, 2, 15, 21, 23]
    assert lp.rung_style(0, rungs)["color"] == "black"
    assert lp.rung_style(15, rungs)["color"] != lp.rung_style(21, rungs)["color"]
    assert lp.rung_style(21, rungs) == lp.rung_style(21, list(reversed(rungs)))
    ramp = [lp.rung_style(r, rungs)["color"] for r in rungs[1:]]
    assert ramp[-1] == lp.rung_style(99, [0, 1, 99])["color"]  # the last rung ends the ramp, ids aside
