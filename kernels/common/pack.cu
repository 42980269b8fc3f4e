// Packing unaligned operands (the front door's, for rungs that opt in): an operand whose rows do
// not start on 16-byte boundaries is copied to rows that do, so the rung runs its kernel with
// 128-bit accesses instead of its 32-bit path, when the copies cost little beside the product.
// Also the repack kernel itself, which the dispatch rung uses for its repacked candidates.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "common/general.hpp"
#include "common/common.cuh"
#include "common/launch.hpp"

namespace sgemm {

namespace {

constexpr int kRepackThreads = 256;
// Units a lane has in flight before it stores: 4 float4s, or 8 single floats (twice as many kept
// their places in so many registers that fewer blocks fit an SM, and ran no faster: rung 30's page).
template <bool kVec>
constexpr int kRepackUnits = kVec ? 4 : 8;

// The destination as one run of units, row after row: single floats, or where every source's and
// destination's rows are 16-byte aligned (kVec) groups of four columns, each one 16-byte access on
// both sides. A warp's lanes take 32 consecutive units, coalesced on both sides (a lane's four
// adjacent floats read one at a time from an unaligned row, as a group was read before, took
// longer: rung 30's page), and each lane kRepackUnits of them, 32 units apart, all loaded before any
// is stored. Grid y: the two jobs. The destination's columns past dcols are never written.
template <bool kVec>
__global__ void __launch_bounds__(kRepackThreads) repack_rows(RepackJob first, RepackJob second) {
  constexpr int W = kVec ? kVecWidth : 1;  // floats a unit
  constexpr int kUnits = kRepackUnits<kVec>;
  const RepackJob j = blockIdx.y == 0 ? first : second;  // a copy: a reference would put both on the stack
  const int perRow = ceil_div(j.dcols, W);
  const int64_t total = int64_t(j.drows) * perRow, chunk = int64_t(kWarpSize) * kUnits;
  const int lane = int(threadIdx.x) % kWarpSize;
  const int64_t warps = int64_t(gridDim.x) * (kRepackThreads / kWarpSize);
  for (int64_t base = (int64_t(blockIdx.x) * kRepackThreads + threadIdx.x) / kWarpSize * chunk; base < total;
       base += warps * chunk) {
    int64_t u = base + lane;
    int r = int(u / perRow), c = int(u % perRow) * W;  // the lane's first unit; each next one 32 units on
    float v[kUnits][W];
    int rows[kUnits], cols[kUnits];
#pragma unroll
    for (int i = 0; i < kUnits; ++i) {
      rows[i] = r, cols[i] = c;
      const float* src = j.src + int64_t(min(r, j.rows - 1)) * j.lds;
      if (kVec && u < total && r < j.rows && c + W <= j.cols) {
        const float4 f = load_f4(src + c);
        v[i][0] = f.x, v[i][1] = f.y, v[i][2] = f.z, v[i][3] = f.w;
      } else {
#pragma unroll
        for (int e = 0; e < W; ++e) v[i][e] = u < total && r < j.rows && c + e < j.cols ? src[c + e] : 0.0f;
      }
      u += kWarpSize, c += kWarpSize * W;
      while (c >= perRow * W) c -= perRow * W, ++r;
    }
#pragma unroll
    for (int i = 0; i < kUnits; ++i) {
      if (base + lane + int64_t(kWarpSize) * i >= total) break;
      float* dst = j.dst + int64_t(rows[i]) * j.ldd;
      if (kVec && cols[i] + W <= j.dcols) {
        store_f4(dst + cols[i], make_float4(v[i][0], v[i][1], v[i][2], v[i][3]));
      } else {
#pragma unroll
        for (int e = 0; e < W; ++e)
          if (cols[i] + e < j.dcols) dst[cols[i] + e] = v[i][e];
      }
    }
  }
}

std::atomic<Packing> g_packing{Packing::kAuto};

// The rule: pack when the copies, at the device's DRAM peak, take at most kPackShare of the time
// the product takes at the FP32 peak. The 32-bit paths they replace cost the rungs much more than
// that (docs/design.md, unaligned operands), so a copy below a tenth of the product's best time is
// a clear win; the bound uses peaks for both, so it needs no measured constant and holds anywhere.
constexpr double kPackShare = 0.10;

bool pack_pays(const GemmArgs& a, const PackPlan& p) {
  DeviceRates r;
  if (device_rates(&r) != Status::kOk || r.fp32_flops <= 0 || r.dram_bytes <= 0) return false;
  const double flops = 2.0 * double(a.M) * double(a.N) * double(a.K);
  return p.moveBytes / r.dram_bytes <= kPackShare * flops / r.fp32_flops;
}

}  // namespace

// K keeps its tail: padded by zeros to whole slabs, K can put A's copied rows a power of two of
// floats apart (997 -> 1024), and the capstone's kernel ran slower on such copies than on copies
// that keep the tail, the last slab's loads checked (measured: docs/rungs/30_auto.lab.md).
PackPlan pack_plan(const GemmArgs& a, bool copyC) {
  PackPlan p;
  p.a = !rows_aligned(a.A, a.lda);  // as stored: M x K, or K x M where op(A) = A^T (copied as it lies)
  p.bT = a.transb && a.batch == 1;
  p.b = p.bT || (!a.transb && !rows_aligned(a.B, a.ldb));
  p.c = copyC && !rows_aligned(a.C, a.ldc);
  const int64_t colsAp = ceil_div64(a.colsA(), kVecWidth) * kVecWidth, Np = ceil_div64(a.N, kVecWidth) * kVecWidth;
  auto round256 = [](size_t bytes) { return (bytes + 255) / 256 * 256; };
  const size_t bytesA = p.a ? round256(size_t(a.rowsA()) * size_t(colsAp) * 4) : 0;
  const size_t bytesB = p.b ? round256(size_t(a.K) * size_t(Np) * 4) : 0;
  const size_t bytesC = p.c ? round256(size_t(a.M) * size_t(Np) * 4) : 0;
  p.offB = bytesA, p.offC = bytesA + bytesB, p.bytes = bytesA + bytesB + bytesC;
  p.args = a;
  auto standIn = [](size_t off) { return reinterpret_cast<float*>(uintptr_t{256} + off); };
  if (p.a) p.args.A = standIn(0), p.args.lda = colsAp;
  if (p.b) p.args.B = standIn(p.offB), p.args.ldb = Np, p.args.transb = false;
  if (p.c) p.args.C = standIn(p.offC), p.args.ldc = Np;
  const double mk = double(a.M) * double(a.K), kn = double(a.K) * double(a.N), mn = double(a.M) * double(a.N);
  // Each copy reads and writes its elements once; C is copied back, and copied in when beta reads it.
  p.moveBytes = 8.0 * ((p.a ? mk : 0) + (p.b ? kn : 0) + (p.c ? mn * (a.beta != 0 ? 2 : 1) : 0));
  return p;
}

void set_packing(Packing p) { g_packing.store(p); }
Packing packing() { return g_packing.load(); }

Status device_rates(DeviceRates* out) {
  static std::mutex mutex;
  static std::map<int, DeviceRates> known;
  int dev = 0;
  if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return from_cuda(e);
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(dev); it != known.end()) {
    *out = it->second;
    return Status::kOk;
  }
  int major = 0, minor = 0, sms = 0, khz = 0, memKhz = 0, busBits = 0;
  for (auto [value, attr] : {std::pair{&major, cudaDevAttrComputeCapabilityMajor},
                             std::pair{&minor, cudaDevAttrComputeCapabilityMinor},
                             std::pair{&sms, cudaDevAttrMultiProcessorCount}, std::pair{&khz, cudaDevAttrClockRate},
                             std::pair{&memKhz, cudaDevAttrMemoryClockRate},
                             std::pair{&busBits, cudaDevAttrGlobalMemoryBusWidth}})
    if (const cudaError_t e = cudaDeviceGetAttribute(value, attr, dev); e != cudaSuccess) return from_cuda(e);
  DeviceRates r;
  r.fp32_flops = fp32_peak_gflops(major, minor, sms, khz / 1000) * 1e9;
  r.dram_bytes = 2.0 * memKhz * 1e3 * busBits / 8.0;  // double data rate
  r.sms = sms;
  *out = known[dev] = r;
  return Status::kOk;
}

