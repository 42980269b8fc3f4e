#!/usr/bin/env bash
# CPU test: tools/gdb_walkthrough.sh --dry-run works for every CUDA-core rung from 3 up (the
# registry's list, so a new rung is covered the day it is added; tensor-core and dispatch rungs
# must be refused with exit 2 and a reason): it finds a breakpoint line in the rung's file, the
# line is the compute line it claims, the generated cuda-gdb command file has no placeholder
# left, it first stops in the rung's host launch (a function sgemm_bench has), and bad arguments
# are refused with exit 2. Needs no GPU and no cuda-gdb.
#
#   check_gdb_walkthrough.sh REPO_ROOT SGEMM_BENCH
set -u
root=${1:?usage: check_gdb_walkthrough.sh REPO_ROOT SGEMM_BENCH}
bench=${2:?}
script=$root/tools/gdb_walkthrough.sh
fail=0
ok() { echo "ok:   $*"; }
bad() { echo "FAIL: $*"; fail=1; }

ids=$("$bench" --list | awk '/^[0-9]/ && $1 >= 3 { print $1 }')
symbols=$(nm -C "$bench" 2>/dev/null)  # read once: the host launch each command file stops in first
[ -n "$ids" ] || { echo "no rungs from 3 up in sgemm_bench --list"; exit 1; }
for id in $ids; do
  slug=$("$bench" --list | awk -v id="$id" '/^[0-9]/ && $1 == id { print $2 }')
  if [ -f "$root/kernels/dispatch/$slug.cuh" ]; then
    out=$(bash "$script" --dry-run --bench "$bench" --kernel "$id" 2>&1)
    if [ $? -eq 2 ] && grep -qF "picks a kernel per shape" <<<"$out"; then ok "rung $id refused: picks a kernel per shape"
    else bad "rung $id (dispatch) should be refused with exit 2: $out"; fi
    continue
  fi
  if [ -f "$root/kernels/tensor/$slug.cuh" ]; then
    out=$(bash "$script" --dry-run --bench "$bench" --kernel "$id" 2>&1)
    if [ $? -eq 2 ] && grep -qF "runs on the tensor cores" <<<"$out"; then ok "rung $id refused: tensor cores"
    else bad "rung $id (tensor cores) should be refused with exit 2: $out"; fi
    continue
  fi
  for mode in --batch ""; do
    out=$(bash "$script" --dry-run $mode --bench "$bench" --kernel "$id" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then bad "rung $id $mode: exit $rc: $out"; continue; fi
    file=$(sed -n 's/^gdb_walkthrough: command file //p' <<<"$out")
    brk=$(grep -m1 '^break .*\.cuh:' "$file")
    if [[ $brk =~ ^break\ ([0-9A-Za-z_]+\.cuh):([0-9]+)\ if\ (.*)$ ]]; then
      src=$(ls "$root"/kernels/*/"${BASH_REMATCH[1]}" | head -n 1) line=${BASH_REMATCH[2]} cond=${BASH_REMATCH[3]}
      code=$(sed -n "${line}p" "$src")
      if ! grep -qE 'dot_slab\(sA, sB, acc\)|compute_slab<|outer_product(<[^>]*>)?\(rA\[' <<<"$code"; then
        bad "rung $id: line $line of $src is not a compute line: $code"
      elif ! grep -qE 'blockIdx.x == [0-9]+ && blockIdx.y == [0-9]+ && threadIdx.x == [0-9]+' <<<"$cond" ||
           ! grep -qE '^(g\.)?M == [0-9]+' <<<"$cond"; then
        bad "rung $id: the condition does not pin M, the block and the thread: $cond"
      elif ! launch=$(sed -n 's/^break \(sgemm::rung[0-9]*::launch\)$/\1/p' "$file") || [ -z "$launch" ] ||
           ! grep -qF "$launch(" <<<"$symbols"; then
        bad "rung $id: the command file does not first stop in the rung's host launch, or sgemm_bench has no ${launch:-such function}"
      elif grep -q '@[A-Z_]*@' "$file"; then
        bad "rung $id: placeholder left in $file"
      elif ! grep -q '^print ' "$file" || ! grep -qE '^print (acc|rAcc)$' "$file"; then
        bad "rung $id: no accumulator print in $file"
      else
        ok "rung $id ${mode:-interactive}: ${BASH_REMATCH[1]}:$line \`$(sed 's/^[[:space:]]*//' <<<"$code")\`"
      fi
    else
      bad "rung $id: no 'break FILE:LINE if ...' in $file"
    fi
  done
done

expect_refused() {  # NEEDLE ARGS...
  local needle=$1 out rc
  shift
  out=$(bash "$script" --dry-run --bench "$bench" "$@" 2>&1)
  rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$needle" <<<"$out"; then ok "refused $*: $out"
  else bad "$* -> exit $rc, expected 2 with '$needle': $out"; fi
}
expect_refused "rungs 1-2 have no tiles" --kernel 1
expect_refused "no rung 99" --kernel 99
expect_refused "outside the grid" --kernel 6 --size 256 --block 5,0
expect_refused "outside rung 6's block" --kernel 6 --thread 256
expect_refused "needs K >=" --kernel 3 --size 64 --step 2
expect_refused "unknown argument" --frobnicate
exit $fail
