#!/usr/bin/env bash
# CPU test: `cmake --install` gives a prefix that another CMake project can use.
#   check_install.sh CMAKE BUILD_DIR WORK_DIR GENERATOR VERSION
# 1. installs BUILD_DIR into WORK_DIR/prefix and checks that the only header there is
#    sgemm_ladder.h (the C++ API and the kernels stay inside the project);
# 2. configures, builds and runs consumer/ (plain C) with find_package(sgemm_ladder VERSION
#    CONFIG): it prints sgemm_ladder_version() and the kernel count, which need no GPU, and fails
#    unless the library's version is the CMake package's;
# 3. asks find_package for the next minor version and expects it to be refused (the version file).
set -u
cmake=${1:?usage: check_install.sh CMAKE BUILD_DIR WORK_DIR GENERATOR VERSION}
build=${2:?} work=${3:?} generator=${4:?} version=${5:?}
here=$(cd "$(dirname "$0")" && pwd)

fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; fail "cmake --install $build"; }
echo "installed:"; (cd "$prefix" && find . -type f -o -type l | sort | sed 's/^/  /')

headers=$(cd "$prefix" && find include -type f | sort)
[ "$headers" = include/sgemm_ladder.h ] || fail "expected include/sgemm_ladder.h alone, found: $headers"

configure() {  # BUILD_SUBDIR REQUESTED_VERSION
  "$cmake" -S "$here/consumer" -B "$work/$1" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
           -DSGEMM_LADDER_REQUEST="$2" >"$work/$1.log" 2>&1
}

configure consumer "$version" || { cat "$work/consumer.log"; fail "find_package(sgemm_ladder $version)"; }
"$cmake" --build "$work/consumer" >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "building the consumer"; }
"$work/consumer/consumer" || fail "the consumer"

IFS=. read -r major minor _ <<<"$version"
newer="$major.$((minor + 1))"
if configure consumer-newer "$newer"; then
  fail "find_package(sgemm_ladder $newer) accepted version $version"
fi
grep -q "compatible with requested version \"$newer\"" "$work/consumer-newer.log" \
  || { cat "$work/consumer-newer.log"; fail "find_package($newer) failed for another reason"; }
echo "ok: find_package(sgemm_ladder $newer) refuses $version"
echo "ok: installed prefix works with find_package(sgemm_ladder $version CONFIG)"
