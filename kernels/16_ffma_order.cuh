// =====================================================================================
// SGEMM Ladder — rung 16: 16_ffma_order
// TITLE: FFMA order: operands from the reuse cache
// PREVIOUS: 15_stream_k   NEXT: 17_slab_end
// BUILDS ON: 15_stream_k (a copy of it: diff the two files to read the lesson)
// LESSON: FFMAs in 2x2 blocks, walked forward and back, so that consecutive FFMAs share operands the reuse cache can serve
// TILE: 64x256x32_32x128_8x16_s2_u8
//
// WHAT CHANGED: rung 15's kernel; only the order of the 128 FFMAs of a k step in the whole-tile
//   kernel. Rung 15 writes them row by row (acc[i][j] += a[i] * b[j], j fastest). Here they go in
//   2x2 blocks (rows i, i+1 x columns j, j+1), the row pairs walked down for one column pair and
//   back up for the next: the order of cuBLAS's FFMA loop (read in its SASS). The stream-K
//   shares keep rung 15's order (see MISS).
// WHY: an FFMA reads three registers. Microbenchmark studies of Volta and later report a register
//   file of two banks (register number mod 2) and a small operand reuse cache: an operand the
//   previous instruction flagged `.reuse` is not read from the banks again. ncu puts rung 15's
//   extra stalls against cuBLAS in dispatch (0.22 vs 0.10 per issue), where bank conflicts
//   land. The control bits of the loop (tools/experiments/exp40_sass_ctl.py) agree: with a reuse
//   cache of one entry per operand slot and bank, rung 15's FFMAs fetch 2.27 operands each from
//   the banks, cuBLAS's 1.76. ptxas schedules and assigns registers itself, but keeps much of
//   the source order of independent FFMAs.
// PREDICTION: reads per FFMA 2.27 -> ~2.1, dispatch stalls 0.22 -> ~0.15, +3% at 4096^3.
// MEASURED (exp40 runs 1-2, H200, the whole-tile loop): reuse flags 842 -> 976 per 1,024 FFMAs,
//   reads 2,268 -> 2,124; dispatch stalls 0.22 -> 0.16, issue-active 83.2% -> 85.3%; 4096^3 94.9%
//   -> 97.5% of cuBLAS, 8192^3 95.9% -> 97.9-98.7%. Two other 2x2 orders read 2,111 and 2,171
//   operands and ran 95.6% and 95.3% at 4096^3: the static count ranks orders only coarsely.
//   All stay far from cuBLAS's 1,801: ptxas interleaves the fragment loads and moves
//   accumulators between registers under its 255-register budget, which breaks reuse chains
//   that the source cannot pin.
// MISS: in the stream-K unit (its own function, so its own register assignment) the same order
//   made 1024^3 and 1536^3 3-5 points slower (exp40 run 2) although its static reads fell too,
//   so the shares keep rung 15's order. A branch-free chunk loop (exp40 `loop`: one uniform body
//   per 8-step chunk, the slab end after it) cut the loop's static stall cycles from 2,314 to
//   1,123 but ran 1-2 points slower, with 1.5% more instructions and no fewer wait stalls: not
//   taken.
// SASS KERNEL: the whole-tile kernel, `ffma_order<64, 256, 32, 32, 128, 8, 16, 2, 8, false>`
// EVIDENCE: <evidence>Measured on NVIDIA H200: 49,905 GFLOP/s = 97.2% of cuBLAS at 4096^3; 51,287
//   GFLOP/s = 100.0% at 8192^3. SASS vs rung 15: FFMA.reuse 1696 -> 2011; FFMA share
//   30.9% -> 30.8%; registers 255 -> 246. ncu vs rung 15: stall_dispatch_stall 0.22 -> 0.16,
//   stall_no_instruction 0.08 -> 0.07, stall_wait 0.10 -> 0.11, issue_active_pct 83.2% -> 85.3%.
//   Shown by: python3 tools/sass_report.py --diff 15 16;
//   python3 tools/ncu_profile.py --kernel 16.</evidence>
// PRECONDITIONS: as rung 15: lda, ldb, ldc multiples of 4 and A, B, C 16-byte aligned (cp.async
//   and 128-bit accesses); M, N, K and the leading dimensions below 2^31; M/BM below 2^16 (grid.y
//   of the whole-tile kernel). Where the schedule cuts a tile, a workspace of one BM x BN partial
//   tile and one flag per stream-K block.
// =====================================================================================
#pragma once

