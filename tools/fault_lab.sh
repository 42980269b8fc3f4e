#!/usr/bin/env bash
# The fault lab's demonstrations: one command each (docs/debugging.md walks through them).
#
#   tools/fault_lab.sh memcheck-read  [--kernel 3|6]   compute-sanitizer memcheck finds the
#                                                      out-of-bounds read (silent without it)
#   tools/fault_lab.sh memcheck-write [--kernel 3|6]   memcheck finds the out-of-bounds write
#   tools/fault_lab.sh racecheck      [--kernel 3|6]   racecheck finds the missing __syncthreads
#   tools/fault_lab.sh coredump       [--kernel 3|6]   a GPU core dump of a write far past C
#                                                      (oob-write at M=1, N=2^20, K=8), opened
#                                                      with cuda-gdb (target cudacore)
#   tools/fault_lab.sh plain KIND     [--kernel 3|6]   the faulty kernel with no tool at all
#   tools/fault_lab.sh all                             each of the above in turn
#   tools/fault_lab.sh --dry-run COMMAND ...           no GPU work: print each command the real run
#                                                      would run, and each faulty kernel's plan
#                                                      (sgemm_bench stops before the GPU, exit 3);
#                                                      checks the build and the tools it needs
#
# Builds nothing: it runs build/debug/bench/sgemm_bench, the debug preset's build (device code
# with -G, so every report has source lines, and the fault lab compiled in):
#   cmake --preset debug && cmake --build --preset debug
# Other sgemm_bench: FAULT_LAB_BENCH=path (its faulty copies, which the reports point at, are
# read from fault_lab/generated/ beside it, or FAULT_LAB_COPIES=DIR). Long reports are cut short; FAULT_LAB_FULL=1 shows
# them whole. Extra arguments after the command go to sgemm_bench (e.g. --size 500).
set -uo pipefail
shopt -u patsub_replacement 2>/dev/null || true

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
bench=${FAULT_LAB_BENCH:-build/debug/bench/sgemm_bench}
bench=${bench#"$root"/}          # shown relative to the repository root when inside it
# The faulty copies the reports point at: each is a rung with a patch of bench/fault_lab/patches/
# applied, made by the build beside sgemm_bench (bench/fault_lab/CMakeLists.txt).
copies=${FAULT_LAB_COPIES:-$(dirname "$bench")/fault_lab/generated}
full=${FAULT_LAB_FULL:-0}
work=build/debug/fault_lab
# Small GPU core dumps: no global, shared or local memory, no non-relocated ELF images (the
# relocated images, with the -G line tables, stay). CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION=0: no
# host core file next to it.
coredump_flags=${FAULT_LAB_COREDUMP_FLAGS:-skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_local_memory}

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "fault_lab: $*" >&2; exit 2; }

dry=0
if [ "${1:-}" = --dry-run ]; then dry=1; shift; fi
cmd=${1:-}
[ -n "$cmd" ] || { usage; exit 2; }
shift
case $cmd in -h|--help|help) usage; exit 0 ;; esac

find_tool() {  # NAME -> path or empty
  local p
  p=$(command -v "$1" 2>/dev/null) && { echo "$p"; return; }
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    [ -n "$d" ] && [ -x "$d/bin/$1" ] && { echo "$d/bin/$1"; return; }
  done
}

check_bench() {
  [ -x "$bench" ] || die "$bench not found. The fault lab lives in the debug preset's build:
    cmake --preset debug && cmake --build --preset debug"
  local out
  # A valid fault on an empty shape: a fault-lab build refuses the shape (no GPU work), any other
  # build refuses the fault lab itself.
  out=$("$bench" --inject-fault race --size 0 2>&1)
  if grep -q 'needs a fault-lab build' <<<"$out"; then
    die "$bench was built without the fault lab (SGEMM_LADDER_FAULT_LAB=OFF); use the debug preset"
  fi
}

