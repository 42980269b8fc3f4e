# Run at build time (cmake -P): write OUT with the commit of the source tree when it changed, so
# that every build of sgemm_bench (and sgemm_autotune) records the commit it was built from (a
# configure-time value goes stale in a build directory that is reused across commits):
#   SGEMM_LADDER_GIT          "<12 hex>[-dirty]", "unknown" or "unknown-dirty" (git describe's form)
#   SGEMM_LADDER_COMMIT       the full commit, or "unknown"
#   SGEMM_LADDER_CLEAN        "true" (no tracked file outside bench/results/ changed), "false" or "unknown"
#   SGEMM_LADDER_COMMIT_FROM  "git", "stamp" (.tree-stamp.json, a copy of the tree without its
#                             history), "SGEMM_LADDER_GIT_DESCRIBE" or "none"
# The answer is tools/tree_stamp.py's (git, else the stamp checked against the files; its docstring
# says how), run with PYTHON; without Python, git describe; $SGEMM_LADDER_GIT_DESCRIBE overrides both.
#   cmake -DGIT=git -DPYTHON=python3 -DSRC=<repo> -DOUT=<header> -P GitVersion.cmake
set(version "unknown")
set(commit "unknown")
set(clean "unknown")
set(from "none")
set(answered OFF)
if(PYTHON AND EXISTS "${SRC}/tools/tree_stamp.py")
  execute_process(COMMAND "${PYTHON}" "${SRC}/tools/tree_stamp.py" json --root "${SRC}"
                  OUTPUT_VARIABLE answer RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0 AND answer)
    string(JSON version GET "${answer}" describe)
    string(JSON commit GET "${answer}" commit)
    string(JSON from GET "${answer}" from)
    string(JSON clean_type TYPE "${answer}" clean)
    if(clean_type STREQUAL "BOOLEAN")
      string(JSON clean_value GET "${answer}" clean)
      if(clean_value)
        set(clean "true")
      else()
        set(clean "false")
      endif()
    endif()
    set(answered ON)
  endif()
endif()
if(NOT answered)
  if(DEFINED ENV{SGEMM_LADDER_GIT_DESCRIBE})
    # A copy of the tree without its git history (e.g. a remote GPU machine) is told its commit.
    set(version "$ENV{SGEMM_LADDER_GIT_DESCRIBE}")
    string(REGEX REPLACE "-dirty$" "" commit "${version}")
    set(from "SGEMM_LADDER_GIT_DESCRIBE")
  elseif(GIT)
    execute_process(COMMAND "${GIT}" describe --always --dirty --abbrev=12
                    WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE described RESULT_VARIABLE rc
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND "${GIT}" rev-parse HEAD
                    WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE head RESULT_VARIABLE rc_head
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND described AND rc_head EQUAL 0)
      set(version "${described}")
      set(commit "${head}")
      set(from "git")
      if(version MATCHES "-dirty$")
        set(clean "false")
      else()
        set(clean "true")
      endif()
    endif()
  endif()
endif()
string(CONCAT content "// generated at build time by cmake/GitVersion.cmake\n#define SGEMM_LADDER_GIT \"${version}\"\n"
       "#define SGEMM_LADDER_COMMIT \"${commit}\"\n#define SGEMM_LADDER_CLEAN \"${clean}\"\n"
       "#define SGEMM_LADDER_COMMIT_FROM \"${from}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
