// =====================================================================================
// SGEMM Ladder — the fault lab: deliberately broken copies of rungs 03 and 06
//
// Each faulty kernel is a copy of a real rung (kernels/03_smem_tiling.cuh,
// kernels/06_vectorized.cuh) with exactly one thing broken. The broken line carries a comment
// `// FAULT: <kind>: ...`; everything else is the rung as it is. The copies are templates on
// the fault, so the correct line and the broken one sit side by side:
//
//   oob-read   the A-tile load of edge tiles loses its row check: the last block row reads
//              rows past the end of A. Usually silent (the bytes are mapped, and the extra rows
//              only feed outputs that are never stored): compute-sanitizer memcheck finds it.
//   oob-write  the C store of edge tiles loses its bounds check: rows past M are written past
//              the end of C (first the harness's guard region, then beyond the allocation).
//   race       the __syncthreads() between the shared-memory products of slab k and the store
//              of slab k+1 is gone: a write-after-read hazard on sA/sB. racecheck finds it.
//
// Built only when SGEMM_LADDER_FAULT_LAB is ON (the debug preset), into sgemm_bench only: never
// into libsgemm_ladder.so, never listed in the registry (tests/fault_lab/ checks both).
// Walkthrough: docs/debugging.md; one command per demonstration: tools/fault_lab.sh.
// =====================================================================================
#include "fault_lab.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include <cuda_runtime.h>

#include "common/common.cuh"
#include "common/launch.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device_info.hpp"
#include "harness/problem.hpp"
#include "harness/verify.hpp"
#include "sgemm_ladder.hpp"

namespace sgemm::fault_lab {

enum class Fault { kOobRead, kOobWrite, kRace };

// ---- rung 03 (shared-memory tiling), copied from kernels/03_smem_tiling.cuh (its 32-deep slab) ---

namespace rung03 {

constexpr int kTile = 32;                 // BM = BN = BK = 32
constexpr int kThreads = kTile * kTile;   // one thread per element of the C tile

template <Fault kFault, bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[kTile][kTile], float (&sB)[kTile][kTile],
                                          const float* A, int lda, const float* B, int ldb, int M, int N,
                                          int K, int row, int col, int k0) {
  const int ty = threadIdx.y, tx = threadIdx.x;
  if (!kGuard) {
    sA[ty][tx] = A[int64_t(row) * lda + k0 + tx];
    sB[ty][tx] = B[int64_t(k0 + ty) * ldb + col];
  } else {
    if constexpr (kFault == Fault::kOobRead)
      sA[ty][tx] = (k0 + tx < K) ? A[int64_t(row) * lda + k0 + tx] : 0.0f;  // FAULT: oob-read: no `row < M`
    else
      sA[ty][tx] = (row < M && k0 + tx < K) ? A[int64_t(row) * lda + k0 + tx] : 0.0f;
    sB[ty][tx] = (k0 + ty < K && col < N) ? B[int64_t(k0 + ty) * ldb + col] : 0.0f;
  }
}

__device__ __forceinline__ float dot_slab(const float (&sA)[kTile][kTile], const float (&sB)[kTile][kTile],
                                          float acc) {
#pragma unroll
  for (int k = 0; k < kTile; ++k) acc += sA[threadIdx.y][k] * sB[k][threadIdx.x];
  return acc;
}

template <Fault kFault, bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[kTile][kTile], float (&sB)[kTile][kTile], int M, int N,
                                           int K, float alpha, const float* A, int lda, const float* B, int ldb,
                                           float beta, float* C, int ldc) {
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  int k0 = 0;
  for (; k0 + kTile <= K; k0 += kTile) {  // full slabs
    load_slab<kFault, kGuard>(sA, sB, A, lda, B, ldb, M, N, K, row, col, k0);
    __syncthreads();
    acc = dot_slab(sA, sB, acc);
    if constexpr (kFault != Fault::kRace) __syncthreads();  // FAULT: race: the race variant drops this barrier
  }
  if (k0 < K) {  // the K tail: always bounds-checked
    load_slab<kFault, true>(sA, sB, A, lda, B, ldb, M, N, K, row, col, k0);
    __syncthreads();
    acc = dot_slab(sA, sB, acc);
  }
  if constexpr (kFault == Fault::kOobWrite) {
    float* c = C + int64_t(row) * ldc + col;
    *c = epilogue(alpha, acc, beta, c);  // FAULT: oob-write: no `row < M && col < N` on edge tiles
  } else if (!kGuard || (row < M && col < N)) {
    float* c = C + int64_t(row) * ldc + col;
    *c = epilogue(alpha, acc, beta, c);
  }
}

