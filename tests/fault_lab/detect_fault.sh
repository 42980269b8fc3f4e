#!/usr/bin/env bash
# GPU test (ctest labels gpu;faults; registered only in fault-lab builds): an injected fault is
# detected.
#
#   detect_fault.sh memcheck|racecheck|none KIND RUNG SGEMM_BENCH FAULT_LAB_CU
#
# memcheck / racecheck: runs `compute-sanitizer --tool TOOL sgemm_bench --inject-fault KIND
#   --kernel RUNG` and passes when the process exits non-zero AND the report
#   - is the right kind: "Invalid __global__ read" (oob-read), "Invalid __global__ write"
#     (oob-write), a racecheck race/hazard (race);
#   - names the faulty kernel (fault_<kind>_rungNN, in the report or its device backtrace) or
#     the faulty copy's device functions (sgemm::fault_lab::rungNN::...);
#   - points at bench/fault_lab.cu:LINE, and for memcheck at one of the lines marked
#     `// FAULT: KIND` (the debug preset builds with -G, so device code has line information).
# none: runs the faulty kernel without a sanitizer and passes when sgemm_bench itself exits 1
#   (used for oob-write: the harness's guard regions catch the write past the end of C).
# Exit 77 (ctest: skipped) without a GPU, or without compute-sanitizer for the sanitizer tools.
set -u
tool=${1:?usage: detect_fault.sh memcheck|racecheck|none KIND RUNG SGEMM_BENCH FAULT_LAB_CU}
kind=${2:?}
rung=${3:?}
bench=${4:?}
source=${5:?}

kernel=$(printf 'fault_%s_rung%02d' "${kind//-/_}" "$rung")
fail=0
ok() { echo "ok:   $*"; }
bad() { echo "FAIL: $*"; fail=1; }

have_gpu() {
  if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L >/dev/null 2>&1 && return 0; fi
  ls /dev/nvidia[0-9]* >/dev/null 2>&1
}
if ! have_gpu; then
  echo "no GPU on this machine: skipped"; exit 77
fi

log=$(mktemp "${TMPDIR:-/tmp}/fault_lab.XXXXXX")
trap 'rm -f "$log"' EXIT

if [ "$tool" = none ]; then
  "$bench" --inject-fault "$kind" --kernel "$rung" >"$log" 2>&1
  rc=$?
  sed -n '1,40p' "$log"
  if [ "$rc" -eq 3 ]; then echo "no usable GPU (sgemm_bench exit 3): skipped"; exit 77; fi
  [ "$rc" -eq 1 ] && ok "sgemm_bench exited 1 without a sanitizer" ||
    bad "sgemm_bench exited $rc without a sanitizer, expected 1 (a corrupted result or a CUDA error)"
  grep -qE 'guard region changed|FAILED|CUDA error after' "$log" && ok "the harness reported the damage" ||
    bad "no 'guard region changed' / 'FAILED' / 'CUDA error' in the output"
  exit $fail
fi

sanitizer=$(command -v compute-sanitizer 2>/dev/null)
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -z "$sanitizer" ] && [ -n "$d" ] && [ -x "$d/bin/compute-sanitizer" ] && sanitizer="$d/bin/compute-sanitizer"
done
if [ -z "$sanitizer" ]; then
  echo "compute-sanitizer not found (it ships with the CUDA Toolkit): skipped"; exit 77
fi

# --error-exitcode: a reported error makes the process exit non-zero even when the faulty run
# itself would have succeeded (a race need not corrupt the result on every run).
"$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 8 --show-backtrace device \
  "$bench" --inject-fault "$kind" --kernel "$rung" >"$log" 2>&1
rc=$?
# The report is long (one entry per faulting thread up to --print-limit): show its head and tail.
sed -n '1,60p' "$log"
[ "$(wc -l <"$log")" -gt 60 ] && { echo "[...]"; tail -n 8 "$log"; }
echo "-- compute-sanitizer exited $rc"

if grep -q 'no usable CUDA device' "$log"; then echo "no usable GPU: skipped"; exit 77; fi

[ "$rc" -ne 0 ] && ok "the process exited non-zero ($rc)" || bad "the process exited 0"

case $kind in
  oob-read)  want='Invalid __global__ read' ;;
  oob-write) want='Invalid __global__ write' ;;
  race)      want='Race reported|RACECHECK SUMMARY: [1-9][0-9]* hazard|[1-9][0-9]* hazards?' ;;
  *)         echo "unknown kind $kind"; exit 1 ;;
esac
grep -qE "$want" "$log" && ok "$tool reported: $(grep -m1 -oE "$want" "$log")" ||
  bad "$tool did not report /$want/"

# memcheck's device backtrace ends in the kernel; racecheck names the device functions that race
# (with -G they are not inlined), which live in the rung's namespace of the fault lab.
if grep -q "$kernel" "$log"; then
  ok "the report names $kernel"
elif grep -q "fault_lab::rung$(printf %02d "$rung")::" "$log"; then
  ok "the report names functions of the faulty copy: $(grep -m1 -oE "fault_lab::rung[0-9]+::[a-z_]+" "$log")"
else
  bad "the report names neither $kernel nor fault_lab::rung$(printf %02d "$rung")::"
fi

grep -qE 'fault_lab\.cu:[0-9]+' "$log" && ok "the report points at $(grep -m1 -oE 'fault_lab\.cu:[0-9]+' "$log")" ||
  bad "the report has no fault_lab.cu:LINE (was the fault lab built with -G or -lineinfo?)"

if [ "$tool" = memcheck ]; then
  lines=$(grep -n "FAULT: $kind" "$source" | cut -d: -f1)
  hit=""
  for l in $lines; do grep -qE "fault_lab\.cu:$l\b" "$log" && hit="$hit $l"; done
  [ -n "$hit" ] && ok "memcheck points at the line(s) marked 'FAULT: $kind':$hit" ||
    bad "memcheck does not point at a line marked 'FAULT: $kind' (lines: $(echo $lines))"
fi
exit $fail
