#!/usr/bin/env bash
# CPU test, registered in every build: no faulty kernel of the fault lab is reachable from a
# normal build, and the library never contains one.
#
#   check_unreachable.sh normal|faultlab SGEMM_BENCH|- LIBSGEMM_LADDER
#
# normal   (SGEMM_LADDER_FAULT_LAB=OFF: release, cpu presets)
#          - `sgemm_bench --inject-fault KIND` exits 2 with the one-line "needs a fault-lab build"
#            message, for every KIND (and before any GPU work: this runs without a GPU);
#          - no fault-lab symbol in sgemm_bench or libsgemm_ladder.so: nm -C over the static and
#            the dynamic symbol tables, and a byte scan of the whole file, which also sees the
#            kernels' names in embedded device code stored uncompressed (a stripped -G build
#            still shows them there).
# faultlab (SGEMM_LADDER_FAULT_LAB=ON: the debug preset)
#          - libsgemm_ladder.so still has no fault-lab symbol (the lab lives in sgemm_bench only);
#          - the registry does not list the faulty kernels (--list; --kernel refuses their names);
#          - usage errors of --inject-fault exit 2 before any GPU work;
#          - positive control: the same scans DO find the faulty kernels in this sgemm_bench, so
#            the scans above are not vacuous.
set -u
mode=${1:?usage: check_unreachable.sh normal|faultlab SGEMM_BENCH|- LIBSGEMM_LADDER}
bench=${2:?}
lib=${3:?}

fail=0
ok() { echo "ok:   $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# The names a fault-lab build adds: the faulty copies' namespaces fault_{oob_read,oob_write,race}_rungNN
# (part of every faulty kernel's name) inside sgemm::fault_lab (mangled: 9fault_lab). Nothing in a
# normal build may match.
symbol_re='fault_(oob_read|oob_write|race)_rung[0-9]+|fault_lab::|9fault_lab'
bytes_re='fault_(oob_read|oob_write|race)_rung[0-9]+|9fault_lab'

if ! command -v nm >/dev/null 2>&1; then
  echo "nm not found (binutils); cannot read the symbol tables"; exit 1
fi

# Matching symbol names (static and dynamic tables), one per line.
symbols_of() {
  { nm -C "$1" 2>/dev/null; nm -C -D "$1" 2>/dev/null; } | grep -E "$symbol_re" | sort -u
}
# Matching strings anywhere in the file (host code, .rodata, embedded device code).
bytes_of() {
  LC_ALL=C grep -a -o -E "$bytes_re" "$1" | sort -u
}

expect_clean() {  # FILE WHAT
  local s b
  s=$(symbols_of "$1")
  b=$(bytes_of "$1")
  if [ -z "$s" ] && [ -z "$b" ]; then
    ok "$2: no fault-lab symbol or kernel name ($(basename "$1"))"
  else
    bad "$2 contains fault-lab code: ${s:+symbols: $(echo "$s" | head -3 | tr '\n' ' ')}${b:+ bytes: $(echo "$b" | head -3 | tr '\n' ' ')}"
  fi
}

expect_exit() {  # WANT_RC NEEDLE ARGS...
  local want=$1 needle=$2
  shift 2
  local out rc
  out=$("$bench" "$@" 2>&1 </dev/null)
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    bad "sgemm_bench $* exited $rc, expected $want; output: $(echo "$out" | head -3)"
  elif ! grep -qF -- "$needle" <<<"$out"; then
    bad "sgemm_bench $*: output lacks '$needle': $(echo "$out" | head -3)"
  elif [ "$want" -eq 2 ] && [ "$(grep -c . <<<"$out")" -ne 1 ]; then
    bad "sgemm_bench $*: a usage error must be one line, got: $out"
  else
    ok "sgemm_bench $* -> exit $rc: $(echo "$out" | head -1)"
  fi
}

[ -f "$lib" ] || { echo "no library at $lib"; exit 1; }
expect_clean "$lib" "libsgemm_ladder.so"

if [ "$bench" = - ]; then
  echo "sgemm_bench is not built here (SGEMM_LADDER_BUILD_BENCH=OFF): only the library was checked"
  exit $fail
fi
[ -x "$bench" ] || { echo "no sgemm_bench at $bench"; exit 1; }

# The registry never lists a faulty kernel, in any build.
if "$bench" --list 2>&1 | grep -qiE 'fault'; then
  bad "sgemm_bench --list mentions a fault-lab kernel"
else
  ok "sgemm_bench --list lists no fault-lab kernel"
fi
for k in fault_oob_write_rung06 fault_race_rung03; do
  expect_exit 2 "unknown kernel '$k'" --kernel "$k"
done

case $mode in
  normal)
    for kind in oob-read oob-write race; do
      expect_exit 2 "needs a fault-lab build" --inject-fault "$kind"
    done
    expect_exit 2 "needs a fault-lab build" --inject-fault oob-write --kernel 6 --size 1000
    expect_clean "$bench" "sgemm_bench (normal build)"
    ;;
  faultlab)
    expect_exit 2 "is not one of oob-read, oob-write, race" --inject-fault no-such-fault
    expect_exit 2 "rungs 3 (03_smem_tiling) and 6 (06_vectorized) only" --inject-fault oob-write --kernel 7
    expect_exit 2 "give one --kernel" --inject-fault race --kernel 3,6
    # Positive control: every faulty kernel is found by the same scans in this build.
    s=$(symbols_of "$bench")
    b=$(bytes_of "$bench")
    for k in fault_oob_read_rung03 fault_oob_write_rung03 fault_race_rung03 \
             fault_oob_read_rung06 fault_oob_write_rung06 fault_race_rung06; do
      if grep -q "$k" <<<"$s" && grep -q "$k" <<<"$b"; then
        ok "positive control: $k found in this fault-lab sgemm_bench (symbols and device code)"
      else
        bad "positive control: $k NOT found in this fault-lab sgemm_bench: the scans would miss it"
      fi
    done
    ;;
  *)
    echo "mode must be normal or faultlab, not '$mode'"; exit 1 ;;
esac
exit $fail
