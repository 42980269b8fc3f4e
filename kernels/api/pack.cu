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

#include "api/general.hpp"
#include "common/common.cuh"
#include "common/launch.hpp"

namespace sgemm {

namespace {

constexpr int kRepackThreads = 256;
constexpr int kRepackCols = 4;    // consecutive columns of a group: one 16-byte access on an aligned side
constexpr int kRepackGroups = 4;  // groups a thread has in flight before it stores

// The destination as one run of groups of kRepackCols columns, row after row: consecutive
// threads take consecutive groups (coalesced), and every thread has kRepackGroups groups in flight
// whatever the matrix's width. Grid y: the two jobs. kVecLoad / kVecStore: the sources' /
// destinations' rows are 16-byte aligned, so a group moves as one float4 there; the other side
// moves single floats. The destination's columns past dcols are never written.
template <bool kVecLoad, bool kVecStore>
__global__ void __launch_bounds__(kRepackThreads) repack_rows(RepackJob first, RepackJob second) {
  const RepackJob& j = blockIdx.y == 0 ? first : second;
  const int64_t groupsPerRow = ceil_div(j.dcols, kRepackCols);
  const int64_t total = int64_t(j.drows) * groupsPerRow;
  const int64_t step = int64_t(gridDim.x) * kRepackThreads;
  for (int64_t g0 = int64_t(blockIdx.x) * kRepackThreads + threadIdx.x; g0 < total; g0 += kRepackGroups * step) {
    float v[kRepackGroups][kRepackCols];
#pragma unroll
    for (int g = 0; g < kRepackGroups; ++g) {
      const int64_t group = g0 + g * step;
      const int r = int(group / groupsPerRow), c = int(group % groupsPerRow) * kRepackCols;
      const float* s = j.src + int64_t(min(r, j.rows - 1)) * j.lds;
      if (kVecLoad && group < total && r < j.rows && c + kRepackCols <= j.cols) {
        const float4 f = load_f4(s + c);
        v[g][0] = f.x, v[g][1] = f.y, v[g][2] = f.z, v[g][3] = f.w;
      } else {
#pragma unroll
        for (int i = 0; i < kRepackCols; ++i) v[g][i] = group < total && r < j.rows && c + i < j.cols ? s[c + i] : 0.0f;
      }
    }
#pragma unroll
    for (int g = 0; g < kRepackGroups; ++g) {
      const int64_t group = g0 + g * step;
      if (group >= total) break;
      const int r = int(group / groupsPerRow), c = int(group % groupsPerRow) * kRepackCols;
      float* d = j.dst + int64_t(r) * j.ldd;
      if (kVecStore && c + kRepackCols <= j.dcols) {
        *reinterpret_cast<float4*>(d + c) = make_float4(v[g][0], v[g][1], v[g][2], v[g][3]);
      } else {
#pragma unroll
        for (int i = 0; i < kRepackCols; ++i)
          if (c + i < j.dcols) d[c + i] = v[g][i];
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

// K keeps its tail: on 3001 x 2999 x 997 the capstone's kernel took longer on copies with K
// padded by zeros to whole slabs (A's rows 1024 floats apart) than on copies that keep the tail
// (rows 1000 apart, the last slab's loads checked); docs/rungs/30_auto.md has the measurement.
PackPlan pack_plan(const GemmArgs& a, bool copyC) {
  PackPlan p;
  p.a = !a.transa && !rows_aligned(a.A, a.lda);  // a transposed A is read in place, as it is
  p.bT = a.transb && a.batch == 1;
  p.b = p.bT || (!a.transb && !rows_aligned(a.B, a.ldb));
  p.c = copyC && !rows_aligned(a.C, a.ldc);
  const int64_t Kp = ceil_div64(a.K, kVecWidth) * kVecWidth, Np = ceil_div64(a.N, kVecWidth) * kVecWidth;
  auto round256 = [](size_t bytes) { return (bytes + 255) / 256 * 256; };
  const size_t bytesA = p.a ? round256(size_t(a.M) * size_t(Kp) * 4) : 0;
  const size_t bytesB = p.b ? round256(size_t(a.K) * size_t(Np) * 4) : 0;
  const size_t bytesC = p.c ? round256(size_t(a.M) * size_t(Np) * 4) : 0;
  p.offB = bytesA, p.offC = bytesA + bytesB, p.bytes = bytesA + bytesB + bytesC;
  p.args = a;
  auto standIn = [](size_t off) { return reinterpret_cast<float*>(uintptr_t{256} + off); };
  if (p.a) p.args.A = standIn(0), p.args.lda = Kp;
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

template <bool kVecLoad, bool kVecStore>
Status repack_launch(const RepackJob& first, const RepackJob& second, cudaStream_t stream) {
  auto groups = [](const RepackJob& j) { return int64_t(j.drows) * ceil_div(j.dcols, kRepackCols); };
  KernelInfo info;  // the SM count, asked once per device
  std::string why;
  if (const Status s = prepare(repack_rows<kVecLoad, kVecStore>, kRepackThreads, 0, &info, &why); s != Status::kOk)
    return s;
  const int64_t perThread = int64_t(kRepackThreads) * kRepackGroups;
  const int64_t needed = (std::max(groups(first), second.dst != nullptr ? groups(second) : 0) + perThread - 1) / perThread;
  const int jobs = second.dst != nullptr ? 2 : 1;
  const int64_t resident = int64_t(info.sms) * info.blocks_per_sm / jobs;  // one wave; threads loop beyond it
  const dim3 grid(unsigned(std::clamp<int64_t>(needed, 1, std::max<int64_t>(resident, 1))), unsigned(jobs));
  repack_rows<kVecLoad, kVecStore><<<grid, kRepackThreads, 0, stream>>>(first, second);
  return launch_status();
}

}  // namespace

Status repack(const RepackJob& first, const RepackJob& second, cudaStream_t stream) {
  const bool vecLoad = src_vec(first) && src_vec(second), vecStore = dst_vec(first) && dst_vec(second);
  return vecLoad ? (vecStore ? repack_launch<true, true>(first, second, stream)
                             : repack_launch<true, false>(first, second, stream))
                 : (vecStore ? repack_launch<false, true>(first, second, stream)
                             : repack_launch<false, false>(first, second, stream));
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
  if (p.a) {
    g.A = reinterpret_cast<float*>(base);
    in[jobs++] = {M, K, a.A, int(a.lda), M, int(g.lda), const_cast<float*>(g.A), int(g.lda)};
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
