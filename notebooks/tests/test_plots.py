"""The figures: structure, labels, axes, the baseline, empty data."""
import matplotlib.pyplot as plt
import pytest

import ladderplot as lp
from ladderplot.plots import BASELINE_NAME


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.texts]


def _legend_texts(fig):
    return [t.get_text() for lg in fig.legends for t in lg.get_texts()]


def test_ladder_chart(results):
    fig = lp.plot_ladder(results, 4096)
    a100, h200 = fig.axes
    assert h200.get_title() == "NVIDIA H200" and "4096" in fig._suptitle.get_text()
    assert "GFLOP/s" in h200.get_xlabel()
    assert [t.get_text() for t in a100.get_yticklabels()][0] == "00 cuBLAS (baseline)"
    texts = _texts(fig)
    assert sum("% of cuBLAS" in t for t in texts) == 20  # every rung but cuBLAS, two GPUs
    assert any(t.startswith("cuBLAS = 100%") for t in texts)
    assert any("FP32 peak" in t for t in texts)
    assert any("SYNTHETIC" in t for t in texts)  # fixture data is marked as such


def test_ladder_chart_flags_unverified_rows(results):
    r = lp.Results(results.timing.assign(verified=results.timing["rung"] != 4), results.accuracy,
                   results.context, results.source)
    assert sum("NOT VERIFIED" in t for t in _texts(lp.plot_ladder(r, 4096, gpus="h200"))) == 1


def test_scaling(results):
    fig = lp.plot_scaling(results)
    axes = [ax for ax in fig.axes]
    assert len(axes) == 4  # GFLOPS and % cuBLAS rows, a100 and h200 columns
    top = axes[0]
    assert top.get_xscale() == "log" and top.get_yscale() == "log"
    assert axes[2].get_yscale() == "linear" and "%" in axes[2].get_ylabel()
    assert len(top.get_lines()) == 11
    assert _legend_texts(fig)[0] == BASELINE_NAME and len(_legend_texts(fig)) == 11
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
    assert len(ax.get_lines()) == 12  # 11 rungs and the u·√K reference
    assert BASELINE_NAME in _legend_texts(fig)


def test_roofline(ncu, results):
    fig = lp.plot_roofline(ncu, results)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "FLOP" in ax.get_xlabel() and "GFLOP/s" in ax.get_ylabel()
    texts = _texts(fig)
    assert any(t.startswith("FP32 peak 66.9 TFLOP/s") for t in texts)
    assert any("measured copy" in t for t in texts)
    ctx = results.context.drop(columns="copy_bandwidth_gbs")
    fallback = lp.plot_roofline(ncu, lp.Results(results.timing, results.accuracy, ctx, results.source))
    assert any("not measured" in t for t in _texts(fallback))


def test_sass(sass, results):
    cats = lp.sass_categories(sass)
    assert cats[0] == "FFMA" and cats[-1] == "other"
    assert {"LDGSTS", "LDG.E.128", "BAR"} <= set(cats)  # rare but meaningful opcodes keep a colour
    assert "LDL" not in cats and "NOP" not in cats  # absent everywhere, or not an instruction
    fig = lp.plot_sass(sass, results)
    assert "Registers" in fig.axes[2].get_ylabel() or "Registers" in fig.axes[1].get_ylabel()
    assert set(_legend_texts(fig)) == set(cats)
    assert "NVIDIA H200 (sm_90)" in " ".join(ax.get_title() for ax in fig.axes)


def test_empty_inputs_give_a_message_not_an_error(results, ncu, sass):
    for fig in (lp.plot_roofline(ncu.iloc[0:0], results), lp.plot_sass(sass.iloc[0:0]),
                lp.plot_accuracy(lp.Results(results.timing, results.accuracy.iloc[0:0],
                                            results.context, results.source))):
        assert any("run" in t or "no " in t for t in _texts(fig))


def test_save_figure_only_when_asked(tmp_path, monkeypatch, results):
    fig = plt.figure()
    assert lp.save_figure(fig, "x") is None and not list(tmp_path.iterdir())
    monkeypatch.setenv(lp.FIGURES_ENV, str(tmp_path))
    path = lp.save_figure(fig, "x")
    assert path == tmp_path / "x.png" and path.read_bytes()[:4] == b"\x89PNG"


def test_rung_colours_are_stable(results):
    assert lp.rung_style(0, 10)["color"] == "black"
    assert lp.rung_style(3, 10)["color"] != lp.rung_style(4, 10)["color"]
    assert lp.rung_style(3, 10) == lp.rung_style(3, 10)
