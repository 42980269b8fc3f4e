#!/usr/bin/env bash
# Prepare a machine with the CUDA Toolkit for the build and the tests of SGEMM Ladder.
#   tools/setup.sh               the C++ build's tools and libraries, then the Python environment
#   tools/setup.sh --no-python   only the C++ side
#
# C++: looks for what the build uses, not for package names: CMake >= 3.25, Ninja, a C++ compiler,
# nvcc (the CUDA Toolkit), nm (the export test), and GoogleTest, Google Benchmark, CLI11 and
# nlohmann-json as CMake finds them (a probe project in a temporary folder). Only what is missing
# is installed, with apt-get (through sudo when not root); when nothing is missing it needs
# neither root nor network. It exits non-zero only when the C++ build cannot work, and says what
# is missing. (A library CMake cannot find is downloaded by the build itself at configure time,
# cmake/Dependencies.cmake, which needs network access: a warning, not an error.)
#
# Python: .venv with notebooks/requirements.txt (the notebooks, the tools and their tests, pytest
# for the package's tests). It never breaks the C++ chain: when it cannot be made, a half-made
# .venv is removed, the reason printed, and the Python tests skip saying so.
#
# SASS: cuobjdump and nvdisasm (tools/sass_report.py, tools/cuobjdump.sh), which a CUDA Toolkit of
# only the compiler lacks. Each is looked for as the tools look for it (tools/sgemm_tools_common.py);
# one found nowhere, or only in .venv, is installed into .venv from NVIDIA's PyPI wheel, pinned in
# tools/requirements-sass.txt. Never fatal: without them only the SASS tools fail, saying why.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=1
[ "${1:-}" = "--no-python" ] && python=0
min_cmake=3.25

say() { echo "setup: $*"; }

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

# --- what is there ------------------------------------------------------------------------------

declare -A apt_package=(
  [cmake]=cmake [ninja]=ninja-build [c++]=g++ [nm]=binutils [patch]=patch
  [GTest]=libgtest-dev [benchmark]=libbenchmark-dev [CLI11]=libcli11-dev [nlohmann_json]=nlohmann-json3-dev
  [venv]=python3-venv
)
declare -A what=(
  [cmake]="CMake >= $min_cmake" [ninja]="Ninja" [c++]="a C++ compiler (c++)" [nm]="nm (binutils)"
  [patch]="patch (the debug build makes the fault lab's kernels with it)"
  [GTest]="GoogleTest" [benchmark]="Google Benchmark" [CLI11]="CLI11" [nlohmann_json]="nlohmann-json"
  [venv]="Python's venv module"
)

cmake_ok() {
  command -v cmake >/dev/null 2>&1 || return 1
  local have
  have=$(cmake --version | head -1 | awk '{print $3}')
  [ "$(printf '%s\n%s\n' "$min_cmake" "$have" | sort -V | head -1)" = "$min_cmake" ]
}

missing_tools() {  # prints the tools that are missing, one per line
  cmake_ok || echo cmake
  command -v ninja >/dev/null 2>&1 || echo ninja
  command -v "${CXX:-c++}" >/dev/null 2>&1 || echo c++
  command -v nm >/dev/null 2>&1 || echo nm
  command -v patch >/dev/null 2>&1 || echo patch
}

missing_libraries() {  # prints the CMake packages find_package cannot find, one per line
  local probe
  probe=$(mktemp -d)
  cat >"$probe/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(sgemm_ladder_setup_probe LANGUAGES CXX)
# As cmake/Dependencies.cmake looks for them: config packages.
foreach(package IN ITEMS GTest benchmark CLI11 nlohmann_json)
  find_package(${package} CONFIG QUIET)
  if(NOT ${package}_FOUND)
    message(STATUS "probe: missing ${package}")
  endif()
endforeach()
EOF
  if ! cmake -S "$probe" -B "$probe/build" -G Ninja >"$probe/log" 2>&1; then
    say "the CMake probe failed to configure:" >&2
    sed 's/^/  /' "$probe/log" >&2
    rm -rf "$probe"
    return 1
  fi
  sed -n 's/^-- probe: missing //p' "$probe/log"
  rm -rf "$probe"
}

# --- installing what is missing -----------------------------------------------------------------

apt_install() {  # apt-get install the Debian packages of the given names; 0 when it worked
  local packages=() name
  for name in "$@"; do packages+=("${apt_package[$name]}"); done
  if ! command -v apt-get >/dev/null 2>&1; then
    say "no apt-get here: install ${packages[*]} (or their equivalents) yourself"
    return 1
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      say "not root and no sudo: ask for ${packages[*]} to be installed"
      return 1
    fi
    sudo=(sudo -n)  # never waits for a password (CI has no terminal)
  fi
  say "installing ${packages[*]} with apt-get"
  "${sudo[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
      "${packages[@]}" >/dev/null
}

describe() {  # "CMake >= 3.25 (Debian: cmake), Ninja (Debian: ninja-build)"
  local name separator=""
  for name in "$@"; do
    printf '%s%s (Debian: %s)' "$separator" "${what[$name]}" "${apt_package[$name]}"
    separator=", "
  done
}

