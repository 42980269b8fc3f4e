// The dispatch rung's tensor-core candidate: rung 32's Ozaki scheme (INT8 tensor cores, FP32-
// accurate by its own contract: docs/design.md), taken where the model predicts it faster than the
// best CUDA-core candidate by a margin, and never where it cannot answer without a refusal that the
// caller would see. Plain host C++ (tensor.cpp); rung 32 is reached through its launcher (its unit is
// built for sm_90a, this one is not).
//
// When the path is not taken, from the call alone (no host synchronisation): the switches below are
// off, the device is not compute capability 9.0 or the build has no sm_90a, the call is a batch of
// more than one product, the stream is capturing a graph (the scheme reads its inputs' spread back
// before it multiplies), its units (a modulus of a tile each) do not fill the SMs once, its workspace is over
// the budget, the GPU has no calibration, or the prediction is not kMargin below the CUDA cores'.
// Once taken, inputs the scheme cannot serve (a row or column too wide for eight moduli, a NaN or an
// Inf) and a workspace the device cannot hold go to the CUDA-core candidate, before C is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "sgemm_ladder.hpp"
#include "tensor/32_fused_prepass.hpp"

namespace sgemm::rung30::tensor {

// The tensor path is taken where its prediction is below this share of the CUDA cores' best: the
// margin covers the model's error (a shape it takes must not run slower than the CUDA cores would).
constexpr double kMargin = 0.9;
// The workspace a call may take by default (SGEMM_LADDER_TENSOR_WORKSPACE_MB overrides it): the
// residues of A and B for eight moduli, one byte per element and modulus of the padded operands,
// and the product's, one byte per output and modulus: 1.6 GB at 8192^3, 0.8 GB for a 2048-token
// prefill of a 4096 x 14336 projection. The memory pool keeps it for the next call.
constexpr size_t kDefaultWorkspaceBytes = size_t(2048) << 20;

// The process-wide switch: on unless SGEMM_LADDER_TENSOR_CORES is 0, off or false at the first call.
bool enabled();
void set_enabled(bool on);
size_t workspace_budget();
void set_workspace_budget(size_t bytes);
// This thread's calls keep to the CUDA cores while one of these lives (the front door's per-call
// switch, SGEMM_LADDER_CUDA_CORES in the C ABI's kernel id).
struct CudaCoresOnly {
  bool before;
  CudaCoresOnly();
  ~CudaCoresOnly();
  CudaCoresOnly(const CudaCoresOnly&) = delete;
  CudaCoresOnly& operator=(const CudaCoresOnly&) = delete;
};
bool this_thread_allows();

// The model: rung 32's time for `a` with a calibration's costs on a GPU of `sms` SMs.
struct Cost {
  double fixed_ns = 0, slab_ns = 0, unit_ns = 0, prepass_ns_per_byte = 0, rebuild_ns_per_byte = 0,
         unaligned_ns_per_byte = 0;
};
struct Terms {
  double waves = 0;          // units a busiest SM runs one after another (one block per SM)
  double slabs = 0;          // their slabs
  double prepassBytes = 0;   // A and B read, their residues written
  double rebuildBytes = 0;   // the product's residues read, C written (and read: beta), the bias pass
  double unalignedBytes = 0;  // both of those where a row of A, B or C is not 16-byte aligned, else 0
};
Terms terms(const GemmArgs& a, const rung32::Footprint& f, int sms);
double predict_ns(const Terms& t, const Cost& c);
// The calibration of the current GPU (by name, else the one of the nearest DRAM peak, its bytes
// scaled by the ratio of the peaks), or false where the header has none.
bool device_cost(Cost* out);

// Why the tensor path does not take this call, before its inputs are read ("" where it does):
// `cudaNs` is the CUDA cores' predicted time. stream: the call's (its capture status is asked).
std::string declined(const GemmArgs& a, cudaStream_t stream, double cudaNs, double* tensorNs = nullptr);
// Rung 32 on the call (the bias added after it by the front door's pass). kUnsupported or
// kOutOfMemory before C is written: its inputs or its workspace, and the caller runs the CUDA cores.
Status run(const GemmArgs& a, cudaStream_t stream, std::string* why);

}  // namespace sgemm::rung30::tensor
