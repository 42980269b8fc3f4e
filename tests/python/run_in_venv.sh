#!/usr/bin/env bash
# ctest's python.package: pytest over tests/python with the project's virtual environment (.venv,
# made by tools/setup.sh) and the library of this build.
#   run_in_venv.sh LIBSGEMM_LADDER
# Exit 77 (ctest: skipped) when .venv or its pytest is missing.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
python="$root/.venv/bin/python"
if ! "$python" -c "import pytest" >/dev/null 2>&1; then
  echo "skipped: no $python with pytest (tools/setup.sh makes it)"; exit 77
fi
cd "$root"
SGEMM_LADDER_LIB=${1:?usage: run_in_venv.sh LIBSGEMM_LADDER} exec "$python" -m pytest -q tests/python