if ! command -v nvcc >/dev/null 2>&1; then
  say "missing: nvcc. Install the CUDA Toolkit (https://developer.nvidia.com/cuda-downloads) and put"
  say "its bin/ on PATH (usually /usr/local/cuda/bin); no distribution package is installed for it."
  exit 1
fi
say "nvcc: $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"

mapfile -t tools < <(missing_tools)
if [ ${#tools[@]} -gt 0 ]; then
  say "missing: $(describe "${tools[@]}")"
  apt_install "${tools[@]}"
  mapfile -t tools < <(missing_tools)
  if [ ${#tools[@]} -gt 0 ]; then
    say "still missing: $(describe "${tools[@]}"); the C++ build cannot run without them."
    if [[ " ${tools[*]} " == *" cmake "* ]] && command -v cmake >/dev/null 2>&1; then
      say "this CMake is $(cmake --version | head -1 | awk '{print $3}'); a newer one: pip install 'cmake>=$min_cmake'"
    fi
    exit 1
  fi
fi
say "cmake $(cmake --version | head -1 | awk '{print $3}'), ninja $(ninja --version), ${CXX:-c++}, nm and patch found"

libraries=$(missing_libraries) || exit 1
mapfile -t libraries < <(printf '%s' "$libraries" | grep .)
if [ ${#libraries[@]} -gt 0 ]; then
  say "CMake cannot find: $(describe "${libraries[@]}")"
  apt_install "${libraries[@]}"
  libraries=$(missing_libraries) || exit 1
  mapfile -t libraries < <(printf '%s' "$libraries" | grep .)
fi
if [ ${#libraries[@]} -gt 0 ]; then
  say "warning: still not found: $(describe "${libraries[@]}"). The build downloads them at configure"
  say "time (FetchContent), which needs network access to github.com; offline, install them first."
else
  say "GoogleTest, Google Benchmark, CLI11 and nlohmann-json found by CMake"
fi

# --- Python -------------------------------------------------------------------------------------

setup_python() {  # returns non-zero with the reason printed when .venv cannot be made
  local venv="$root/.venv" requirements="$root/notebooks/requirements.txt"
  if ! command -v python3 >/dev/null 2>&1; then
    say "no python3"
    return 1
  fi
  if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
      apt_install venv || return 1
    fi
    say "creating $venv"
    python3 -m venv "$venv" || return 1
  fi
  # Offline, a complete .venv passes this without the network: pip finds everything installed.
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"; then
    say "pip could not install $requirements (offline?)"
    return 1
  fi
}

# --- cuobjdump and nvdisasm ---------------------------------------------------------------------

find_sass_tool() {  # the path of cuobjdump or nvdisasm as the tools find it, empty when none; $1 python
  "$1" "$root/tools/sgemm_tools_common.py" which "$2" 2>/dev/null
}

setup_sass_tools() {  # after setup_python: NVIDIA's wheels into .venv for what nothing else provides
  local py="$root/.venv/bin/python" pins="$root/tools/requirements-sass.txt" name found venv
  local packages=() names=()
  venv=$(cd "$root/.venv" && pwd -P)  # as the tools name it: links resolved
  for name in cuobjdump nvdisasm; do
    found=$(find_sass_tool "$py" "$name")
    if [ -n "$found" ] && [[ "$found" != "$venv/"* ]]; then
      say "$name: $found"
    else  # missing, or a wheel of .venv: (re)installed at its pin (offline, an installed pin passes)
      [ -z "$found" ] && say "no $name (the CUDA Toolkit here lacks it): installing NVIDIA's wheel into .venv"
      packages+=("$(grep "^nvidia-cuda-$name==" "$pins")")
      names+=("$name")
    fi
  done
  [ ${#packages[@]} -eq 0 ] && return 0
  if ! "$py" -m pip install -q --disable-pip-version-check "${packages[@]}"; then
    say "warning: pip could not install ${packages[*]} (offline?)."
    say "Only tools/sass_report.py and tools/cuobjdump.sh need them: run tools/setup.sh again online."
    return 0
  fi
  for name in "${names[@]}"; do
    say "$name: $(find_sass_tool "$py" "$name") ($(grep "^nvidia-cuda-$name==" "$pins"))"
  done
}

if [ $python = 1 ]; then
  if setup_python; then
    say "python environment ready: $root/.venv"
    setup_sass_tools
  else
    # Only a complete environment stays: the Python tests skip without one, and fail with half of one.
    if [ -d "$root/.venv" ] && ! "$root/.venv/bin/python" -m pip install -q --no-index \
         --disable-pip-version-check -r "$root/notebooks/requirements.txt" >/dev/null 2>&1; then
      rm -rf "$root/.venv"
      say "removed the incomplete $root/.venv"
    fi
    say "no Python environment: the Python tests will be skipped. The C++ build and tests are unaffected."
  fi
fi
if [ $python = 0 ] || [ ! -x "$root/.venv/bin/python" ]; then
  for name in cuobjdump nvdisasm; do
    if command -v python3 >/dev/null 2>&1 && found=$(find_sass_tool python3 "$name") && [ -n "$found" ]; then
      say "$name: $found"
    else
      say "no $name: tools/sass_report.py and tools/cuobjdump.sh need it (tools/setup.sh with its"
      say "Python part installs NVIDIA's wheel into .venv)"
    fi
  done
fi
say "done. Next: cmake --workflow --preset release && cmake --workflow --preset debug"
