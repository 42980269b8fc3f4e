// The workspace pool: scratch memory for rungs that need it, stream-ordered, one pool per device;
// and the tickets kept per stream that reset themselves (the dispatch rung's GEMV).
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "common/launch.hpp"

namespace sgemm {

namespace {

// The workspace pool of `device`, created on first use. Its release threshold is the maximum,
// so freed workspaces stay reserved and the next launch reuses them without a cudaMalloc.
Status workspace_pool(int device, cudaMemPool_t* pool) {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = pools.find(device); it != pools.end()) {
    *pool = it->second;
    return Status::kOk;
  }
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t created = nullptr;
  if (const cudaError_t err = cudaMemPoolCreate(&created, &props); err != cudaSuccess) {
    cudaGetLastError();
    return from_cuda(err);
  }
  uint64_t threshold = UINT64_MAX;
  if (const cudaError_t err = cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &threshold);
      err != cudaSuccess) {
    cudaMemPoolDestroy(created);
    cudaGetLastError();
    return from_cuda(err);
  }
  pools.emplace(device, created);
  *pool = created;
  return Status::kOk;
}

}  // namespace

Status workspace_alloc(size_t bytes, cudaStream_t stream, void** ptr) {
  int device = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return from_cuda(err);
  cudaMemPool_t pool = nullptr;
  if (const Status s = workspace_pool(device, &pool); s != Status::kOk) return s;
  if (const cudaError_t err = cudaMallocFromPoolAsync(ptr, bytes, pool, stream); err != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so later launches do not report it
    return from_cuda(err);
  }
  return Status::kOk;
}

Status workspace_free(void* ptr, cudaStream_t stream) { return from_cuda(cudaFreeAsync(ptr, stream)); }

// Zeroed once, by a memset on the stream itself.
unsigned* kept_tickets(cudaStream_t stream, unsigned needed) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  int device = 0;
  if (needed > kKeptTickets || cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
      capture != cudaStreamCaptureStatusNone || cudaStreamGetId(stream, &id) != cudaSuccess ||
      cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  // Freed when the program ends: the holder is made after the CUDA runtime, so it goes before it.
  struct Kept {
    std::mutex mutex;
    std::map<std::pair<int, unsigned long long>, unsigned*> buffers;
    ~Kept() {
      for (const auto& entry : buffers) cudaFree(entry.second);
    }
  };
  static Kept kept;
  const std::lock_guard<std::mutex> lock(kept.mutex);
  if (const auto it = kept.buffers.find({device, id}); it != kept.buffers.end()) return it->second;
  void* p = nullptr;
  if (cudaMalloc(&p, kKeptTickets * sizeof(unsigned)) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  if (cudaMemsetAsync(p, 0, kKeptTickets * sizeof(unsigned), stream) != cudaSuccess) {
    cudaGetLastError();
    cudaFree(p);
    return nullptr;
  }
  kept.buffers.emplace(std::make_pair(device, id), static_cast<unsigned*>(p));
  return static_cast<unsigned*>(p);
}

}  // namespace sgemm
