#include "device_info.hpp"

#include <dlfcn.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "nvml.hpp"

namespace sgemm::harness {

namespace {

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The CUDA runtime reports a missing driver as "CUDA driver version is insufficient for CUDA
// runtime version": loading the driver library ourselves tells the two cases apart.
std::string driver_load_error() {
  void* so = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    const char* why = dlerror();
    return why ? why : "dlopen failed";
  }
  dlclose(so);
  return "";
}

}  // namespace

double DeviceInfo::fp32_peak_gflops() const {
  return harness::fp32_peak_gflops(cc_major, cc_minor, sm_count, sm_clock_max_mhz);
}

std::string device_problem() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err == cudaSuccess && n > 0) return "";
  if (err == cudaSuccess || err == cudaErrorNoDevice) return "no CUDA GPU found (the NVIDIA driver sees no device)";
  if (const std::string why = driver_load_error(); !why.empty()) return "no NVIDIA driver found (" + why + ")";
  if (err == cudaErrorInsufficientDriver) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    return "the NVIDIA driver supports CUDA " + cuda_version_text(driver) + ", older than this build's CUDA " +
           cuda_version_text(runtime) + ": update the driver";
  }
  return std::string("no usable CUDA device: ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
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
  SGEMM_CUDA(cudaDeviceGetAttribute(&d.mem_bus_bits, cudaDevAttrGlobalMemoryBusWidth, d.device));
  SGEMM_CUDA(cudaDriverGetVersion(&d.driver_version));
  SGEMM_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  d.cublas_version = major * 10000 + minor * 100 + patch;
  d.driver_string = nvml::driver_version();
  return d;
}

std::vector<std::pair<std::string, std::string>> context_pairs(const DeviceInfo& d) {
  const std::string peak = std::to_string(int(d.fp32_peak_gflops()));
  return {
      {"gpu_name", d.name},
      {"gpu_arch", d.arch()},
      {"sm_count", std::to_string(d.sm_count)},
      {"sm_clock_max_mhz", std::to_string(d.sm_clock_max_mhz)},
      {"mem_clock_max_mhz", std::to_string(d.mem_clock_max_mhz)},
      {"mem_bus_bits", std::to_string(d.mem_bus_bits)},
      {"dram_peak_gbps", std::to_string(int(d.dram_peak_gbps()))},
      {"l2_bytes", std::to_string(d.l2_bytes)},
      {"global_mem_bytes", std::to_string(d.global_mem_bytes)},
      {"driver_version", d.driver_string.empty() ? cuda_version_text(d.driver_version) : d.driver_string},
      {"cuda_driver_api", cuda_version_text(d.driver_version)},
      {"cuda_runtime", cuda_version_text(d.runtime_version)},
      {"cublas_version", std::to_string(d.cublas_version / 10000) + "." +
                             std::to_string(d.cublas_version / 100 % 100) + "." +
                             std::to_string(d.cublas_version % 100)},
      {"fp32_lanes_per_sm", std::to_string(fp32_lanes_per_sm(d.cc_major, d.cc_minor))},
      {"fp32_peak_gflops", peak},
      {"fp32_peak_gflops_at_max_clock", peak},  // the same figure under the name older tools read
  };
}

}  // namespace sgemm::harness
