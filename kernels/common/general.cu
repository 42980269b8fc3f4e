// The general call at the front door: layouts, batches and the bias for rungs whose launch does not
// take them (Rung::takes). A transposed operand is copied row-major into a workspace by a
// transposing copy, a batch becomes a loop of launches, one per product, and a bias becomes a pass
// over C after the products. Not a lesson: what lets every rung run every call, at the cost of the
// copies, the launches and the pass (docs/design.md, "Layouts, batches and bias").
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "common/general.hpp"
#include "common/common.cuh"

namespace sgemm {

namespace {

constexpr int kTile = 64;          // the copy's tile: kTile x kTile floats through shared memory
constexpr int kCopyThreads = 256;  // a copy block: each thread moves kTile * kTile / kCopyThreads floats of a tile
constexpr int kCopyWarps = kCopyThreads / kWarpSize;
constexpr int kCopyFloats = kTile * kTile / kCopyThreads;  // a thread's floats of a tile, all loaded before any store
constexpr int kTileQuads = kTile / kVecWidth;              // float4s along a row of the tile
static_assert(kTile % kWarpSize == 0, "a warp writes a row of the transposed tile in whole runs of 32 floats");
static_assert(kCopyThreads % kTile == 0 && kCopyThreads % kTileQuads == 0 && kTile % kCopyWarps == 0,
              "the block covers the tile in whole rows, loading and storing");
constexpr int64_t kMaxGridZ = 65535;
constexpr int kUpdateThreads = 256;
constexpr int64_t kMaxUpdateBlocks = 65535;

// dst = src^T for `count` matrices: src is rows x cols with row pitch lds, dst is cols x ldd
// (ldd >= rows; its columns rows..ldd-1 are written as zeros, so a copy's rows are whole), matrix z
// at src + z * strideSrc and dst + z * strideDst (grid z, looping past kMaxGridZ). A block moves
// one kTile x kTile tile at a time (grid x, looping) through a shared tile whose extra column puts
// the floats of a tile column in different banks. Each thread loads all its kCopyFloats floats of
// the tile before it stores any, so that many loads are in flight (a copy is bound by them): with
// kVecLoad (src's rows 16-byte aligned) as 128-bit loads, a warp reading 512 bytes of two rows;
// otherwise one float at a time, a warp reading 32 consecutive floats of a row. A warp writes 32
// consecutive floats of a row of dst at a time (coalesced, any alignment of dst).
template <bool kVecLoad>
__global__ void __launch_bounds__(kCopyThreads)
transpose_rows(const float* __restrict__ src, int64_t rows, int64_t cols, int64_t lds, int64_t strideSrc,
               float* __restrict__ dst, int64_t ldd, int64_t strideDst, int64_t count) {
  __shared__ float sTile[kTile][kTile + 1];  // [row of src in the tile][column of src in the tile]
  const int64_t tilesAcross = ceil_div64(cols, kTile);
  const int64_t tiles = ceil_div64(ldd, kTile) * tilesAcross;  // src's rows up to ldd: dst's zero columns too
  const int lane = int(threadIdx.x) % kWarpSize, warp = int(threadIdx.x) / kWarpSize;
  for (int64_t z = blockIdx.z; z < count; z += gridDim.z) {
    const float* s = src + z * strideSrc;
    float* d = dst + z * strideDst;
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      const int64_t r0 = t / tilesAcross * kTile, c0 = t % tilesAcross * kTile;
      float v[kCopyFloats];
      if constexpr (kVecLoad) {  // float4 q of tile rows i, i + kRowStep, ...
        constexpr int kRowStep = kCopyThreads / kTileQuads;
        const int q = int(threadIdx.x) % kTileQuads, i0 = int(threadIdx.x) / kTileQuads;
        const int64_t c = c0 + q * kVecWidth;
#pragma unroll
        for (int p = 0; p < kCopyFloats / kVecWidth; ++p) {
          const int64_t r = r0 + i0 + p * kRowStep;
          const float* row = s + r * lds;
          if (r < rows && c + kVecWidth <= cols) {
            const float4 f = load_f4(row + c);
            v[p * kVecWidth] = f.x, v[p * kVecWidth + 1] = f.y, v[p * kVecWidth + 2] = f.z, v[p * kVecWidth + 3] = f.w;
          } else {
#pragma unroll
            for (int j = 0; j < kVecWidth; ++j) v[p * kVecWidth + j] = r < rows && c + j < cols ? row[c + j] : 0.0f;
          }
        }
#pragma unroll
        for (int p = 0; p < kCopyFloats / kVecWidth; ++p)
#pragma unroll
          for (int j = 0; j < kVecWidth; ++j) sTile[i0 + p * kRowStep][q * kVecWidth + j] = v[p * kVecWidth + j];
      } else {  // column threadIdx.x % kTile of tile rows i, i + kRowStep, ...
        constexpr int kRowStep = kCopyThreads / kTile;
        const int col = int(threadIdx.x) % kTile, i0 = int(threadIdx.x) / kTile;
        const int64_t c = c0 + col;
#pragma unroll
        for (int p = 0; p < kCopyFloats; ++p) {
          const int64_t r = r0 + i0 + p * kRowStep;
          v[p] = r < rows && c < cols ? s[r * lds + c] : 0.0f;
        }
#pragma unroll
        for (int p = 0; p < kCopyFloats; ++p) sTile[i0 + p * kRowStep][col] = v[p];
      }
      __syncthreads();
#pragma unroll
      for (int p = 0; p < kTile / kCopyWarps; ++p) {  // rows warp, warp + kCopyWarps, ... of the transposed tile
        const int i = warp + p * kCopyWarps;
        const int64_t dr = c0 + i;  // dst's row is src's column, and the reverse
#pragma unroll
        for (int h = 0; h < kTile; h += kWarpSize) {
          const int64_t dc = r0 + h + lane;
          if (dr < cols && dc < ldd) d[dr * ldd + dc] = sTile[h + lane][i];
        }
      }
      __syncthreads();  // the tile is read before the next one overwrites it
    }
  }
}

// C of every product (C + b * strideC): beta * C (+ bias[n]) with `scale`, C + bias[n] without it.
// beta = 0 writes without reading C, as BLAS does.
__global__ void update_c_kernel(int64_t M, int64_t N, int64_t batch, float beta, bool scale, float* C, int64_t ldc,
                                int64_t strideC, const float* bias) {
  const int64_t perProduct = M * N, total = perProduct * batch;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / perProduct, e = i % perProduct, n = e % N;
    float* c = C + b * strideC + e / N * ldc + n;
    float v = !scale ? *c : beta == 0.0f ? 0.0f : beta * *c;
    if (bias) v += bias[n];
    *c = v;
  }
}

