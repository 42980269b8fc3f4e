#!/usr/bin/env bash
# exp40 on the GPU machine, from the repository root:  OUT=... bash tools/experiments/exp40_run.sh
# Question: rung 15's whole-tile loop issues 83% of cycles against cuBLAS's 89% with fewer
# instructions; ncu blames wait (0.10 vs 0.01 per issue), dispatch (0.22 vs 0.10) and
# no_instruction (0.08 vs 0.02) stalls. exp40_sass_ctl.py reads the compiler's control bits: the
# 8-step chunk loop's branches and slab-end code carry ~2.3 stall cycles per FFMA-loop pass
# where cuBLAS's loop carries 1.0, and our FFMAs fetch 2.27 register operands each (cuBLAS
# 1.76). Which of exp40_variants.py's loops (base, order, loop, order_loop) runs faster, and do
# the stalls move as the static counts say? Each variant is patched into this copy of the tree,
# rebuilt, tested (rung 15's GPU tests; memcheck and racecheck), benchmarked with cuBLAS in the
# same process and profiled with ncu at 4096^3 (--clock-control none). base runs first and last.
# Later experiments reuse this driver for another rung: RUNG (id, default 15), PATCHER (the
# variant writer, called as `$PATCHER VARIANT RUNG_HEADER`), BENCH (rungs to time, default RUNG),
# SHAPES (MxNxK list for --shapes, default none), LOG (log name, default exp40_run).
set -uo pipefail
OUT="${OUT:-/tmp/exp40_out}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/${LOG:-exp40_run}.log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
sizes=${SIZES:-1024,2048,3072,4096,8192}
variants=${VARIANTS:-base order_loop loop order base}
rung=${RUNG:-15}
header=$(ls kernels/${rung}_*.cuh) && slug=$(basename "$header" .cuh)
patcher=${PATCHER:-python3 tools/experiments/exp40_variants.py}
shapes=${SHAPES:+--shapes $SHAPES}
cp "$header" /tmp/exp40_rung.cuh
(cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 &&
  cmake --build --preset release -j 16 >> "$OUT/build.log" 2>&1) || { tail -40 "$OUT/build.log"; exit 1; }
echo "built at $(elapsed) s"
tests=build/release/tests/gpu_tests
bench=build/release/bench/sgemm_bench
n=0
for v in $variants; do
  n=$((n + 1))
  if [ "$(elapsed)" -gt "${BUDGET_S:-500}" ]; then echo "== $v ($n): skipped, $(elapsed) s used"; continue; fi
  echo "== variant $v ($n) at $(elapsed) s"
  cp /tmp/exp40_rung.cuh "$header"
  $patcher "$v" "$header"
  cmake --build --preset release -j 16 > "$OUT/build_$n.log" 2>&1 || { tail -30 "$OUT/build_$n.log"; continue; }
  cuobjdump -sass build/release/kernels/CMakeFiles/sgemm_ladder.dir/rungs/$slug.cu.o > /tmp/exp40.sass 2>/dev/null &&
    python3 tools/experiments/exp40_sass_ctl.py /tmp/exp40.sass
  $tests --gtest_filter="*/$slug" --gtest_brief=1 > "$OUT/gpu_tests_$n.log" 2>&1
  echo "gpu_tests rc=$? $(grep -h 'PASSED\|FAILED' "$OUT/gpu_tests_$n.log" | head -2 | tr '\n' ' ')"
  if [ "$v" != base ]; then
    for t in memcheck racecheck; do
      timeout 120 compute-sanitizer --tool "$t" --error-exitcode 1 $tests \
        --gtest_filter="*SanitizerRagged/$slug" --gtest_brief=1 > "$OUT/sanitize_${t}_$n.log" 2>&1
      echo "sanitizer $t rc=$? $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$OUT/sanitize_${t}_$n.log" | tail -1)"
    done
  fi
  $bench --kernel "${BENCH:-$rung}" --sizes "$sizes" $shapes --json "$OUT/bench_$n.json" > "$OUT/bench_$n.log" 2>&1
  echo "bench rc=$?"; grep -E "^rung(00|$(echo "${BENCH:-$rung}" | tr , '|'))" "$OUT/bench_$n.log"
  python3 tools/ncu_profile.py --kernel "$rung" --csv "$OUT/ncu_$n.csv" > "$OUT/ncu_$n.log" 2>&1
  echo "ncu rc=$?"
  python3 - "$OUT/ncu_$n.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    keys = ["duration_ns", "issue_active_pct", "inst_executed", "stall_wait", "stall_dispatch_stall",
            "stall_no_instruction", "stall_barrier", "stall_short_scoreboard", "stall_not_selected", "achieved_gflops"]
    print("ncu 4096^3:", ", ".join(f"{k} {r.get(k, '?')}" for k in keys))
PY
done
cp /tmp/exp40_rung.cuh "$header"
echo "done at $(elapsed) s"
# Only a few files come back from the GPU machine: everything in one archive.
tar -czf "$OUT/${LOG:-exp40_run}_logs.tgz" -C "$OUT" $(cd "$OUT" && ls *.log *.csv *.json 2>/dev/null) &&
  (cd "$OUT" && rm -f *.log *.csv *.json)
