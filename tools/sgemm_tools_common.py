"""What the Python tools (sass_report, ncu_profile, roofline) share. Not a command.

Exit codes and the errors that map to them, finding NVIDIA executables (cuobjdump, nvdisasm,
ncu), the registry of rungs and the results reader of the `sgemm_ladder` package (from the
checkout's python/ folder when the package is not installed), numbers for tables.

Standard library only, so that the tools that need nothing else run with a bare `python3`.
"""
from __future__ import annotations

import gzip
import lzma
import os
import shutil
import site
import sys
import sysconfig
from pathlib import Path
from typing import Callable, Iterable

EXIT_OK = 0
EXIT_FAILURE = 1  # the tool could not do its job (missing program or package, unreadable input, ...)
EXIT_USAGE = 2  # bad command line (argparse uses 2 as well)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LIB = REPO_ROOT / "build/release/kernels/libsgemm_ladder.so"
DEFAULT_BENCH = REPO_ROOT / "build/release/bench/sgemm_bench"
BUILD_HINT = "build it first: cmake --preset release && cmake --build --preset release"

try:
    import sgemm_ladder.results  # noqa: F401  (installed: pip install .)
except ImportError:  # a checkout: the package's source is python/sgemm_ladder
    sys.path.insert(0, str(REPO_ROOT / "python"))
import sgemm_ladder  # noqa: E402
from sgemm_ladder import results  # noqa: E402,F401  (the tools' one reader of result files)


class ToolError(Exception):
    """A failure reported as one line on stderr and a non-zero exit code."""

    exit_code = EXIT_FAILURE


class UsageError(ToolError):
    """A bad command line: reported like ToolError, exit code 2."""

    exit_code = EXIT_USAGE


def run_main(prog: str, main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Run a tool's main(), turning ToolError into its message and exit code."""
    try:
        return main(argv)
    except ToolError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_FAILURE


def missing_package(package: str, what: str = "") -> ToolError:
    """The one-line error of a tool (or of its option `what`) run without a Python package it needs."""
    return ToolError(f"{what + ' ' if what else ''}needs the Python package {package}: pip install -r "
                     f"notebooks/requirements.txt (or run the tool with .venv/bin/python, made by tools/setup.sh)")


# ----------------------------------------------------------------------------------------------
# The registry


def registry() -> list:
    """The rungs of the library's registry, `sgemm_ladder.rungs()`: records with id, slug, track,
    kernel (text in the name of the kernel that carries the rung's lesson; "" for cuBLAS), ..."""
    try:
        return list(sgemm_ladder.rungs())
    except Exception as e:  # noqa: BLE001  whatever the package raises without its library: one line
        raise ToolError(f"cannot read the registry (sgemm_ladder.rungs(): {e}); {BUILD_HINT}") from e


def kernel_matches(name: str, text: str) -> bool:
    """Whether a kernel name shows the registry's `kernel` text. Demangled names contain it
    ("sgemm_12_stream_k<true" is in "void sgemm::rung12::sgemm_12_stream_k<true, Config<...> >(int, ...)"
    and not in "...sgemm_12_stream_k_shares<true, ...>" or "...sgemm_12_stream_k<false, ...>"); a bare
    function name, as ncu prints it, is the text up to its template arguments ("sgemm_12_stream_k")."""
    return bool(text) and (text in name or name.rsplit("::", 1)[-1] == text.split("<", 1)[0])


# ----------------------------------------------------------------------------------------------
# Finding executables


def site_package_dirs() -> list[Path]:
    """The current interpreter's site-packages folders (where pip puts NVIDIA's wheels)."""
    dirs = [sysconfig.get_paths().get(key) for key in ("purelib", "platlib")]
    dirs += getattr(site, "getsitepackages", lambda: [])()  # some virtualenv builds lack it
    dirs.append(getattr(site, "getusersitepackages", lambda: None)())
    return [Path(d) for d in dict.fromkeys(d for d in dirs if d and Path(d).is_dir())]


def find_executable(name: str, env_var: str | None = None, extra_dirs: Iterable[Path | str] = (),
                    wheel_paths: Iterable[str] = ()) -> Path | None:
    """First match of: $env_var, PATH, extra_dirs, then wheel_paths inside site-packages."""
    if env_var and os.environ.get(env_var):
        p = Path(os.environ[env_var]).expanduser()
        return p if p.is_file() and os.access(p, os.X_OK) else None
    hit = shutil.which(name)
    if hit:
        return Path(hit)
    candidates = [Path(d) / name for d in extra_dirs]
    candidates += [sp / rel for sp in site_package_dirs() for rel in wheel_paths]
    return next((p for p in candidates if p.is_file() and os.access(p, os.X_OK)), None)


# ----------------------------------------------------------------------------------------------
# Files and numbers


def open_text(path: Path | str):
    """Open a text file for reading; a .gz or .xz file is decompressed."""
    opener = {".gz": gzip.open, ".xz": lzma.open}.get(Path(path).suffix, open)
    return opener(path, "rt", encoding="utf-8", errors="replace")


def require_file(path: Path | str, what: str, hint: str = "") -> Path:
    path = Path(path)
    if not path.is_file():
        raise ToolError(f"{what} not found: {path}" + (f" ({hint})" if hint else ""))
    return path


def fmt_si(x: float | None, digits: int = 3) -> str:
    """Compact number: 1234567 -> '1.23M', 0.5 -> '0.5', None -> 'n/a'."""
    if x is None:
        return "n/a"
    a = abs(x)
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= scale:
            return f"{x / scale:.{digits}g}{suffix}"
    if a == 0 or a >= 0.01:
        return f"{x:.{digits}g}"
    return f"{x:.2e}"


def format_table(head: list[str], rows: list[list[str]], left: int = 1, rule: bool = True) -> str:
    """A fixed-width text table: the first `left` columns left-aligned, the rest right-aligned."""
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]

    def line(cells):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(head)] + ([line(["-" * w for w in widths])] if rule else []) + [line(r) for r in rows])
