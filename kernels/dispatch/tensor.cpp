// The dispatch rung's tensor-core candidate (dispatch/tensor.hpp): its switches, its model, and
// rung 32 run on a call.
#include "dispatch/tensor.hpp"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

#include "common/general.hpp"
#include "common/launch.hpp"
#include "common/ozaki_finite.hpp"
#include "dispatch/model.hpp"
#include "tuned/tensor.cuh"

namespace sgemm::rung30::tensor {

namespace {

// -1: not yet read from the environment.
std::atomic<int> g_enabled{-1};
std::atomic<long long> g_budget{-1};
thread_local int t_cuda_cores_only = 0;

bool env_off(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && (!std::strcmp(v, "0") || !std::strcmp(v, "off") || !std::strcmp(v, "false") ||
                          !std::strcmp(v, "OFF") || !std::strcmp(v, "FALSE"));
}

}  // namespace

bool enabled() {
  int v = g_enabled.load();
  if (v < 0) {
    int want = env_off("SGEMM_LADDER_TENSOR_CORES") ? 0 : 1;
    g_enabled.compare_exchange_strong(v, want);  // a set_enabled() in between wins
    v = g_enabled.load();
  }
  return v == 1;
}
void set_enabled(bool on) { g_enabled.store(on ? 1 : 0); }

size_t workspace_budget() {
  long long v = g_budget.load();
  if (v < 0) {
    long long want = static_cast<long long>(kDefaultWorkspaceBytes);
    if (const char* mb = std::getenv("SGEMM_LADDER_TENSOR_WORKSPACE_MB")) {
      char* end = nullptr;
      const long long n = std::strtoll(mb, &end, 10);
      if (end != mb && *end == '\0' && n >= 0 && n < (1ll << 40)) want = n << 20;
    }
    g_budget.compare_exchange_strong(v, want);
    v = g_budget.load();
  }
  return static_cast<size_t>(v);
}
void set_workspace_budget(size_t bytes) {
  g_budget.store(static_cast<long long>(std::min<size_t>(bytes, size_t(1) << 62)));
}

CudaCoresOnly::CudaCoresOnly() : before(t_cuda_cores_only != 0) { t_cuda_cores_only = 1; }
CudaCoresOnly::~CudaCoresOnly() { t_cuda_cores_only = before ? 1 : 0; }
bool this_thread_allows() { return t_cuda_cores_only == 0; }

Terms terms(const GemmArgs& a, const rung32::Footprint& f, int sms) {
  Terms t;
  t.waves = std::ceil(double(f.units) / double(std::max(sms, 1)));
  t.slabs = t.waves * double(f.slabs);
  t.prepassBytes = 4.0 * double(a.M + a.N) * double(a.K) + double(f.moduli) * double(f.Mp + f.Np) * double(f.Kp);
  const double c = 4.0 * double(a.M) * double(a.N);
  t.rebuildBytes = double(f.moduli) * double(f.Mp) * double(f.Np) + c * (a.beta != 0.0f ? 2 : 1) +
                   (a.bias != nullptr ? 2 * c : 0.0);
  t.unalignedBytes = vec4_ok(a, nullptr) ? 0.0 : t.prepassBytes + t.rebuildBytes;
  return t;
}

double predict_ns(const Terms& t, const Cost& c) {
  return c.fixed_ns + t.slabs * c.slab_ns + t.waves * c.unit_ns + t.prepassBytes * c.prepass_ns_per_byte +
         t.rebuildBytes * c.rebuild_ns_per_byte + t.unalignedBytes * c.unaligned_ns_per_byte;
}

bool device_cost(Cost* out) {
  struct Entry {
    bool found = false;
    Cost cost;
  };
  static std::mutex mutex;
  static std::map<int, Entry> perDevice;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = perDevice.find(device);
  if (it == perDevice.end()) {
    Entry e;
    cudaDeviceProp prop{};
    DeviceRates here;
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess && device_rates(&here) == Status::kOk) {
      const tuned::TensorCalibration* best = nullptr;
      double bestGap = std::numeric_limits<double>::infinity();  // else the GPU of the nearest DRAM peak
      for (const tuned::TensorCalibration& cal : tuned::kTensorCalibrations) {
        if (cal.gpu[0] == '\0') continue;
        if (!std::strcmp(cal.gpu, prop.name)) {
          best = &cal;
          break;
        }
        const double gap = std::abs(std::log(here.dram_bytes / (cal.dramGBps * 1e9)));
        if (gap < bestGap) best = &cal, bestGap = gap;
      }
      if (best != nullptr) {
        // Bytes scale with the DRAM peak, the INT8 slabs with the SMs' count only through the waves.
        const double bw = std::strcmp(best->gpu, prop.name) ? best->dramGBps * 1e9 / here.dram_bytes : 1.0;
        const tuned::TensorCost& k = best->cost;
        e.found = true;
        e.cost = {k.fixed_ns, k.slab_ns, k.unit_ns, k.prepass_ns_per_byte * bw, k.rebuild_ns_per_byte * bw,
                  k.unaligned_ns_per_byte * bw};
      }
    } else {
      cudaGetLastError();
    }
    it = perDevice.emplace(device, e).first;
  }
  if (it->second.found && out != nullptr) *out = it->second.cost;
  return it->second.found;
}

std::string declined(const GemmArgs& a, cudaStream_t stream, double cudaNs, double* tensorNs) {
  if (!enabled()) return "the tensor path is switched off (SGEMM_LADDER_TENSOR_CORES, sgemm_ladder_set_tensor_cores)";
  if (!this_thread_allows()) return "this call keeps to the CUDA cores";
  if (a.batch > 1) return "a batch of products";
  if (!rung32::available()) return "no sm_90a build, or not a compute capability 9.0 GPU";
  if (!rung32::supports(a, nullptr)) return "rung 32 does not support the shape";
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudaGetLastError();
    return "the stream's capture status is unknown";
  }
  if (capture != cudaStreamCaptureStatusNone) return "the stream is capturing a graph";
  const rung32::Footprint f = rung32::footprint(a);
  // A product whose tiles do not fill the SMs once takes every modulus and every bit they hold
  // (ozaki::narrow), more than its K asks; it is offered where its units still fill them.
  if (f.units < current_device().sms) return "its units (a modulus of a tile each) do not fill the SMs once";
  if (f.workspace > workspace_budget()) return "its workspace is over the budget";
  Cost cost;
  if (!device_cost(&cost)) return "no calibration for this GPU";
  const double ns = predict_ns(terms(a, f, current_device().sms), cost);
  if (tensorNs) *tensorNs = ns;
  if (!(ns < kMargin * cudaNs)) return "the CUDA cores are predicted faster, or within the margin";
  return "";
}

Status run(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  GemmArgs product = a;
  product.bias = nullptr;  // rung 32 does not take it: the front door's bias pass, after
  Status s;
  {
    const ozaki::FiniteOnly finite;  // a NaN or an Inf goes to the CUDA cores (IEEE results)
    s = rung32::launch_overlapped(product, stream, why);
  }
  if (s == Status::kOk && a.bias != nullptr) s = update_c(a, false, stream);
  return s;
}

}  // namespace sgemm::rung30::tensor

namespace sgemm::rung30 {
// The registry's precision model of the dispatch rung: the scheme's scaled term where its tensor path
// may run at all in this process, 0 where it cannot (the FFMA bound alone).
double scaled_error(int64_t K) {
  return tensor::enabled() && rung32::available() && tensor::device_cost(nullptr) ? rung32::scaled_error(K) : 0.0;
}
}  // namespace sgemm::rung30
