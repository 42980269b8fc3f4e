"""Every notebook runs headless (no GPU) and fails on any cell error; committed notebooks stay
thin and carry no outputs.

The notebooks read the committed results under bench/results when there are any, and the
fixtures under notebooks/tests/data always (two GPUs, an errored row, every file kind)."""
import shutil

import nbformat
import pytest

import ladderplot as lp
from ladderplot.execute import execute, notebook_paths

NOTEBOOKS = notebook_paths()
REQUIRED = {"ladder", "scaling", "roofline", "accuracy", "sass"}


def test_the_notebooks_are_there():
    assert REQUIRED <= {p.stem for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_is_clean_and_thin(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        assert cell.outputs == [], f"{path.name}: outputs committed (render_figures.py --strip)"
        assert cell.execution_count is None, f"{path.name}: execution counts committed"
        assert "def " not in cell.source and "plt." not in cell.source, \
            f"{path.name}: logic belongs in ladderplot, not in the notebook"
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, f"{path.name}: one cell tagged 'parameters'"
    src = params[0].source
    assert "LIVE = False" in src and 'RESULTS_DIR = "../bench/results"' in src and "GPUS = None" in src
    assert f'save_figure(fig, "{path.stem}")' in "".join(c.source for c in code)


SOURCES = ["fixtures", "committed"]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path, source, tmp_path, data_dir):
    env = {lp.FIGURES_ENV: str(tmp_path)}
    if source == "fixtures":
        env[lp.RESULTS_ENV] = str(data_dir)
    elif not lp.has_results(lp.DEFAULT_RESULTS_DIR):
        pytest.skip(f"no committed results under {lp.DEFAULT_RESULTS_DIR} yet")
    else:
        env[lp.RESULTS_ENV] = None  # the notebook's own default: ../bench/results
    nb = execute(path, env=env, timeout=180)  # raises CellExecutionError on any cell error
    assert (tmp_path / f"{path.stem}.png").exists(), "the representative figure was not saved"
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if "image/png" in o.get("data", {})]
    assert images, "no figure shown"


def test_default_results_dir_is_relative_to_the_notebook(tmp_path, data_dir):
    """Without SGEMM_RESULTS_DIR a notebook reads ../bench/results next to itself: run one in a
    copy of the layout (notebooks/ beside bench/results/) holding the fixtures."""
    (tmp_path / "bench").mkdir()
    shutil.copytree(data_dir, tmp_path / "bench" / "results")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "ladderplot").symlink_to(lp.REPO_ROOT / "notebooks" / "ladderplot")
    shutil.copy(lp.REPO_ROOT / "notebooks" / "ladder.ipynb", tmp_path / "notebooks")
    nb = execute(tmp_path / "notebooks" / "ladder.ipynb", env={lp.RESULTS_ENV: None})
    said = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert f"Reading committed results from {tmp_path / 'bench' / 'results'}" in said
