// Host-side helpers every rung's launcher shares, defined beside this header in kernels/common/:
// preconditions with a one-line reason, CUDA errors as Status, kernel preparation, the workspace
// pool, packing, the transposing copy. Not a lesson; none of it calls kernels/api/ (house.front_door).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <cuda_runtime.h>

#include "sgemm_ladder.hpp"

namespace sgemm {

// CUDA runtime error -> Status (no kernel image for this GPU -> kArch, allocation -> kOutOfMemory).
Status from_cuda(cudaError_t err);

// The status of the launch just made (cudaGetLastError), mapped by from_cuda.
Status launch_status();

// After one of several launches: the first failure so far (`sofar`, else this launch's status).
inline Status launch_status_after(Status sofar) {
  const Status now = launch_status();
  return sofar != Status::kOk ? sofar : now;
}

// M, N, K and the leading dimensions fit the rung's 32-bit index math.
bool fits_int32(const GemmArgs& a, std::string* why);

// Whether every row of A, B and C starts on a 16-byte boundary (lda, ldb, ldc multiples of 4 and
// the pointers 16-byte aligned), so that four floats move in one 128-bit access: launchers pick
// the kernel instance with kVec = true then, the one with 32-bit accesses otherwise. `why` says
// which operand is not aligned. Null pointers count as aligned.
bool vec4_ok(const GemmArgs& a, std::string* why);
// One operand's part of that: rows of pitch `ld` from `p` start on 16-byte boundaries.
bool rows_aligned(const void* p, int64_t ld);
// vec4_ok for every product of a batch: the strides keep each product's rows 16-byte aligned too.
inline bool vec4_ok_batched(const GemmArgs& a) {
  return vec4_ok(a, nullptr) && (a.batch == 1 || (a.strideA | a.strideB | a.strideC) % 4 == 0);
}

// The grid fits CUDA's limits (x < 2^31, y and z < 2^16).
bool grid_ok(int64_t blocks_x, int64_t blocks_y, std::string* why);

// What a launcher needs to know about one kernel on the current device. Function attributes,
// occupancy and device attributes never change between launches: prepare() asks once per
// (kernel, device) and keeps the answer, so no timed launch pays for them again.
struct KernelInfo {
  int sms = 0;            // multiprocessors of the device
  int blocks_per_sm = 0;  // blocks of this kernel resident per SM at its threads and shared memory
  int cc_major = 0;       // the device's compute capability, major part (9 on Hopper)
};

// Prepare `kernel`, launched with `threads` threads and `smem_bytes` of dynamic shared memory, on
// the current device: check the device's limits (shared memory per block, registers, threads),
// allow the shared memory above 48 KiB, count the resident blocks. kDeviceLimit with `why` when
// the device cannot run it, kArch when the kernel was not built for it.
Status prepare(const void* kernel, int threads, int smem_bytes, KernelInfo* info, std::string* why);
template <class... Args>
Status prepare(void (*kernel)(Args...), int threads, int smem_bytes, KernelInfo* info, std::string* why) {
  return prepare(reinterpret_cast<const void*>(kernel), threads, smem_bytes, info, why);
}

// How many clusters of `cluster` blocks of `kernel` (`threads` threads, `smem_bytes` of dynamic
// shared memory each; one dimension) the current device runs at once: 0 before sm_90, where the
// kernel was not compiled for it (PTX of an older architecture compiled when loaded) or where no
// such cluster fits; else cudaOccupancyMaxActiveClusters, which counts the SMs of each GPC (a GPC
// whose SMs are not a multiple of the cluster's blocks leaves some out). Asked once per kernel,
// size and device.
int max_clusters(const void* kernel, int threads, int smem_bytes, int cluster);
template <class... Args>
int max_clusters(void (*kernel)(Args...), int threads, int smem_bytes, int cluster) {
  return max_clusters(reinterpret_cast<const void*>(kernel), threads, smem_bytes, cluster);
}

// The current device's peaks, from its attributes (asked once per device): the FP32 FFMA peak
// (fp32_peak_gflops), the DRAM peak (memory clock x bus width, double data rate), the SM count.
struct DeviceRates {
  double fp32_flops = 0;  // flop/s
  double dram_bytes = 0;  // bytes/s
  int sms = 0;
};
Status device_rates(DeviceRates* out);

// Scratch memory for a rung that needs it (split-K partial sums, stream-K partial tiles,
// pre-split operands), taken stream-ordered from a memory pool per device that keeps freed memory
// for the next launch: `*ptr` is valid for work queued on `stream` until workspace_free(*ptr, stream).
// kOutOfMemory when the device cannot hold `bytes` more.
Status workspace_alloc(size_t bytes, cudaStream_t stream, void** ptr);
Status workspace_free(void* ptr, cudaStream_t stream);

// Tickets that stay zero between launches (common/workspace.cpp): `needed` counters, zero now, kept
// per device and per stream (by the stream's unique id: launches on one stream never overlap),
// for a kernel whose last block sets each ticket it took back to zero, so no launch needs a
// memset. nullptr (then the caller zeroes tickets of its own) for a stream being captured into a
// graph, whose replays may run beside other work on the same stream's buffer, and for more than
// kKeptTickets.
constexpr unsigned kKeptTickets = 4096;
unsigned* kept_tickets(cudaStream_t stream, unsigned needed);

// A copy of a matrix: dst (drows x dcols, row pitch ldd) = src (rows x cols, row pitch lds), zeros
// where dst reaches beyond src. repack() queues one launch that makes `first` and, where
// second.dst is set, `second` too (common/pack.cu). The front door packs unaligned operands with it,
// the dispatch rung its repacked candidates.
struct RepackJob {
  int rows = 0, cols = 0;
  const float* src = nullptr;
  int lds = 0;
  int drows = 0, dcols = 0;
  float* dst = nullptr;
  int ldd = 0;
};
Status repack(const RepackJob& first, const RepackJob& second, cudaStream_t stream);

// dst = src^T for `count` matrices (common/general.cu): src is rows x cols with row pitch lds, dst is
// cols x ldd (ldd >= rows; its columns rows..ldd-1 are written as zeros), matrix z at
// src + z strideSrc and dst + z strideDst.
Status copy_transposed(const float* src, int64_t rows, int64_t cols, int64_t lds, int64_t strideSrc, float* dst,
                       int64_t ldd, int64_t strideDst, int64_t count, cudaStream_t stream);

// Aligned copies of the operands whose rows are not 16-byte aligned (common/pack.cu): which ones, the
// GEMM on the copies (rows of whole float4s; K keeps its tail), the copies' places in one
// workspace and its size, the bytes they read and write. `args` has the copies at 256-byte-aligned
// stand-in addresses (enough for a model that asks about alignment); run_on_copies puts them in
// the workspace.
// One product with op(B) = B^T: B is copied transposed, to K x N rows (bT), and the GEMM on the
// copies reads B as stored (rung 30's repack candidate: rung 17's page has why it can pay).
struct PackPlan {
  bool a = false, b = false, c = false;
  bool bT = false;  // B's copy is B^T (b is set too)
  GemmArgs args;
  size_t offB = 0, offC = 0, bytes = 0;
  double moveBytes = 0;
  bool any() const { return a || b || c; }
};
// copyC false: C stays where it is, whatever its alignment (for kernels that store an unaligned C).
PackPlan pack_plan(const GemmArgs& args, bool copyC = true);

// The copies of plan `p` (A and B, and C where beta reads it), `inner` on them, C copied back; one
// workspace for all. `inner` on the operands as given when the workspace has no room.
Status run_on_copies(const GemmArgs& args, const PackPlan& p, cudaStream_t stream,
                     const std::function<Status(const GemmArgs&)>& inner);

// The front door's packed launch (packs() said yes): run_on_copies with the rung as `inner`.
Status run_packed(const Rung& rung, const GemmArgs& args, cudaStream_t stream, std::string* why);

}  // namespace sgemm
