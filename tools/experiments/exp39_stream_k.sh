#!/usr/bin/env bash
# exp39 on the GPU machine, from the repository root:  OUT=... bash tools/experiments/exp39_stream_k.sh
# Question: does rung 15's stream-K schedule recover the last wave's idle slots (predicted +3% at
# 2048^3-8192^3 over rung 11), is it correct and sanitizer-clean, and which of the two tiles of
# the rung 10 searches serves it best? The second tile (128x256x32_32x128_8x16_s4_u32, exp38) is
# built in a copy of the tree whose tuned header names it; nothing in the repository changes.
# Never touches GPU clocks (ncu runs with --clock-control none).
set -uo pipefail
OUT="${OUT:-/tmp/exp39_out}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/exp39_run.log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
sizes=1024,1536,2048,3072,4096,6144,8192
shapes=8192x1024x8192,1024x8192x8192,4096x4096x16384,16384x16384x1024
build() {  # $1: source tree
  (cd "$1" && cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build_$(basename "$1").log" 2>&1 &&
    cmake --build --preset release -j 16 >> "$OUT/build_$(basename "$1").log" 2>&1) ||
    { tail -40 "$OUT/build_$(basename "$1").log"; return 1; }
}
build . || exit 1
tests=build/release/tests/gpu_tests
bench=build/release/bench/sgemm_bench

echo "== rung 15 GPU tests"
$tests --gtest_filter='*/15_stream_k' --gtest_brief=1 > "$OUT/gpu_tests_15.log" 2>&1
echo "gpu_tests rc=$?"; tail -5 "$OUT/gpu_tests_15.log"
for t in memcheck racecheck synccheck initcheck; do
  timeout 400 compute-sanitizer --tool "$t" --error-exitcode 1 $tests \
    --gtest_filter='*SanitizerRagged/15_stream_k:*Degenerate*/15_stream_k' --gtest_brief=1 > "$OUT/sanitize_$t.log" 2>&1
  echo "sanitizer $t rc=$? $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$OUT/sanitize_$t.log" | tail -1)"
done

echo "== tile A (committed): rungs 11 and 15"
$bench --kernel 11,15 --sizes $sizes --shapes $shapes --json "$OUT/tileA.json" > "$OUT/bench_tileA.log" 2>&1
echo "bench rc=$?"; tail -40 "$OUT/bench_tileA.log"

if [ "${TILE_B:-1}" = 1 ]; then  # TILE_B=0 skips the second tile
echo "== tile B (exp38's 128x256x32_32x128_8x16_s4_u32)"
alt=/tmp/exp39_tileB
rm -rf "$alt" && mkdir -p "$alt" && tar --exclude=./build -cf - . | tar -xf - -C "$alt"
python3 - "$alt/kernels/tuned/sm_90.cuh" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r"(struct Rung10 \{\n\s*static constexpr int )[^;]*;",
           r"\1BM = 128, BN = 256, BK = 32, WM = 32, WN = 128, TM = 8, TN = 16, Stages = 4, KU = 32;", s)
open(p, "w").write(s)
EOF
grep -A1 "struct Rung10" "$alt/kernels/tuned/sm_90.cuh"
if build "$alt"; then
  "$alt/$tests" --gtest_filter='*/15_stream_k' --gtest_brief=1 > "$OUT/gpu_tests_15_tileB.log" 2>&1
  echo "tile B gpu_tests rc=$?"
  "$alt/$bench" --kernel 11,15 --sizes $sizes --shapes $shapes --json "$OUT/tileB.json" > "$OUT/bench_tileB.log" 2>&1
  echo "bench rc=$?"; tail -40 "$OUT/bench_tileB.log"
fi
fi

echo "== ncu at 4096^3: rungs 11 and 15"
for k in 11 15; do
  python3 tools/ncu_profile.py --kernel $k --csv "$OUT/ncu_$k.csv" > "$OUT/ncu_$k.log" 2>&1
  echo "ncu $k rc=$?"; tail -4 "$OUT/ncu_$k.log"
done
# Only a few files come back from the GPU machine: logs and CSVs in one archive, JSON beside it.
tar -czf "$OUT/exp39_logs.tgz" -C "$OUT" $(cd "$OUT" && ls *.log *.csv 2>/dev/null) && (cd "$OUT" && rm -f *.log *.csv)
