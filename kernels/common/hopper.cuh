// Hopper (sm_90a) machinery shared by the tensor-core rungs from wgmma on (23-29, 31, 32): the 128-byte
// swizzle and the wgmma shared-memory descriptor that reads it, wgmma's fence / commit / wait, the
// mbarriers, the stage ring built from them and the TMA copy that rungs 24-29, 31 and 32 pipeline with; on the
// host, the tensor map that describes a TMA copy's source and the rungs' refusal where sm_90a was
// not built. wgmma itself and its fragments are in common/wgmma.cuh. Rung 23's page explains the
// descriptor and the swizzle, rung 24's the mbarrier ring and the TMA; here they are written once.
#pragma once

#include "common/common.cuh"

namespace sgemm {

constexpr int kSwizzleBytes = 128;                               // 128B swizzle: one swizzled row
constexpr int kSwizzleRows = 8;                                  // rows before the XOR pattern repeats
constexpr int kSwizzleAtomBytes = kSwizzleBytes * kSwizzleRows;  // 1024: the swizzle atom

// A CUtensorMap (the TMA's description of a tensor in global memory: base, sizes, strides, box,
// swizzle), 128 opaque bytes that the host encodes and the kernel receives as a __grid_constant__
// parameter. Declared here so that the kernel needs no driver header.
struct alignas(128) TmaMap {
  unsigned long long bytes[16];
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format" of wgmma) for a K-major
// tile in the 128B swizzle: bits 0-13 start address >> 4; bits 16-29 leading byte offset >> 4
// (not used by swizzled K-major layouts, set to 1); bits 32-45 stride byte offset >> 4 (1024:
// from one 8-row atom to the next); bits 49-51 base offset 0 (atoms start 1024-byte aligned);
// bits 62-63 swizzle mode, 1 = 128B.
__device__ __forceinline__ unsigned long long make_desc(unsigned smemAddr) {
  constexpr unsigned kAddrMask = 0x3FFFF;  // the 18 address bits the descriptor encodes
  constexpr int kEncodeShift = 4;          // addresses and offsets are in 16-byte units
  constexpr unsigned long long kLeadingByteOffset = 1, kSwizzle128B = 1;
  constexpr int kLboBit = 16, kSboBit = 32, kSwizzleBit = 62;
  return (unsigned long long)((smemAddr & kAddrMask) >> kEncodeShift) | (kLeadingByteOffset << kLboBit) |
         ((unsigned long long)(kSwizzleAtomBytes >> kEncodeShift) << kSboBit) | (kSwizzle128B << kSwizzleBit);
}

// mbarriers in shared memory (PTX ISA, "mbarrier"): a phase completes when `count` threads have
// arrived and every byte announced with expect_tx has landed; waiters name the phase's parity.
__device__ __forceinline__ void mbar_init(unsigned bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Make the initialised barriers visible to the async proxy (the TMA) before any copy uses them.
__device__ __forceinline__ void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
// The producer's arrival on a "full" barrier, announcing the bytes the TMA will deliver to it.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Spin until the phase of parity `parity` has completed (a fresh barrier counts the phase
// before its first as completed: waiting for parity 1 returns at once).
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// One TMA copy: the box at (col, row) of the 2-D tensor `map` into shared memory at `dst`,
// completing `bytes` of barrier `bar`'s transaction count when it lands.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TmaMap* map, int col, int row, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(col), "r"(row), "r"(bar)
      : "memory");
}

// The stage ring that rung 24 introduces and rungs 25-29, 31 and 32 use: Stages slots, each with a
// "full" barrier (completed by the producer's one arrival and the TMA's bytes) and an "empty" one
// (completed by `emptyArrivals` consumer warps), kBarBytes apart from fullAddr and emptyAddr. Slab
// t of a block goes through slot t % Stages; each pass round the ring flips the barriers' phase, so
// a slot's phase for slab t is the parity of t / Stages, and the ring computes it from t: a kernel
// says which slab it means (int or unsigned, as it counts them) and nothing else.
//   producer: acquire(t) (the consumers are done with the slot), then fill it, arriving on full(t);
//   consumer: wait(t) (the slot's bytes have landed), read it, then release(t) once per warp.
// The constructor initialises the barriers (thread 0) and the block meets once: the ring exists
// before anyone uses it (the only block-wide barrier of these kernels).
constexpr unsigned kBarBytes = sizeof(unsigned long long);
template <int Stages>
struct StageRing {
  unsigned fullAddr, emptyAddr;  // shared-memory addresses of the two barrier arrays