// Rows of whole float4s: the copies' rows start on 16-byte boundaries, so the rungs take their
// 128-bit paths on them.
int64_t padded_row(int64_t cols) { return ceil_div64(std::max<int64_t>(cols, 1), kVecWidth) * kVecWidth; }

const float* step(const float* p, int64_t i, int64_t stride) { return p ? p + i * stride : nullptr; }

// One launch of the rung, packed as run() packs a plain call (pack.cu).
Status launch_one(const Rung& rung, const GemmArgs& g, cudaStream_t stream, std::string* why) {
  return packs(rung, g) ? run_packed(rung, g, stream, why) : rung.launch(g, stream, why);
}

}  // namespace

Status copy_transposed(const float* src, int64_t rows, int64_t cols, int64_t lds, int64_t strideSrc, float* dst,
                       int64_t ldd, int64_t strideDst, int64_t count, cudaStream_t stream) {
  const int64_t tiles = ceil_div64(ldd, kTile) * ceil_div64(cols, kTile);
  const dim3 grid(unsigned(std::min<int64_t>(tiles, INT_MAX)), 1, unsigned(std::min(count, kMaxGridZ)));
  // 128-bit loads where every matrix's rows start on 16-byte boundaries.
  const bool vec = rows_aligned(src, lds) && (count == 1 || strideSrc % kVecWidth == 0);
  (vec ? transpose_rows<true> : transpose_rows<false>)<<<grid, kCopyThreads, 0, stream>>>(
      src, rows, cols, lds, strideSrc, dst, ldd, strideDst, count);
  return launch_status();
}

Status update_c(const GemmArgs& a, bool scale, cudaStream_t stream) {
  const int64_t blocks = std::min(ceil_div64(a.M * a.N * a.batch, kUpdateThreads), kMaxUpdateBlocks);
  update_c_kernel<<<unsigned(blocks), kUpdateThreads, 0, stream>>>(a.M, a.N, a.batch, a.beta, scale, a.C, a.ldc,
                                                                    a.strideC, a.bias);
  return launch_status();
}

