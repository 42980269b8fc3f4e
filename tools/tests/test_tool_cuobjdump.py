"""Finding cuobjdump and nvdisasm (tools/sgemm_tools_common.py, the one rule of sass_report.py and
tools/cuobjdump.sh): the order of the places looked in, the nvdisasm handed to cuobjdump, and the
wrapper tools/cuobjdump.sh with its one-line error."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sgemm_tools_common as common
from cuda_tools_fixture import executable, no_cuda_tools  # noqa: F401  (a fixture)

WRAPPER = common.REPO_ROOT / "tools" / "cuobjdump.sh"
VENV_BIN = "venv/lib/python3.11/site-packages/nvidia/cu13/bin"  # NVIDIA's CUDA 13 wheels in .venv


def test_nothing_found_says_to_run_setup(no_cuda_tools):
    assert common.find_cuobjdump() is None and common.find_nvdisasm() is None
    with pytest.raises(common.ToolError, match=r"cuobjdump not found \(.*\): run tools/setup.sh"):
        common.cuobjdump_command()


def test_cuobjdump_lookup_order(tmp_path, no_cuda_tools):
    """$CUOBJDUMP, PATH, the CUDA Toolkit ($CUDA_HOME, then /usr/local/cuda), this Python's
    site-packages, then the project's .venv: each place added wins over those added before it."""
    mp = no_cuda_tools
    in_venv = executable(tmp_path / VENV_BIN / "cuobjdump")
    assert common.find_cuobjdump() == in_venv  # not on PATH, whichever Python runs the tool
    own = executable(tmp_path / "site-packages/nvidia/cuda_cuobjdump/bin/cuobjdump")  # CUDA 12's wheel
    assert common.find_cuobjdump() == own
    default = executable(tmp_path / "usr-local-cuda/bin/cuobjdump")
    assert common.find_cuobjdump() == default
    home = executable(tmp_path / "cuda-home/bin/cuobjdump")
    mp.setenv("CUDA_HOME", str(home.parent.parent))
    assert common.find_cuobjdump() == home
    on_path = executable(tmp_path / "on-path/cuobjdump")
    mp.setenv("PATH", str(on_path.parent))
    assert common.find_cuobjdump() == on_path
    named = executable(tmp_path / "mine/cuobjdump-13")
    mp.setenv("CUOBJDUMP", str(named))
    assert common.find_cuobjdump() == named
    mp.setenv("CUOBJDUMP", str(tmp_path / "none"))  # an explicit choice is not second-guessed
    assert common.find_cuobjdump() is None
    with pytest.raises(common.ToolError, match=r"\$CUOBJDUMP=.*none is not an executable file"):
        common.cuobjdump_command()


def test_the_toolkit_of_the_nvcc_on_path(tmp_path, no_cuda_tools):
    """A distribution's nvcc on PATH may be a link into the toolkit's own bin/, where cuobjdump is."""
    toolkit = executable(tmp_path / "toolkit/bin/nvcc").parent
    tool = executable(toolkit / "cuobjdump")
    (tmp_path / "usr-bin").mkdir()
    (tmp_path / "usr-bin" / "nvcc").symlink_to(toolkit / "nvcc")
    no_cuda_tools.setenv("PATH", str(tmp_path / "usr-bin"))
    assert common.find_cuobjdump() == tool


def test_nvdisasm_is_found_for_cuobjdump_and_handed_to_it(tmp_path, no_cuda_tools):
    """cuobjdump runs nvdisasm to print SASS, looking on PATH and in $NVDISASM_PATH: the nvdisasm
    found comes first in both, wherever it is."""
    mp = no_cuda_tools
    cuobjdump = executable(tmp_path / "usr-local-cuda/bin/cuobjdump")  # a toolkit without nvdisasm
    tool, nvdisasm, env = common.cuobjdump_command()
    assert tool == cuobjdump and nvdisasm is None
    assert env["PATH"] == os.environ["PATH"] and "NVDISASM_PATH" not in env
    assert "nvdisasm not found" in common.nvdisasm_missing() and "tools/setup.sh" in common.nvdisasm_missing()
    in_venv = executable(tmp_path / VENV_BIN / "nvdisasm")
    tool, nvdisasm, env = common.cuobjdump_command()
    assert (tool, nvdisasm) == (cuobjdump, in_venv)
    assert env["PATH"].split(os.pathsep) == [str(in_venv.parent), os.environ["PATH"]]
    assert env["NVDISASM_PATH"] == str(in_venv.parent)
    in_path_var = executable(tmp_path / "nvdisasm-path/nvdisasm")
    mp.setenv("NVDISASM_PATH", str(in_path_var.parent))  # cuobjdump's own variable
    assert common.find_nvdisasm(cuobjdump) == in_path_var
    beside = executable(cuobjdump.parent / "nvdisasm")  # the same release as cuobjdump
    assert common.find_nvdisasm(cuobjdump) == beside
    named = executable(tmp_path / "mine/nvdisasm")
    mp.setenv("NVDISASM", str(named))
    tool, nvdisasm, env = common.cuobjdump_command()
    assert nvdisasm == named and env["NVDISASM_PATH"] == str(named.parent)
    mp.setenv("NVDISASM", str(tmp_path / "none"))
    assert common.cuobjdump_command()[1] is None
    assert "$NVDISASM=" in common.nvdisasm_missing()


