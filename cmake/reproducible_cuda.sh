#!/usr/bin/env bash
# The CUDA compiler launcher (CMAKE_CUDA_COMPILER_LAUNCHER, CMakeLists.txt): the same source gives
# the same device code wherever it is built. NVVM (cicc) allocates registers and orders instructions
# differently in some kernels from one run to the next: one kernel of the dispatch rung came out two
# ways from one commit. Its choices follow the names it draws for internal symbols and the addresses
# of its data, and those follow the byte length of its command line, of its environment and of its
# input, all three carrying the checkout's path and the caller's variables. So the compile runs
#   - with the source and build trees reached through links of one length,
#     /tmp/sgemm-ladder-trees/s<16 hex digits> and b<16 hex digits> (a hash of the real path), in
#     its arguments and its working directory, so that paths in the compiler's input (line markers)
#     have one length too;
#   - with nvcc's -frandom-seed set to the object's path in the build tree, for the names of internal
#     symbols that it would otherwise draw at random;
#   - without address-space randomisation (setarch -R), where the system allows it: the order in
#     which NVVM visits some of its data follows their addresses;
#   - with the variables a compile needs (PATH, HOME, TMPDIR=/tmp, LC_ALL=C and those of nvcc and
#     ccache) and no other, padded to one count and one total size.
# Line info (-lineinfo) names files through the links; a build (re)creates them. Where /tmp takes no
# link, the command runs as given.
#   reproducible_cuda.sh SOURCE_DIR BINARY_DIR COMMAND...
set -u
LC_ALL=C  # lengths below in bytes
src=$1 bin=$2
shift 2
links=/tmp/sgemm-ladder-trees

link() {  # link NAME TARGET: NAME -> TARGET, replaced atomically (parallel compiles race here)
  [ "$(readlink "$1" 2>/dev/null)" = "$2" ] && return 0
  ln -s "$2" "$1.$$" 2>/dev/null && mv -fT "$1.$$" "$1" 2>/dev/null
}
hash16() { printf '%s' "$1" | sha256sum | cut -c1-16; }

ls_=$links/s$(hash16 "$src")
lb_=$links/b$(hash16 "$bin")
if ! { { [ -d "$links" ] || mkdir -p -m 1777 "$links" 2>/dev/null; } && link "$ls_" "$src" && link "$lb_" "$bin"; }; then
  exec "$@"
fi

# Every argument with the build tree (which may lie inside the source tree) and the source tree
# through their links; and the seed of the names nvcc (and the host compiler) would draw at random
# for internal symbols: the object's path in the build tree.
args=()
prev= seed=
for a in "$@"; do
  [ "$prev" = "-o" ] && { seed=${a#"$bin/"}; seed=${seed#"$src/"}; }
  prev=$a
  a=${a//"$bin/"/"$lb_/"}
  [ "$a" = "$bin" ] && a=$lb_
  a=${a//"$src/"/"$ls_/"}
  [ "$a" = "$src" ] && a=$ls_
  args+=("$a")
done
[ -n "$seed" ] && args+=("-frandom-seed=$seed")
case $PWD/ in
  "$bin"/*) cd "$lb_${PWD#"$bin"}" ;;
  "$src"/*) cd "$ls_${PWD#"$src"}" ;;
esac

# The environment: what a compile reads, then pads, to 24 variables and 16 KiB of "NAME=value\0"
# in all (the program's stack begins with them).
envs=("PATH=$PATH" "HOME=${HOME:-/}" "TMPDIR=/tmp" "LC_ALL=C")
while IFS= read -r name; do
  envs+=("$name=${!name}")
done < <(compgen -e | grep -E '^(NVCC_|CCACHE_|CUDA_CACHE_)' | sort | head -n 20)
while (( ${#envs[@]} < 23 )); do envs+=("SGEMM_LADDER_ENV_${#envs[@]}=-"); done
size=0
for e in "${envs[@]}"; do size=$((size + ${#e} + 1)); done
pad=$((16384 - size - 22))  # 22: "SGEMM_LADDER_ENV_PAD=" and its NUL
(( pad < 0 )) && pad=$(( (pad % 4096 + 4096) % 4096 ))
printf -v fill '%*s' "$pad" ''
norand=()
setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)
exec env -i "${envs[@]}" "SGEMM_LADDER_ENV_PAD=${fill// /x}" "${norand[@]}" "${args[@]}"
