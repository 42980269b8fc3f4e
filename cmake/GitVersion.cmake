# Run at build time (cmake -P): write OUT with `#define SGEMM_LADDER_GIT "<git describe>"` when
# it changed, so that every build of sgemm_bench records the commit it was built from (a
# configure-time value goes stale in a build directory that is reused across commits).
#   cmake -DGIT=git -DSRC=<repo> -DOUT=<header> -P GitVersion.cmake
set(version "unknown")
if(DEFINED ENV{SGEMM_LADDER_GIT_DESCRIBE})
  # A copy of the tree without its git history (e.g. a remote GPU machine) is told its commit.
  set(version "$ENV{SGEMM_LADDER_GIT_DESCRIBE}")
elseif(GIT)
  execute_process(COMMAND "${GIT}" describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE described RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND described)
    set(version "${described}")
  endif()
endif()
set(content "// generated at build time by cmake/GitVersion.cmake\n#define SGEMM_LADDER_GIT \"${version}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