def test_both_wheels_in_venv(tmp_path, no_cuda_tools):
    """What tools/setup.sh installs where the toolkit has only the compiler: both in one folder."""
    cuobjdump = executable(tmp_path / VENV_BIN / "cuobjdump")
    nvdisasm = executable(tmp_path / VENV_BIN / "nvdisasm")
    assert common.cuobjdump_command()[:2] == (cuobjdump, nvdisasm)


# ----------------------------------------------------------------------------------------------
# tools/cuobjdump.sh

posix_only = pytest.mark.skipif(os.name != "posix", reason="tools/cuobjdump.sh is a bash script")


def _wrapper(args, env):
    return subprocess.run([str(WRAPPER)] + args, capture_output=True, text=True, env=env, timeout=60)


@posix_only
def test_wrapper_runs_cuobjdump_with_the_arguments_and_nvdisasm(tmp_path):
    fake = executable(tmp_path / "cuda/cuobjdump", """#!/bin/sh
for a in "$@"; do echo "arg: $a"; done
echo "nvdisasm: $(command -v nvdisasm)"
exit 3
""")
    nvdisasm = executable(tmp_path / "elsewhere/nvdisasm")
    env = {**os.environ, "CUOBJDUMP": str(fake), "NVDISASM": str(nvdisasm), "PATH": "/usr/bin:/bin"}
    proc = _wrapper(["-sass", "a file.cu.o"], env)
    assert proc.returncode == 3, proc.stderr  # cuobjdump's own exit code
    assert proc.stdout.splitlines() == ["arg: -sass", "arg: a file.cu.o", f"nvdisasm: {nvdisasm}"]
    assert proc.stderr == ""


@posix_only
def test_wrapper_says_what_is_wrong_in_one_line(tmp_path):
    env = {**os.environ, "CUOBJDUMP": str(tmp_path / "none")}
    proc = _wrapper(["-sass", "x.cu.o"], env)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == f"cuobjdump.sh: cuobjdump not found: $CUOBJDUMP={tmp_path / 'none'} is not an executable file\n"


@posix_only
def test_wrapper_warns_when_sass_cannot_be_printed(tmp_path):
    fake = executable(tmp_path / "cuda/cuobjdump", "#!/bin/sh\nexit 0\n")
    env = {**os.environ, "CUOBJDUMP": str(fake), "NVDISASM": str(tmp_path / "none")}
    proc = _wrapper(["-sass", "x.cu.o"], env)
    assert proc.returncode == 0 and proc.stderr.startswith("cuobjdump.sh: warning: nvdisasm not found")
    assert _wrapper(["--list-elf", "x.cu.o"], env).stderr == ""  # no SASS asked for, no warning


def test_command_when_nothing_is_found(no_cuda_tools, capsys):
    """The wrapper's Python part, where nothing is installed: the error names the fix."""
    assert common.run_main("cuobjdump.sh", common._command, ["run", "cuobjdump", "-sass", "x.cu.o"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cuobjdump.sh: cuobjdump not found") and "tools/setup.sh" in err and err.count("\n") == 1
    assert common._command(["which", "cuobjdump"]) == 1
    assert common.run_main("cuobjdump.sh", common._command, ["which", "ptxas"]) == 2


def test_which_prints_the_path_found(tmp_path, no_cuda_tools, capsys):
    tool = executable(tmp_path / VENV_BIN / "cuobjdump")
    disasm = executable(tmp_path / VENV_BIN / "nvdisasm")
    assert common._command(["which", "cuobjdump"]) == 0 and common._command(["which", "nvdisasm"]) == 0
    assert capsys.readouterr().out.splitlines() == [str(tool), str(disasm)]


def test_as_a_command_the_module_imports_no_registry():
    """tools/cuobjdump.sh runs the module as a script: it must start without the package (nor torch)."""
    code = (f"import runpy, sys\nsys.argv = ['sgemm_tools_common.py', 'which', 'cuobjdump']\n"
            f"try:\n    runpy.run_path({str(Path(common.__file__))!r}, run_name='__main__')\n"
            f"except SystemExit:\n    pass\n"
            f"assert 'sgemm_ladder' not in sys.modules, 'imported the package'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