#include "common/common.cuh"

namespace sgemm::rung16 {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU>
struct Tile {
  static constexpr int kWarps = (BM / WM) * (BN / WN);    // one warp per WM x WN warp tile
  static constexpr int kThreads = kWarps * kWarpSize;
  // Blocks per SM the registers must allow: two, unless two blocks' accumulators alone would
  // fill more than half the register file (then one block of up to 255 registers a thread).
  static constexpr int kMinBlocks = kThreads <= 256 && 2 * kThreads * TM * TN <= kRegsPerSm / 2 ? 2 : 1;
  static constexpr int kLaneCols = WN / TN;               // lanes across a warp tile
  static constexpr int kVecA = BK / kVecWidth;           // float4s per row of the A tile
  static constexpr int kVecB = BN / kVecWidth;           // float4s per row of the B tile
  static constexpr int kRowsA = kThreads / kVecA;        // A-tile rows copied per pass of all threads
  static constexpr int kRowsB = kThreads / kVecB;        // B-tile rows copied per pass
  static constexpr int kLoadsA = BM / kRowsA;            // float4s of A each thread carries per slab
  static constexpr int kGroupsM = TM / kVecWidth;        // a lane's rows: groups of 4, WM/kGroupsM apart
  static constexpr int kGroupsN = TN / kVecWidth;        // a lane's columns: groups of 4, WN/kGroupsN apart
  static constexpr int kStageFloats = BK * BM + BK * BN; // one stage: the A and the B tile
  static constexpr int kSmemBytes = Stages * kStageFloats * int(sizeof(float));
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile exactly");
  static_assert(WM % TM == 0 && WN % TN == 0, "thread tiles must tile the warp tile exactly");
  static_assert((WM / TM) * (WN / TN) == kWarpSize, "a warp tile holds exactly 32 thread tiles");
  static_assert(BK % kVecWidth == 0 && TM % kVecWidth == 0 && TN % kVecWidth == 0,
                "128-bit accesses need BK, TM and TN to be multiples of 4");
  static_assert(kThreads % kVecA == 0 && BM % kRowsA == 0, "the threads must copy the A tile in whole passes");
  static_assert(kThreads % kVecB == 0 && BK % kRowsB == 0, "the threads must copy the B tile in whole passes");
  static_assert(BM % kWarpSize == 0 && BK <= kWarpSize, "the swizzle permutes within 32-float chunks of a row");
  static_assert(Stages >= 2, "a pipeline needs at least two stages");
  static_assert(KU % kVecWidth == 0 && BK % KU == 0, "the k loop is unrolled in whole quads that divide the slab");
};

// Column of element (k, m) in the swizzled, transposed A tile. m and the result are floats;
// multiples of 4 map to multiples of 4, so float4 groups stay whole.
template <int BK>
__device__ __forceinline__ int swizzle_a(int k, int m) {
  return m ^ ((k / kVecWidth) * (kWarpSize * kVecWidth / BK));
}

// The shared-memory buffers of one pipeline stage.
template <int BM, int BN>
struct Stage {
  float (*a)[BM];  // [BK][BM]: a tile of A, transposed and XOR-swizzled
  float (*b)[BN];  // [BK][BN]: a tile of B, row-major
};

template <typename T, int BM, int BN, int BK>
__device__ __forceinline__ Stage<BM, BN> stage_at(float* smem, int s) {
  float* base = smem + s * T::kStageFloats;
  return {reinterpret_cast<float (*)[BM]>(base), reinterpret_cast<float (*)[BN]>(base + BK * BM)};
}

// The A slab starting at k0 into registers (128-bit loads). kGuard: check bounds, fill zeros.
template <typename T, int BM, int BK, bool kGuard>
__device__ __forceinline__ void load_a(float4 (&rStage)[T::kLoadsA], const float* A, int lda, int M, int K, int m0,
                                       int k0) {
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < T::kLoadsA; ++i) {
    const int gRow = m0 + aRow + i * T::kRowsA;
    const float* src = A + int64_t(gRow) * lda;
    rStage[i] = kGuard ? load4_or_zero(src, k0 + aCol, K, gRow < M) : load_f4(src + k0 + aCol);
  }
}

