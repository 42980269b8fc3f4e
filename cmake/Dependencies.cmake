# Third-party dependencies: the installed package first (Debian/Ubuntu: libgtest-dev,
# libbenchmark-dev, libcli11-dev, nlohmann-json3-dev), FetchContent as the fallback. On an
# offline machine point the fallback at a local checkout:
# -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/path/to/googletest (likewise _BENCHMARK, _CLI11,
# _NLOHMANN_JSON). Nothing of these libraries is committed here. The fallback
# downloads release tags from GitHub (no hash is pinned: this machine cannot verify one).
include(FetchContent)

if(SGEMM_LADDER_BUILD_TESTS)
  FetchContent_Declare(googletest
    URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz
    FIND_PACKAGE_ARGS NAMES GTest)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  FetchContent_MakeAvailable(googletest)
  if(NOT TARGET GTest::gtest AND TARGET gtest)
    add_library(GTest::gtest ALIAS gtest)
  endif()
endif()

if(SGEMM_LADDER_BUILD_BENCH OR SGEMM_LADDER_BUILD_TESTS)
  FetchContent_Declare(benchmark
    URL https://github.com/google/benchmark/archive/refs/tags/v1.8.3.tar.gz
    FIND_PACKAGE_ARGS NAMES benchmark)
  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
  FetchContent_MakeAvailable(benchmark)

  FetchContent_Declare(cli11
    URL https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.4.2.tar.gz
    FIND_PACKAGE_ARGS NAMES CLI11)
  FetchContent_MakeAvailable(cli11)
endif()

# nlohmann-json: every JSON the C++ code writes (the autotuner's results) or reads (the tests).
if(SGEMM_LADDER_BUILD_TESTS OR SGEMM_LADDER_BUILD_TOOLS)
  FetchContent_Declare(nlohmann_json
    URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
    FIND_PACKAGE_ARGS 3 CONFIG)
  set(JSON_Install OFF CACHE BOOL "" FORCE)
  FetchContent_MakeAvailable(nlohmann_json)
endif()
