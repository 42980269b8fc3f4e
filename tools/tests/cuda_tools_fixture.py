"""The fixture of the tests that look for cuobjdump and nvdisasm (test_tool_cuobjdump.py,
test_tool_sass_report.py): a machine where the tools find neither, whatever this one holds.
(A module of its own because tools/tests/conftest.py is shared; import the fixture by name.)"""
import stat
from pathlib import Path

import pytest

import sgemm_tools_common as common


@pytest.fixture
def no_cuda_tools(tmp_path, monkeypatch):
    """No cuobjdump nor nvdisasm wherever the tools look: no variables, an empty PATH, and the CUDA
    Toolkit's default folder (usr-local-cuda/bin), this Python's site-packages (site-packages) and
    the project's .venv (venv) moved to empty places under tmp_path. Returns the monkeypatch, to
    put things back as the test needs them."""
    for var in ("CUOBJDUMP", "NVDISASM", "NVDISASM_PATH", "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    monkeypatch.setattr(common, "CUDA_DEFAULT_BIN", tmp_path / "usr-local-cuda" / "bin")
    monkeypatch.setattr(common, "site_package_dirs", lambda: [tmp_path / "site-packages"])
    monkeypatch.setattr(common, "VENV", tmp_path / "venv")
    return monkeypatch


def executable(path: Path, text: str = "#!/bin/sh\n") -> Path:
    """An executable file at path (its folders made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path
