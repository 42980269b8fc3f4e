#!/usr/bin/env bash
# exp34 on the GPU machine, from the repository root:   bash .carry/exp34/run.sh
# Builds .carry/exp34/exp34, runs `all` (Q1 + Q2 + Q3 timing) -> $OUT/exp34.json and $OUT/exp34.log,
# then ncu on the rung-7 B-store variants -> $OUT/exp34_ncu_*.csv. Never touches GPU clocks
# (ncu runs with --clock-control none). Budget: ~3 min; hard stops keep it under 4.
set -uo pipefail
OUT="${OUT:-/tmp/exp34_out}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/exp34_run.log") 2>&1
set -x
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
D=${EXP34_DIR:-tools/experiments}
BIN=${BIN:-/tmp/exp34}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv 2>/dev/null \
  || nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv || true

# ---- build ---------------------------------------------------------------------------------------
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$NVCC" --version | tail -2
"$NVCC" -O3 -std=c++17 -arch=sm_90 -lineinfo -I kernels -DSGEMM_TUNED_HEADER='"tuned/sm_90.cuh"' \
  -Xptxas -v "$D/exp34_rungs_3_7_9.cu" -o "$BIN" -lcublas -ldl > "$OUT/exp34_build.log" 2>&1
rc=$?
grep -E "entry function|spill|Used" "$OUT/exp34_build.log" | sed 's/ptxas info    : //' > "$OUT/exp34_ptxas.txt" || true
if [ $rc -ne 0 ]; then cat "$OUT/exp34_build.log"; echo "BUILD FAILED"; exit 1; fi
echo "build done at $(el) s"

# SASS opcode counts per kernel (checks e.g. that LDS.128 appear where the notes say)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$CUOBJDUMP" ] || command -v cuobjdump >/dev/null; then
  "$CUOBJDUMP" -sass "$BIN" > "$OUT/exp34.sass" 2>/dev/null || true
  python3 - "$OUT/exp34.sass" > "$OUT/exp34_sass_counts.txt" <<'EOF' || true
import re, sys, collections
fn = None; counts = collections.OrderedDict()
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Function : (\S+)", line)
    if m: fn = m.group(1); counts[fn] = collections.Counter(); continue
    m = re.search(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if fn and m and m.group(1).split(".")[0] in ("LDS", "STS", "LDG", "BAR", "FFMA", "LDGSTS"):
        counts[fn][m.group(1)] += 1
for fn, c in counts.items():
    print(fn); print("    " + ", ".join("%s %d" % kv for kv in sorted(c.items())))
EOF
  gzip -f "$OUT/exp34.sass" || true
fi

# ---- Q1 + Q2 (+ Q3 timing) -----------------------------------------------------------------------
timeout 165 "$BIN" all "$OUT/exp34.json" 2>&1 | tee "$OUT/exp34.log"
echo "all: rc=${PIPESTATUS[0]} at $(el) s"

nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv 2>/dev/null || true

# ---- Q3: ncu on rung-7 variants --------------------------------------------------------------------
NCU=$(command -v ncu || true)
[ -z "$NCU" ] && [ -x /usr/local/cuda/bin/ncu ] && NCU=/usr/local/cuda/bin/ncu
[ -z "$NCU" ] && NCU=$(ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort -r | head -1)
if [ -z "$NCU" ]; then echo "ncu not found: skipping Q3 profiling"; exit 0; fi
"$NCU" --version | tail -1

MAIN=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second
# SASS-patched (address-derived) counterparts: if these show 0 excess where the hardware counters
# above show conflicts, the hardware counter is counting something other than the address pattern.
OPT=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
COMMON=(--clock-control none --launch-skip 1 --launch-count 1 --kernel-name-base function -k regex:sgemm_07 --target-processes all -f)

prof() {  # prof <variant> <metrics>: one profiled launch at 2048^3 -> report + raw CSV
  local v=$1 m=$2
  rm -f "$OUT/exp34_ncu_$v.ncu-rep" "$OUT/exp34_ncu_$v.csv"
  timeout 45 "$NCU" "${COMMON[@]}" --metrics "$m" -o "$OUT/exp34_ncu_$v" "$BIN" rung7 "$v" || return 1
  [ -s "$OUT/exp34_ncu_$v.ncu-rep" ] || return 1
  "$NCU" -i "$OUT/exp34_ncu_$v.ncu-rep" --csv --page raw --print-units base > "$OUT/exp34_ncu_$v.csv" || return 1
  grep -q sgemm_07 "$OUT/exp34_ncu_$v.csv"
}

METRICS="$MAIN,$OPT"
for v in base copy scalar_same scalar_coal padded noldg; do
  if [ "$(el)" -gt 215 ]; then echo "time budget: skipping ncu for $v"; continue; fi
  if ! prof "$v" "$METRICS"; then
    if [ "$METRICS" != "$MAIN" ]; then
      echo "ncu with the SASS-patched metrics failed for $v: retrying with the main metrics only"
      METRICS="$MAIN"
      prof "$v" "$METRICS" || echo "ncu FAILED for $v"
    else
      echo "ncu FAILED for $v"
    fi
  fi
  echo "ncu $v done at $(el) s"
done

# Per-instruction attribution for rung 7 as is: SourceCounters (SASS-level shared wavefronts,
# ideal vs actual, per STS/LDS instruction).
if [ "$(el)" -lt 200 ]; then
  timeout 45 "$NCU" "${COMMON[@]}" --section SourceCounters -o "$OUT/exp34_ncu_src_base" "$BIN" rung7 base \
    && { "$NCU" -i "$OUT/exp34_ncu_src_base.ncu-rep" --page source --print-source sass --csv > "$OUT/exp34_ncu_src_base_sass.csv" 2>&1 || true;
         "$NCU" -i "$OUT/exp34_ncu_src_base.ncu-rep" --page details --csv > "$OUT/exp34_ncu_src_base_details.csv" 2>&1 || true; }
fi

# One-line summary of the ncu CSVs (raw page: header row, units row, one row per launch)
python3 - "$OUT" <<'EOF' | tee "$OUT/exp34_ncu_summary.txt" || true
import csv, glob, os, sys
out = sys.argv[1]
keys = ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "smsp__sass_inst_executed_op_shared_st.sum", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "smsp__sass_inst_executed_op_shared_ld.sum", "gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second"]
short = ["st_confl", "st_wavef", "st_inst", "st_wavef_sass", "st_confl_sass", "ld_confl", "ld_wavef", "ld_inst", "ns", "Hz"]
print("%-12s " % "variant" + " ".join("%14s" % s for s in short))
for v in ["base", "copy", "scalar_same", "scalar_coal", "padded", "noldg"]:
    p = os.path.join(out, "exp34_ncu_%s.csv" % v)
    if not os.path.exists(p): print("%-12s missing" % v); continue
    rows = list(csv.reader(open(p)))
    hdr = next((r for r in rows if "Kernel Name" in r), None)
    data = [r for r in rows if hdr and len(r) == len(hdr) and any("sgemm_07" in c for c in r)]
    if not data: print("%-12s no data" % v); continue
    d = dict(zip(hdr, data[-1]))
    print("%-12s " % v + " ".join("%14s" % d.get(k, "-") for k in keys))
EOF
ls -la "$OUT"
echo "exp34 finished at $(el) s"
