"""Every notebook runs headless through nbclient (no GPU) and fails on any cell error; committed
notebooks stay thin and carry no outputs.

The notebooks read the committed results under bench/results when there are any, and the
fixtures under notebooks/tests/data always (two GPUs, a failed row, every file kind)."""
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pandas", reason="the notebooks' tables are pandas DataFrames")
pytest.importorskip("matplotlib", reason="the notebooks' figures need matplotlib")
nbformat = pytest.importorskip("nbformat", reason="reading notebooks needs nbformat")
nbclient = pytest.importorskip("nbclient", reason="running notebooks headless needs nbclient")
pytest.importorskip("ipykernel", reason="running notebooks needs a Python kernel (ipykernel)")
import ladderplot as lp  # noqa: E402
from ladderplot.data import figure_stamp  # noqa: E402
from ladderplot.plots import FIGURES_ENV  # noqa: E402

NOTEBOOKS = sorted(Path(lp.REPO_ROOT / "notebooks").glob("*.ipynb"))
REQUIRED = {"ladder", "scaling", "roofline", "accuracy", "sass"}


@pytest.fixture(autouse=True)
def _inline_figures(monkeypatch):
    """The kernel picks Jupyter's inline backend, which shows figures, only without MPLBACKEND
    (conftest.py sets it to Agg for the tests' own figures)."""
    monkeypatch.delenv("MPLBACKEND", raising=False)


def execute(path: Path, timeout: int = 180):
    """Run the notebook at `path` in its folder with the caller's environment; the file is not
    touched. Any cell error raises nbclient.exceptions.CellExecutionError."""
    return nbclient.execute(nbformat.read(path, as_version=4), cwd=str(path.parent), kernel_name="python3",
                            timeout=timeout)


def test_the_notebooks_are_there():
    assert REQUIRED <= {p.stem for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_is_clean_and_thin(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        assert cell.outputs == [], f"{path.name}: outputs committed (clear them before committing)"
        assert cell.execution_count is None, f"{path.name}: execution counts committed"
        assert "def " not in cell.source and "plt." not in cell.source, \
            f"{path.name}: logic belongs in ladderplot, not in the notebook"
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, f"{path.name}: one cell tagged 'parameters'"
    src = params[0].source
    assert "LIVE = False" in src and 'RESULTS_DIR = "../bench/results"' in src and "GPUS = None" in src
    assert f'save_figure(fig, "{path.stem}")' in "".join(c.source for c in code)


@pytest.mark.parametrize("source", ["fixtures", "committed"])
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path, source, tmp_path, data_dir, monkeypatch):
    monkeypatch.setenv(FIGURES_ENV, str(tmp_path))
    if source == "fixtures":
        monkeypatch.setenv(lp.RESULTS_ENV, str(data_dir))
    elif not lp.has_results(lp.DEFAULT_RESULTS_DIR):
        pytest.skip(f"no committed results under {lp.DEFAULT_RESULTS_DIR} yet")
    nb = execute(path)
    png = tmp_path / f"{path.stem}.png"
    assert png.exists(), "the representative figure was not saved"
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert images, "no figure shown"
    # The figure records the results it was drawn from (tools/docs.py --check compares them).
    folder = data_dir if source == "fixtures" else lp.DEFAULT_RESULTS_DIR
    assert figure_stamp.stale(path.stem, png, folder) is None
    if source == "committed":  # the committed results load without a warning (the fixtures have a failed row)
        said = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", [])
                       if o.get("name") == "stderr")
        assert "Warning" not in said, said[:2000]


def test_default_results_dir_is_relative_to_the_notebook(tmp_path, data_dir):
    """Without SGEMM_RESULTS_DIR a notebook reads ../bench/results next to itself: run one in a
    copy of the layout (notebooks/ beside bench/results/) holding the fixtures."""
    shutil.copytree(data_dir, tmp_path / "bench" / "results")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "ladderplot").symlink_to(lp.REPO_ROOT / "notebooks" / "ladderplot")
    shutil.copy(lp.REPO_ROOT / "notebooks" / "ladder.ipynb", tmp_path / "notebooks")
    nb = execute(tmp_path / "notebooks" / "ladder.ipynb")
    said = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert f"Reading committed results from {tmp_path / 'bench' / 'results'}" in said
