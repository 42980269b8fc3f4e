# How libsgemm_ladder.so leaves the build tree (included by the top-level CMakeLists.txt, after
# kernels/ has defined the target):
#   - it exports the C ABI and nothing else (linker version script sgemm_ladder.map);
#   - `cmake --install` puts the library, its one public header (sgemm_ladder.h) and a CMake
#     package under the prefix, so that another project can write
#         find_package(sgemm_ladder 0.2 CONFIG REQUIRED)
#         target_link_libraries(app PRIVATE sgemm_ladder::sgemm_ladder)
#   - `pip install .` (scikit-build-core, which sets SKBUILD) puts the library alone inside the
#     Python package, next to the ctypes loader that opens it (python/sgemm_ladder/library.py).
# tests/install/ checks all three.

set(SGEMM_LADDER_EXPORT_MAP "${CMAKE_CURRENT_LIST_DIR}/sgemm_ladder.map")
target_link_options(sgemm_ladder PRIVATE "LINKER:--version-script=${SGEMM_LADDER_EXPORT_MAP}")
set_property(TARGET sgemm_ladder APPEND PROPERTY LINK_DEPENDS "${SGEMM_LADDER_EXPORT_MAP}")
# The installed library finds the CUDA runtime and cuBLAS it was linked against without
# LD_LIBRARY_PATH: their folder goes into its RUNPATH.
set_target_properties(sgemm_ladder PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

if(SKBUILD)
  # A wheel cannot hold symbolic links, so the wheel's library is one file, libsgemm_ladder.so,
  # without the versioned names (libsgemm_ladder.so.0 -> .so.0.2.0) of a system install; and the
  # package reaches it through ctypes, which needs no header.
  set_property(TARGET sgemm_ladder PROPERTY VERSION)
  set_property(TARGET sgemm_ladder PROPERTY SOVERSION)
  set_property(TARGET sgemm_ladder PROPERTY PUBLIC_HEADER)
  install(TARGETS sgemm_ladder LIBRARY DESTINATION sgemm_ladder COMPONENT python)
else()
  include(CMakePackageConfigHelpers)
  set(SGEMM_LADDER_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/sgemm_ladder")
  install(TARGETS sgemm_ladder EXPORT sgemm_ladder_targets
          LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime NAMELINK_COMPONENT development
          PUBLIC_HEADER DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development)
  install(EXPORT sgemm_ladder_targets NAMESPACE sgemm_ladder:: FILE sgemm_ladderTargets.cmake
          DESTINATION "${SGEMM_LADDER_CMAKE_DIR}" COMPONENT development)
  configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/sgemm_ladderConfig.cmake.in"
                                "${PROJECT_BINARY_DIR}/sgemm_ladderConfig.cmake"
                                INSTALL_DESTINATION "${SGEMM_LADDER_CMAKE_DIR}")
  # Before 1.0 a minor release may change the C ABI: a request for 0.2 accepts 0.2.x only.
  write_basic_package_version_file("${PROJECT_BINARY_DIR}/sgemm_ladderConfigVersion.cmake"
                                   COMPATIBILITY SameMinorVersion)
  install(FILES "${PROJECT_BINARY_DIR}/sgemm_ladderConfig.cmake"
                "${PROJECT_BINARY_DIR}/sgemm_ladderConfigVersion.cmake"
          DESTINATION "${SGEMM_LADDER_CMAKE_DIR}" COMPONENT development)
endif()