namespace {

// Rows of a job's source and destination that all start on 16-byte boundaries (an absent job:
// yes).
bool src_vec(const RepackJob& j) { return j.dst == nullptr || rows_aligned(j.src, j.lds); }
bool dst_vec(const RepackJob& j) { return j.dst == nullptr || rows_aligned(j.dst, j.ldd); }

template <bool kVec>
Status repack_launch(const RepackJob& first, const RepackJob& second, cudaStream_t stream) {
  constexpr int W = kVec ? kVecWidth : 1;
  auto units = [](const RepackJob& j) { return int64_t(j.drows) * ceil_div(j.dcols, W); };
  KernelInfo info;  // the SM count, asked once per device
  std::string why;
  if (const Status s = prepare(repack_rows<kVec>, kRepackThreads, 0, &info, &why); s != Status::kOk) return s;
  const int64_t perBlock = int64_t(kRepackThreads) * kRepackUnits<kVec>;
  const int64_t needed = ceil_div64(std::max(units(first), second.dst != nullptr ? units(second) : 0), perBlock);
  const int jobs = second.dst != nullptr ? 2 : 1;
  // Each job up to a wave of blocks (threads loop beyond it), not half a wave each: the GPU places
  // blocks in the order of their index, x first, so the second job's take the slots that the
  // first's free, and a small first job (A's copy beside B's) does not leave the second half the GPU.
  const int64_t resident = int64_t(info.sms) * info.blocks_per_sm;
  const dim3 grid(unsigned(std::clamp<int64_t>(needed, 1, std::max<int64_t>(resident, 1))), unsigned(jobs));
  repack_rows<kVec><<<grid, kRepackThreads, 0, stream>>>(first, second);
  return launch_status();
}

}  // namespace