template <Fault kFault>
__device__ __forceinline__ void kernel_body(int M, int N, int K, float alpha, const float* A, int lda,
                                            const float* B, int ldb, float beta, float* C, int ldc) {
  __shared__ float sA[kTile][kTile];  // [BM][BK]: a tile of A, row-major
  __shared__ float sB[kTile][kTile];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * kTile <= M && (blockIdx.x + 1) * kTile <= N;
  if (interior) block_tile<kFault, false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<kFault, true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace rung03

// ---- rung 06 (128-bit vectorized), copied from kernels/06_vectorized.cuh --------------------

namespace rung06 {

template <int BM, int BN, int BK, int TM, int TN>
struct Tile {
  static constexpr int kThreads = (BM / TM) * (BN / TN);  // one thread per TM x TN block of C
  static constexpr int kVecA = BK / kVecWidth;           // float4s per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;           // float4s per row of the B tile
  static constexpr int kRowsA = kThreads / kVecA;        // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / kVecB;        // B-tile rows copied per pass
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must tile the block tile exactly");
  static_assert(BK % kVecWidth == 0 && TM % kVecWidth == 0 && TN % kVecWidth == 0,
                "128-bit accesses need BK, TM and TN to be multiples of 4");
  static_assert(kThreads % kVecA == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % kVecB == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
};

constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;  // rung 06's tile
using Config = Tile<kBM, kBN, kBK, kTM, kTN>;

template <int BM, int BN, int BK, int TM, int TN, Fault kFault, bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[BK][BM], float (&sB)[BK][BN], const float* A, int lda,
                                          const float* B, int ldb, int M, int N, int K, int m0, int n0, int k0) {
  using T = Tile<BM, BN, BK, TM, TN>;
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
  const int bRow = threadIdx.x / T::kVecB, bCol = threadIdx.x % T::kVecB * kVecWidth;
#pragma unroll
  for (int r = 0; r < BM; r += T::kRowsA) {
    const int gRow = m0 + aRow + r;
    const float* src = A + int64_t(gRow) * lda;
    float4 v;
    if constexpr (kFault == Fault::kOobRead)
      v = *reinterpret_cast<const float4*>(src + k0 + aCol);  // FAULT: oob-read: unguarded, no `gRow < M`
    else
      v = kGuard ? load4_or_zero<true>(src, k0 + aCol, K, gRow < M) : load_f4(src + k0 + aCol);
    sA[aCol + 0][aRow + r] = v.x;  // transpose: four scalar stores
    sA[aCol + 1][aRow + r] = v.y;
    sA[aCol + 2][aRow + r] = v.z;
    sA[aCol + 3][aRow + r] = v.w;
  }
#pragma unroll
  for (int r = 0; r < BK; r += T::kRowsB) {
    const int gRow = k0 + bRow + r;
    const float* src = B + int64_t(gRow) * ldb;
    store_f4(&sB[bRow + r][bCol], kGuard ? load4_or_zero<true>(src, n0 + bCol, N, gRow < K) : load_f4(src + n0 + bCol));
  }
}

template <int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void compute_slab(const float (&sA)[BK][BM], const float (&sB)[BK][BN],
                                             float (&rAcc)[TM][TN], int tRow, int tCol) {
  float rA[TM], rB[TN];  // this k's column of the A tile and row of the B tile
#pragma unroll
  for (int k = 0; k < BK; ++k) {
#pragma unroll
    for (int i = 0; i < TM; i += kVecWidth) {
      const float4 v = load_f4(&sA[k][tRow * TM + i]);
      rA[i] = v.x, rA[i + 1] = v.y, rA[i + 2] = v.z, rA[i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const float4 v = load_f4(&sB[k][tCol * TN + j]);
      rB[j] = v.x, rB[j + 1] = v.y, rB[j + 2] = v.z, rB[j + 3] = v.w;
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
  }
}

template <int BM, int BN, int BK, int TM, int TN, Fault kFault, bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[BK][BM], float (&sB)[BK][BN], int M, int N, int K,
                                           float alpha, const float* A, int lda, const float* B, int ldb,
                                           float beta, float* C, int ldc) {
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
  float rAcc[TM][TN] = {};  // [TM][TN]: C[m0 + tRow*TM + i][n0 + tCol*TN + j]
  int k0 = 0;
  for (; k0 + BK <= K; k0 += BK) {
    load_slab<BM, BN, BK, TM, TN, kFault, kGuard>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, TM, TN>(sA, sB, rAcc, tRow, tCol);
    if constexpr (kFault != Fault::kRace) __syncthreads();  // FAULT: race: the race variant drops this barrier
  }
  if (k0 < K) {  // the K tail
    load_slab<BM, BN, BK, TM, TN, kFault, true>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<BM, BN, BK, TM, TN>(sA, sB, rAcc, tRow, tCol);
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + tRow * TM + i;
    if (kFault != Fault::kOobWrite && kGuard && row >= M) continue;  // FAULT: oob-write: no row skip
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const int col = n0 + tCol * TN + j;
      float* c = C + int64_t(row) * ldc + col;
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      if constexpr (kFault == Fault::kOobWrite) {
        const float4 out = make_float4(epilogue(alpha, acc.x, beta, c), epilogue(alpha, acc.y, beta, c + 1),
                                       epilogue(alpha, acc.z, beta, c + 2), epilogue(alpha, acc.w, beta, c + 3));
        *reinterpret_cast<float4*>(c) = out;  // FAULT: oob-write: unguarded 128-bit store, no column count
      } else {
        store4_epilogue<true>(c, kGuard ? N - col : kVecWidth, alpha, acc, beta);
      }
    }
  }
}

template <Fault kFault>
__device__ __forceinline__ void kernel_body(int M, int N, int K, float alpha, const float* A, int lda,
                                            const float* B, int ldb, float beta, float* C, int ldc) {
  __shared__ __align__(16) float sA[kBK][kBM];  // [BK][BM]: a tile of A, TRANSPOSED (k-major)
  __shared__ __align__(16) float sB[kBK][kBN];  // [BK][BN]: a tile of B, row-major
  const bool interior = (blockIdx.y + 1) * kBM <= M && (blockIdx.x + 1) * kBN <= N;
  if (interior)
    block_tile<kBM, kBN, kBK, kTM, kTN, kFault, false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    block_tile<kBM, kBN, kBK, kTM, kTN, kFault, true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace rung06

// ---- the faulty kernels: one clearly named __global__ per (fault, rung) ----------------------

#define SGEMM_FAULT_PARAMS \
  int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc
#define SGEMM_FAULT_ARGS M, N, K, alpha, A, lda, B, ldb, beta, C, ldc

__global__ void __launch_bounds__(rung03::kThreads) fault_oob_read_rung03(SGEMM_FAULT_PARAMS) {
  rung03::kernel_body<Fault::kOobRead>(SGEMM_FAULT_ARGS);
}
__global__ void __launch_bounds__(rung03::kThreads) fault_oob_write_rung03(SGEMM_FAULT_PARAMS) {
  rung03::kernel_body<Fault::kOobWrite>(SGEMM_FAULT_ARGS);
}
__global__ void __launch_bounds__(rung03::kThreads) fault_race_rung03(SGEMM_FAULT_PARAMS) {
  rung03::kernel_body<Fault::kRace>(SGEMM_FAULT_ARGS);
}
__global__ void __launch_bounds__(rung06::Config::kThreads) fault_oob_read_rung06(SGEMM_FAULT_PARAMS) {
  rung06::kernel_body<Fault::kOobRead>(SGEMM_FAULT_ARGS);
}
__global__ void __launch_bounds__(rung06::Config::kThreads) fault_oob_write_rung06(SGEMM_FAULT_PARAMS) {
  rung06::kernel_body<Fault::kOobWrite>(SGEMM_FAULT_ARGS);
}
__global__ void __launch_bounds__(rung06::Config::kThreads) fault_race_rung06(SGEMM_FAULT_PARAMS) {
  rung06::kernel_body<Fault::kRace>(SGEMM_FAULT_ARGS);
}

#undef SGEMM_FAULT_PARAMS
#undef SGEMM_FAULT_ARGS

// ---- host side: pick the variant, explain it, run it once, report ---------------------------

namespace {

using namespace sgemm::harness;

using KernelFn = void (*)(int, int, int, float, const float*, int, const float*, int, float, float*, int);

struct Kind {
  const char* name;        // --inject-fault value
  Fault fault;
  int default_rung;
  int64_t default_size;    // M = N = K when the command line gave no shape
  const char* tool;        // the compute-sanitizer tool that finds it
  const char* demo;        // tools/fault_lab.sh command
  const char* why;         // why it matters / what happens without a sanitizer
};

const Kind kKinds[] = {
    {"oob-read", Fault::kOobRead, 6, 1000, "memcheck", "tools/fault_lab.sh memcheck-read",
     "a small over-read lands in memory the process owns (allocations are rounded up to 2 MiB), so "
     "nothing faults, and the extra rows only feed outputs that are never stored: the result stays "
     "right. Only compute-sanitizer memcheck sees it."},
    {"oob-write", Fault::kOobWrite, 6, 1000, "memcheck", "tools/fault_lab.sh memcheck-write",
     "the rows past M land first in C's guard region (the harness notices: the result fails), then "
     "past the end of the allocation; memcheck names the kernel, block, thread and source line. An "
     "overrun far enough to leave mapped memory is a hardware fault (illegal address): "
     "tools/fault_lab.sh coredump captures one."},
    {"race", Fault::kRace, 3, 256, "racecheck", "tools/fault_lab.sh racecheck",
     "the result depends on warp timing: it can verify on one run and fail on the next. racecheck "
     "reports the hazard every time."},
};

struct Variant {
  Fault fault;
  int rung;
  const char* kernel;  // the faulty kernel's name
  KernelFn fn;
  int bm, bn;          // block tile (rows x columns of C per block)
  int block_x, block_y;
  const char* what;    // what exactly is broken
};

const Variant kVariants[] = {
    {Fault::kOobRead, 3, "fault_oob_read_rung03", fault_oob_read_rung03, rung03::kTile, rung03::kTile,
     rung03::kTile, rung03::kTile,
     "load_slab<kGuard=true>: the A-tile load of edge tiles checks the column (k0 + tx < K) but no "
     "longer the row (row < M)"},
    {Fault::kOobWrite, 3, "fault_oob_write_rung03", fault_oob_write_rung03, rung03::kTile, rung03::kTile,
     rung03::kTile, rung03::kTile,
     "block_tile<kGuard=true>: the C store of edge tiles lost its (row < M && col < N) check: rows "
     "past M go past the end of C, columns past N into the next row"},
    {Fault::kRace, 3, "fault_race_rung03", fault_race_rung03, rung03::kTile, rung03::kTile, rung03::kTile,
     rung03::kTile,
     "block_tile: the __syncthreads() after dot_slab is gone: a warp that finishes slab k early "
     "stores slab k+1 into sA/sB while slower warps still read slab k (write-after-read hazard)"},
    {Fault::kOobRead, 6, "fault_oob_read_rung06", fault_oob_read_rung06, rung06::kBM, rung06::kBN,
     rung06::Config::kThreads, 1,
     "load_slab<kGuard=true>: edge tiles load A with the interior tiles' unguarded 128-bit load "
     "(no gRow < M check)"},
    {Fault::kOobWrite, 6, "fault_oob_write_rung06", fault_oob_write_rung06, rung06::kBM, rung06::kBN,
     rung06::Config::kThreads, 1,
     "block_tile<kGuard=true>: edge tiles store C with an unguarded 128-bit store: no row < M skip, "
     "no column count: rows past M go past the end of C, columns past N into the next row"},
    {Fault::kRace, 6, "fault_race_rung06", fault_race_rung06, rung06::kBM, rung06::kBN,
     rung06::Config::kThreads, 1,
     "block_tile: the __syncthreads() after compute_slab is gone: a warp that finishes slab k early "
     "stores slab k+1 into sA/sB while slower warps still read slab k (write-after-read hazard)"},
};

int usage_error(const std::string& message) {
  std::fprintf(stderr, "sgemm_bench: error: %s\n", message.c_str());
  return kExitUsage;
}

const Kind* find_kind(const std::string& name) {
  for (const Kind& k : kKinds)
    if (name == k.name) return &k;
  return nullptr;
}

const Variant* find_variant(Fault f, int rung) {
  for (const Variant& v : kVariants)
    if (v.fault == f && v.rung == rung) return &v;
  return nullptr;
}

// True when --kernel was not given: the CLI then fills in every rung of the registry, in order.
bool kernels_defaulted(const Options& o) {
  const auto& reg = registry();
  if (o.kernels.size() != reg.size()) return false;
  for (size_t i = 0; i < reg.size(); ++i)
    if (o.kernels[i] != reg[i].id) return false;
  return true;
}

// True when no shape was given: the CLI's default is one 4096^3 shape with default ld.
bool shape_defaulted(const Options& o) {
  if (o.shapes.size() != 1) return false;
  const Shape& s = o.shapes[0];
  const Shape d = with_default_ld({4096, 4096, 4096, 0, 0, 0});
  return s.M == d.M && s.N == d.N && s.K == d.K && s.lda == d.lda && s.ldb == d.ldb && s.ldc == d.ldc;
}

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Bytes past the end of a rows x ld operand that the broken access reaches at most, when the
// access covers rows [0, rows_touched) and columns [0, cols_touched).
int64_t bytes_past_end(int64_t rows, int64_t ld, int64_t rows_touched, int64_t cols_touched) {
  const int64_t last = (rows_touched - 1) * ld + cols_touched;  // one past the last element touched
  return (last - rows * ld) * int64_t(sizeof(float));
}

std::string what_happens(const Variant& v, const Shape& s) {
  const int64_t rows_touched = round_up(s.M, v.bm);
  char buf[512];
  if (v.fault == Fault::kOobRead) {
    const int64_t cols = v.rung == 6 ? round_up(s.K, rung06::kBK) : s.K;
    const int64_t past = bytes_past_end(s.M, s.lda, rows_touched, cols);
    if (rows_touched == s.M) return "M is a multiple of the block tile: no edge row reads past A here";
    std::snprintf(buf, sizeof buf,
                  "the last block row reads rows %lld..%lld of A (M = %lld): up to %lld bytes past its "
                  "end (the harness's guard region is %zu bytes)",
                  (long long)s.M, (long long)(rows_touched - 1), (long long)s.M, (long long)past,
                  DeviceBuffer::kGuardBytes);
    return buf;
  }
  if (v.fault == Fault::kOobWrite) {
    const int64_t cols_touched = round_up(s.N, v.bn);
    const int64_t past = bytes_past_end(s.M, s.ldc, rows_touched, cols_touched);
    if (rows_touched == s.M && cols_touched == s.N)
      return "M and N are multiples of the block tile: no edge tile, nothing is written out of bounds here";
    std::snprintf(buf, sizeof buf,
                  "edge tiles write rows up to %lld and columns up to %lld of C (%lld x %lld, ldc %lld): "
                  "up to %lld bytes past its end (the harness's guard region is %zu bytes)",
                  (long long)(rows_touched - 1), (long long)(cols_touched - 1), (long long)s.M,
                  (long long)s.N, (long long)s.ldc, (long long)past, DeviceBuffer::kGuardBytes);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%lld slabs of K per block, each one a chance for the hazard",
                (long long)(s.K / (v.rung == 3 ? rung03::kTile : rung06::kBK)));
  return buf;
}

// After a kernel error: is the context still usable? (An illegal address is not: sticky.)
bool context_still_usable() {
  (void)cudaGetLastError();
  return cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess;
}

}  // namespace

int run(const Options& o) {
  // Usage checks first, before any GPU work: the same answer with or without a GPU.
  const Kind* kind = find_kind(o.fault);
  if (!kind)
    return usage_error("--inject-fault '" + o.fault + "' is not one of oob-read, oob-write, race");

  int rung = kind->default_rung;
  if (!kernels_defaulted(o)) {
    if (o.kernels.size() != 1)
      return usage_error("--inject-fault runs one faulty kernel: give one --kernel (3 or 6)");
    rung = o.kernels[0];
  }
  const Variant* variant = find_variant(kind->fault, rung);
  if (!variant)
    return usage_error("--inject-fault " + std::string(kind->name) + " has faulty copies of rungs 3 (03_smem_tiling) "
                       "and 6 (06_vectorized) only, not --kernel " + std::to_string(rung));
  const Rung* base = find_rung(rung);

  Shape shape;
  bool default_shape = false;
  if (shape_defaulted(o)) {
    default_shape = true;
    shape = with_default_ld({kind->default_size, kind->default_size, kind->default_size, 0, 0, 0});
  } else {
    if (o.shapes.size() != 1) return usage_error("--inject-fault runs one shape: give --size S, --m/--n/--k or one --shapes MxNxK");
    shape = o.shapes[0];
  }
  if (shape.M < 1 || shape.N < 1 || shape.K < 1)
    return usage_error("--inject-fault needs M, N, K >= 1 (got " + shape.str() + ")");
  {
    GemmArgs probe{shape.M, shape.N, shape.K, o.alpha, nullptr, shape.lda, nullptr, shape.ldb,
                   o.beta, nullptr, shape.ldc};
    std::string why;
    if (!base->supports(probe, &why))
      return usage_error(std::string("rung ") + base->slug + " cannot run " + shape.str() + ": " + why);
    // The copy of rung 06 keeps only its 128-bit path (the rung picks kVec at launch).
    if (rung == 6 && !vec4_ok(probe, &why))
      return usage_error("the fault lab's copy of rung 06 moves four floats per access: " + why);
  }

  std::printf("fault lab: injecting %s into rung %s -> kernel %s (bench/fault_lab.cu, the lines marked "
              "`// FAULT: %s`)\n",
              kind->name, base->slug, variant->kernel, kind->name);
  std::printf("  broken:  %s\n", variant->what);
  std::printf("  here:    %s\n", what_happens(*variant, shape).c_str());
  std::printf("  why:     %s\n", kind->why);
  std::printf("  find it: %s   (compute-sanitizer --tool %s)\n", kind->demo, kind->tool);
  std::printf("  shape:   %s%s, alpha %g, beta %g, input %s, seed %llu\n", shape.str().c_str(),
              default_shape ? " (the fault lab's default for this kind; --size, --m/--n/--k to change)" : "",
              double(o.alpha), double(o.beta), input_kind_name(o.input), (unsigned long long)o.seed);
  std::fflush(stdout);  // before any sanitizer report or error line on stderr

  if (const std::string problem = device_problem(); !problem.empty()) {
    std::fprintf(stderr, "sgemm_bench: %s\n", problem.c_str());
    return kExitDevice;
  }

  try {
    ProblemSpec spec;
    spec.shape = shape;
    spec.alpha = o.alpha;
    spec.beta = o.beta;
    spec.kind = o.input;
    spec.seed = o.seed;
    spec.sets = 1;
    Problem problem(spec);
    problem.reset_c(0);
    SGEMM_CUDA(cudaDeviceSynchronize());

    const GemmArgs a = problem.args(0);
    const dim3 grid(unsigned(ceil_div64(a.N, variant->bn)), unsigned(ceil_div64(a.M, variant->bm)));
    const dim3 block(unsigned(variant->block_x), unsigned(variant->block_y));
    std::printf("fault lab: launching %s<<<(%u,%u), (%u,%u)>>> once\n", variant->kernel, grid.x, grid.y,
                block.x, block.y);
    std::fflush(stdout);
    variant->fn<<<grid, block>>>(int(a.M), int(a.N), int(a.K), a.alpha, a.A, int(a.lda), a.B, int(a.ldb),
                                 a.beta, a.C, int(a.ldc));
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      const bool usable = context_still_usable();
      std::printf("fault lab: CUDA error after %s: %s (%s)\n", variant->kernel, cudaGetErrorName(err),
                  cudaGetErrorString(err));
      std::printf("fault lab: %s\n",
                  usable ? "the context is still usable (not a sticky error)"
                         : "a sticky error: this CUDA context is unusable now (nothing more can run or be "
                           "copied back); the process must exit. Find the faulting thread with "
                           "tools/fault_lab.sh coredump");
      std::fflush(stdout);
      return kExitVerifyFailed;
    }

    const VerifyResult r = verify(problem, base->precision);
    std::printf("fault lab: kernel finished without a CUDA error; result %s\n", r.summary().c_str());
    if (!r.ok) {
      std::printf("fault lab: the fault corrupted the result (exit 1)\n");
      return kExitVerifyFailed;
    }
    std::printf("fault lab: the fault stayed silent: no error, a correct result. That is the lesson: run it "
                "under %s\n",
                kind->demo);
    return kExitOk;
  } catch (const OutOfMemory& e) {
    std::fprintf(stderr, "sgemm_bench: %s\n", e.what());
    return kExitDevice;
  } catch (const CudaError& e) {
    std::fprintf(stderr, "sgemm_bench: fault lab: %s\n", e.what());
    return kExitVerifyFailed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_bench: fault lab: %s\n", e.what());
    return kExitVerifyFailed;
  }
}

}  // namespace sgemm::fault_lab