// The A slab held in registers into its stage, transposed and swizzled.
template <typename T, int BM, int BN, int BK>
__device__ __forceinline__ void store_a(Stage<BM, BN> st, const float4 (&rStage)[T::kLoadsA]) {
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
#pragma unroll
  for (int i = 0; i < T::kLoadsA; ++i) {
    const int m = swizzle_a<BK>(aCol, aRow + i * T::kRowsA);  // the same for the 4 k of this float4
    st.a[aCol + 0][m] = rStage[i].x;
    st.a[aCol + 1][m] = rStage[i].y;
    st.a[aCol + 2][m] = rStage[i].z;
    st.a[aCol + 3][m] = rStage[i].w;
  }
}

// Issue the cp.async copies of the B slab starting at k0 into its stage. kGuard: each 16-byte
// chunk reads only the bytes inside B and zero-fills the rest.
template <typename T, int BM, int BN, int BK, bool kGuard>
__device__ __forceinline__ void load_b_async(Stage<BM, BN> st, const float* B, int ldb, int N, int K, int n0,
                                             int k0) {
  const int bRow = threadIdx.x / T::kVecB, bCol = threadIdx.x % T::kVecB * kVecWidth;
#pragma unroll
  for (int r = 0; r < BK; r += T::kRowsB) {
    const int gRow = k0 + bRow + r, gCol = n0 + bCol;
    const float* src = B + int64_t(gRow) * ldb + gCol;
    int bytes = kVecWidth * int(sizeof(float));
    if (kGuard) {
      const int valid = gRow < K ? min(max(N - gCol, 0), kVecWidth) : 0;
      bytes = valid * int(sizeof(float));
      if (valid == 0) src = B;  // any valid address: nothing is read
    }
    cp_async_16(&st.b[bRow + r][bCol], src, bytes);
  }
}

// The register fragments of step k: a lane's TM values of A and TN values of B. quad = k / 4,
// passed apart so that a k made of a runtime chunk plus a constant still swizzles in one XOR.
template <typename T, int BM, int BN, int BK, int WM, int WN, int TM, int TN>
__device__ __forceinline__ void load_fragment(float (&rA)[TM], float (&rB)[TN], Stage<BM, BN> st, int k, int quad,
                                              int aBase, int bBase) {
#pragma unroll
  for (int g = 0; g < T::kGroupsM; ++g) {
    const float4 v = load_f4(&st.a[k][swizzle_a<BK>(quad * kVecWidth, aBase + g * (WM / T::kGroupsM))]);
    rA[g * 4] = v.x, rA[g * 4 + 1] = v.y, rA[g * 4 + 2] = v.z, rA[g * 4 + 3] = v.w;
  }
#pragma unroll
  for (int g = 0; g < T::kGroupsN; ++g) {
    const float4 v = load_f4(&st.b[k][bBase + g * (WN / T::kGroupsN)]);
    rB[g * 4] = v.x, rB[g * 4 + 1] = v.y, rB[g * 4 + 2] = v.z, rB[g * 4 + 3] = v.w;
  }
}

