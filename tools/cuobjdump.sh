#!/usr/bin/env bash
# cuobjdump, wherever it is, with your arguments: the rung pages' SASS command.
#   tools/cuobjdump.sh -sass build/release/kernels/CMakeFiles/sgemm_ladder_objects.dir/rungs/07_bank_conflict_free.cu.o
#
# Found as the Python tools find it (tools/sgemm_tools_common.py, the rule's one place): $CUOBJDUMP,
# PATH, the CUDA Toolkit's bin/, then NVIDIA's wheels in .venv, which tools/setup.sh installs when
# the toolkit has only the compiler. It runs with the nvdisasm found the same way ($NVDISASM first)
# where it looks for it, so that -sass works without PATH edits.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
py=
[ -x "$root/.venv/bin/python" ] && py="$root/.venv/bin/python"  # no torch to import there: starts fast
[ -z "$py" ] && py=$(command -v python3 || true)
if [ -z "$py" ]; then
  echo "cuobjdump.sh: needs python3 to find cuobjdump: install it, then run tools/setup.sh" >&2
  exit 1
fi
exec "$py" "$root/tools/sgemm_tools_common.py" run cuobjdump "$@"