GeneralPlan plan_general(const Rung& rung, const GemmArgs& a) {
  GeneralPlan p;
  const bool batched = a.batch > 1;
  p.copyA = a.transa && !(rung.takes & kTakesLayouts);
  p.copyB = a.transb && !(rung.takes & kTakesLayouts);
  p.loop = batched && !(rung.takes & kTakesBatch);
  p.biasPass = a.bias != nullptr && !(rung.takes & kTakesBias);
  GemmArgs& g = p.inner;
  g = a;
  if (!batched) g.strideA = g.strideB = g.strideC = 0;  // ignored with one product: the rung sees none
  if (p.biasPass) g.bias = nullptr;
  // Each copy in a region of its own, 256-byte aligned; the copies of one operand back to back.
  auto region = [&](int64_t copies, int64_t rows, int64_t ld) -> size_t {
    const double bytes = double(copies) * double(rows) * double(ld) * sizeof(float);  // close enough to see 2^62
    if (bytes > 0x1p62) {
      p.too_big = true;
      return 0;
    }
    return (size_t(bytes) + 255) / 256 * 256;
  };
  auto standIn = [](size_t offset) { return reinterpret_cast<const float*>(uintptr_t{256} + offset); };
  size_t bytesA = 0;
  if (p.copyA) {  // op(A) = A^T, stored K x M: copied to M x K
    p.copiesA = batched && a.strideA != 0 ? a.batch : 1;
    g.transa = false;
    g.lda = padded_row(a.K);
    g.strideA = p.copiesA > 1 ? a.M * g.lda : 0;
    g.A = standIn(0);
    bytesA = region(p.copiesA, a.M, g.lda);
  }
  if (p.copyB) {  // op(B) = B^T, stored N x K: copied to K x N
    p.copiesB = batched && a.strideB != 0 ? a.batch : 1;
    g.transb = false;
    g.ldb = padded_row(a.N);
    g.strideB = p.copiesB > 1 ? a.K * g.ldb : 0;
    g.B = standIn(bytesA);
    p.bytes = region(p.copiesB, a.K, g.ldb);
  }
  p.offB = bytesA;
  p.bytes += bytesA;
  return p;
}

GemmArgs product(const GemmArgs& g, int64_t i) {
  GemmArgs p = g;
  p.A = step(g.A, i, g.strideA);
  p.B = step(g.B, i, g.strideB);
  p.C = g.C ? g.C + i * g.strideC : nullptr;
  p.batch = 1;
  p.strideA = p.strideB = p.strideC = 0;
  return p;
}

GemmArgs first_launch(const Rung& rung, const GemmArgs& a) {
  const GeneralPlan p = plan_general(rung, a);
  return p.loop ? product(p.inner, 0) : p.inner;
}

bool can_run(const Rung& rung, const GemmArgs& a, std::string* why) {
  if (a.plain()) return rung.supports(a, why);
  const GeneralPlan p = plan_general(rung, a);
  if (!p.loop) return rung.supports(p.inner, why);
  // A pointer moved by whole floats is back on the same 16-byte boundary after at most four
  // products: the first four show every alignment the launches of the loop meet.
  for (int64_t i = 0; i < std::min<int64_t>(a.batch, kVecWidth); ++i)
    if (!rung.supports(product(p.inner, i), why)) {
      if (why && i > 0) *why = "product " + std::to_string(i) + " of the batch: " + *why;
      return false;
    }
  return true;
}

Status run_general(const Rung& rung, const GemmArgs& a, cudaStream_t stream, std::string* why) {
  const GeneralPlan p = plan_general(rung, a);
  if (p.too_big) {
    if (why) *why = "the row-major copies of the transposed operands would need more than 2^62 bytes";
    return Status::kOutOfMemory;
  }
  void* ws = nullptr;
  if (p.bytes > 0)
    if (const Status s = workspace_alloc(p.bytes, stream, &ws); s != Status::kOk) {
      if (why)
        *why = "the row-major copies of the transposed operands need " + std::to_string(p.bytes) +
               " bytes of workspace";
      return s;
    }
  char* base = static_cast<char*>(ws);
  GemmArgs g = p.inner;
  Status s = Status::kOk;
  if (p.copyA) {
    g.A = reinterpret_cast<const float*>(base);
    s = copy_transposed(a.A, a.K, a.M, a.lda, p.copiesA > 1 ? a.strideA : 0, reinterpret_cast<float*>(base), g.lda,
                        g.strideA, p.copiesA, stream);
  }
  if (p.copyB && s == Status::kOk) {
    g.B = reinterpret_cast<const float*>(base + p.offB);
    s = copy_transposed(a.B, a.N, a.K, a.ldb, p.copiesB > 1 ? a.strideB : 0, reinterpret_cast<float*>(base + p.offB),
                        g.ldb, g.strideB, p.copiesB, stream);
  }
  if (s == Status::kOk && !p.loop) s = launch_one(rung, g, stream, why);
  for (int64_t i = 0; p.loop && i < a.batch && s == Status::kOk; ++i) s = launch_one(rung, product(g, i), stream, why);
  if (s == Status::kOk && p.biasPass) s = update_c(a, false, stream);
  if (ws)
    if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

}  // namespace sgemm
