#!/usr/bin/env bash
# A guided cuda-gdb session: stop in rung N at one block and one thread, in the middle of the
# K loop, and print the indices, the shared-memory tiles and the accumulators.
#
#   tools/gdb_walkthrough.sh [--batch] [--kernel N] [--block X,Y] [--thread X[,Y]] [--size S]
#                            [--step K] [--bench PATH] [--dry-run]
#
#   --batch     run to the stop, print everything, step over one more slab, print the
#               accumulators again, exit (cuda-gdb -batch). Without it: interactive, the same
#               prints, then the (cuda-gdb) prompt at the stop.
#   --kernel N  rung id (default 6); every CUDA-core rung from 3 up (the ones with shared-memory
#               tiles); tensor-core and dispatch rungs are refused with a reason.
#   --block     block (blockIdx.x,blockIdx.y) to stop in (default 1,1).
#   --thread    thread (threadIdx.x[,threadIdx.y]) to stop in (default 0; rung 3's blocks are 32x32).
#   --size S    M = N = K = S (default: the fewest blocks the stop needs, two tiles a side at least,
#               and step+2 K slabs: every warp stops at the line for the condition, so fewer is faster).
#   --step K    stop when K slab number K (0-based) is about to be multiplied (default 2): the
#               accumulators then hold the first K slabs.
#   --bench     sgemm_bench to debug (default build/debug/bench/sgemm_bench: the debug preset,
#               device code built with -G, so locals, shared arrays and source lines are there).
#   --dry-run   write the command file, print the cuda-gdb command, run nothing (no GPU needed).
#
# How: the script finds the rung's compute line in its file, kernels/<track>/<slug>.cuh, by pattern (rung 3:
# `acc = dot_slab(sA, sB, acc);`, rungs 4-9: the first `compute_slab<...>(...)` call, rung 10 and
# later: `outer_product(rA[k % 2], rB[k % 2], rAcc);`), i.e. a line in block_tile (rung 10 and
# later: compute_tile) where the shared-memory tiles, the K position and rAcc are all in scope
# (with -G nothing is inlined: the locals of a __device__ helper are visible only in its own
# frame). It fills tools/gdb/walkthrough.gdb with that line and a breakpoint condition on
# blockIdx, threadIdx, the K position and M (sgemm_bench first launches every kernel once at
# 8x8x8 as a preflight, and runs cuBLAS as rung 0; the condition and the rung's own source line
# skip both), writes it to <build>/gdb/walkthrough_rungNN.gdb and runs
#   cuda-gdb [-batch] -ex <each line of that file> --args sgemm_bench --kernel N --m M --n N --k K
#            --repeat 1 --warmup 0 --no-check
# (each line as its own -ex so that one failing print does not end the session; the file also
# runs as it is: cuda-gdb -x FILE --args ...).
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true  # bash 5.2: '&' in ${x//p/r} must stay literal

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
template=$root/tools/gdb/walkthrough.gdb
kernel=6 block=1,1 thread=0 size="" step=2 batch=0 dry=0
bench=$root/build/debug/bench/sgemm_bench

die() { echo "gdb_walkthrough: error: $*" >&2; exit 2; }
need_value() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case $1 in
    --batch) batch=1 ;;
    --dry-run) dry=1 ;;
    --kernel) need_value "$@"; kernel=$2; shift ;;
    --block) need_value "$@"; block=$2; shift ;;
    --thread) need_value "$@"; thread=$2; shift ;;
    --size) need_value "$@"; size=$2; shift ;;
    --step) need_value "$@"; step=$2; shift ;;
    --bench) need_value "$@"; bench=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
is_uint "$kernel" || die "--kernel '$kernel' is not a rung id"
is_uint "$step" || die "--step '$step' is not a number"
[[ $block =~ ^([0-9]+),([0-9]+)$ ]] || die "--block '$block' is not X,Y"
bx=${BASH_REMATCH[1]} by=${BASH_REMATCH[2]}
if [[ $thread =~ ^([0-9]+)(,([0-9]+))?$ ]]; then
  tx=${BASH_REMATCH[1]} ty=${BASH_REMATCH[3]:-0}
else
  die "--thread '$thread' is not X or X,Y"
fi
[ -z "$size" ] || is_uint "$size" || die "--size '$size' is not a number"

if [ ! -x "$bench" ]; then
  die "$bench not found: build the debug preset first (device code with -G):
    cmake --preset debug && cmake --build --preset debug"
