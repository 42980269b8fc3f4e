#!/usr/bin/env bash
# exp35 on the GPU machine, from the repository root:  OUT=... bash tools/experiments/exp35_unroll.sh
# Question: does rung 10 lose issue slots to instruction-cache misses (ncu stall_no_instruction
# 0.13 per issue against cuBLAS's 0.02) because a fully unrolled 32-step slab of 8x16 outer
# products is ~70 KB of SASS? Rung 10 now takes KU, the k steps unrolled per loop iteration.
#   1. the tuner's --only mode times the previous top tiles at KU = 8, 16, 32 (nvcc builds, 4096^3
#      and 8192^3), keeping both compilers' cubins of the finalists;
#   2. the library rebuilt with KU = 8 in the tuned header: sgemm_bench and ncu on rung 10.
# Never touches GPU clocks (ncu runs with --clock-control none).
set -uo pipefail
OUT="${OUT:-/tmp/exp35_out}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/exp35_run.log") 2>&1
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv || true

timeout 330 bash -c 'cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > "$0/build.log" 2>&1 && cmake --build --preset release -j 16 >> "$0/build.log" 2>&1' "$OUT"
rc=$?; echo "build rc=$rc at $(el) s"; [ $rc -ne 0 ] && { tail -40 "$OUT/build.log"; exit 1; }

tiles=""
for t in 64x256x32_32x128_8x16_s2 128x128x32_64x64_8x16_s2 64x128x32_64x64_8x16_s2 64x128x32_32x64_8x8_s3 \
         128x128x32_128x32_8x16_s2 64x128x32_64x32_8x8_s3 64x256x32_64x64_8x16_s2; do
  for u in 8 16 32; do tiles="$tiles${tiles:+,}${t}_u$u"; done
done
for t in 64x256x16_16x128_8x8_s2 64x256x16_64x64_16x8_s4; do
  for u in 8 16; do tiles="$tiles,${t}_u$u"; done
done
timeout 240 build/release/tools/sgemm_autotune --rungs 10 --only "$tiles" --top 40 --work-dir /tmp/exp35_at \
  --json "$OUT/exp35_tune.json" > "$OUT/exp35_tune.log" 2>&1
echo "tune rc=$? at $(el) s"; grep -A60 "finalists" "$OUT/exp35_tune.log" | head -60
mkdir -p "$OUT/cubins"; cp /tmp/exp35_at/rung10_64x256x32_32x128_8x16_s2_u*.cubin "$OUT/cubins/" 2>/dev/null || true

sed -i 's/Stages = 2, KU = 32;/Stages = 2, KU = 8;/' kernels/tuned/sm_90.cuh
grep -n "KU" kernels/tuned/sm_90.cuh
timeout 150 cmake --build --preset release -j 16 > "$OUT/rebuild.log" 2>&1
echo "rebuild rc=$? at $(el) s"
timeout 60 build/release/bench/sgemm_bench --kernel 0,10 --sizes 4096,8192 --json "$OUT/exp35_bench_ku8.json" \
  > "$OUT/exp35_bench_ku8.log" 2>&1
echo "bench rc=$? at $(el) s"; cat "$OUT/exp35_bench_ku8.log" | tail -12
timeout 120 python3 tools/ncu_profile.py --kernel 10 --csv "$OUT/exp35_ncu_ku8.csv" > "$OUT/exp35_ncu.log" 2>&1
echo "ncu rc=$? at $(el) s"; tail -5 "$OUT/exp35_ncu.log"
sed -i 's/Stages = 2, KU = 8;/Stages = 2, KU = 32;/' kernels/tuned/sm_90.cuh
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv || true
echo "exp35 finished at $(el) s"
