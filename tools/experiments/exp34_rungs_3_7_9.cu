// exp34: three open questions of the SGEMM ladder, measured on one GPU in one program.
//
//   Q1  rung 3 (shared-memory tiling, one output per thread) variants vs the rung-3 kernel, 4096^3
//       (and 8192^3), % of cuBLAS.
//   Q2  rung 9 warptiling configurations and rung 8's tuned kernel, SUSTAINED (>= 1.5 s of
//       back-to-back launches per kernel and size, cuBLAS interleaved), 4096^3 and 8192^3, with the
//       SM clock / power / clock-event reasons sampled through NVML (dlopen'd) during each run.
//   Q3  rung 7 variants that change only how the B tile is stored, for ncu (mode `rung7`), and a
//       short timing of each at 4096^3 inside `all`.
//
// Modes
//   exp34 all <out.json> [--quick]    Q1 + Q2 (+ Q3 timing): table on stdout, JSON to <out.json>
//   exp34 rung7 <variant>             one warm-up + one launch of a rung-7 variant at 2048^3 (ncu)
//   exp34 list                        variant names
//
// Build (from the repository root; one line):
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -I kernels -DSGEMM_TUNED_HEADER='"tuned/sm_90.cuh"'
//        .carry/exp34/exp34.cu -o .carry/exp34/exp34 -lcublas -ldl
#define SGEMM_DEVICE_ONLY
#include "03_smem_tiling.cuh"
#include "07_bank_conflict_free.cuh"
#include "08_autotuned.cuh"
#include "09_warptiling.cuh"
#include SGEMM_TUNED_HEADER

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__,      \
                   __LINE__, cudaGetErrorString(e_));                                           \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)
