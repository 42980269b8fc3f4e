#!/usr/bin/env bash
# compute-sanitizer over every rung at small ragged shapes.
#   tools/sanitize.sh [memcheck|racecheck|synccheck|initcheck|all] [path/to/gpu_tests]
#   SANITIZE_JOBS=N: split the tests into N GoogleTest shards, one sanitizer process each, run at
#   once (the tools are CPU-bound: racecheck over every rung takes many minutes in one process).
# Exit 0: zero reports. Exit 77 (ctest: skipped): no GPU or no compute-sanitizer here.
set -u
tool=${1:-all}
tests=${2:-build/release/tests/gpu_tests}
if ! command -v compute-sanitizer >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /opt/nvidia/*/compute-sanitizer; do
    [ -x "$d/compute-sanitizer" ] && PATH="$d:$PATH"
  done
fi
if ! command -v compute-sanitizer >/dev/null 2>&1; then
  echo "sanitize: compute-sanitizer not found (it ships with the CUDA Toolkit); skipped"; exit 77
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "sanitize: no GPU on this machine; skipped"; exit 77
fi
tools=("$tool"); [ "$tool" = all ] && tools=(memcheck racecheck synccheck initcheck)
filter='*SanitizerRagged*:*Degenerate*'
status=0
for t in "${tools[@]}"; do
  extra=()
  case $t in
    memcheck) extra=(--leak-check full) ;;
    initcheck) filter='*SanitizerRagged*' ;;  # cuBLAS's own workspace reads are outside our control
  esac
  jobs=${SANITIZE_JOBS:-1}
  echo "== compute-sanitizer --tool $t ($filter, $jobs shard(s))"
  pids=()
  for ((shard = 0; shard < jobs; shard++)); do
    GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$shard \
      compute-sanitizer --tool "$t" "${extra[@]}" --error-exitcode 99 --print-limit 20 \
      "$tests" --gtest_filter="$filter" --gtest_brief=1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
done
exit $status