fi
build_dir=$(cd "$(dirname "$bench")/.." && pwd)
if [ "$dry" = 0 ] && ! grep -qs '^SGEMM_LADDER_DEVICE_DEBUG:BOOL=ON' "$build_dir/CMakeCache.txt"; then
  echo "gdb_walkthrough: warning: $build_dir is not a -G build (SGEMM_LADDER_DEVICE_DEBUG=OFF):" \
       "locals and shared arrays may be optimized out; use the debug preset" >&2
fi

# The rung: slug and tile from the registry (sgemm_bench --list: id slug tile lesson...).
row=$("$bench" --list | awk -v id="$kernel" '/^[0-9]/ && $1 == id { print $2, $3 }')
[ -n "$row" ] || die "no rung $kernel; valid: $("$bench" --list | awk '/^[0-9]/ { printf "%s ", $1 }')"
read -r slug tile _ <<<"$row"
file=$(ls "$root"/kernels/*/"$slug.cuh" 2>/dev/null | head -n 1)
[ -f "$file" ] || die "kernels/*/$slug.cuh not found"
# A picking rung (the dispatch track) runs other rungs' kernels: walk through the one it picks.
case $file in */kernels/dispatch/*)
  die "rung $kernel ($slug) picks a kernel per shape (its run log names the choice) and runs another rung's kernel or its GEMV: walk through the rung whose kernel it picks, e.g. --kernel 15 for the capstone's tiles" ;;
esac
IFS='x_' read -r -a t <<<"$tile"  # 128x128x8_64x32_8x8_s3 -> 128 128 8 64 32 8 8 s3
[ "${#t[@]}" -ge 5 ] && is_uint "${t[0]}" || die "rung $kernel ($slug, tile '$tile') has no block tile to inspect"
bm=${t[0]} bn=${t[1]} bk=${t[2]}

# The tensor-core rungs keep their accumulators in MMA fragments spread over a warp (or a
# warpgroup), not in one thread's tile: this walkthrough covers the CUDA-core rungs.
case $file in */kernels/tensor/*)
  die "rung $kernel ($slug) runs on the tensor cores: its accumulators are MMA fragments shared by a warp; the walkthrough covers the CUDA-core rungs from 3 up (step through it with plain cuda-gdb commands: break, cuda thread, info locals)" ;;
esac

# Which kind of compute loop this rung has, and the line to stop on.
line_of() { grep -nE "$1" "$file" | head -n 1 | cut -d: -f1; }
if line=$(line_of '^[[:space:]]*acc = dot_slab\(sA, sB, acc\);') && [ -n "$line" ]; then
  profile=scalar pattern='acc = dot_slab(sA, sB, acc);'
elif line=$(line_of '^[[:space:]]*compute_slab<') && [ -n "$line" ]; then
  profile=slab pattern=$(sed -n "${line}p" "$file" | sed 's/^[[:space:]]*//')
elif line=$(line_of '^[[:space:]]*outer_product(<[^>]*>)?\(rA\[') && [ -n "$line" ]; then
  profile=pipeline pattern=$(sed -n "${line}p" "$file" | sed 's/^[[:space:]]*//')
else
  die "rung $kernel ($slug) has no shared-memory compute line the walkthrough knows (dot_slab, compute_slab<, outer_product(rA[ or outer_product<...>(rA[): rungs 1-2 have no tiles; for a new rung, add its pattern to tools/gdb_walkthrough.sh"
fi

# Threads per block, to check --thread.
if [ "$profile" = scalar ]; then
  threads_x=$bn threads_y=$bm
elif [ "${#t[@]}" -ge 7 ] && is_uint "${t[5]}"; then  # BMxBNxBK_WMxWN_TMxTN: one warp per warp tile
  threads_x=$(( (bm / t[3]) * (bn / t[4]) * 32 )) threads_y=1
else                                                  # BMxBNxBK_TMxTN: one thread per thread tile
  threads_x=$(( (bm / t[3]) * (bn / t[4]) )) threads_y=1
fi
[ "$tx" -lt "$threads_x" ] && [ "$ty" -lt "$threads_y" ] ||
  die "--thread $tx,$ty is outside rung $kernel's block of ${threads_x}x${threads_y} threads"

# The shape: --size S is M = N = K = S. By default each dimension is only as large as the stop
# needs (the block's row and column of tiles, and two tiles a side at least; step+2 slabs of K):
# every warp of every block stops at the breakpoint line and cuda-gdb evaluates the condition there,
# so each block fewer is a faster walkthrough (rung 3 at 256^3 had 64 blocks of 32 warps; at
# 64 x 96 x 256, 6).
if [ -n "$size" ]; then
  m=$size n=$size k=$size
else
  m=$(( (by + 1 > 2 ? by + 1 : 2) * bm )) n=$(( (bx + 1 > 2 ? bx + 1 : 2) * bn )) k=$(( (step + 2) * bk ))
fi
[ $(( (step + 1) * bk )) -le "$k" ] ||
  die "--step $step needs K >= $(( (step + 1) * bk )) (slab $step of BK = $bk must be a full slab); raise --size or lower --step"
gx=$(( (n + bn - 1) / bn )) gy=$(( (m + bm - 1) / bm ))
[ "$bx" -lt "$gx" ] && [ "$by" -lt "$gy" ] ||
  die "--block $bx,$by is outside the grid ($gx,$gy) of rung $kernel at M x N x K = $m x $n x $k"

# What to print, per kind of loop.
base="M == $m && blockIdx.x == $bx && blockIdx.y == $by && threadIdx.x == $tx && threadIdx.y == $ty"
tiles=$(grep -E '__shared__' "$file" | sed -n 's/.*__shared__.* \([a-zA-Z]*\)\[.*\/\/ *\(.*\)/\1 \2/p' | paste -sd ';' - |
        sed 's/;/; /g')
case $profile in
  scalar)
    condition="$base && k0 == $(( step * bk ))"
    vars=(row col k0)
    print_tiles=("print sA[0][0]@8" "print sA[1][0]@8" "print sB[0][0]@8" "print sB[1][0]@8")
    print_global=("print A[(long)(row - threadIdx.y) * lda + k0]" "print B[(long)k0 * ldb + (col - threadIdx.x)]")
    print_acc=("print acc")
    acc_note="acc = sum over k < k0 of A[row][k] * B[k][col]"
    next_note="dot_slab added this slab's $bk products to acc"
    ;;
  slab)
    condition="$base && k0 == $(( step * bk ))"
    vars=(m0 n0 k0)
    for v in tRow tCol warp lane aBase bBase; do grep -qE "\b$v\b *=" "$file" && vars+=("$v"); done
    print_tiles=("print sA[0][0]@8" "print sA[1][0]@8" "print sB[0][0]@8" "print sB[1][0]@8")
    print_global=("print A[(long)m0 * lda + k0]" "print B[(long)k0 * ldb + n0]")
    print_acc=("print rAcc")
    acc_note="rAcc[i][j] = sum over k < k0 of this thread's A rows x B columns"
    next_note="compute_slab added this slab's $bk outer products to rAcc"
    ;;
  pipeline)
    stages=${t[7]#s}
    is_uint "$stages" || die "rung $kernel ($slug, tile '$tile') has no pipeline depth"
    stage_floats=$(( bk * bm + bk * bn ))  # one stage of smem[]: A tile [BK][BM], then B tile [BK][BN]
    a0="smem[(kt % $stages) * $stage_floats]" b0="smem[(kt % $stages) * $stage_floats + $(( bk * bm ))]"
    condition="$base && kt == $step && c == 0 && k == 0"  # c: the chunk of KU steps within the slab
    vars=(m0 n0 kt c k warp lane aBase bBase)
    tiles="stage kt % $stages of the dynamic smem[]: A tile [BK][BM] (transposed, swizzled), then B tile [BK][BN]"
    print_tiles=("print ${a0}@8" "print ${b0}@8" "print rA" "print rB")
    # From rung 10 on the GEMM's arguments travel as one Gemm, g.
    condition="${condition/#M ==/g.M ==}"
    print_global=("print g.A[(long)m0 * g.lda + kt * $bk]" "print g.B[(long)(kt * $bk) * g.ldb + n0]")
    print_acc=("print rAcc")
    acc_note="rAcc holds the first kt slabs (kt * $bk values of k)"
    next_note="outer_product added step k of this slab to rAcc"
    ;;
esac
print_vars=()
for v in "${vars[@]}"; do print_vars+=("print $v"); done

# Fill in the template.
args=(--kernel "$kernel" --m "$m" --n "$n" --k "$k" --repeat 1 --warmup 0 --no-check)
out_dir=$build_dir/gdb
mkdir -p "$out_dir"
cmdfile=$out_dir/walkthrough_rung$(printf '%02d' "$kernel").gdb
emit_lines() { local l; for l in "$@"; do printf '%s\n' "$l"; done; }
{
  echo "# Generated by tools/gdb_walkthrough.sh from tools/gdb/walkthrough.gdb: rung $kernel, block $bx,$by,"
  echo "# thread $tx,$ty, slab $step, M x N x K = $m x $n x $k. Run: cuda-gdb -x $cmdfile --args $bench ${args[*]}"
  while IFS= read -r l || [ -n "$l" ]; do
    case $l in
      '##'*) continue ;;
      @PRINT_VARS@) emit_lines "${print_vars[@]}"; continue ;;
      @PRINT_TILES@) emit_lines "${print_tiles[@]}"; continue ;;
      @PRINT_GLOBAL@) emit_lines "${print_global[@]}"; continue ;;
      @PRINT_ACC@) emit_lines "${print_acc[@]}"; continue ;;
    esac
    l=${l//@RUNG@/"$kernel"}
    l=${l//@FILE@/"$slug.cuh"}
    l=${l//@LINE@/"$line"}
    l=${l//@PATTERN@/"$pattern"}
    l=${l//@STEP@/"$step"}
    l=${l//@SIZE@/"$m x $n x $k"}
    l=${l//@CONDITION@/"$condition"}
    l=${l//@FOCUS@/"cuda block ($bx,$by,0) thread ($tx,$ty,0)"}
    l=${l//@LAUNCH@/"sgemm::rung$(printf '%02d' "$kernel")::launch"}
    l=${l//@VARS@/"${vars[*]}"}
    l=${l//@TILES@/"$tiles"}
    l=${l//@ACC_NOTE@/"$acc_note"}
    l=${l//@NEXT_NOTE@/"$next_note"}
    printf '%s\n' "$l"
  done <"$template"
} >"$cmdfile"
if grep -q '@[A-Z_]*@' "$cmdfile"; then
  die "unfilled placeholder in $cmdfile: $(grep -o '@[A-Z_]*@' "$cmdfile" | head -n 1)"
fi
if [ "$(sed -n "${line}p" "$file" | sed 's/^[[:space:]]*//')" != "$pattern" ]; then
  die "internal: line $line of $file is not '$pattern'"
fi

# Every command line of the file as its own -ex; interactive mode stops before the batch part.
ex=()
while IFS= read -r l; do
  case $l in
    '#---- batch only'*) [ "$batch" = 1 ] || break ;;
  esac
  case $l in ''|'#'*) continue ;; esac
  ex+=(-ex "$l")
done <"$cmdfile"
[ "$batch" = 1 ] || ex+=(-ex "echo \n(stopped in rung $kernel, block ($bx,$by,0), thread ($tx,$ty,0). Try: next, step, print rAcc, cuda thread (1,0,0), info cuda warps, continue)\n")

echo "gdb_walkthrough: rung $kernel ($slug, tile $tile): break $slug.cuh:$line  \`$pattern\`"
echo "gdb_walkthrough: block ($bx,$by,0) thread ($tx,$ty,0), slab $step, M x N x K = $m x $n x $k"
echo "gdb_walkthrough: command file $cmdfile"
echo "gdb_walkthrough: cuda-gdb $([ "$batch" = 1 ] && echo "-batch ")-x $cmdfile --args $bench ${args[*]}"
if [ "$dry" = 1 ]; then exit 0; fi

gdb=$(command -v cuda-gdb 2>/dev/null || true)
[ -n "$gdb" ] || { [ -x /usr/local/cuda/bin/cuda-gdb ] && gdb=/usr/local/cuda/bin/cuda-gdb; }
[ -n "$gdb" ] || die "cuda-gdb not found: it ships with the CUDA Toolkit (/usr/local/cuda/bin/cuda-gdb)"

cd "$root"
if [ "$batch" = 1 ]; then
  # Drop the host-thread chatter; everything else (the bench's own lines included) stays.
  set +e
  "$gdb" -nx -batch "${ex[@]}" --args "$bench" "${args[@]}" 2>&1 |
    grep --line-buffered -vE '^\[(New Thread|Thread .* exited|Detaching after|Inferior [0-9]+ .*exited)|^Using host libthread_db|^\[Thread debugging using'
  exit "${PIPESTATUS[0]}"
fi
exec "$gdb" "${ex[@]}" --args "$bench" "${args[@]}"
