"""What the Python tools (sass_report, ncu_profile, roofline) share.

Exit codes and the errors that map to them, finding NVIDIA executables (cuobjdump, nvdisasm,
ncu), the registry of rungs and the results reader of the `sgemm_ladder` package (from the
checkout's python/ folder when the package is not installed), paths as committed files record
them, numbers for tables.

Standard library only, so that the tools that need nothing else run with a bare `python3`.

As a command it runs cuobjdump found by the tools' one rule (find_cuobjdump), for tools/cuobjdump.sh:
    python3 tools/sgemm_tools_common.py run cuobjdump -sass FILE    # cuobjdump, able to find nvdisasm
    python3 tools/sgemm_tools_common.py which cuobjdump|nvdisasm    # the path found, or exit 1
"""
from __future__ import annotations

import gzip
import lzma
import os
import shutil
import site
import subprocess
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

VENV = REPO_ROOT / ".venv"  # tools/setup.sh's Python environment

if __name__ != "__main__":  # as a command it only finds executables: no registry (nor torch) to import
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


# Where NVIDIA's PyPI wheels put their programs inside site-packages: CUDA 13's, then CUDA 12's.
CUDA_WHEEL_PATHS = {
    "cuobjdump": ("nvidia/cu13/bin/cuobjdump", "nvidia/cuda_cuobjdump/bin/cuobjdump"),
    "nvdisasm": ("nvidia/cu13/bin/nvdisasm", "nvidia/cuda_nvdisasm/bin/nvdisasm"),
}
CUDA_DEFAULT_BIN = Path("/usr/local/cuda/bin")  # where the CUDA Toolkit's installers put it
SASS_TOOLS_LOOKUP = "$CUOBJDUMP, PATH, the CUDA Toolkit, .venv"
SASS_TOOLS_HINT = "run tools/setup.sh, which installs NVIDIA's cuobjdump and nvdisasm wheels into .venv"


def site_package_dirs() -> list[Path]:
    """The current interpreter's site-packages folders (where pip puts NVIDIA's wheels)."""
    dirs = [sysconfig.get_paths().get(key) for key in ("purelib", "platlib")]
    dirs += getattr(site, "getsitepackages", lambda: [])()  # some virtualenv builds lack it
    dirs.append(getattr(site, "getusersitepackages", lambda: None)())
    return [Path(d) for d in dict.fromkeys(d for d in dirs if d and Path(d).is_dir())]


def venv_site_packages() -> list[Path]:
    """The site-packages folders of the project's .venv (tools/setup.sh installs NVIDIA's
    cuobjdump and nvdisasm wheels there), whichever Python runs the tool."""
    dirs = sorted(VENV.glob("lib/python3*/site-packages")) + [VENV / "Lib" / "site-packages"]
    return [d for d in dirs if d.is_dir()]