#define CB(x)                                                                                   \
  do {                                                                                          \
    cublasStatus_t s_ = (x);                                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                          \
      std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", int(s_), __FILE__, __LINE__);          \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

using sgemm::ceil_div;

// =============================================================================================
// Q1: rung-3 variants. All keep rung 3's lesson: A and B tiles in shared memory, one output per
// thread, scalar global loads, no register blocking. Interior blocks run unchecked full K slabs;
// edge blocks and the K tail check bounds and zero-fill, as rung 3 does.
// =============================================================================================
namespace r3x {

// Block tile BM x BN (one thread per output, blockDim = (BN, BM)), K slab BK. Each thread copies
// BK/BN elements of the A tile and BK/BM of the B tile per slab.
template <int BM, int BN, int BK>
struct Cfg {
  static constexpr int kThreads = BM * BN;
  static constexpr int kLoadsA = BK / BN;         // A elements per thread per slab
  static constexpr int kLoadsB = BK / BM;         // B elements per thread per slab
  static constexpr int kRowStepA = kThreads / BK; // A-tile rows between one thread's copies
  static_assert(BK % BN == 0 && BK % BM == 0, "every thread copies whole elements of both tiles");
  static_assert(kThreads % BK == 0 && kThreads % 32 == 0 && kThreads <= 1024, "block shape");
};

// One slab with index math; kGuard: bounds checks and zero fill.
template <int BM, int BN, int BK, bool kGuard>
__device__ __forceinline__ void load_idx(float (&sA)[BM][BK], float (&sB)[BK][BN], const float* A, int lda,
                                         const float* B, int ldb, int M, int N, int K, int m0, int n0, int k0) {
  using C = Cfg<BM, BN, BK>;
  const int t = threadIdx.y * BN + threadIdx.x;
  const int ar = t / BK, ac = t % BK;
#pragma unroll
  for (int i = 0; i < C::kLoadsA; ++i) {
    const int r = ar + i * C::kRowStepA, gr = m0 + r, gc = k0 + ac;
    sA[r][ac] = (!kGuard || (gr < M && gc < K)) ? A[int64_t(gr) * lda + gc] : 0.0f;
  }
#pragma unroll
  for (int i = 0; i < C::kLoadsB; ++i) {
    const int r = threadIdx.y + i * BM, gr = k0 + r, gc = n0 + threadIdx.x;
    sB[r][threadIdx.x] = (!kGuard || (gr < K && gc < N)) ? B[int64_t(gr) * ldb + gc] : 0.0f;
  }
}

template <int BM, int BN, int BK>
__device__ __forceinline__ float dot(const float (&sA)[BM][BK], const float (&sB)[BK][BN], float acc) {
#pragma unroll
  for (int k = 0; k < BK; ++k) acc += sA[threadIdx.y][k] * sB[k][threadIdx.x];
  return acc;
}

// kBump: interior blocks advance two pointers per slab instead of recomputing 64-bit offsets.
template <int BM, int BN, int BK, int kMinBlocks, bool kBump>
__global__ void __launch_bounds__(BM * BN, kMinBlocks)
sgemm_03x(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
          float* C, int ldc) {
  using Cf = Cfg<BM, BN, BK>;
  __shared__ float sA[BM][BK];
  __shared__ float sB[BK][BN];
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int row = m0 + threadIdx.y, col = n0 + threadIdx.x;
  const bool interior = m0 + BM <= M && n0 + BN <= N;
  float acc = 0.0f;
  int k0 = 0;
  if (interior) {
    if (kBump) {
      const int t = threadIdx.y * BN + threadIdx.x;
      const float* pa = A + int64_t(m0 + t / BK) * lda + t % BK;
      const float* pb = B + int64_t(threadIdx.y) * ldb + col;
      const int64_t aStep = int64_t(Cf::kRowStepA) * lda, bStep = int64_t(BM) * ldb, bSlab = int64_t(BK) * ldb;
      const int ar = t / BK, ac = t % BK;
      for (; k0 + BK <= K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < Cf::kLoadsA; ++i) sA[ar + i * Cf::kRowStepA][ac] = pa[i * aStep];
#pragma unroll
        for (int i = 0; i < Cf::kLoadsB; ++i) sB[threadIdx.y + i * BM][threadIdx.x] = pb[i * bStep];
        pa += BK;
        pb += bSlab;
        __syncthreads();
        acc = dot<BM, BN, BK>(sA, sB, acc);
        __syncthreads();
      }
    } else {
      for (; k0 + BK <= K; k0 += BK) {
        load_idx<BM, BN, BK, false>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
        __syncthreads();
        acc = dot<BM, BN, BK>(sA, sB, acc);
        __syncthreads();
      }
    }
  } else {
    for (; k0 + BK <= K; k0 += BK) {
      load_idx<BM, BN, BK, true>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
      __syncthreads();
      acc = dot<BM, BN, BK>(sA, sB, acc);
      __syncthreads();
    }
  }
  if (k0 < K) {  // K tail
    load_idx<BM, BN, BK, true>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    acc = dot<BM, BN, BK>(sA, sB, acc);
  }
  if (row < M && col < N) {
    float* c = C + int64_t(row) * ldc + col;
    *c = sgemm::epilogue(alpha, acc, beta, c);
  }
}

// 32x32x32 tile, 1024 threads, but each warp owns an 8-row x 4-column patch of C instead of a
// 1 x 32 strip, and B is kept transposed in shared memory (rows padded to 36 floats so both
// tiles read conflict-free). Per k a warp then needs 8 A values and 4 B values instead of 1 and
// 32. The compiler turns the 4-k runs of sA[row][k] / sBt[col][k] into LDS.128 (as it already
// does for rung 3's A reads). kPair: lane bits interleave row and column (row = b0,b2,b4;
// col = b1,b3) so lanes n and n^1 read the same B address and lanes n and n^2 the same A
// address (the 'uniform pair' pattern that halves LDS.128 wavefronts); !kPair: row = lane/4,
// col = lane%4 (a control: only A reads are pair-uniform).
constexpr int kPad = 36;
template <bool kPair, bool kGuard>
__device__ __forceinline__ void load_t(float (&sA)[32][kPad], float (&sBt)[32][kPad], const float* A, int lda,
                                       const float* B, int ldb, int M, int N, int K, int m0, int n0, int k0) {
  const int lr = threadIdx.x / 32, lc = threadIdx.x % 32;
  {
    const int gr = m0 + lr, gc = k0 + lc;
    sA[lr][lc] = (!kGuard || (gr < M && gc < K)) ? A[int64_t(gr) * lda + gc] : 0.0f;
  }
  {
    const int gr = k0 + lr, gc = n0 + lc;
    sBt[lc][lr] = (!kGuard || (gr < K && gc < N)) ? B[int64_t(gr) * ldb + gc] : 0.0f;
  }
}

__device__ __forceinline__ float dot_t(const float* ra, const float* rb, float acc) {
#pragma unroll
  for (int k = 0; k < 32; ++k) acc += ra[k] * rb[k];
  return acc;
}

template <bool kPair>
__global__ void __launch_bounds__(1024, 2)
sgemm_03x_warp8x4(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                  float* C, int ldc) {
  __shared__ __align__(16) float sA[32][kPad];   // [m][k]
  __shared__ __align__(16) float sBt[32][kPad];  // [n][k]: B transposed
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  const int rIn = kPair ? ((l & 1) | (((l >> 2) & 1) << 1) | (((l >> 4) & 1) << 2)) : l / 4;
  const int cIn = kPair ? (((l >> 1) & 1) | (((l >> 3) & 1) << 1)) : l % 4;
  const int tr = (w / 8) * 8 + rIn, tc = (w % 8) * 4 + cIn;  // this thread's output in the tile
  const float* ra = &sA[tr][0];   // its row of the A tile
  const float* rb = &sBt[tc][0];  // its column of the B tile
  const int m0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
  const bool interior = m0 + 32 <= M && n0 + 32 <= N;
  float acc = 0.0f;
  int k0 = 0;
  for (; k0 + 32 <= K; k0 += 32) {  // one loop, uniform branch (pointer bumping here spilled at 32 regs)
    if (interior) load_t<kPair, false>(sA, sBt, A, lda, B, ldb, M, N, K, m0, n0, k0);
    else load_t<kPair, true>(sA, sBt, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    acc = dot_t(ra, rb, acc);
    __syncthreads();
  }
  if (k0 < K) {
    load_t<kPair, true>(sA, sBt, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    acc = dot_t(ra, rb, acc);
  }
  // The output position is recomputed from the tile-row pointers (keeps registers free in the loop).
  const int row = m0 + int(ra - &sA[0][0]) / kPad, col = n0 + int(rb - &sBt[0][0]) / kPad;
  if (row < M && col < N) {
    float* c = C + int64_t(row) * ldc + col;
    *c = sgemm::epilogue(alpha, acc, beta, c);
  }
}

}  // namespace r3x

// =============================================================================================
// Q3: rung 7 (128x128x8_8x8, 256 threads) with only the B-tile store changed.
//   kF4         as rung 7 (own copy: checks the copy reproduces rung 7's counters)
//   kScalarSame float4 global load, four scalar STS.32 to the same addresses (a REAL 4-way
//               conflict: calibrates what the counter reports for a known conflict)
//   kScalarCoal four coalesced scalar LDG.32 per thread (columns lane + 32j), four STS.32 of 32
//               consecutive floats per warp (conflict-free by address)
//   kPadded     STS.128 as rung 7 into rows padded to BN+4 floats (the compute reads follow)
//   kNoLdg      STS.128 of values made in registers (no B global load): same addresses and
//               instruction count; RESULTS WRONG, diagnostic only (is the LDG->STS path involved?)
// =============================================================================================
namespace r7x {
using sgemm::kVecWidth;
using sgemm::load4_or_zero;
using sgemm::load_f4;
using sgemm::store_f4;
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
using T = sgemm::rung07::Tile<BM, BN, BK, TM, TN>;
enum Mode { kF4 = 0, kScalarSame = 1, kScalarCoal = 2, kPadded = 3, kNoLdg = 4 };
template <int MODE>
struct L {
  static constexpr int kLdB = MODE == kPadded ? BN + 4 : BN;
};

__device__ __forceinline__ void sts32(float* p, float v) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(a), "f"(v) : "memory");
}

template <int MODE, bool kGuard>
__device__ __forceinline__ void load_slab(float (&sA)[BK][BM], float (&sB)[BK][L<MODE>::kLdB], const float* A,
                                          int lda, const float* B, int ldb, int M, int N, int K, int m0, int n0,
                                          int k0) {
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
  const int bRow = threadIdx.x / T::kVecB, bCol = threadIdx.x % T::kVecB * kVecWidth;
#pragma unroll
  for (int r = 0; r < BM; r += T::kRowsA) {  // A: exactly rung 7
    const int gRow = m0 + aRow + r;
    const float* src = A + int64_t(gRow) * lda;
    const float4 v = kGuard ? load4_or_zero(src, k0 + aCol, K, gRow < M) : load_f4(src + k0 + aCol);
    const int m = sgemm::rung07::swizzle_a<BK>(aCol, aRow + r);
    sA[aCol + 0][m] = v.x;
    sA[aCol + 1][m] = v.y;
    sA[aCol + 2][m] = v.z;
    sA[aCol + 3][m] = v.w;
  }
#pragma unroll
  for (int r = 0; r < BK; r += T::kRowsB) {
    const int gRow = k0 + bRow + r;
    const float* src = B + int64_t(gRow) * ldb;
    if (MODE == kF4 || MODE == kPadded) {
      store_f4(&sB[bRow + r][bCol], kGuard ? load4_or_zero(src, n0 + bCol, N, gRow < K) : load_f4(src + n0 + bCol));
    } else if (MODE == kScalarSame) {
      const float4 v = kGuard ? load4_or_zero(src, n0 + bCol, N, gRow < K) : load_f4(src + n0 + bCol);
      sts32(&sB[bRow + r][bCol + 0], v.x);
      sts32(&sB[bRow + r][bCol + 1], v.y);
      sts32(&sB[bRow + r][bCol + 2], v.z);
      sts32(&sB[bRow + r][bCol + 3], v.w);
    } else if (MODE == kScalarCoal) {
      const int lane = threadIdx.x % T::kVecB;  // kVecB == 32: a warp covers one B row
#pragma unroll
      for (int j = 0; j < kVecWidth; ++j) {
        const int c = lane + j * (BN / kVecWidth);
        const float v = kGuard ? sgemm::load_or_zero(src, n0 + c, N, gRow < K) : src[n0 + c];
        sts32(&sB[bRow + r][c], v);
      }
    } else {  // kNoLdg
      const float f = float(k0 + bRow + r);
      store_f4(&sB[bRow + r][bCol], make_float4(f, f + 1.0f, f + 2.0f, float(bCol)));
    }
  }
}

template <int MODE>
__device__ __forceinline__ void compute_slab(const float (&sA)[BK][BM], const float (&sB)[BK][L<MODE>::kLdB],
                                             float (&rAcc)[TM][TN], int tRow, int tCol) {
  float rA[TM], rB[TN];
#pragma unroll
  for (int k = 0; k < BK; ++k) {
#pragma unroll
    for (int g = 0; g < T::kGroupsM; ++g) {
      const float4 v = load_f4(&sA[k][sgemm::rung07::swizzle_a<BK>(k, g * (BM / T::kGroupsM) + tRow * kVecWidth)]);
      rA[g * 4] = v.x, rA[g * 4 + 1] = v.y, rA[g * 4 + 2] = v.z, rA[g * 4 + 3] = v.w;
    }
#pragma unroll
    for (int g = 0; g < T::kGroupsN; ++g) {
      const float4 v = load_f4(&sB[k][g * (BN / T::kGroupsN) + tCol * kVecWidth]);
      rB[g * 4] = v.x, rB[g * 4 + 1] = v.y, rB[g * 4 + 2] = v.z, rB[g * 4 + 3] = v.w;
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
  }
}

template <int MODE, bool kGuard>
__device__ __forceinline__ void block_tile(float (&sA)[BK][BM], float (&sB)[BK][L<MODE>::kLdB], int M, int N, int K,
                                           float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                                           float* C, int ldc) {
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
  float rAcc[TM][TN] = {};
  int k0 = 0;
  for (; k0 + BK <= K; k0 += BK) {
    load_slab<MODE, kGuard>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<MODE>(sA, sB, rAcc, tRow, tCol);
    __syncthreads();
  }
  if (k0 < K) {
    load_slab<MODE, true>(sA, sB, A, lda, B, ldb, M, N, K, m0, n0, k0);
    __syncthreads();
    compute_slab<MODE>(sA, sB, rAcc, tRow, tCol);
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + i / kVecWidth * (BM / T::kGroupsM) + tRow * kVecWidth + i % kVecWidth;
    if (kGuard && row >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const int col = n0 + j / kVecWidth * (BN / T::kGroupsN) + tCol * kVecWidth;
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      sgemm::store4_epilogue(C + int64_t(row) * ldc + col, kGuard ? N - col : kVecWidth, alpha, acc, beta);
    }
  }
}

template <int MODE>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocks)
sgemm_07x_bstore(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                 float* C, int ldc) {
  __shared__ __align__(16) float sA[BK][BM];
  __shared__ __align__(16) float sB[BK][L<MODE>::kLdB];
  const bool interior = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N;
  if (interior) block_tile<MODE, false>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else block_tile<MODE, true>(sA, sB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
}  // namespace r7x

// =============================================================================================
// Host side
// =============================================================================================
__global__ void fill_uniform(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ (unsigned(i >> 32) * 40503u) ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    h *= 0x27d4eb2du;
    h ^= h >> 16;
    p[i] = float(h >> 8) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
  }
}

// out[0] = max |C - R| over the M x N region, out[1] = max |R|, out[2] = count of writes outside
// it (C was NaN-filled: columns [N, ldc) of rows < M, and the ldc entries of row M).
__global__ void compare(const float* C, const float* R, int M, int N, int ldc, unsigned* out) {
  const int64_t total = int64_t(M + 1) * ldc;
  unsigned dmax = 0, rmax = 0, oob = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int r = int(i / ldc), c = int(i % ldc);
    const float cv = C[i];
    if (r < M && c < N) {
      const float rv = R[i];
      const float d = fabsf(cv - rv);
      const unsigned db = isnan(d) ? 0x7fc00000u : __float_as_uint(d);
      dmax = max(dmax, db);
      rmax = max(rmax, __float_as_uint(fabsf(rv)));
    } else if (__float_as_uint(cv) != 0xFFFFFFFFu) {
      ++oob;
    }
  }
  atomicMax(&out[0], dmax);
  atomicMax(&out[1], rmax);
  atomicAdd(&out[2], oob);
}

