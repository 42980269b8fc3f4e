"""The stamp ladderplot.save_figure writes into a README figure (the hash of the results files it was
drawn from, tools/figure_stamp.py), and the rows load_results leaves out: a failed row warns, a
rung's refusal of the accuracy sweep's wide inputs does not."""
import json
import shutil
import warnings

import pytest

pytest.importorskip("pandas", reason="the notebooks' tables are pandas DataFrames")
plt = pytest.importorskip("matplotlib.pyplot", reason="the notebooks' figures need matplotlib")
pytest.importorskip("PIL", reason="save_figure writes the PNG with pillow")
import ladderplot as lp  # noqa: E402
from ladderplot.data import figure_stamp  # noqa: E402


@pytest.fixture
def fresh_sources(monkeypatch):
    """No loads recorded yet, as in a notebook's own kernel."""
    monkeypatch.setattr(lp.data, "_SOURCES", set())


def test_every_notebook_is_a_figure_with_declared_inputs():
    notebooks = {p.stem for p in (lp.REPO_ROOT / "notebooks").glob("*.ipynb")}
    assert set(figure_stamp.FIGURES) == notebooks


def test_a_figure_from_one_folder_carries_the_stamp_of_its_inputs(tmp_path, monkeypatch, data_dir, fresh_sources):
    monkeypatch.setenv(lp.FIGURES_ENV, str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixture's failed row
        results = lp.load_results(data_dir)
    sass = lp.load_sass(data_dir)
    assert lp.data.figure_source() == data_dir.resolve()
    path = lp.save_figure(lp.plot_sass(sass, results), "sass")
    assert figure_stamp.recorded(path) == figure_stamp.stamp("sass", data_dir)
    assert figure_stamp.stale("sass", path, data_dir) is None
    assert figure_stamp.stale("sass", path, lp.DEFAULT_RESULTS_DIR) is not None  # not the committed results
    other = lp.save_figure(plt.figure(), "not_a_readme_figure")
    assert figure_stamp.recorded(other) == {}


@pytest.mark.parametrize("how", ["gpu filter", "two folders", "live", "nothing loaded"])
def test_a_figure_of_anything_else_carries_no_stamp(how, tmp_path, monkeypatch, data_dir, fresh_sources):
    monkeypatch.setenv(lp.FIGURES_ENV, str(tmp_path / "figures"))
    if how == "gpu filter":
        lp.load_sass(data_dir, gpus="h200")
    elif how == "two folders":
        lp.load_sass(data_dir)
        shutil.copytree(data_dir, tmp_path / "copy")
        lp.load_sass(tmp_path / "copy")
    elif how == "live":
        lp.load_sass(data_dir)
        lp.data.note_source(lp.data.MEASURED_NOW)
    assert lp.data.figure_source() is None
    path = lp.save_figure(plt.figure(), "sass")
    assert figure_stamp.recorded(path) == {}
    assert figure_stamp.stale("sass", path, data_dir) == "it records no input hash"


def _wide_refusal(doc):
    name = "accuracy/25_ozaki_int8/wide40/1024x1024x256/iterations:1/manual_time"
    doc["benchmarks"].append({"name": name, "run_name": name, "run_type": "iteration", "error_occurred": True,
                              "error_message": "25_ozaki_int8: a row of A has its largest magnitude above 16x its "
                                               "mean", "iterations": 0})


def test_a_refused_wide_input_is_no_failure(copy_gpu):
    folder, doc = copy_gpu("h200")
    _wide_refusal(doc)
    (folder / "h200.json").write_text(json.dumps(doc))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        r = lp.load_results(folder)
    refused = r.refused.to_dict("records")
    assert refused == [{"gpu": "h200", "rung": 25, "slug": "25_ozaki_int8", "label": "25 ozaki int8",
                        "input": "wide40", "M": 1024, "N": 1024, "K": 256,
                        "why": "25_ozaki_int8: a row of A has its largest magnitude above 16x its mean"}]


def test_a_failed_row_still_warns_and_refusals_do_not_join_it(copy_gpu, data_dir):
    folder, doc = copy_gpu("h100")  # the fixture's h100.json has a failed timing row
    _wide_refusal(doc)
    (folder / "h100.json").write_text(json.dumps(doc))
    with pytest.warns(UserWarning) as caught:
        r = lp.load_results(folder)
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and "rung10_double_buffering" in said[0]
    assert len(r.refused) == 1 and r.refused.iloc[0]["rung"] == 25
    assert lp.load_results(data_dir, gpus="h200").refused.empty  # a file without refusals
