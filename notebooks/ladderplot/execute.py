"""Run the notebooks headless (tests, render_figures.py) and keep the committed ones clean.

The kernel is always this interpreter's ipykernel (the project's .venv), whatever kernelspecs
the machine has installed.
"""
from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1]


def notebook_paths() -> list[Path]:
    """The notebooks under notebooks/, sorted."""
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


@contextmanager
def _environment(env: dict[str, str] | None):
    """Set (value) or unset (None) variables for the kernel, which inherits os.environ."""
    saved = {k: os.environ.get(k) for k in env or {}}
    try:
        for k, v in (env or {}).items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _kernel_manager_class(socket_dir: str):
    """An AsyncKernelManager that starts this interpreter's ipykernel, over Unix sockets in
    ``socket_dir`` where there are any."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    class ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f",
                                    "{connection_file}"],
                              display_name="Python 3", language="python")

    class Manager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(kernel_spec_manager=ThisPython(), **kwargs)
            if sys.platform != "win32":
                # Unix sockets under an absolute private path instead of TCP ports: no race
                # for free ports between parallel runs, no "unencrypted TCP" warning.
                self.transport = "ipc"
                self.ip = str(Path(socket_dir) / "k")

    return Manager


def execute(path: str | os.PathLike, env: dict[str, str | None] | None = None,
            timeout: int = 300):
    """Execute the notebook at ``path`` in its own folder with ``env`` added to the environment;
    return the executed notebook (the file is not touched). Any cell error raises
    nbclient.exceptions.CellExecutionError."""
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="ladderplot-kernel-") as sockets:
        client = NotebookClient(nb, kernel_manager_class=_kernel_manager_class(sockets),
                                kernel_name="python3", timeout=timeout, startup_timeout=120,
                                resources={"metadata": {"path": str(path.parent)}})
        with _environment({"MPLBACKEND": None, **(env or {})}):
            client.execute()
    return nb


def strip_outputs(path: str | os.PathLike) -> bool:
    """Remove outputs and execution counts from a notebook in place; True if it changed."""
    import nbformat

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if cell.outputs or cell.execution_count is not None:
            cell.outputs, cell.execution_count, changed = [], None, True
        for key in ("execution", "collapsed", "scrolled"):
            changed |= cell.metadata.pop(key, None) is not None
    if changed:
        nbformat.write(nb, path)
    return changed