// ---- NVML through dlopen -------------------------------------------------------------------
struct Nvml {
  using InitFn = int (*)();
  using HandleFn = int (*)(const char*, void**);
  using ClockFn = int (*)(void*, int, unsigned*);
  using UintFn = int (*)(void*, unsigned*);
  using TempFn = int (*)(void*, int, unsigned*);
  using ReasonsFn = int (*)(void*, unsigned long long*);
  ClockFn clock = nullptr;
  UintFn power = nullptr, limit = nullptr;
  TempFn temp = nullptr;
  ReasonsFn reasons = nullptr;
  void* dev = nullptr;
  bool ok = false;
  void init(int cuda_dev) {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::printf("NVML: dlopen failed (%s); clocks will read -1\n", dlerror());
      return;
    }
    auto ini = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
    auto by_pci = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    power = reinterpret_cast<UintFn>(dlsym(lib, "nvmlDeviceGetPowerUsage"));
    limit = reinterpret_cast<UintFn>(dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit"));
    temp = reinterpret_cast<TempFn>(dlsym(lib, "nvmlDeviceGetTemperature"));
    reasons = reinterpret_cast<ReasonsFn>(dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons) reasons = reinterpret_cast<ReasonsFn>(dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    if (!ini || !by_pci || !clock || ini() != 0) {
      std::printf("NVML: init failed; clocks will read -1\n");
      return;
    }
    char bus[64];
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_dev) != cudaSuccess || by_pci(bus, &dev) != 0) {
      std::printf("NVML: no handle for the CUDA device\n");
      return;
    }
    ok = true;
  }
  int sm_mhz() const {
    unsigned v = 0;
    return ok && clock(dev, 1 /*NVML_CLOCK_SM*/, &v) == 0 ? int(v) : -1;
  }
  int mem_mhz() const {
    unsigned v = 0;
    return ok && clock(dev, 2 /*NVML_CLOCK_MEM*/, &v) == 0 ? int(v) : -1;
  }
  double watts() const {
    unsigned v = 0;
    return ok && power && power(dev, &v) == 0 ? v / 1000.0 : -1.0;
  }
  double limit_watts() const {
    unsigned v = 0;
    return ok && limit && limit(dev, &v) == 0 ? v / 1000.0 : -1.0;
  }
  int temp_c() const {
    unsigned v = 0;
    return ok && temp && temp(dev, 0 /*NVML_TEMPERATURE_GPU*/, &v) == 0 ? int(v) : -1;
  }
  unsigned long long event_reasons() const {
    unsigned long long v = 0;
    return ok && reasons && reasons(dev, &v) == 0 ? v : 0ull;
  }
};
static Nvml g_nvml;

