"""`pytest` from the repository root (testpaths in pyproject.toml). The tests import sgemm_ladder:
the installed package when there is one, else the checkout's python/ folder."""
import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("sgemm_ladder") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))
