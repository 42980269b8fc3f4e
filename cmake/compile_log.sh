#!/usr/bin/env bash
# The compile launcher of every target (RULE_LAUNCH_COMPILE, CMakeLists.txt): runs the compile
# command as given and keeps what it printed on standard error in LOG_DIR, one file per object,
# passing it through unchanged; the build.warnings test (tools/check_warnings.py) reads them.
#   compile_log.sh LOG_DIR COMMAND...
log_dir=$1
shift
obj=unknown prev=
for arg in "$@"; do
  [ "$prev" = "-o" ] && obj=$arg
  prev=$arg
done
mkdir -p "$log_dir"
log="$log_dir/$(printf '%s' "$obj" | tr '/' '_').log"
"$@" 2>"$log.tmp"
rc=$?
cat "$log.tmp" >&2
mv -f "$log.tmp" "$log"
exit $rc