// The TM x TN FFMAs of one k step. kPaired: in 2x2 blocks (rows i, i+1 x columns j, j+1), the
// row pairs walked down for one column pair and back up for the next, as cuBLAS's FFMA loop
// orders them. Consecutive FFMAs then share an operand of each pair, which ptxas marks .reuse
// (the operand comes from the reuse cache, not the register file). Otherwise row by row.
template <bool kPaired, int TM, int TN>
__device__ __forceinline__ void outer_product(const float (&rA)[TM], const float (&rB)[TN], float (&rAcc)[TM][TN]) {
  if (kPaired) {
    static_assert(TM % 2 == 0 && TN % 2 == 0, "2x2 blocks need even thread tiles");
#pragma unroll
    for (int j = 0; j < TN; j += 2)
#pragma unroll
      for (int ii = 0; ii < TM; ii += 2) {
        const int i = (j / 2) % 2 == 0 ? ii : TM - 2 - ii;
        rAcc[i][j] += rA[i] * rB[j];
        rAcc[i][j + 1] += rA[i] * rB[j + 1];
        rAcc[i + 1][j] += rA[i + 1] * rB[j];
        rAcc[i + 1][j + 1] += rA[i + 1] * rB[j + 1];
      }
  } else {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
  }
}

// How a block ends a work unit (slabs [kb, ke) of one output tile).
enum class Finish {
  kStore,    // the whole tile (kb = 0, ke = all): alpha * acc + beta * C into C
  kPublish,  // not the tile's first slab: the raw partial sums into this block's workspace slot
  kFixUp,    // the tile's first slab but not its last: add the later blocks' partials, then store
};

// The stream-K schedule, the same for every block (the launcher computes it).
struct Schedule {
  int tilesN;       // output tiles across N: tile t is tile row t / tilesN, tile column t % tilesN
  int kTiles;       // slabs of K per output tile
  int dpTiles;      // tiles 0 .. dpTiles-1 (the full waves) are computed whole, one block each
  int64_t skSlabs;  // the slabs of the tiles after them, dealt out evenly and in order to the
                    // stream-K kernel's blocks: block b takes slabs [sk_begin(b), sk_begin(b + 1))
                    // of that sequence
  __host__ __device__ int64_t sk_begin(int b, int blocks) const { return skSlabs * b / blocks; }
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU, bool kGuard, bool kPaired>
__device__ __forceinline__ void block_tile(float* smem, int M, int N, int K, float alpha, const float* A, int lda,
                                           const float* B, int ldb, float beta, float* C, int ldc, int m0, int n0,
                                           Finish finish, int skBlock, int lastHelper, float* W, int* flags) {
  using T = Tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU>;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;  // this warp's tile
  const int aBase = wm0 + lane / T::kLaneCols * kVecWidth;              // this lane's first row
  const int bBase = wn0 + lane % T::kLaneCols * kVecWidth;              // and first column
  float rAcc[TM][TN] = {};  // [TM][TN]: rows aBase + g*WM/kGroupsM + v, columns likewise
  const int kTiles = ceil_div(K, BK);
  auto stage = [&](int tile) { return stage_at<T, BM, BN, BK>(smem, tile % Stages); };
  // Edge blocks and the K tail check bounds; interior full slabs do not.
  auto issue_b = [&](int tile) {  // the cp.async of one B slab, as one commit group
    if (tile < kTiles) {
      if (kGuard || (tile + 1) * BK > K) load_b_async<T, BM, BN, BK, true>(stage(tile), B, ldb, N, K, n0, tile * BK);
      else load_b_async<T, BM, BN, BK, false>(stage(tile), B, ldb, N, K, n0, tile * BK);
    }
    cp_async_commit();  // empty groups keep the wait count uniform
  };
  float4 rStage[T::kLoadsA];  // the next A slab, on its way from global to shared memory
  auto fetch_a = [&](int tile) {
    if (kGuard || (tile + 1) * BK > K) load_a<T, BM, BK, true>(rStage, A, lda, M, K, m0, tile * BK);
    else load_a<T, BM, BK, false>(rStage, A, lda, M, K, m0, tile * BK);
  };

  // Prologue: B slabs 0 .. Stages-2 in flight, A slab 0 stored, A slab 1 in flight.
  for (int s = 0; s < Stages - 1; ++s) issue_b(s);
  fetch_a(0);
  store_a<T, BM, BN, BK>(stage(0), rStage);
  if (kTiles > 1) fetch_a(1);
  cp_async_wait<Stages - 2>();
  __syncthreads();
  float rA[2][TM], rB[2][TN];  // double-buffered register fragments
  load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[0], rB[0], stage(0), 0, 0, aBase, bBase);

