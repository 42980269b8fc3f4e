#!/usr/bin/env bash
# Python tests (the results reader, the tools, the notebooks' module, the notebooks themselves),
# as ctest runs them (label python). The interpreter: $SGEMM_PYTHON, else the project's .venv
# (tools/setup.sh), else python3. Exit 77 (ctest: skipped) when it cannot run pytest; tests that
# need a package the interpreter lacks (pandas, matplotlib, nbclient, ...) skip and say which.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
py=${SGEMM_PYTHON:-}
if [ -z "$py" ]; then
  py=python3
  [ -x "$root/.venv/bin/python" ] && py="$root/.venv/bin/python"
fi
if ! "$py" -c "import pytest" >/dev/null 2>&1; then
  echo "python tests skipped: $py has no pytest (run tools/setup.sh for .venv, or set SGEMM_PYTHON)"
  exit 77
fi
cd "$root"
exec "$py" -m pytest -q -rs tools/tests notebooks/tests