struct Sample {
  double t;  // seconds since the run started
  int mhz;
  double w;
  int temp;
  unsigned long long why;
};

class Sampler {
 public:
  void start() {
    samples_.clear();
    stop_ = false;
    t0_ = std::chrono::steady_clock::now();
    th_ = std::thread([this] {
      while (!stop_.load()) {
        Sample s;
        s.t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
        s.mhz = g_nvml.sm_mhz();
        s.w = g_nvml.watts();
        s.temp = g_nvml.temp_c();
        s.why = g_nvml.event_reasons();
        samples_.push_back(s);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  std::vector<Sample> stop() {
    stop_ = true;
    th_.join();
    return samples_;
  }

 private:
  std::vector<Sample> samples_;
  std::atomic<bool> stop_{false};
  std::chrono::steady_clock::time_point t0_;
  std::thread th_;
};

// ---- problems and kernels ---------------------------------------------------------------------
struct Prob {
  int M, N, K, lda, ldb, ldc;
};

using LaunchFn = std::function<void(const Prob&, const float*, const float*, float*, cudaStream_t)>;

struct Kern {
  std::string name, group, note;
  LaunchFn launch;
  const void* fn = nullptr;  // for attributes (null: cuBLAS)
  int threads = 0;
  bool vec4 = false;   // needs lda/ldb/ldc % 4 == 0
  bool verify = true;  // false: results are wrong by design (diagnostic variants)
};

static cublasHandle_t g_blas;

static void cublas_launch(const Prob& p, const float* A, const float* B, float* C, cudaStream_t s) {
  const float alpha = 1.0f, beta = 0.0f;
  CB(cublasSetStream(g_blas, s));
  // Row-major C = A B  <=>  column-major C^T = B^T A^T.
  CB(cublasGemmEx(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, p.N, p.M, p.K, &alpha, B, CUDA_R_32F, p.ldb, A, CUDA_R_32F,
                  p.lda, &beta, C, CUDA_R_32F, p.ldc, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT));
}

template <typename KFn>
static LaunchFn grid_launch(KFn k, int BM, int BN, dim3 block) {
  return [=](const Prob& p, const float* A, const float* B, float* C, cudaStream_t s) {
    const dim3 grid(ceil_div(p.N, BN), ceil_div(p.M, BM));
    k<<<grid, block, 0, s>>>(p.M, p.N, p.K, 1.0f, A, p.lda, B, p.ldb, 0.0f, C, p.ldc);
  };
}

template <int BM, int BN, int BK, int kMin, bool kBump>
static Kern r3x_kern(const char* name, const char* note) {
  Kern k;
  k.name = name;
  k.group = "rung3";
  k.note = note;
  auto fn = r3x::sgemm_03x<BM, BN, BK, kMin, kBump>;
  k.fn = reinterpret_cast<const void*>(fn);
  k.threads = BM * BN;
  k.launch = grid_launch(fn, BM, BN, dim3(BN, BM));
  return k;
}

template <bool kPair>
static Kern r3pair_kern(const char* name, const char* note) {
  Kern k;
  k.name = name;
  k.group = "rung3";
  k.note = note;
  auto fn = r3x::sgemm_03x_warp8x4<kPair>;
  k.fn = reinterpret_cast<const void*>(fn);
  k.threads = 1024;
  k.launch = grid_launch(fn, 32, 32, dim3(1024));
  return k;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
static Kern r9_kern(const char* note) {
  using Tl = sgemm::rung09::Tile<BM, BN, BK, WM, WN, TM, TN>;
  Kern k;
  k.name = "r09_" + std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "_" +
           std::to_string(WM) + "x" + std::to_string(WN) + "_" + std::to_string(TM) + "x" + std::to_string(TN);
  k.group = "rung9";
  k.note = note;
  auto fn = sgemm::rung09::sgemm_09_warptiling<BM, BN, BK, WM, WN, TM, TN>;
  k.fn = reinterpret_cast<const void*>(fn);
  k.threads = Tl::kThreads;
  k.vec4 = true;
  k.launch = grid_launch(fn, BM, BN, dim3(Tl::kThreads));
  return k;
}

template <int MODE>
static Kern r7x_kern(const char* name, const char* note, bool verify = true) {
  Kern k;
  k.name = name;
  k.group = "rung7";
  k.note = note;
  auto fn = r7x::sgemm_07x_bstore<MODE>;
  k.fn = reinterpret_cast<const void*>(fn);
  k.threads = r7x::T::kThreads;
  k.vec4 = true;
  k.verify = verify;
  k.launch = grid_launch(fn, r7x::BM, r7x::BN, dim3(r7x::T::kThreads));
  return k;
}

static Kern cublas_kern() {
  Kern k;
  k.name = "cublas";
  k.group = "cublas";
  k.note = "cublasGemmEx FP32 pedantic (C^T = B^T A^T)";
  k.launch = cublas_launch;
  return k;
}

static std::vector<Kern> rung3_kernels() {
  std::vector<Kern> v;
  {
    Kern k;
    k.name = "r03_base";
    k.group = "rung3";
    k.note = "kernels/03_smem_tiling.cuh as is: 32x32x32, index math, launch_bounds(1024)";
    k.fn = reinterpret_cast<const void*>(sgemm::rung03::sgemm_03_smem_tiling);
    k.threads = 1024;
    k.launch = grid_launch(sgemm::rung03::sgemm_03_smem_tiling, 32, 32, dim3(32, 32));
    v.push_back(k);
  }
  v.push_back(r3x_kern<32, 32, 32, 2, true>("r03_bump_lb2", "32x32x32, pointer bumping, launch_bounds(1024,2)"));
  v.push_back(r3x_kern<32, 32, 64, 2, true>("r03_bk64", "32x32 tile, K slab 64 (half the barriers per FFMA), bump, lb(1024,2)"));
  v.push_back(r3x_kern<16, 64, 64, 2, true>("r03_16x64", "BM=16 x BN=64 (warp = half a row), BK=64, bump, lb(1024,2)"));
  v.push_back(r3x_kern<64, 16, 64, 2, true>("r03_64x16", "BM=64 x BN=16 (warp = 2 rows x 16 cols), BK=64, bump, lb(1024,2)"));
  v.push_back(r3x_kern<16, 16, 32, 8, true>("r03_16x16", "16x16x32, 256 threads, bump, lb(256,8)"));
  v.push_back(r3pair_kern<true>("r03_w8x4_pair",
                                "STRETCH: 32x32x32, warp = 8x4 patch (lane bits interleaved), B transposed, rows padded to 36"));
  v.push_back(r3pair_kern<false>("r03_w8x4_rowmajor", "control of the above: warp = 8x4 patch, lane row-major (row=l/4)"));
  return v;
}

static std::vector<Kern> q2_kernels() {
  std::vector<Kern> v;
  {
    using Tu = sgemm::tuned::Rung08;
    using Tl = sgemm::rung08::Tile<Tu::BM, Tu::BN, Tu::BK, Tu::TM, Tu::TN>;
    Kern k;
    k.name = "r08_tuned_" + std::to_string(Tu::BM) + "x" + std::to_string(Tu::BN) + "x" + std::to_string(Tu::BK) + "_" +
             std::to_string(Tu::TM) + "x" + std::to_string(Tu::TN);
    k.group = "rung8";
    k.note = "rung 8 as tuned (kernels/tuned/sm_90.cuh)";
    auto fn = sgemm::rung08::sgemm_08_autotuned<Tu::BM, Tu::BN, Tu::BK, Tu::TM, Tu::TN>;
    k.fn = reinterpret_cast<const void*>(fn);
    k.threads = Tl::kThreads;
    k.vec4 = true;
    k.launch = grid_launch(fn, Tu::BM, Tu::BN, dim3(Tl::kThreads));
    v.push_back(k);
  }
  {
    using Tu = sgemm::tuned::Rung09;
    static_assert(Tu::BM == 64 && Tu::BN == 128 && Tu::BK == 32 && Tu::WM == 64 && Tu::WN == 32 && Tu::TM == 4 &&
                      Tu::TN == 16,
                  "the tuned rung-9 tile changed: update the list below");
  }
  v.push_back(r9_kern<64, 128, 32, 64, 32, 4, 16>("rung 9 as tuned (128 thr)"));
  v.push_back(r9_kern<64, 128, 32, 16, 128, 8, 8>("autotune runner-up (128 thr)"));
  v.push_back(r9_kern<64, 128, 32, 32, 64, 8, 8>("square-ish warp tile, 8x8/thread (128 thr)"));
  v.push_back(r9_kern<64, 128, 32, 32, 32, 4, 8>("4x8/thread, 256 thr"));
  v.push_back(r9_kern<128, 128, 16, 64, 32, 8, 8>("128x128 block, BK 16 (256 thr)"));
  v.push_back(r9_kern<128, 128, 32, 32, 64, 8, 8>("128x128 block, BK 32 (256 thr)"));
  v.push_back(r9_kern<128, 64, 32, 32, 64, 8, 8>("128x64 block (128 thr)"));
  return v;
}

static std::vector<Kern> rung7_kernels() {
  std::vector<Kern> v;
  {
    Kern k;
    k.name = "base";
    k.group = "rung7";
    k.note = "kernels/07_bank_conflict_free.cuh as is (128x128x8_8x8)";
    auto fn = sgemm::rung07::sgemm_07_bank_conflict_free<128, 128, 8, 8, 8>;
    k.fn = reinterpret_cast<const void*>(fn);
    k.threads = 256;
    k.vec4 = true;
    k.launch = grid_launch(fn, 128, 128, dim3(256));
    v.push_back(k);
  }
  v.push_back(r7x_kern<r7x::kF4>("copy", "own copy of rung 7 (STS.128 of B), must match base"));
  v.push_back(r7x_kern<r7x::kScalarSame>("scalar_same", "float4 LDG, 4x STS.32 at the same addresses: real 4-way conflict (calibration)"));
  v.push_back(r7x_kern<r7x::kScalarCoal>("scalar_coal", "4x coalesced LDG.32 + 4x STS.32 of 32 consecutive floats (conflict-free)"));
  v.push_back(r7x_kern<r7x::kPadded>("padded", "STS.128 as rung 7 into B rows padded to 132 floats"));
  v.push_back(r7x_kern<r7x::kNoLdg>("noldg", "STS.128 of register-made values, no B load (WRONG RESULTS, diagnostic)", false));
  return v;
}

// ---- timing ------------------------------------------------------------------------------------
struct Bufs {
  float *A = nullptr, *B = nullptr, *C = nullptr, *R = nullptr;
  unsigned* cmp = nullptr;
  size_t elems = 0;
};

struct RunResult {
  std::string name, group;
  int size = 0;
  int launches = 0;
  double ms_median = 0, ms_median_2nd_half = 0, ms_mean = 0, ms_min = 0, wall_s = 0, gpu_s = 0;
  double gflops = 0, gflops_2nd_half = 0;
  int mhz_median = -1, mhz_min = -1, mhz_max = -1, mhz_median_2nd_half = -1;
  double watts_median = -1, watts_max = -1;
  int temp_max = -1;
  unsigned long long reasons_or = 0;
  int samples = 0;
  // filled later
  double pct_cublas_adjacent = 0, pct_cublas_size_median = 0, cublas_adjacent_ms = 0;
};

static constexpr int kMaxEvents = 1200;
static std::vector<cudaEvent_t> g_ev;

static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Back-to-back launches for at least target_s (estimated from one timed launch after one
// warm-up), one event between consecutive launches; NVML sampled every 10 ms meanwhile.
static RunResult sustained(const Kern& k, int n, const Bufs& b, cudaStream_t s, double target_s, int min_launches) {
  const Prob p{n, n, n, n, n, n};
  RunResult r;
  r.name = k.name;
  r.group = k.group;
  r.size = n;
  k.launch(p, b.A, b.B, b.C, s);  // warm-up (also lazy module load)
  CK(cudaEventRecord(g_ev[0], s));
  k.launch(p, b.A, b.B, b.C, s);
  CK(cudaEventRecord(g_ev[1], s));
  CK(cudaEventSynchronize(g_ev[1]));
  float est = 0;
  CK(cudaEventElapsedTime(&est, g_ev[0], g_ev[1]));
  int launches = int(std::ceil(1.1 * target_s * 1000.0 / std::max(est, 1e-3f)));  // +10%: clocks may drop
  launches = std::max(min_launches, std::min(launches, kMaxEvents - 1));
  Sampler sm;
  sm.start();
  const auto w0 = std::chrono::steady_clock::now();
  CK(cudaEventRecord(g_ev[0], s));
  for (int i = 0; i < launches; ++i) {
    k.launch(p, b.A, b.B, b.C, s);
    CK(cudaEventRecord(g_ev[i + 1], s));
  }
  CK(cudaGetLastError());
  CK(cudaEventSynchronize(g_ev[launches]));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  std::vector<Sample> smp = sm.stop();
  std::vector<double> t(launches), t2;
  for (int i = 0; i < launches; ++i) {
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, g_ev[i], g_ev[i + 1]));
    t[i] = ms;
    if (i >= launches / 2) t2.push_back(ms);
  }
  float tot = 0;
  CK(cudaEventElapsedTime(&tot, g_ev[0], g_ev[launches]));
  const double flop = 2.0 * double(n) * n * n;
  r.launches = launches;
  r.ms_median = median(t);
  r.ms_median_2nd_half = median(t2);
  r.ms_mean = tot / launches;
  r.ms_min = *std::min_element(t.begin(), t.end());
  r.wall_s = wall;
  r.gpu_s = tot / 1000.0;
  r.gflops = flop / (r.ms_median * 1e6);
  r.gflops_2nd_half = flop / (r.ms_median_2nd_half * 1e6);
  std::vector<double> mhz, mhz2, w;
  const double tmid = wall / 2;
  for (const Sample& x : smp) {
    if (x.t > wall) break;  // after the last kernel finished
    if (x.mhz > 0) {
      mhz.push_back(x.mhz);
      if (x.t >= tmid) mhz2.push_back(x.mhz);
    }
    if (x.w > 0) w.push_back(x.w);
    r.temp_max = std::max(r.temp_max, x.temp);
    r.reasons_or |= x.why;
  }
  r.samples = int(mhz.size());
  if (!mhz.empty()) {
    r.mhz_median = int(median(mhz));
    r.mhz_min = int(*std::min_element(mhz.begin(), mhz.end()));
    r.mhz_max = int(*std::max_element(mhz.begin(), mhz.end()));
  }
  if (!mhz2.empty()) r.mhz_median_2nd_half = int(median(mhz2));
  if (!w.empty()) {
    r.watts_median = median(w);
    r.watts_max = *std::max_element(w.begin(), w.end());
  }
  return r;
}

// ---- verification ------------------------------------------------------------------------------
struct Check {
  std::string shape;
  double rel = -1;  // max|C-R| / max|R|
  unsigned oob = 0;
  bool pass = false;
  bool skipped = false;
};

static Check verify(const Kern& k, const Prob& p, const Bufs& b, cudaStream_t s, const char* shape) {
  Check c;
  c.shape = shape;
  if (k.vec4 && (p.lda % 4 || p.ldb % 4 || p.ldc % 4)) {
    c.skipped = true;
    return c;
  }
  const size_t celems = size_t(p.M + 1) * p.ldc;
  CK(cudaMemsetAsync(b.R, 0xFF, celems * sizeof(float), s));
  cublas_launch(p, b.A, b.B, b.R, s);
  CK(cudaMemsetAsync(b.C, 0xFF, celems * sizeof(float), s));
  k.launch(p, b.A, b.B, b.C, s);
  CK(cudaGetLastError());
  CK(cudaMemsetAsync(b.cmp, 0, 3 * sizeof(unsigned), s));
  compare<<<1024, 256, 0, s>>>(b.C, b.R, p.M, p.N, p.ldc, b.cmp);
  unsigned h[3];
  CK(cudaMemcpyAsync(h, b.cmp, sizeof h, cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  float d, rm;
  std::memcpy(&d, &h[0], 4);
  std::memcpy(&rm, &h[1], 4);
  c.rel = rm > 0 ? double(d) / rm : double(d);
  c.oob = h[2];
  c.pass = std::isfinite(c.rel) && c.rel < 1e-4 && c.oob == 0;
  return c;
}

struct KernInfo {
  int regs = -1, local = -1, smem = -1, blocks_per_sm = -1;
};

static KernInfo info(const Kern& k) {
  KernInfo i;
  if (!k.fn) return i;
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, k.fn) == cudaSuccess) {
    i.regs = a.numRegs;
    i.local = int(a.localSizeBytes);
    i.smem = int(a.sharedSizeBytes);
  }
  int nb = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k.fn, k.threads, 0) == cudaSuccess) i.blocks_per_sm = nb;
  return i;
}

// ---- JSON --------------------------------------------------------------------------------------
static std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

static std::string run_json(const RunResult& r) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\"name\":%s,\"group\":%s,\"size\":%d,\"launches\":%d,\"ms_median\":%.5f,\"ms_median_2nd_half\":%.5f,"
                "\"ms_mean\":%.5f,\"ms_min\":%.5f,\"wall_s\":%.3f,\"gpu_s\":%.3f,\"gflops\":%.1f,\"gflops_2nd_half\":%.1f,"
                "\"pct_cublas_adjacent\":%.2f,\"cublas_adjacent_ms\":%.5f,\"pct_cublas_size_median\":%.2f,"
                "\"sm_mhz_median\":%d,\"sm_mhz_median_2nd_half\":%d,\"sm_mhz_min\":%d,\"sm_mhz_max\":%d,"
                "\"watts_median\":%.1f,\"watts_max\":%.1f,\"temp_max_c\":%d,\"clock_event_reasons_or\":\"0x%llx\","
                "\"nvml_samples\":%d}",
                jstr(r.name).c_str(), jstr(r.group).c_str(), r.size, r.launches, r.ms_median, r.ms_median_2nd_half,
                r.ms_mean, r.ms_min, r.wall_s, r.gpu_s, r.gflops, r.gflops_2nd_half, r.pct_cublas_adjacent, r.cublas_adjacent_ms,
                r.pct_cublas_size_median, r.mhz_median, r.mhz_median_2nd_half, r.mhz_min, r.mhz_max, r.watts_median,
                r.watts_max, r.temp_max, r.reasons_or, r.samples);
  return buf;
}

