"""cmake/reproducible_cuda.sh: a compile sees the same command line and environment, byte for byte
in length, whatever the checkout's path and the caller's variables, and runs in the build tree."""
import os
import stat
import subprocess
import sys
from pathlib import Path

LAUNCHER = Path(__file__).resolve().parents[2] / "cmake" / "reproducible_cuda.sh"

# A stand-in compiler: prints what the real one would see.
FAKE = """#!{python} -I
import os, sys
env = [f"{k}={v}" for k, v in os.environ.items()]
print("argc", len(sys.argv))
print("argv bytes", sum(len(a.encode()) + 1 for a in sys.argv))
print("envc", len(env))
print("env bytes", sum(len(e.encode()) + 1 for e in env))
print("cwd", os.path.relpath(os.getcwd(), os.path.dirname(os.path.realpath(sys.argv[0]))))
print("seed", [a for a in sys.argv if a.startswith("-frandom-seed=")])
print("names", sorted(k for k in os.environ if not k.startswith("SGEMM_LADDER_ENV_")))
print("args", [a.replace(os.environ.get("HIDE", "@"), "LINK") for a in sys.argv[1:]])
"""


def compile_in(root: Path, extra_env: dict) -> list[str]:
    src = root / "src"
    build = src / "build" / "release"
    (src / "kernels").mkdir(parents=True, exist_ok=True)
    build.mkdir(parents=True, exist_ok=True)
    fake = src / "fake_nvcc"  # inside the tree, so that its path is one length too
    fake.write_text(FAKE.replace("{python}", sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = {"PATH": os.environ["PATH"], "HOME": str(root), **extra_env}
    out = subprocess.run(
        [str(LAUNCHER), str(src), str(build), str(fake), f"-I{src}/kernels", "-c", f"{build}/kernels/x.cu",
         "-o", "kernels/CMakeFiles/x.cu.o"],
        cwd=build, env=env, capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def test_one_command_line_and_environment_from_any_checkout(tmp_path):
    a = compile_in(tmp_path / "a", {"X": "1"})
    b = compile_in(tmp_path / "checkout-with-a-much-longer-name" / "nested",
                   {"LONG": "y" * 3000, "OTHER": "2", "TMPDIR": "/var/tmp/somewhere"})
    # Only the paths' hashes differ in content; every length and name agrees.
    assert [line for line in a if not line.startswith("args")] == \
        [line for line in b if not line.startswith("args")]
    assert "cwd build/release" in a
    assert "seed ['-frandom-seed=kernels/CMakeFiles/x.cu.o']" in a
    assert any("TMPDIR" in line and "LONG" not in line for line in a if line.startswith("names"))
    argv_a = next(line for line in a if line.startswith("args"))
    assert "/tmp/sgemm-ladder-trees/s" in argv_a and str(tmp_path) not in argv_a


def test_a_user_launcher_and_nvcc_variables_pass_through(tmp_path):
    a = compile_in(tmp_path / "a", {"NVCC_APPEND_FLAGS": "-lineinfo", "CCACHE_DIR": "/c"})
    names = next(line for line in a if line.startswith("names"))
    assert "NVCC_APPEND_FLAGS" in names and "CCACHE_DIR" in names
    b = compile_in(tmp_path / "b", {})
    # The pads keep the count and the size of the environment whatever passes through.
    assert [line for line in a if line.startswith(("envc", "env bytes"))] == \
        [line for line in b if line.startswith(("envc", "env bytes"))]
