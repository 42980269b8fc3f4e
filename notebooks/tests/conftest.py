"""Shared fixtures of the notebook tests: ladderplot on the path, a headless matplotlib, the
synthetic results under notebooks/tests/data (written by data/make_fixtures.py)."""
import json
import shutil
import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(NOTEBOOKS))

import ladderplot as lp  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixture's errored row; tested on its own
        return lp.load_results(DATA)


@pytest.fixture(scope="session")
def sass():
    return lp.load_sass(DATA)


@pytest.fixture(scope="session")
def ncu():
    return lp.load_ncu(DATA)


@pytest.fixture(autouse=True)
def _close_figures(monkeypatch):
    monkeypatch.delenv(lp.RESULTS_ENV, raising=False)
    monkeypatch.delenv(lp.FIGURES_ENV, raising=False)
    yield
    plt.close("all")


@pytest.fixture
def copy_gpu(tmp_path):
    """Copy one GPU's fixture files to a fresh folder; returns (folder, loaded JSON)."""
    def copy(tag="h200"):
        for f in DATA.glob(f"{tag}*"):
            shutil.copy(f, tmp_path / f.name)
        return tmp_path, json.loads((tmp_path / f"{tag}.json").read_text())
    return copy