Status repack(const RepackJob& first, const RepackJob& second, cudaStream_t stream) {
  const bool vec = src_vec(first) && src_vec(second) && dst_vec(first) && dst_vec(second);
  return vec ? repack_launch<true>(first, second, stream) : repack_launch<false>(first, second, stream);
}

bool packs(const Rung& rung, const GemmArgs& args) {
  // A general call: what the rung's first launch gets. The copies are of one product in NN.
  const GemmArgs a = args.plain() ? args : first_launch(rung, args);
  if (a.transa || a.transb || a.batch > 1) return false;
  if (!rung.packs_unaligned || a.M == 0 || a.N == 0 || a.K == 0 || a.alpha == 0.0f) return false;
  const Packing policy = packing();
  if (policy == Packing::kNever) return false;
  if (std::max({a.M, a.N, a.K, a.lda, a.ldb, a.ldc}) > INT32_MAX) return false;  // the copies use 32-bit ints
  const PackPlan p = pack_plan(a);
  if (!p.any()) return false;
  return policy == Packing::kAlways || pack_pays(a, p);
}

Status run_on_copies(const GemmArgs& a, const PackPlan& p, cudaStream_t stream,
                     const std::function<Status(const GemmArgs&)>& inner) {
  void* ws = nullptr;
  if (workspace_alloc(p.bytes, stream, &ws) != Status::kOk) return inner(a);  // no room: as given
  char* base = static_cast<char*>(ws);
  const int M = int(a.M), N = int(a.N), K = int(a.K);
  GemmArgs g = p.args;
  // The copies' rows are written whole, padding (zeros) included: a kernel's 16-byte cp.async at
  // a row's end reads only the floats inside the row, but compute-sanitizer's initcheck counts all
  // 16 bytes as read, and an uninitialised pad would be reported on every ragged shape.
  RepackJob in[3];
  int jobs = 0;
  if (p.a) {  // as stored: rows of K floats, or of M where op(A) = A^T
    g.A = reinterpret_cast<float*>(base);
    const int rowsA = int(a.rowsA()), colsA = int(a.colsA());
    in[jobs++] = {rowsA, colsA, a.A, int(a.lda), rowsA, int(g.lda), const_cast<float*>(g.A), int(g.lda)};
  }
  Status s = Status::kOk;
  if (p.b) {
    g.B = reinterpret_cast<float*>(base + p.offB);
    if (p.bT) s = copy_transposed(a.B, N, K, a.ldb, 0, const_cast<float*>(g.B), g.ldb, 0, 1, stream);  // N x K -> K x N
    else in[jobs++] = {K, N, a.B, int(a.ldb), K, int(g.ldb), const_cast<float*>(g.B), int(g.ldb)};
  }
  if (p.c) {
    g.C = reinterpret_cast<float*>(base + p.offC);
    if (a.beta != 0) in[jobs++] = {M, N, a.C, int(a.ldc), M, int(g.ldc), g.C, int(g.ldc)};  // beta reads C
  }
  for (int i = 0; i < jobs && s == Status::kOk; i += 2) s = repack(in[i], i + 1 < jobs ? in[i + 1] : RepackJob{}, stream);
  if (s == Status::kOk) s = inner(g);
  if (p.c && s == Status::kOk) s = repack({M, N, g.C, int(g.ldc), M, N, a.C, int(a.ldc)}, RepackJob{}, stream);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

Status run_packed(const Rung& rung, const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return run_on_copies(a, pack_plan(a), stream, [&](const GemmArgs& g) { return rung.launch(g, stream, why); });
}

}  // namespace sgemm