# Print a command, then run it with its output cut to the first $2 lines (+ the last few).
show() {
  local a
  printf '\n$'
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./=,:%+@-]+$ ]]; then printf ' %s' "$a"
    elif [[ ! $a =~ [\"\$\`\\] ]]; then printf ' "%s"' "$a"
    else printf ' %q' "$a"; fi
  done
  printf '\n'
}
trim() {  # LIMIT: pass stdin through, at most LIMIT lines then the last 6
  if [ "$full" = 1 ]; then cat; return; fi
  awk -v lim="$1" '{ buf[NR] = $0 } END {
    if (NR <= lim + 6) { for (i = 1; i <= NR; i++) print buf[i]; exit }
    for (i = 1; i <= lim; i++) print buf[i]
    printf("   [... %d lines cut: FAULT_LAB_FULL=1 shows everything ...]\n", NR - lim - 6)
    for (i = NR - 5; i <= NR; i++) print buf[i] }'
}

# The lines of the faulty copies (fault_<kind>_rungNN.cuh) a report points at, with their text.
point_at_source() {  # LOG
  local at file l
  local places
  places=$(grep -oE 'fault_(oob_read|oob_write|race)_rung[0-9]+\.cuh:[0-9]+' "$1" | sort -t: -k1,1 -k2,2n | uniq)
  if [ -z "$places" ]; then
    echo "(no fault_<kind>_rungNN.cuh:LINE in the report: was sgemm_bench built with -G or -lineinfo?)"
    return
  fi
  echo
  echo "== the report points at these lines of the faulty copies in $copies:"
  for at in $places; do
    file=${at%%:*} l=${at##*:}
    printf '  %s %s\n' "$(printf '%-30s' "$at")" "$(sed -n "${l}p" "$copies/$file" 2>/dev/null | sed 's/^[[:space:]]*//')"
  done
}

# --dry-run: the tool the real run needs, found or not (the dry run itself needs none of them).
need_tool() {  # NAME
  local p
  p=$(find_tool "$1")
  if [ "$dry" = 1 ]; then
    echo "  ($1: ${p:-not found here; the real run needs it, from the CUDA Toolkit})" >&2
    echo "${p:-$1}"
    return
  fi
  [ -n "$p" ] || die "$1 not found: it ships with the CUDA Toolkit (/usr/local/cuda/bin)"
  echo "$p"
}

# --dry-run: sgemm_bench prints the faulty kernel's plan, then stops before any GPU work (no
# device visible: exit 3). Anything else (a usage error, a missing plan) fails the dry run.
plan_only() {  # [bench args...]
  local out rc
  out=$(CUDA_VISIBLE_DEVICES= "$bench" "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed 's/^/  | /'
  if [ "$rc" -ne 3 ] || ! grep -q '^fault lab: injecting ' <<<"$out"; then
    echo "fault_lab: dry run: expected the plan and exit 3 (no GPU), got exit $rc" >&2
    dry_failed=1
  else
    echo "  (dry run: the plan above; sgemm_bench stopped before the GPU, exit 3)"
  fi
}
dry_failed=0

sanitize() {  # TOOL KIND [bench args...]
  local tool=$1 kind=$2
  shift 2
  local sanitizer log rc
  sanitizer=$(need_tool compute-sanitizer) || exit 2
  log=$work/$tool-$kind.log
  local cmdline=("$sanitizer" --tool "$tool" --show-backtrace device --print-limit 2
                 "$bench" --inject-fault "$kind" "$@")
  show compute-sanitizer "${cmdline[@]:1}"
  if [ "$dry" = 1 ]; then plan_only --inject-fault "$kind" "$@"; return 0; fi
  mkdir -p "$work"
  "${cmdline[@]}" >"$log" 2>&1
  rc=$?
  trim 70 <"$log"
  echo "(exit status $rc; the full report: $log)"
  point_at_source "$log"
  return 0
}

coredump() {  # [bench args...]
  local gdb dump rc
  gdb=$(need_tool cuda-gdb) || exit 2
  # A GPU core dump needs a real hardware exception. The default 1000^3 overrun stays inside
  # memory the process has mapped (no exception: only memcheck sees it), so this shape makes the
  # edge tile reach far: M = 1 leaves 127 of the 128 rows of rung 6's block tile past the end of
  # C, each ldc = 2^20 floats (4 MiB) further, up to ~500 MiB past it: unmapped memory.
  local args=(--inject-fault oob-write --m 1 --n 1048576 --k 8 "$@")
  [[ " $* " == *" --kernel "* ]] || args+=(--kernel 6)
  local env=(CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION=0
             CUDA_COREDUMP_GENERATION_FLAGS="$coredump_flags"
             CUDA_COREDUMP_FILE="$work/sgemm_bench.%p.cudacore")
  show env "${env[@]}" "$bench" "${args[@]}"
  if [ "$dry" = 1 ]; then
    plan_only "${args[@]}"
    [ -f "$root/tools/gdb/coredump.gdb" ] || { echo "fault_lab: tools/gdb/coredump.gdb is missing" >&2; dry_failed=1; }
    show cuda-gdb -nx -batch -ex "target cudacore $work/sgemm_bench.PID.cudacore" -x tools/gdb/coredump.gdb
    return 0
  fi
  mkdir -p "$work"
  rm -f "$work"/sgemm_bench.*.cudacore
  env "${env[@]}" "$bench" "${args[@]}" 2>&1 | trim 30
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 134 ]; then
    echo "(exit status 134, SIGABRT: after writing the dump the CUDA driver aborts the process)"
  else
    echo "(exit status $rc)"
  fi
  dump=$(ls -t "$work"/sgemm_bench.*.cudacore 2>/dev/null | head -n 1)
  if [ -z "$dump" ]; then
    echo "fault_lab: no GPU core dump was written (no hardware exception? see the output above)" >&2
    return 1
  fi
  echo "GPU core dump: $dump ($(du -h "$dump" | cut -f1))"

  local ex=(-ex "target cudacore $dump") l
  while IFS= read -r l; do
    case $l in ''|'#'*) continue ;; esac
    ex+=(-ex "$l")
  done <"$root/tools/gdb/coredump.gdb"
  show cuda-gdb -nx -batch -ex "target cudacore $dump" -x tools/gdb/coredump.gdb
  # Keep the register dump short unless FAULT_LAB_FULL=1.
  "$gdb" -nx -batch "${ex[@]}" 2>&1 | awk -v full="$full" '
    /^== / { sec = $0; n = 0; print; next }
    { if (!full && sec ~ /registers/ && ++n > 16) { if (n == 17) print "   [... more registers: FAULT_LAB_FULL=1 shows all ...]"; next }
      print }'
}

plain() {  # KIND [bench args...]
  local kind=${1:?plain needs a KIND: oob-read, oob-write or race}
  shift
  show "$bench" --inject-fault "$kind" "$@"
  if [ "$dry" = 1 ]; then plan_only --inject-fault "$kind" "$@"; return 0; fi
  "$bench" --inject-fault "$kind" "$@" 2>&1 | trim 30
  echo "(exit status ${PIPESTATUS[0]})"
}

check_bench
if [ "$dry" = 1 ]; then  # the copies point_at_source reads, made by the build beside sgemm_bench
  for k in oob_read oob_write race; do
    for r in 03 06; do
      [ -f "$copies/fault_${k}_rung$r.cuh" ] ||
        { echo "fault_lab: no faulty copy $copies/fault_${k}_rung$r.cuh (FAULT_LAB_COPIES=DIR)" >&2; dry_failed=1; }
    done
  done
fi
case $cmd in
  memcheck-read) sanitize memcheck oob-read "$@" ;;
  memcheck-write) sanitize memcheck oob-write "$@" ;;
  racecheck) sanitize racecheck race "$@" ;;
  coredump) coredump "$@" ;;
  plain) plain "$@" ;;
  all)
    for k in oob-read oob-write race; do plain "$k"; done
    sanitize memcheck oob-read
    sanitize memcheck oob-write
    sanitize racecheck race
    coredump
    ;;
  *) usage; die "unknown command '$cmd'" ;;
esac
if [ "$dry" = 1 ]; then
  [ "$dry_failed" = 0 ] || exit 1
  echo
  echo "fault_lab: dry run done: every command above would run on a GPU machine with the same build"
fi