static std::string reasons_str(unsigned long long m) {
  // nvmlClocksEventReason* bits
  std::string s;
  const struct {
    unsigned long long bit;
    const char* name;
  } t[] = {{0x1, "idle"},        {0x2, "app"},           {0x4, "SWpower"}, {0x8, "HWslow"},
           {0x10, "sync"},       {0x20, "SWthermal"},    {0x40, "HWtherm"}, {0x80, "HWpbrake"},
           {0x100, "display"}};
  for (auto& x : t)
    if (m & x.bit) s += (s.empty() ? "" : "+") + std::string(x.name);
  return s.empty() ? "-" : s;
}

// Interleaved sequence at one size: cuBLAS, k1, cuBLAS, k2, ..., kN, cuBLAS. Each kernel's
// % of cuBLAS uses the mean of the two cuBLAS runs around it, and the median of all of them.
static std::vector<RunResult> interleaved(const std::vector<Kern>& ks, int n, const Bufs& b, cudaStream_t s,
                                          double target_s, int min_launches, std::vector<RunResult>* blas_out,
                                          FILE* log) {
  const Kern blas = cublas_kern();
  std::vector<RunResult> out, bl;
  auto show = [&](const RunResult& r) {
    std::printf("  %-26s n=%-5d %4d launches  median %8.3f ms (2nd half %8.3f)  %8.0f GFLOP/s  SM %4d MHz (2nd half %4d, "
                "min %4d)  %5.0f W  %s\n",
                r.name.c_str(), r.size, r.launches, r.ms_median, r.ms_median_2nd_half, r.gflops, r.mhz_median,
                r.mhz_median_2nd_half, r.mhz_min, r.watts_median, reasons_str(r.reasons_or).c_str());
    std::fflush(stdout);
    if (log) std::fprintf(log, "%s\n", run_json(r).c_str()), std::fflush(log);
  };
  bl.push_back(sustained(blas, n, b, s, target_s, min_launches));
  show(bl.back());
  for (const Kern& k : ks) {
    out.push_back(sustained(k, n, b, s, target_s, min_launches));
    show(out.back());
    bl.push_back(sustained(blas, n, b, s, target_s, min_launches));
    show(bl.back());
  }
  std::vector<double> bms;
  for (auto& x : bl) bms.push_back(x.ms_median);
  const double bmed = median(bms);
  for (size_t i = 0; i < out.size(); ++i) {
    const double adj = 0.5 * (bl[i].ms_median + bl[i + 1].ms_median);
    out[i].cublas_adjacent_ms = adj;
    out[i].pct_cublas_adjacent = 100.0 * adj / out[i].ms_median;
    out[i].pct_cublas_size_median = 100.0 * bmed / out[i].ms_median;
  }
  for (auto& x : bl) {
    x.pct_cublas_adjacent = 100.0;
    x.pct_cublas_size_median = 100.0 * bmed / x.ms_median;
  }
  if (blas_out) blas_out->insert(blas_out->end(), bl.begin(), bl.end());
  return out;
}

