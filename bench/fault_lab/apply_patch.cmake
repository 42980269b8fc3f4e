# One faulty copy of a rung: RUNG (kernels/<track>/NN_name.cuh) with PATCH (a unified diff from
# bench/fault_lab/patches/) applied, written to OUT. Run at build time by
# bench/fault_lab/CMakeLists.txt, with PATCH_EXE the `patch` program:
#
#   cmake -DPATCH_EXE=/usr/bin/patch -DRUNG=... -DPATCH=... -DOUT=... -P apply_patch.cmake
#
# --fuzz=0: every line of a hunk's context must match the rung as it is now (a hunk may have
# moved, say when the rung's header grew). A patch that no longer applies stops the build and
# says how to remake it; nothing half-patched is left behind.
foreach(var PATCH_EXE RUNG PATCH OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "apply_patch.cmake: -D${var}=... is missing")
  endif()
endforeach()

get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")
file(REMOVE "${OUT}" "${OUT}.rej")
execute_process(
  COMMAND "${PATCH_EXE}" --batch --fuzz=0 --no-backup-if-mismatch "--reject-file=${OUT}.rej"
          "--output=${OUT}" "${RUNG}" "${PATCH}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE log
  ERROR_VARIABLE log)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}")
  get_filename_component(name "${OUT}" NAME)
  message(FATAL_ERROR
    "The fault lab's patch ${PATCH} no longer applies to ${RUNG}: the rung changed under it.\n"
    "patch said:\n${log}\n"
    "Remake it: copy the rung to ${name}, break it again on the lines marked `// FAULT: <kind>`, "
    "and write the patch with\n"
    "  diff -u --label a/<rung> --label b/<rung> <rung> ${name}\n"
    "after the patch's own comment lines (docs/debugging.md, \"Where the faulty kernels come from\").")
endif()
