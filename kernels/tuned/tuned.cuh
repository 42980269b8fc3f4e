// The autotuned tile parameters of the build's GPU architecture. CMake defines
// SGEMM_TUNED_HEADER as tuned/sm_<arch>.cuh for the first architecture that has one
// (falling back to sm_90); tools/autotune writes those files.
#pragma once

#ifndef SGEMM_TUNED_HEADER
#define SGEMM_TUNED_HEADER "tuned/sm_90.cuh"
#endif
#include SGEMM_TUNED_HEADER