  // The k loop runs in chunks of KU steps: only one chunk is unrolled, so the loop body stays
  // small enough for the instruction cache (a whole 32-step slab of 8x16 outer products is 70 KB
  // of SASS). KU == BK unrolls a whole slab.
  constexpr int kChunks = BK / KU;  // chunks per slab
#pragma unroll 1
  for (int chunk = 0; chunk < kTiles * kChunks; ++chunk) {
    const int kt = chunk / kChunks, c = chunk % kChunks;  // slab, and chunk within the slab
    if (c == 0) issue_b(kt + Stages - 1);                 // into the stage every warp left at the last barrier
    const Stage<BM, BN> st = stage(kt);
#pragma unroll
    for (int k = 0; k < KU; ++k) {
      if (k == KU - 1 && c == kChunks - 1) {
        // End of the slab: publish A slab kt+1, wait for B slab kt+1, then prefetch its first
        // fragment and start loading A slab kt+2.
        if (kt + 1 < kTiles) store_a<T, BM, BN, BK>(stage(kt + 1), rStage);
        cp_async_wait<Stages - 2>();
        __syncthreads();
        if (kt + 1 < kTiles) {
          load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[(k + 1) % 2], rB[(k + 1) % 2], stage(kt + 1), 0, 0, aBase,
                                                       bBase);
          if (kt + 2 < kTiles) fetch_a(kt + 2);
        }
      } else {  // step c*KU + k + 1 of this slab
        load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[(k + 1) % 2], rB[(k + 1) % 2], st, c * KU + k + 1,
                                                     c * (KU / kVecWidth) + (k + 1) / kVecWidth, aBase, bBase);
      }
      outer_product<kPaired>(rA[k % 2], rB[k % 2], rAcc);
    }
  }
  cp_async_wait<0>();

  // Partial tiles travel through this block's slot of W in the threads' own register order
  // (float4 g of thread x at g * kThreads + x: coalesced, and read back by the same thread).
  constexpr int kGroups = TM * TN / kVecWidth;  // float4s of accumulators per thread
  if (finish == Finish::kPublish) {
    float4* slot = reinterpret_cast<float4*>(W) + int64_t(skBlock) * kGroups * T::kThreads + threadIdx.x;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; j += kVecWidth)
        __stcg(slot + (i * TN + j) / kVecWidth * T::kThreads,
               make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]));
    __threadfence();
    __syncthreads();  // the whole partial tile is written
    if (threadIdx.x == 0) flag_release(flags + skBlock, 1);
    return;
  }
  // Fix-up: the blocks after this one that hold the rest of the tile, in block order (the sum is
  // bitwise deterministic). Their partials are the first thing they compute, so none waits long.
  for (int b = skBlock + 1; finish == Finish::kFixUp && b <= lastHelper; ++b) {
    if (threadIdx.x == 0)
      while (flag_acquire(flags + b) == 0) {
      }
    __syncthreads();
    const float4* slot = reinterpret_cast<const float4*>(W) + int64_t(b) * kGroups * T::kThreads + threadIdx.x;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; j += kVecWidth) {
        const float4 p = __ldcg(slot + (i * TN + j) / kVecWidth * T::kThreads);
        rAcc[i][j] += p.x, rAcc[i][j + 1] += p.y, rAcc[i][j + 2] += p.z, rAcc[i][j + 3] += p.w;
      }
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + aBase + i / kVecWidth * (WM / T::kGroupsM) + i % kVecWidth;
    if (kGuard && row >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; j += kVecWidth) {
      const int col = n0 + bBase + j / kVecWidth * (WN / T::kGroupsN);
      const float4 acc = make_float4(rAcc[i][j], rAcc[i][j + 1], rAcc[i][j + 2], rAcc[i][j + 3]);
      store4_epilogue(C + int64_t(row) * ldc + col, kGuard ? N - col : kVecWidth, alpha, acc, beta);
    }
  }
}

