"""Shared fixtures of the tools' tests: tools/ on sys.path, the paths of the data files, and the
registry the tools read through `sgemm_ladder.rungs()`, stood in for by data/registry_rungs.json (the
registry of the build the SASS samples come from) so that no library needs to be built."""
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

TOOLS = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(TOOLS))

import sgemm_tools_common as common  # noqa: E402  (puts the checkout's python/ on sys.path)
import sgemm_ladder  # noqa: E402


def stand_in_registry() -> list[SimpleNamespace]:
    """The rungs of data/registry_rungs.json as records, the form `sgemm_ladder.rungs()` returns."""
    return [SimpleNamespace(**r) for r in json.loads((DATA / "registry_rungs.json").read_text())]


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    rungs = stand_in_registry()
    monkeypatch.setattr(sgemm_ladder, "rungs", lambda: rungs, raising=False)
    return rungs


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def sample_all_report():
    """sass_report's document built from the committed SASS of every rung (read once: it is large)."""
    import sass_report

    with common.open_text(DATA / "sample_all.sass.xz") as f:
        return sass_report.build_report(f, "sample_all.sass.xz", None, stand_in_registry())
