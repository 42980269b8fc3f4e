"""Shared fixtures of the notebook tests: ladderplot on the path, a headless matplotlib, the
synthetic results under notebooks/tests/data (written by data/make_fixtures.py). Each test module
skips, saying why, when a package it needs (pandas, matplotlib, nbclient, ...) is missing."""
import json
import os
import shutil
import sys
import warnings
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(NOTEBOOKS))
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def results():
    import ladderplot as lp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixture's failed row; tested on its own
        return lp.load_results(DATA)


@pytest.fixture(scope="session")
def sass():
    import ladderplot as lp

    return lp.load_sass(DATA)


@pytest.fixture(scope="session")
def ncu():
    import ladderplot as lp

    return lp.load_ncu(DATA)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch):
    """No results or figures folder from the caller's environment; figures closed afterwards."""
    monkeypatch.delenv("SGEMM_RESULTS_DIR", raising=False)
    monkeypatch.delenv("SGEMM_FIGURES_DIR", raising=False)
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture
def copy_gpu(tmp_path):
    """Copy one GPU's fixture files to a fresh folder; returns (folder, loaded JSON)."""
    def copy(tag="h200"):
        for f in DATA.glob(f"{tag}*"):
            shutil.copy(f, tmp_path / f.name)
        return tmp_path, json.loads((tmp_path / f"{tag}.json").read_text())
    return copy
