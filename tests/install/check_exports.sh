#!/usr/bin/env bash
# CPU test: libsgemm_ladder.so exports exactly the C ABI that sgemm_ladder.h declares.
#   check_exports.sh LIBSGEMM_LADDER SGEMM_LADDER_H C_PREPROCESSOR
# Exported: the library's defined dynamic symbols (nm -D). Declared: the function names in the
# header once the preprocessor has dropped its comments. Fails on an exported symbol the header
# does not declare (a leak, such as a libstdc++ template instance) and on a declared function the
# library does not export.
set -u
lib=${1:?usage: check_exports.sh LIBSGEMM_LADDER SGEMM_LADDER_H C_PREPROCESSOR}
header=${2:?} cpp=${3:?}
command -v nm >/dev/null 2>&1 || { echo "FAIL: nm not found (binutils)"; exit 1; }

exported=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
declared=$("$cpp" -E -P -x c "$header" | grep -oE '\bsgemm_ladder_[a-z0-9_]+[[:space:]]*\(' \
           | tr -d '( \t' | sort -u)
[ -n "$declared" ] || { echo "FAIL: found no function in $header"; exit 1; }

leaked=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
echo "exported by $(basename "$lib"):"
echo "$exported" | sed 's/^/  /'
fail=0
if [ -n "$leaked" ]; then
  echo "FAIL: exported but not in sgemm_ladder.h:"; echo "$leaked" | sed 's/^/  /'; fail=1
fi
if [ -n "$missing" ]; then
  echo "FAIL: declared in sgemm_ladder.h but not exported:"; echo "$missing" | sed 's/^/  /'; fail=1
fi
[ $fail = 0 ] && echo "ok: the exports are the $(echo "$declared" | wc -l) functions of sgemm_ladder.h"
exit $fail