// One unit of a stream-K share, in a function of its own with its own register assignment. It
// was introduced when whole tiles and shares shared one kernel (inlined, the share loop's extra
// live values cost the whole-tile loop ~4% in register-bank dispatch stalls; exp39 run 2) and
// is kept in the form that was measured. It keeps rung 15's FFMA order (kPaired = false): the
// paired order cost the shares 3-5% (exp40 run 2).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU>
__device__ __noinline__ void stream_k_unit(float* smem, int M, int N, int K, float alpha, const float* A, int lda,
                                           const float* B, int ldb, float beta, float* C, int ldc, int m0, int n0,
                                           Finish finish, int skBlock, int lastHelper, float* W, int* flags) {
  if (m0 + BM <= M && n0 + BN <= N)
    block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU, false, false>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C,
                                                                     ldc, m0, n0, finish, skBlock, lastHelper, W, flags);
  else
    block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU, true, false>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C,
                                                                    ldc, m0, n0, finish, skBlock, lastHelper, W, flags);
}

// Two instantiations, launched one after the other: kStreamK = false runs the whole tiles of the
// full waves on rung 11's grid (block (x, y) computes tile row y, column x; blocks past the full
// waves return at once), kStreamK = true the stream-K blocks. The whole-tile kernel is rung 15's
// (rung 11's unsplit loop) with the FFMAs in paired order: keeping the share loop out of it keeps
// ptxas's register assignment of that loop to itself (exp39).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int KU, bool kStreamK>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU>::kMinBlocks)
sgemm_16_ffma_order(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                    float* C, int ldc, Schedule sched, float* W, int* flags) {
  extern __shared__ __align__(16) float smem[];  // [Stages] x (A tile [BK][BM], B tile [BK][BN])
  if (!kStreamK) {  // a whole tile of the full waves
    if (int(blockIdx.y * gridDim.x + blockIdx.x) >= sched.dpTiles) return;  // a stream-K tile
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    if ((blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N)
      block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU, false, true>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C,
                                                                      ldc, m0, n0, Finish::kStore, 0, 0, W, flags);
    else
      block_tile<BM, BN, BK, WM, WN, TM, TN, Stages, KU, true, true>(smem, M, N, K, alpha, A, lda, B, ldb, beta, C,
                                                                     ldc, m0, n0, Finish::kStore, 0, 0, W, flags);
    return;
  }
  // A stream-K block: its even share of the slabs of the tiles after the full waves, unit by unit.
  const int b = int(blockIdx.x), blocks = int(gridDim.x);
  const int64_t skEnd = sched.sk_begin(b + 1, blocks);
  for (int64_t sk = sched.sk_begin(b, blocks); sk < skEnd;) {
    const int tile = sched.dpTiles + int(sk / sched.kTiles), kb = int(sk % sched.kTiles);  // slabs [kb, ke)
    const int ke = int(min(int64_t(sched.kTiles), kb + (skEnd - sk)));
    sk += ke - kb;
    const Finish finish = kb > 0 ? Finish::kPublish : ke < sched.kTiles ? Finish::kFixUp : Finish::kStore;
    int lastHelper = b;  // kFixUp: the last stream-K block whose share reaches into this tile
    if (finish == Finish::kFixUp) {
      const int64_t tileEnd = int64_t(tile - sched.dpTiles + 1) * sched.kTiles;
      while (lastHelper + 1 < blocks && sched.sk_begin(lastHelper + 1, blocks) < tileEnd) ++lastHelper;
    }
    // The unit is a GEMM of its own over its K range (rung 11's split, now per unit).
    const int m0 = tile / sched.tilesN * BM, n0 = tile % sched.tilesN * BN, k0 = kb * BK;
    __syncthreads();  // every warp has left the previous unit's stages
    stream_k_unit<BM, BN, BK, WM, WN, TM, TN, Stages, KU>(smem, M, N, min(K - k0, (ke - kb) * BK), alpha, A + k0,
                                                          lda, B + int64_t(k0) * ldb, ldb, beta, C, ldc, m0, n0,
                                                          finish, b, lastHelper, W, flags);
  }
}

}  // namespace sgemm::rung16

