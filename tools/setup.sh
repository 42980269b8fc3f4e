#!/usr/bin/env bash
# Set up a fresh Debian/Ubuntu machine that already has the CUDA Toolkit (nvcc, cuBLAS):
# the build tools and C++ libraries from the distribution, and a Python virtual environment
# (.venv) with the pinned packages of the notebooks and Python tools.
#   tools/setup.sh            everything
#   tools/setup.sh --no-python   only the system packages
# Already-installed packages are left alone, so it also runs on offline machines that have them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=1
[ "${1:-}" = "--no-python" ] && python=0

say() { echo "setup: $*"; }

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
if ! command -v nvcc >/dev/null 2>&1; then
  say "nvcc not found: install the CUDA Toolkit first (https://developer.nvidia.com/cuda-downloads)"
  say "and put its bin/ on PATH (usually /usr/local/cuda/bin)."
  exit 1
fi

packages=(cmake ninja-build g++ git libgtest-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  say "installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  say "system packages present"
fi

cmake_version=$(cmake --version | head -1 | awk '{print $3}')
if [ "$(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -1)" != "3.25" ]; then
  say "CMake $cmake_version is older than 3.25; install a newer one (pip install cmake) and retry"
  exit 1
fi

if [ $python = 1 ]; then
  if [ ! -x "$root/.venv/bin/python" ]; then
    say "creating $root/.venv"
    python3 -m venv "$root/.venv"
  fi
  if ! "$root/.venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/notebooks/requirements.txt"; then
    say "pip could not install notebooks/requirements.txt (offline?); Python tests will be skipped"
    exit 1
  fi
  say "python environment ready: $root/.venv"
fi
say "done. Next: cmake --workflow --preset release"
