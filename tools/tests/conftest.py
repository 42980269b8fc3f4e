"""Shared fixtures of the tools' tests: tools/ on sys.path and the paths of the data files."""
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(TOOLS))


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def sample_all_report():
    """sass_report's document built from the committed SASS of every rung."""
    import sass_report
    import sgemm_tools_common as common

    with common.open_text(DATA / "sample_all.sass.gz") as f:
        return sass_report.build_report(f, "sample_all.sass.gz", None)
