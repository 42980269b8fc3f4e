#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "buffer.hpp"
#include "cuda_check.hpp"

namespace sgemm::harness {

namespace {

void launch_or_throw(const LaunchFn& launch, int set) {
  const Status s = launch(set);
  if (s != Status::kOk) throw std::runtime_error(std::string("launch failed: ") + status_string(s));
}

}  // namespace

std::vector<double> time_launches(const LaunchFn& launch, int sets, int count, const TimingPlan& plan,
                                  cudaStream_t stream) {
  sets = std::max(sets, 1);
  // Warm-up: module load, clocks ramping, instruction cache. At least one launch.
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < std::max(plan.warmup, 1); ++i) {
    launch_or_throw(launch, i % sets);
    SGEMM_CUDA(cudaStreamSynchronize(stream));
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    if (dt.count() > plan.warmup_seconds) break;
  }
  std::vector<cudaEvent_t> events(2 * size_t(count));
  for (cudaEvent_t& e : events) SGEMM_CUDA(cudaEventCreate(&e));
  struct Cleanup {
    std::vector<cudaEvent_t>& ev;
    ~Cleanup() { for (cudaEvent_t e : ev) cudaEventDestroy(e); }
  } cleanup{events};
  for (int i = 0; i < count; ++i) {
    SGEMM_CUDA(cudaEventRecord(events[2 * i], stream));
    launch_or_throw(launch, i % sets);
    SGEMM_CUDA(cudaEventRecord(events[2 * i + 1], stream));
  }
  SGEMM_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> ms(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    float t = 0;
    SGEMM_CUDA(cudaEventElapsedTime(&t, events[2 * i], events[2 * i + 1]));
    ms[i] = t;
  }
  return ms;
}

double copy_bandwidth_gbs(cudaStream_t stream, size_t bytes) {
  constexpr int kCopies = 10;
  void* src = device_alloc(bytes);
  void* dst = nullptr;
  try {
    dst = device_alloc(bytes);
  } catch (...) {
    cudaFree(src);
    throw;
  }
  SGEMM_CUDA(cudaMemsetAsync(src, 0x3F, bytes, stream));
  const auto ms = time_launches(
      [&](int) { return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream) == cudaSuccess
                            ? Status::kOk : Status::kCuda; },
      1, kCopies, {2}, stream);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * double(bytes) / (median(ms) * 1e6);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double hi = v[mid];
  if (v.size() % 2) return hi;
  return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + mid));
}

double gflops(int64_t M, int64_t N, int64_t K, double ms) {
  return ms > 0 ? 2.0 * double(M) * double(N) * double(K) / (ms * 1e6) : 0.0;
}

}  // namespace sgemm::harness