def cuda_bin_dirs() -> list[Path]:
    """The CUDA Toolkit's bin/ folders: $CUDA_HOME's, $CUDA_PATH's, /usr/local/cuda's, and the one
    that the nvcc on PATH really lives in (a distribution's /usr/bin/nvcc may be a link)."""
    dirs = [Path(os.environ[v]) / "bin" for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    dirs.append(CUDA_DEFAULT_BIN)
    nvcc = shutil.which("nvcc")
    if nvcc:
        dirs.append(Path(nvcc).resolve().parent)
    return list(dict.fromkeys(dirs))


def _executable(p: Path) -> Path | None:
    for q in (p, p.with_name(p.name + ".exe")) if os.name == "nt" else (p,):
        if q.is_file() and os.access(q, os.X_OK):
            return q
    return None


def find_executable(name: str, env_var: str | None = None, extra_dirs: Iterable[Path | str] = (),
                    wheel_paths: Iterable[str] = ()) -> Path | None:
    """First match of: $env_var (when set, the answer: an explicit choice is not second-guessed),
    PATH, extra_dirs, then wheel_paths inside this Python's site-packages, then inside .venv's."""
    if env_var and os.environ.get(env_var):
        return _executable(Path(os.environ[env_var]).expanduser())
    hit = shutil.which(name)
    if hit:
        return Path(hit)
    candidates = [Path(d) / name for d in extra_dirs]
    wheel_paths = list(wheel_paths)
    candidates += [sp / rel for sp in site_package_dirs() + venv_site_packages() for rel in wheel_paths]
    return next((hit for p in candidates if (hit := _executable(p))), None)


def find_cuobjdump() -> Path | None:
    """cuobjdump: $CUOBJDUMP, PATH, the CUDA Toolkit (cuda_bin_dirs), NVIDIA's wheel
    (nvidia-cuda-cuobjdump) in this Python's site-packages, then in the project's .venv."""
    return find_executable("cuobjdump", "CUOBJDUMP", cuda_bin_dirs(), CUDA_WHEEL_PATHS["cuobjdump"])


def find_nvdisasm(cuobjdump: Path | None = None) -> Path | None:
    """nvdisasm, which cuobjdump runs to print SASS: $NVDISASM; else the one beside `cuobjdump`
    (the same release); else the one in $NVDISASM_PATH (cuobjdump's own variable); else looked for
    as find_cuobjdump looks (PATH, the toolkit, the wheel nvidia-cuda-nvdisasm)."""
    if os.environ.get("NVDISASM"):
        return find_executable("nvdisasm", "NVDISASM")
    beside = [cuobjdump.parent] if cuobjdump else []
    if os.environ.get("NVDISASM_PATH"):
        beside.append(Path(os.environ["NVDISASM_PATH"]).expanduser())
    for d in beside:
        if hit := _executable(d / "nvdisasm"):
            return hit
    return find_executable("nvdisasm", None, cuda_bin_dirs(), CUDA_WHEEL_PATHS["nvdisasm"])


def cuobjdump_command() -> tuple[Path, Path | None, dict[str, str]]:
    """cuobjdump, the nvdisasm it is to use (None when there is none) and the environment to run it
    in: nvdisasm's folder first on PATH and in $NVDISASM_PATH, where cuobjdump looks for it.
    ToolError, with the fix, when there is no cuobjdump."""
    tool = find_cuobjdump()
    if tool is None:
        if os.environ.get("CUOBJDUMP"):
            raise ToolError(f"cuobjdump not found: $CUOBJDUMP={os.environ['CUOBJDUMP']} is not an executable file")
        raise ToolError(f"cuobjdump not found ({SASS_TOOLS_LOOKUP}): {SASS_TOOLS_HINT}")
    env = dict(os.environ)
    nvdisasm = find_nvdisasm(tool)
    if nvdisasm is not None:
        env["PATH"] = os.pathsep.join([str(nvdisasm.parent)] + ([env["PATH"]] if env.get("PATH") else []))
        env["NVDISASM_PATH"] = str(nvdisasm.parent)
    return tool, nvdisasm, env


def nvdisasm_missing() -> str:
    """The one-line message of a cuobjdump without nvdisasm, with the fix."""
    if os.environ.get("NVDISASM"):
        return f"nvdisasm not found: $NVDISASM={os.environ['NVDISASM']} is not an executable file"
    return f"nvdisasm not found (cuobjdump needs it to print SASS): {SASS_TOOLS_HINT}"


# ----------------------------------------------------------------------------------------------
# Which code a result came from


def source_tree_of(built: Path | str | None) -> Path:
    """The source tree a built file (the library, sgemm_bench) was built from: the
    CMAKE_HOME_DIRECTORY of the CMakeCache.txt above it; this checkout when there is none."""
    if built is not None:
        for d in Path(os.path.abspath(built)).parents:
            cache = d / "CMakeCache.txt"
            if cache.is_file():
                for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
                    if line.startswith("CMAKE_HOME_DIRECTORY:"):
                        return Path(line.split("=", 1)[1])
                break
    return REPO_ROOT


def provenance(built: Path | str | None = None) -> dict[str, str]:
    """What a results file records about the code that measured it, as sgemm_bench's context names
    it (sgemm_ladder_git, sgemm_ladder_commit, sgemm_ladder_clean, sgemm_ladder_commit_from): the
    commit of the source tree `built` came from and whether it was clean (tools/tree_stamp.py: git,
    else the stamp of a copy without its history)."""
    import tree_stamp

    return tree_stamp.context(source_tree_of(built))


UNKNOWN_PROVENANCE = {"sgemm_ladder_git": "unknown", "sgemm_ladder_commit": "unknown",
                      "sgemm_ladder_clean": "unknown", "sgemm_ladder_commit_from": "none"}


# ----------------------------------------------------------------------------------------------
# Files and numbers


def open_text(path: Path | str):
    """Open a text file for reading; a .gz or .xz file is decompressed."""
    opener = {".gz": gzip.open, ".xz": lzma.open}.get(Path(path).suffix, open)
    return opener(path, "rt", encoding="utf-8", errors="replace")


def repo_path(path: Path | str) -> str:
    """A path as a committed file records it: relative to the repository root (with /) when it is
    inside the checkout, else absolute. Links are not followed (libsgemm_ladder.so stays itself),
    except a link on the way to the checkout."""
    p = Path(os.path.abspath(Path(path).expanduser()))
    for q in (p, p.parent.resolve() / p.name):
        try:
            return q.relative_to(REPO_ROOT).as_posix()
        except ValueError:
            pass
    return str(p)


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


# ----------------------------------------------------------------------------------------------
# As a command (tools/cuobjdump.sh)


def _command(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    usage = "usage: sgemm_tools_common.py run cuobjdump [ARG ...] | which cuobjdump|nvdisasm"
    if argv[:2] == ["run", "cuobjdump"]:
        tool, nvdisasm, env = cuobjdump_command()
        args = argv[2:]
        if nvdisasm is None and any(a.lstrip("-").split("=")[0] in ("sass", "dump-sass") for a in args):
            print(f"cuobjdump.sh: warning: {nvdisasm_missing()}", file=sys.stderr)
        sys.stdout.flush()
        if os.name == "posix":
            os.execve(tool, [str(tool)] + args, env)  # its exit code and signals, its output unbuffered
        return subprocess.run([str(tool)] + args, env=env).returncode
    if len(argv) == 2 and argv[0] == "which" and argv[1] in ("cuobjdump", "nvdisasm"):
        found = find_cuobjdump() if argv[1] == "cuobjdump" else find_nvdisasm(find_cuobjdump())
        if found is None:
            return EXIT_FAILURE
        print(found)
        return EXIT_OK
    raise UsageError(usage)


if __name__ == "__main__":
    sys.exit(run_main("cuobjdump.sh", _command))
