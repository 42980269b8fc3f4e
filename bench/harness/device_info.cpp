#include "device_info.hpp"

#include <dlfcn.h>

#include <cstdio>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda_check.hpp"

namespace sgemm::harness {

namespace {

// The handful of NVML entry points we need, loaded from the driver's libnvidia-ml at run time
// so that the build needs no NVML headers or stubs.
struct Nvml {
  using InitFn = int (*)();
  using HandleFn = int (*)(const char*, void**);
  using ClockFn = int (*)(void*, int, unsigned*);
  using DriverFn = int (*)(char*, unsigned);
  HandleFn by_pci = nullptr;
  ClockFn clock = nullptr;
  DriverFn driver = nullptr;
  bool ok = false;
  Nvml() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
    by_pci = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    driver = reinterpret_cast<DriverFn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    ok = init && by_pci && clock && driver && init() == 0;
  }
  static const Nvml& get() {
    static const Nvml n;
    return n;
  }
};

constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
constexpr int kFp32LanesPerSm = 128;

}  // namespace

double DeviceInfo::fp32_peak_gflops(int clock_mhz) const {
  return double(sm_count) * kFp32LanesPerSm * 2.0 * clock_mhz * 1e-3;
}

std::string device_problem() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess)
    return std::string("no usable CUDA device: ") + cudaGetErrorName(err) + " (" +
           cudaGetErrorString(err) + ")";
  if (n == 0) return "no usable CUDA device: cudaGetDeviceCount found none";
  return "";
}

int current_sm_clock_mhz(int device) {
  const Nvml& nv = Nvml::get();
  if (!nv.ok) return -1;
  char bus[64];
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) return -1;
  void* h = nullptr;
  unsigned mhz = 0;
  if (nv.by_pci(bus, &h) != 0 || nv.clock(h, kNvmlClockSm, &mhz) != 0) return -1;
  return int(mhz);
}

DeviceInfo query_device() {
  DeviceInfo d;
  SGEMM_CUDA(cudaGetDevice(&d.device));
  cudaDeviceProp p{};
  SGEMM_CUDA(cudaGetDeviceProperties(&p, d.device));
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.global_mem_bytes = int64_t(p.totalGlobalMem);
  d.smem_per_block_optin = int(p.sharedMemPerBlockOptin);
  int khz = 0;
  SGEMM_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d.device));
  d.sm_clock_max_mhz = khz / 1000;
  SGEMM_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d.device));
  d.mem_clock_max_mhz = khz / 1000;
  SGEMM_CUDA(cudaDriverGetVersion(&d.driver_version));
  SGEMM_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  cublasGetProperty(MAJOR_VERSION, &khz);
  int minor = 0, patch = 0;
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  d.cublas_version = khz * 10000 + minor * 100 + patch;
  const Nvml& nv = Nvml::get();
  char buf[96] = {};
  if (nv.ok && nv.driver(buf, sizeof buf) == 0) d.driver_string = buf;
  return d;
}

std::vector<std::pair<std::string, std::string>> context_pairs(const DeviceInfo& d) {
  auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  return {
      {"gpu_name", d.name},
      {"gpu_arch", d.arch()},
      {"sm_count", std::to_string(d.sm_count)},
      {"sm_clock_max_mhz", std::to_string(d.sm_clock_max_mhz)},
      {"mem_clock_max_mhz", std::to_string(d.mem_clock_max_mhz)},
      {"l2_bytes", std::to_string(d.l2_bytes)},
      {"global_mem_bytes", std::to_string(d.global_mem_bytes)},
      {"driver_version", d.driver_string.empty() ? ver(d.driver_version) : d.driver_string},
      {"cuda_driver_api", ver(d.driver_version)},
      {"cuda_runtime", ver(d.runtime_version)},
      {"cublas_version", std::to_string(d.cublas_version / 10000) + "." +
                             std::to_string(d.cublas_version / 100 % 100) + "." +
                             std::to_string(d.cublas_version % 100)},
      {"fp32_peak_gflops_at_max_clock", std::to_string(int(d.fp32_peak_gflops(d.sm_clock_max_mhz)))},
  };
}

}  // namespace sgemm::harness
