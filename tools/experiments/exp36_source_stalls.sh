#!/usr/bin/env bash
# exp36 on the GPU machine, from the repository root:  OUT=... bash tools/experiments/exp36_source_stalls.sh
# Question: where in the k loop do rung 10's warps lose issue slots that cuBLAS's do not? ncu
# samples each warp's stall reason per SASS instruction (SourceCounters section); we export the
# per-instruction table for rung 10 and for cuBLAS's FFMA kernel at 4096^3.
# Never touches GPU clocks (ncu runs with --clock-control none).
set -uo pipefail
OUT="${OUT:-/tmp/exp36_out}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/exp36_run.log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 &&
  cmake --build --preset release -j 16 --target sgemm_bench >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
bench=build/release/bench/sgemm_bench
for k in 10 0; do
  # cuBLAS's 4096^3 FFMA kernel (h200_ncu.csv names it); the 8x8x8 preflight runs another kernel
  if [ $k = 0 ]; then name='regex:tilesize256x128x8_stage3'; skip=0; else name='regex:sgemm_10_'; skip=1; fi
  ncu --clock-control none --target-processes all --kernel-name-base function --kernel-name "$name" \
    --launch-skip $skip --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no \
    -f -o "/tmp/exp36_r$k" $bench --kernel $k --size 4096 --repeat 1 --warmup 0 --no-check --min-time 0.01 \
    > "$OUT/ncu_r$k.log" 2>&1
  echo "ncu rung $k rc=$?"
  ncu --import "/tmp/exp36_r$k.ncu-rep" --page source --csv --print-source sass > "$OUT/source_r$k.csv" 2> "$OUT/source_r$k.err"
  echo "export rc=$? lines=$(wc -l < "$OUT/source_r$k.csv")"
  head -c 600 "$OUT/source_r$k.csv"; echo
done