static void alloc(Bufs& b, int nmax) {
  b.elems = size_t(nmax) * nmax + 4096;  // + room for row M in the checks
  CK(cudaMalloc(&b.A, b.elems * sizeof(float)));
  CK(cudaMalloc(&b.B, b.elems * sizeof(float)));
  CK(cudaMalloc(&b.C, b.elems * sizeof(float)));
  CK(cudaMalloc(&b.R, b.elems * sizeof(float)));
  CK(cudaMalloc(&b.cmp, 4 * sizeof(unsigned)));
  fill_uniform<<<2048, 256>>>(b.A, b.elems, 0x1234u);
  fill_uniform<<<2048, 256>>>(b.B, b.elems, 0xBEEFu);
  CK(cudaMemset(b.C, 0, b.elems * sizeof(float)));
  CK(cudaDeviceSynchronize());
}

static int mode_rung7(const std::string& variant) {
  const std::vector<Kern> ks = rung7_kernels();
  const Kern* k = nullptr;
  for (const Kern& x : ks)
    if (x.name == variant) k = &x;
  if (!k) {
    std::fprintf(stderr, "unknown rung-7 variant '%s' (see `list`)\n", variant.c_str());
    return 1;
  }
  const int n = 2048;
  Bufs b;
  alloc(b, n);
  const Prob p{n, n, n, n, n, n};
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  k->launch(p, b.A, b.B, b.C, 0);  // warm-up (ncu: --launch-skip 1)
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(e0));
  k->launch(p, b.A, b.B, b.C, 0);  // the profiled launch
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  const KernInfo in = info(*k);
  std::printf("rung7 variant %s: %.3f ms at %d^3 (%.0f GFLOP/s), regs %d, smem %d B, local %d B\n", variant.c_str(), ms,
              n, 2.0 * n * n * double(n) / (ms * 1e6), in.regs, in.smem, in.local);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s all <out.json> [--quick] | rung7 <variant> | list\n", argv[0]);
    return 1;
  }
  const std::string mode = argv[1];
  if (mode == "list") {
    for (auto& k : rung3_kernels()) std::printf("rung3  %-22s %s\n", k.name.c_str(), k.note.c_str());
    for (auto& k : q2_kernels()) std::printf("q2     %-22s %s\n", k.name.c_str(), k.note.c_str());
    for (auto& k : rung7_kernels()) std::printf("rung7  %-22s %s\n", k.name.c_str(), k.note.c_str());
    return 0;
  }
  if (mode == "rung7") {
    if (argc < 3) {
      std::fprintf(stderr, "usage: %s rung7 <variant>\n", argv[0]);
      return 1;
    }
    return mode_rung7(argv[2]);
  }
  if (mode != "all" || argc < 3) {
    std::fprintf(stderr, "usage: %s all <out.json> [--quick]\n", argv[0]);
    return 1;
  }
  const std::string json_path = argv[2];
  const bool quick = argc > 3 && std::string(argv[3]) == "--quick";
  const double t_q1 = quick ? 0.1 : 0.5, t_q2 = quick ? 0.2 : 1.5, t_q3 = quick ? 0.1 : 0.3;
  const auto T0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count(); };

  const char* tf32 = std::getenv("NVIDIA_TF32_OVERRIDE");
  if (tf32 && std::strcmp(tf32, "0") != 0) {
    std::fprintf(stderr, "NVIDIA_TF32_OVERRIDE=%s is set: refusing (cuBLAS would not be pure FP32)\n", tf32);
    return 1;
  }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  g_nvml.init(dev);
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  std::printf("device %s, %d SMs, cc %d.%d, driver %d, runtime %d, NVML %s, power limit %.0f W, idle SM %d MHz, mem %d MHz\n",
              prop.name, prop.multiProcessorCount, prop.major, prop.minor, drv, rt, g_nvml.ok ? "ok" : "unavailable",
              g_nvml.limit_watts(), g_nvml.sm_mhz(), g_nvml.mem_mhz());
  CB(cublasCreate(&g_blas));
  CB(cublasSetMathMode(g_blas, CUBLAS_PEDANTIC_MATH));
  g_ev.resize(kMaxEvents);
  for (auto& e : g_ev) CK(cudaEventCreate(&e));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Bufs b;
  alloc(b, 8192);

  const std::vector<Kern> r3 = rung3_kernels(), q2 = q2_kernels(), r7 = rung7_kernels();
  FILE* log = nullptr;  // JSON lines of every run as it finishes (survives a timeout)
  {
    const std::string lp = json_path + ".runs.jsonl";
    log = std::fopen(lp.c_str(), "w");
  }

  // ---- correctness --------------------------------------------------------------------------
  std::printf("\n== correctness vs cuBLAS (max|C-R|/max|R| < 1e-4, no writes outside C) ==\n");
  const Prob p4096{4096, 4096, 4096, 4096, 4096, 4096};
  const Prob pRagPad{1000, 1030, 250, 252, 1032, 1032};    // ragged M, N, K; lds multiples of 4
  const Prob pRagTight{1000, 1030, 250, 250, 1030, 1030};  // ragged, tight lds (scalar kernels only)
  struct Row {
    const Kern* k;
    Check c[3];
    KernInfo in;
  };
  std::vector<Row> rows;
  bool all_pass = true;
  for (const auto* list : {&r3, &q2, &r7})
    for (const Kern& k : *list) {
      Row r;
      r.k = &k;
      r.in = info(k);
      r.c[0] = verify(k, p4096, b, s, "4096^3");
      r.c[1] = verify(k, pRagPad, b, s, "1000x1030x250_ld252/1032/1032");
      r.c[2] = verify(k, pRagTight, b, s, "1000x1030x250_tight");
      bool ok = true;
      for (auto& c : r.c) ok = ok && (c.skipped || c.pass);
      if (k.verify) all_pass = all_pass && ok;
      std::printf("  %-6s %-26s regs %3d local %3d smem %6d blk/SM %2d | 4096: %.2e %s | ragged(ld%%4): %.2e oob %u %s | "
                  "ragged(tight): %s%s\n",
                  k.group.c_str(), k.name.c_str(), r.in.regs, r.in.local, r.in.smem, r.in.blocks_per_sm, r.c[0].rel,
                  r.c[0].pass ? "ok" : "FAIL", r.c[1].rel, r.c[1].oob, r.c[1].pass ? "ok" : "FAIL",
                  r.c[2].skipped ? "n/a (vec4)" : (r.c[2].pass ? "ok" : "FAIL"),
                  k.verify ? "" : "   [diagnostic: wrong by design]");
      rows.push_back(r);
    }
  std::printf("correctness: %s   (t=%.1f s)\n", all_pass ? "ALL PASS" : "SOME FAIL", elapsed());

  // ---- Q1: rung-3 variants -----------------------------------------------------------------
  std::vector<RunResult> res, blas;
  for (int n : {4096, 8192}) {
    std::printf("\n== Q1 rung-3 variants at %d^3 (>= %.1f s each, cuBLAS interleaved) ==\n", n, t_q1);
    auto v = interleaved(r3, n, b, s, t_q1, n >= 8192 ? 3 : 5, &blas, log);
    res.insert(res.end(), v.begin(), v.end());
    std::printf("  (t=%.1f s)\n", elapsed());
  }
  // ---- Q2: rung 9 configs + rung 8, sustained ------------------------------------------------
  for (int n : {4096, 8192}) {
    std::printf("\n== Q2 rung 9 / rung 8 SUSTAINED at %d^3 (>= %.1f s each, cuBLAS interleaved) ==\n", n, t_q2);
    auto v = interleaved(q2, n, b, s, t_q2, 20, &blas, log);
    res.insert(res.end(), v.begin(), v.end());
    std::printf("  (t=%.1f s)\n", elapsed());
  }
  // ---- Q3: rung-7 variants, short timing -----------------------------------------------------
  {
    std::printf("\n== Q3 rung-7 B-store variants at 4096^3 (>= %.1f s each) ==\n", t_q3);
    auto v = interleaved(r7, 4096, b, s, t_q3, 10, &blas, log);
    res.insert(res.end(), v.begin(), v.end());
    std::printf("  (t=%.1f s)\n", elapsed());
  }

  // ---- summary tables ----------------------------------------------------------------------
  auto table = [&](const char* title, const std::vector<std::string>& groups, int n) {
    std::printf("\n%s, %d^3\n", title, n);
    std::printf("  %-26s %9s %9s %9s %8s %8s %6s %6s %6s %7s %s\n", "kernel", "ms(med)", "ms(2nd)", "GFLOP/s", "%cuBLAS",
                "%cuB(med)", "MHz", "MHz2nd", "MHzmin", "W", "reasons");
    for (const RunResult& r : res)
      if (r.size == n && std::find(groups.begin(), groups.end(), r.group) != groups.end())
        std::printf("  %-26s %9.3f %9.3f %9.0f %7.1f%% %7.1f%% %6d %6d %6d %7.0f %s\n", r.name.c_str(), r.ms_median,
                    r.ms_median_2nd_half, r.gflops, r.pct_cublas_adjacent, r.pct_cublas_size_median, r.mhz_median,
                    r.mhz_median_2nd_half, r.mhz_min, r.watts_median, reasons_str(r.reasons_or).c_str());
    std::vector<double> bms, bmhz;
    for (const RunResult& r : blas)
      if (r.size == n) bms.push_back(r.ms_median), bmhz.push_back(r.mhz_median);
    if (!bms.empty())
      std::printf("  %-26s %9.3f %9s %9.0f  (median of %zu interleaved cuBLAS runs at this size, all groups; MHz %d)\n",
                  "cublas", median(bms), "", 2.0 * double(n) * n * n / (median(bms) * 1e6), bms.size(), int(median(bmhz)));
  };
  std::printf("\n================ SUMMARY ================\n");
  table("Q1 rung 3 variants (target >= 18% of cuBLAS)", {"rung3"}, 4096);
  table("Q1 rung 3 variants", {"rung3"}, 8192);
  table("Q2 rung 8/9 sustained", {"rung8", "rung9"}, 4096);
  table("Q2 rung 8/9 sustained", {"rung8", "rung9"}, 8192);
  table("Q3 rung 7 B-store variants", {"rung7"}, 4096);

  // ---- JSON --------------------------------------------------------------------------------
  FILE* f = std::fopen(json_path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", json_path.c_str());
    return 1;
  }
  std::fprintf(f, "{\n\"experiment\":\"exp34\",\"device\":%s,\"sms\":%d,\"driver\":%d,\"runtime\":%d,\"nvml\":%s,"
                  "\"power_limit_w\":%.1f,\"quick\":%s,\"elapsed_s\":%.1f,\n",
               jstr(prop.name).c_str(), prop.multiProcessorCount, drv, rt, g_nvml.ok ? "true" : "false",
               g_nvml.limit_watts(), quick ? "true" : "false", elapsed());
  std::fprintf(f, "\"correctness_all_pass\":%s,\n\"kernels\":[\n", all_pass ? "true" : "false");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::fprintf(f, " {\"name\":%s,\"group\":%s,\"note\":%s,\"threads\":%d,\"regs\":%d,\"local_bytes\":%d,\"smem_bytes\":%d,"
                    "\"blocks_per_sm\":%d,\"verify_expected\":%s,\"checks\":[",
                 jstr(r.k->name).c_str(), jstr(r.k->group).c_str(), jstr(r.k->note).c_str(), r.k->threads, r.in.regs,
                 r.in.local, r.in.smem, r.in.blocks_per_sm, r.k->verify ? "true" : "false");
    for (int j = 0; j < 3; ++j)
      std::fprintf(f, "%s{\"shape\":%s,\"skipped\":%s,\"max_rel_err\":%.3e,\"oob_writes\":%u,\"pass\":%s}", j ? "," : "",
                   jstr(r.c[j].shape).c_str(), r.c[j].skipped ? "true" : "false",
                   std::isfinite(r.c[j].rel) ? r.c[j].rel : -1.0, r.c[j].oob, r.c[j].pass ? "true" : "false");
    std::fprintf(f, "]}%s\n", i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "],\n\"runs\":[\n");
  for (size_t i = 0; i < res.size(); ++i) std::fprintf(f, " %s,\n", run_json(res[i]).c_str());
  for (size_t i = 0; i < blas.size(); ++i)
    std::fprintf(f, " %s%s\n", run_json(blas[i]).c_str(), i + 1 < blas.size() ? "," : "");
  std::fprintf(f, "]\n}\n");
  std::fclose(f);
  if (log) std::fclose(log);
  std::printf("\nwrote %s  (total %.1f s)\n", json_path.c_str(), elapsed());
  for (auto& e : g_ev) cudaEventDestroy(e);
  cublasDestroy(g_blas);
  return 0;
}