  __device__ __forceinline__ StageRing(unsigned full, unsigned empty, int emptyArrivals)
      : fullAddr(full), emptyAddr(empty) {
    if (threadIdx.x == 0) {
      for (int s = 0; s < Stages; ++s) {
        mbar_init(fullAddr + s * kBarBytes, 1);  // the producer's arrive; the TMA's bytes do the rest
        mbar_init(emptyAddr + s * kBarBytes, emptyArrivals);
      }
      mbar_init_fence();
    }
    __syncthreads();
  }
  template <class I>
  __device__ __forceinline__ static int slot(I t) {
    return t % Stages;
  }
  template <class I>
  __device__ __forceinline__ unsigned full(I t) const {  // slab t's "full" barrier
    return fullAddr + slot(t) * kBarBytes;
  }
  template <class I>
  __device__ __forceinline__ void acquire(I t) const {  // producer: the consumers are done with it
    mbar_wait(emptyAddr + slot(t) * kBarBytes, ((t / Stages) & 1) ^ 1);
  }
  template <class I>
  __device__ __forceinline__ void wait(I t) const {  // consumer: the TMA's bytes have landed
    mbar_wait(full(t), (t / Stages) & 1);
  }
  template <class I>
  __device__ __forceinline__ void release(I t) const {  // consumer: one arrival per warp
    mbar_arrive(emptyAddr + slot(t) * kBarBytes);
  }
};

// The first swizzle-atom boundary at or after the shared-memory address `rawAddr`: where the
// stages start (a kernel's dynamic shared memory holds kSwizzleAtomBytes of slack for it).
__device__ __forceinline__ unsigned align_to_atom(unsigned rawAddr) {
  return rawAddr + (kSwizzleAtomBytes - rawAddr % kSwizzleAtomBytes) % kSwizzleAtomBytes;
}

// wgmma is asynchronous: fence before the first wgmma reads registers or shared memory written
// before it, commit the wgmmas issued so far as a group, wait until at most kPending groups run.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sgemm

#ifndef SGEMM_DEVICE_ONLY
#include <string>
#include "common/launch.hpp"

namespace sgemm {

// What a Hopper rung's launch() answers in a build that did not compile it for sm_90a.
inline Status refuse_without_sm90a(std::string* why) {
  if (why) *why = "built without sm_90a (configure with CMAKE_CUDA_ARCHITECTURES including 90)";
  return Status::kArch;  // the wgmma kernel was not compiled for sm_90a in this build
}

}  // namespace sgemm
#endif

#if !defined(SGEMM_DEVICE_ONLY) && defined(SGEMM_SM90A_BUILT)
#include <cstdint>
#include <cstring>
#include <string>
#include <cuda.h>          // CUtensorMap and its enums
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include "common/launch.hpp"

namespace sgemm {

static_assert(sizeof(TmaMap) == sizeof(CUtensorMap) && alignof(TmaMap) == alignof(CUtensorMap),
              "TmaMap must be CUtensorMap's bytes");

// The driver's tensor-map encoder, through the runtime (no link against libcuda): asked once.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// A row-major [rows][cols] matrix of `type` elements (`elementBytes` each) in a rung's workspace,
// rows packed (cols elements apart), copied in boxes of box_rows x box_cols with the 128-byte
// swizzle that the wgmma descriptors expect.
inline Status encode_map(const void* base, CUtensorMapDataType type, int elementBytes, int64_t rows, int64_t cols,
                         int box_rows, int box_cols, TmaMap* out, std::string* why) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (!encode) {
    if (why) *why = "the driver offers no cuTensorMapEncodeTiled (TMA needs a CUDA 12 driver)";
    return Status::kArch;
  }
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};          // innermost first
  const cuuint64_t strides[1] = {cuuint64_t(cols) * cuuint64_t(elementBytes)};  // bytes from row to row
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t elementStrides[2] = {1, 1};
  const CUresult r = encode(&map, type, 2, const_cast<void*>(base), dims, strides, box, elementStrides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    if (why) *why = "cuTensorMapEncodeTiled refused the workspace's layout (CUresult " + std::to_string(int(r)) + ")";
    return Status::kCuda;
  }
  std::memcpy(out, &map, sizeof(map));
  return Status::kOk;
}

}  // namespace sgemm
#endif