#ifndef SGEMM_DEVICE_ONLY
#include <algorithm>
#include <vector>

#include "common/launch.hpp"
#include "tuned/tuned.cuh"

namespace sgemm::rung16 {

using Tuned = tuned::Rung10;  // rung 10's tiles: this rung changes only which block computes what
constexpr int kBM = Tuned::BM, kBN = Tuned::BN, kBK = Tuned::BK, kWM = Tuned::WM, kWN = Tuned::WN,
              kTM = Tuned::TM, kTN = Tuned::TN, kStages = Tuned::Stages, kKU = Tuned::KU;
using Config = Tile<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages, kKU>;

constexpr int kMinSlabsPerUnit = 4;  // a stream-K share still runs a pipeline of >= 4 slabs
// What a slab of a stream-K share costs in whole-tile slab-times (exp39, H200): its unit runs in
// a function with its own, less lucky register assignment (more register-bank dispatch stalls),
// its shares start at scattered k, so tiles that share a panel of A or B no longer read it
// together from L2, and the fix-up adds the partials. Measured 1.14-1.6 across 4096^3-8192^3
// against rung 15's whole tiles; against this rung's faster whole tiles it is ~3% more (not refitted).
constexpr double kStreamKSlabCost = 1.35;

std::string tile() {
  return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_" + std::to_string(kWM) +
         "x" + std::to_string(kWN) + "_" + std::to_string(kTM) + "x" + std::to_string(kTN) + "_s" +
         std::to_string(kStages) + "_u" + std::to_string(kKU);
}

bool supports(const GemmArgs& a, std::string* why) {
  return vec4_ok(a, why) && fits_int32(a, why) && grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why);
}

int min_blocks_per_sm() { return Config::kMinBlocks; }

// The schedule and the grid for `slots` resident blocks. The full waves of tiles stay data-parallel
// (one block per tile, no fix-up); the slabs of the tiles left over are dealt out to at most one
// wave of stream-K blocks, each share a pipeline of >= kMinSlabsPerUnit slabs. That is done only
// where the model (in slab-times) says it pays: a stream-K slab costs kStreamKSlabCost whole-tile
// slabs. Otherwise, or where K is too short to cut, the whole grid stays data-parallel.
struct Plan {
  Schedule sched;
  int skBlocks;  // stream-K blocks (at most `slots`, all resident at once); 0: whole tiles only
};

