#!/usr/bin/env bash
# Python tests (tools' parsers, the notebooks' loader, the notebooks themselves), run with the
# project's virtual environment made by tools/setup.sh. Exit 77 (ctest: skipped) without it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
py="$root/.venv/bin/python"
if [ ! -x "$py" ]; then
  echo "python tests skipped: no virtual environment at $root/.venv (run tools/setup.sh)"; exit 77
fi
cd "$root"
exec "$py" -m pytest -q tools/tests notebooks/tests
