// prepare(): the host work a launch needs that never changes between launches (device
// attributes, function attributes, the shared-memory opt-in, occupancy), done once per
// (kernel, device) and kept.
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "common/launch.hpp"

namespace sgemm {

namespace {

struct Prepared {
  Status status = Status::kOk;
  KernelInfo info;
  std::string why;
};

// The device attribute `attr`, or -1 when the runtime cannot tell.
int attribute(cudaDeviceAttr attr, int device) {
  int v = -1;
  return cudaDeviceGetAttribute(&v, attr, device) == cudaSuccess ? v : -1;
}

Prepared prepare_once(const void* kernel, int threads, int smem_bytes, int device) {
  Prepared p;
  auto refuse = [&](Status s, const std::string& why) {
    cudaGetLastError();  // a failed query is not sticky: later launches must not report it
    p.status = s;
    p.why = why;
    return p;
  };
  cudaFuncAttributes attr{};
  if (const cudaError_t err = cudaFuncGetAttributes(&attr, kernel); err != cudaSuccess)
    return refuse(from_cuda(err), cudaGetErrorString(err));
  const int smem_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  const int regs_per_block = attribute(cudaDevAttrMaxRegistersPerBlock, device);
  const int smem_needed = smem_bytes + int(attr.sharedSizeBytes);
  if (smem_optin >= 0 && smem_needed > smem_optin)
    return refuse(Status::kDeviceLimit, "needs " + std::to_string(smem_needed) +
                                            " bytes of shared memory per block; this GPU allows " +
                                            std::to_string(smem_optin));
  if (threads > attr.maxThreadsPerBlock)
    return refuse(Status::kDeviceLimit, "needs " + std::to_string(threads) + " threads per block; compiled for " +
                                            std::to_string(attr.maxThreadsPerBlock) + " on this GPU");
  if (regs_per_block >= 0 && attr.numRegs * threads > regs_per_block)
    return refuse(Status::kDeviceLimit, "needs " + std::to_string(attr.numRegs * threads) +
                                            " registers per block; this GPU has " + std::to_string(regs_per_block));
  if (smem_bytes > 48 * 1024)
    if (const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
        err != cudaSuccess)
      return refuse(from_cuda(err), cudaGetErrorString(err));
  p.info.sms = attribute(cudaDevAttrMultiProcessorCount, device);
  p.info.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, device);
  if (const cudaError_t err =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p.info.blocks_per_sm, kernel, threads, size_t(smem_bytes));
      err != cudaSuccess)
    return refuse(from_cuda(err), cudaGetErrorString(err));
  if (p.info.sms <= 0 || p.info.blocks_per_sm <= 0)
    return refuse(Status::kDeviceLimit, "no block of " + std::to_string(threads) + " threads and " +
                                            std::to_string(smem_needed) + " bytes of shared memory fits an SM");
  return p;
}

}  // namespace

Status prepare(const void* kernel, int threads, int smem_bytes, KernelInfo* info, std::string* why) {
  int device = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return from_cuda(err);
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, Prepared> prepared;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = prepared.find({kernel, device});
  if (it == prepared.end())
    it = prepared.emplace(std::make_pair(kernel, device), prepare_once(kernel, threads, smem_bytes, device)).first;
  if (it->second.status != Status::kOk && why) *why = it->second.why;
  if (info) *info = it->second.info;
  return it->second.status;
}

int max_clusters(const void* kernel, int threads, int smem_bytes, int cluster) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int, int, int>, int> counts;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(kernel, device, threads, smem_bytes, cluster);
  if (const auto it = counts.find(key); it != counts.end()) return it->second;
  // The kernel's cluster code exists where its code was compiled for sm_90 or later (not PTX of an
  // older architecture compiled for this GPU when loaded).
  cudaFuncAttributes fn{};
  int clusters = 0;
  if (attribute(cudaDevAttrComputeCapabilityMajor, device) >= 9 && cudaFuncGetAttributes(&fn, kernel) == cudaSuccess &&
      fn.ptxVersion >= 90) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = unsigned(cluster);
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(cluster));
    cfg.blockDim = dim3(unsigned(threads));
    cfg.dynamicSmemBytes = size_t(smem_bytes);
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess) clusters = 0;
    cudaGetLastError();  // a refused query is not sticky
  }
  counts.emplace(key, clusters);
  return clusters;
}

// FP32 FMA lanes per SM (FFMA results per clock per SM) by compute capability, from the CUDA C++
// Programming Guide's table of arithmetic instruction throughput: 64 on sm_60, sm_7x and sm_80;
// 128 on sm_5x, sm_61/62, sm_86/87/89, sm_90, sm_100/103, sm_120, and on unknown newer GPUs.
int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 6: return cc_minor == 0 ? 64 : 128;  // P100: 64; consumer Pascal: 128
    case 7: return 64;                        // Volta, Turing
    case 8: return cc_minor == 0 ? 64 : 128;  // A100: 64; consumer and embedded Ampere, Ada: 128
    default: return 128;                      // Maxwell, Hopper, Blackwell and newer
  }
}

double fp32_peak_gflops(int cc_major, int cc_minor, int sm_count, int clock_mhz) {
  return double(fp32_lanes_per_sm(cc_major, cc_minor)) * sm_count * 2.0 * clock_mhz * 1e-3;
}

}  // namespace sgemm