Plan plan(int64_t M, int64_t N, int64_t K, int64_t slots) {
  const int64_t tilesN = ceil_div64(N, kBN), tiles = ceil_div64(M, kBM) * tilesN, kTiles = ceil_div64(K, kBK);
  Plan p{{int(tilesN), int(kTiles), int(tiles), 0}, 0};
  if (tiles % slots == 0 || kTiles < 2 * kMinSlabsPerUnit) return p;
  const int64_t dpTiles = tiles / slots * slots, skSlabs = (tiles - dpTiles) * kTiles;
  int64_t skBlocks = std::min(slots, std::max<int64_t>(1, skSlabs / kMinSlabsPerUnit));
  // Split K as the special case: where S = slots / leftover tiles equal pieces per tile are no
  // longer than the balanced shares, cut each tile into S pieces, so that no share straddles two
  // tiles (one unit per block: one pipeline fill, no partial tile to publish before the fix-up).
  const int64_t left = tiles - dpTiles, pieces = slots / left;
  if (pieces >= 2 && kTiles % pieces == 0 && kTiles / pieces >= kMinSlabsPerUnit &&
      kTiles / pieces <= ceil_div64(skSlabs, skBlocks))
    skBlocks = left * pieces;
  const double wholeCost = double(ceil_div64(tiles, slots) * kTiles);
  const double streamKCost = double(dpTiles / slots * kTiles) + kStreamKSlabCost * double(ceil_div64(skSlabs, skBlocks));
  if (streamKCost >= wholeCost) return p;
  p.sched.dpTiles = int(dpTiles);
  p.sched.skSlabs = skSlabs;
  p.skBlocks = int(skBlocks);
  return p;
}

// The slabs each block of the grid computes, in block order (for the CPU tests: the schedule must
// cover every slab once and balance the stream-K blocks).
std::vector<int64_t> slabs_per_block(int64_t M, int64_t N, int64_t K, int64_t slots) {
  const Plan p = plan(M, N, K, slots);
  std::vector<int64_t> slabs(size_t(p.sched.dpTiles), p.sched.kTiles);
  for (int b = 0; b < p.skBlocks; ++b)
    slabs.push_back(p.sched.sk_begin(b + 1, p.skBlocks) - p.sched.sk_begin(b, p.skBlocks));
  return slabs;
}

Status launch(const GemmArgs& a, cudaStream_t stream) {
  auto whole = sgemm_16_ffma_order<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages, kKU, false>;
  auto streamK = sgemm_16_ffma_order<kBM, kBN, kBK, kWM, kWN, kTM, kTN, kStages, kKU, true>;
  if (const Status s = allow_smem(whole, Config::kSmemBytes); s != Status::kOk) return s;
  if (const Status s = allow_smem(streamK, Config::kSmemBytes); s != Status::kOk) return s;
  int device = 0, sms = 0, perSm = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return from_cuda(err);
  if (const cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); err != cudaSuccess)
    return from_cuda(err);
  if (const cudaError_t err =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, streamK, Config::kThreads, Config::kSmemBytes);
      err != cudaSuccess)
    return from_cuda(err);
  const Plan p = plan(a.M, a.N, a.K, int64_t(sms) * std::max(perSm, 1));
  const int skBlocks = p.skBlocks;
  // Workspace, only where tiles are cut: a partial tile per stream-K block, then a flag per
  // stream-K block (zeroed here, set once published).
  void* ws = nullptr;
  float* W = nullptr;
  int* flags = nullptr;
  Status s = Status::kOk;
  if (skBlocks > 0) {
    const size_t partialBytes = size_t(skBlocks) * size_t(kBM) * kBN * sizeof(float);
    if (s = workspace_alloc(partialBytes + size_t(skBlocks) * sizeof(int), stream, &ws); s != Status::kOk) return s;
    W = static_cast<float*>(ws);
    flags = reinterpret_cast<int*>(static_cast<char*>(ws) + partialBytes);
    s = from_cuda(cudaMemsetAsync(flags, 0, size_t(skBlocks) * sizeof(int), stream));
  }
  if (s == Status::kOk && p.sched.dpTiles > 0) {
    const dim3 grid(p.sched.tilesN, ceil_div(p.sched.dpTiles, p.sched.tilesN));
    whole<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                                                  a.beta, a.C, a.ldc, p.sched, W, flags);
    s = launch_status();
  }
  if (s == Status::kOk && skBlocks > 0) {
    streamK<<<skBlocks, Config::kThreads, Config::kSmemBytes, stream>>>(a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B,
                                                                        a.ldb, a.beta, a.C, a.ldc, p.sched, W, flags);
    s = launch_status();
  }
  if (ws != nullptr)
    if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

}  // namespace sgemm::rung16
#endif
