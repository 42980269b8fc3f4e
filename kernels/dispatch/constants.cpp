// The dispatch rung's measured constants (model.hpp): the calibrations of kernels/tuned/
// dispatch_sm_<arch>.cuh as the model's Constants, the one for the current GPU, and their scaling to
// a GPU that has none of its own. Host code only.
#include "dispatch/model.hpp"

#include <cmath>
#include <iterator>
#include <limits>
#include <string>

#include <cuda_runtime.h>

#include "tuned/dispatch.cuh"

namespace sgemm::rung30 {

// ---- the constants ------------------------------------------------------------------------------

// What is bound by memory scales with the memory, what is bound by the SMs with the SMs: the
// first-order correction for another GPU of the architecture (an H100 on an H200's constants) or
// one without a header of its own. Launch costs stay as measured. Unchanged where a peak is unknown.
Constants scale_constants(Constants k, const DeviceRates& here, const DeviceRates& calibrated) {
  for (const DeviceRates& r : {here, calibrated})
    if (!(r.fp32_flops > 0 && r.dram_bytes > 0 && r.sms > 0)) return k;
  const double chip = here.fp32_flops / calibrated.fp32_flops;
  const double perSm = chip * double(calibrated.sms) / double(here.sms);
  k.bytesPerNs *= here.dram_bytes / calibrated.dram_bytes;
  for (double& f : k.gemvFlopsPerNs) f *= chip;
  for (double& f : k.gemvNarrowFlopsPerNs) f *= chip;
  for (Cost& c : k.costs) {
    c.slab_ns /= perSm;
    c.fixup_ns /= perSm;
    c.unit_ns /= perSm;
    c.lone_ns /= perSm;
    c.restream_ns *= calibrated.dram_bytes / here.dram_bytes;
  }
  return k;
}

// Every measured candidate's slab factors are spelled out (a header that leaves them out would
// price checked and unaligned slabs at nothing), in every calibration.
constexpr bool slab_factors_measured() {
  for (const tuned::DispatchCalibration& cal : tuned::kDispatchCalibrations)
    for (const tuned::DispatchCost& c : cal.costs)
      if (calibrated(c.slab_ns, c.launch_ns) && !(c.guard > 0 && c.unaligned > 0)) return false;
  return true;
}
static_assert(slab_factors_measured(), "the dispatch header gives every candidate its guard and unaligned factors");

int calibration_count() { return int(std::size(tuned::kDispatchCalibrations)); }
const char* calibration_gpu(int i) { return tuned::kDispatchCalibrations[i].gpu; }
const char* calibration_date(int i) { return tuned::kDispatchCalibrations[i].date; }

DeviceRates calibration_rates(int i) {
  const tuned::DispatchCalibration& cal = tuned::kDispatchCalibrations[i];
  DeviceRates r;
  r.fp32_flops = cal.fp32Gflops * 1e9;
  r.dram_bytes = cal.dramGBps * 1e9;
  r.sms = cal.sms;
  return r;
}

Constants tuned_constants(int i) {
  const tuned::DispatchCalibration& cal = tuned::kDispatchCalibrations[i];
  Constants k;
  for (const tuned::DispatchCost& c : cal.costs)
    k.costs.push_back({c.slab_ns, c.launch_ns, c.fixup_ns, c.share, c.unit_ns, c.lone_ns, c.guard, c.unaligned, c.tile_ns,
                       c.tile32_ns, c.transa, c.transb, c.tileta_ns, c.tiletb_ns, c.restream_ns});
  k.gemvFlopsPerNs.assign(std::begin(cal.gemvFlopsPerNs), std::end(cal.gemvFlopsPerNs));
  k.gemvNarrowFlopsPerNs.assign(std::begin(cal.gemvNarrowFlopsPerNs), std::end(cal.gemvNarrowFlopsPerNs));
  k.bytesPerNs = cal.bytesPerNs;
  return k;
}

Constants tuned_constants() { return tuned_constants(0); }

int calibration_for(const std::string& gpu, const DeviceRates& here) {
  int best = 0;
  double bestGap = std::numeric_limits<double>::infinity();
  for (int i = 0; i < calibration_count(); ++i) {
    if (gpu == calibration_gpu(i)) return i;
    const double dram = calibration_rates(i).dram_bytes;
    const double gap = here.dram_bytes > 0 ? std::abs(std::log(here.dram_bytes / dram)) : double(i);
    if (gap < bestGap) best = i, bestGap = gap;
  }
  return best;
}

Constants measured_constants() {
  DeviceRates here;
  if (device_rates(&here) != Status::kOk) return tuned_constants();
  int device = 0;
  cudaDeviceProp prop{};
  const std::string gpu =
      cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess ? prop.name : "";
  const int i = calibration_for(gpu, here);
  return scale_constants(tuned_constants(i), here, calibration_rates(i));
}

}  // namespace sgemm::rung30
