// The dispatch rung's cost model (model.hpp): each candidate's terms from the shape and the
// device, its predicted time from the measured constants (constants.cpp), and the pick, also on the
// current device. Host code only; the kernels and their launches are the rung's
// (kernels/dispatch/30_auto.cuh).
#include "dispatch/model.hpp"
#include "dispatch/tensor.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>

#include "common/cut_plan.hpp"
#include "ffma/capstone.hpp"
#include "tuned/dispatch.cuh"
#include "tuned/tuned.cuh"

namespace sgemm::rung30 {

namespace {
int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int kVecFloats = 4;  // floats per 128-bit access: split-K's partial rows are whole float4s
}  // namespace

static_assert(tuned::kDispatchCandidates == kCandidates && tuned::kDispatchGemvGroups == kGemvGroups,
              "each calibration has one measured cost per candidate, in the candidates' order, and a GEMV "
              "FLOP rate per row group");

// ---- the terms ----------------------------------------------------------------------------------

double fixups_of(const stream_k::Plan& p) {
  if (p.skBlocks == 0) return 0;
  const stream_k::Schedule& s = p.sched;
  const int blocks = p.skBlocks;
  auto block_of = [&](int64_t slab) {  // the block whose share holds `slab`
    int b = int(std::min<int64_t>(blocks - 1, slab * blocks / s.skSlabs));
    while (b + 1 < blocks && s.sk_begin(b + 1, blocks) <= slab) ++b;
    while (b > 0 && s.sk_begin(b, blocks) > slab) --b;
    return b;
  };
  // For each tile cut between blocks, the block holding its first slab adds one partial per later
  // block whose share reaches into the tile.
  std::vector<double> added(size_t(blocks), 0.0);
  for (int64_t begin = 0; begin < s.skSlabs; begin += s.kTiles) {
    const int first = block_of(begin), last = block_of(begin + s.kTiles - 1);
    added[size_t(first)] += last - first;
  }
  return *std::max_element(added.begin(), added.end());
}

Split split_into(const GemmArgs& a, int BM, int BN, int BK, int64_t wanted, const KernelInfo& info) {
  const int64_t tiles = div_up(a.M, BM) * div_up(a.N, BN), kTiles = div_up(a.K, BK);
  const int64_t per = div_up(kTiles, std::max<int64_t>(1, wanted)), used = div_up(kTiles, per);
  Split sp{int(used), int(per)};
  sp.residency = double(div_up(tiles * used, std::max(info.sms, 1))) / double(std::max(info.blocks_per_sm, 1));
  return sp;
}

// A split-K slab: the full SM's slab scaled by the SM's share of blocks, but never less than a
// block's slab alone on its SM (one block cannot fill an SM's issue slots). Whole tiles run with
// every SM full: residency 1, lone_ns 0.
double slab_ns_at(const Cost& c, double residency) { return std::max(c.lone_ns, c.slab_ns * residency); }

// Among the splits that keep every block in one wave (split-K is for tile grids that leave SMs
// idle) with at least kMinSlabsPerSplit slabs each: the least slabs per block times their cost at
// the split's residency, plus the partials' bytes written and read over the bandwidth.
Split split_of(const GemmArgs& a, int BM, int BN, int BK, const KernelInfo& info, const Cost& cost, double bytesPerNs) {
  const int64_t tiles = div_up(a.M, BM) * div_up(a.N, BN), kTiles = div_up(a.K, BK);
  const int64_t slots = int64_t(info.sms) * info.blocks_per_sm;
  const double rowBytes = 4.0 * double(div_up(a.N, kVecFloats) * kVecFloats);
  Split best;
  double bestNs = std::numeric_limits<double>::infinity();
  for (int64_t s = 2; s * kMinSlabsPerSplit <= kTiles && tiles * s <= slots && s <= 65535; ++s) {
    const Split sp = split_into(a, BM, BN, BK, s, info);
    const double ns = double(sp.slabsPerSplit) * slab_ns_at(cost, sp.residency) +
                      2.0 * double(sp.splits) * double(a.M) * rowBytes / bytesPerNs;
    if (ns < bestNs) best = sp, bestNs = ns;
  }
  return best;
}

// The last split's K tail alone checks bounds; C is written (and read, with beta).
Terms with_split(Terms t, const GemmArgs& a, const Split& sp) {
  if (sp.splits < 2) return t;
  t.slabs = sp.slabsPerSplit;
  t.residency = sp.residency;
  const double rowBytes = 4.0 * double(div_up(a.N, kVecFloats) * kVecFloats), mn = double(a.M) * double(a.N);
  t.moveBytes = 2.0 * double(sp.splits) * double(a.M) * rowBytes + 4.0 * mn * (a.beta != 0 ? 2 : 1);
  t.runs = true;
  return t;
}

// BK > 0 asks about a K tail; split-K passes 0 (its last split alone has the tail). tailSlab: the
// tiles inside M and N check a K tail's last slab alone, else every slab.
double guarded_fraction(const GemmArgs& a, int BM, int BN, int BK, bool tailSlab) {
  const double rows = double(div_up(a.M, BM)), cols = double(div_up(a.N, BN));
  const double edge = 1.0 - double(a.M / BM) * double(a.N / BN) / (rows * cols);
  if (BK > 0 && a.K % BK != 0) return tailSlab ? edge + (1.0 - edge) / double(div_up(a.K, BK)) : 1.0;
  return edge;
}

double restream_mb(const GemmArgs& a, int BM, int BN, int64_t slots, double l2Bytes) {
  const double bBytes = 4.0 * double(a.K) * double(a.N);
  if (l2Bytes <= 0 || bBytes <= l2Bytes || slots <= 0) return 0;
  const double rows = double(div_up(a.M, BM)), cols = double(div_up(a.N, BN));
  const double passes = rows * std::min(1.0, cols / double(slots));
  return passes > 1 ? (passes - 1) * bBytes / 1e6 : 0;
}

bool capstone_own(const GemmArgs& a) { return vec4_ok_batched(a) || !tiles_vec(a); }

GemvForm gemv_form(const GemmArgs& a) {
  if (a.transb ? a.M <= kGemvTMaxRows : a.M <= kGemvMaxRows && a.batch == 1) return a.transb ? GemvForm::kRowsT : GemvForm::kRows;
  if (!a.transa && a.N <= kGemvNarrowMaxCols) return GemvForm::kNarrowN;
  return GemvForm::kNone;
}

bool gemv_narrow_copies_b(const GemmArgs& a) { return !a.transb && !(a.N == 1 && a.ldb == 1); }

bool rows_aligned_all(const void* p, int64_t ld, int64_t stride, int64_t batch) {
  return rows_aligned(p, ld) && (batch == 1 || stride % kVecFloats == 0);
}
bool loads_vec(const GemmArgs& a) {
  return rows_aligned_all(a.A, a.lda, a.strideA, a.batch) && rows_aligned_all(a.B, a.ldb, a.strideB, a.batch);
}
bool tiles_vec(const GemmArgs& a) { return !a.transa && !a.transb ? loads_vec(a) : vec4_ok_batched(a); }
PackPlan repack_plan(const GemmArgs& a) { return pack_plan(a, a.transa); }

int gemv_group(int64_t M) {
  int g = 0;
  while (g + 1 < kGemvGroups && (int64_t(1) << g) < M) ++g;
  return g;
}
static_assert(kGemvMaxRows == 1 << (kGemvGroups - 1), "the last row group is the GEMV's most rows");

int gemv_t_split(int64_t K, bool vec, int MT, int CT, int warps) {
  constexpr int kSpan = 4 * 32;  // floats a warp's k step covers: a float4 a lane
  const int steps = vec ? 8 : 4;
  int split = 1;
  while (split < warps && K >= int64_t(split) * 2 * steps * kSpan && 2 * split * MT <= 2 * warps * CT) split *= 2;
  return split;
}

GemvGrid gemv_grid(const GemmArgs& a, const KernelInfo& info, int maxWarps, int cols, int chunk) {
  constexpr int kWarpsPerSm = 32;
  GemvGrid g;
  const int64_t chunks = div_up(a.K, chunk);
  g.colBlocks = div_up(a.N, cols);
  g.warps = int(std::clamp<int64_t>(chunks, 1, maxWarps));
  const int64_t resident = int64_t(info.sms) * std::min(kWarpsPerSm, info.blocks_per_sm * maxWarps);
  const int64_t wanted = std::max<int64_t>(1, resident / (int64_t(g.warps) * g.colBlocks));
  const int64_t most = std::max<int64_t>(1, chunks / g.warps);
  const int64_t chunksPerBlock = div_up(chunks, std::min<int64_t>({wanted, most, 65535}));
  g.kPerBlock = int(chunksPerBlock * chunk);
  g.splits = int(div_up(chunks, chunksPerBlock));  // every block gets k steps
  return g;
}

// A general call (GemmArgs::plain() false): every layout is priced as NN (the constants are NN's);
// a batch multiplies the bytes and runs whole tiles, the GEMV for op(B) = B^T or the tiles (split-K
// and repack run one plain product).
Terms model_terms(int c, const GemmArgs& a, const Device& d, const Constants& k) {
  const Candidate& cand = kCandidateList[size_t(c)];
  Terms t;
  const double products = double(a.batch);
  t.minBytes = products * 4.0 * (double(a.M) * a.K + double(a.K) * a.N + double(a.M) * a.N * (a.beta != 0 ? 2 : 1));
  switch (cand.kind) {
    case Kind::kGemv: {
      // The narrow-N form computes C^T: its few rows are C's columns, its many C's rows.
      const GemvForm form = gemv_form(a);
      if (form == GemvForm::kNone) return t;
      const bool narrow = form == GemvForm::kNarrowN;
      t.gemvBytes = t.minBytes;
      t.gemvGroup = gemv_group(narrow ? a.N : a.M);
      t.gemvNarrow = narrow;
      t.gemvFlops = products * 2.0 * double(int64_t(1) << t.gemvGroup) * double(narrow ? a.M : a.N) * double(a.K);
      // The narrow form's columns of a B read K-major: first copied to rows along K (30_auto.cuh).
      if (narrow && gemv_narrow_copies_b(a)) t.moveBytes = products * 8.0 * double(a.K) * double(a.N);
      t.runs = true;
      return t;
    }
    case Kind::kRepack: {
      if (a.batch > 1) return t;  // the copies are of one product
      const PackPlan r = repack_plan(a);
      if (!r.any()) return t;  // nothing to repack: the direct candidates say it all
      t.inner = int(choose(r.args, true, d, k));
      t.repacked = r.args;
      t.moveBytes = r.moveBytes;
      t.runs = true;
      return t;
    }
    case Kind::kTiles:
    case Kind::kSplitK:
      break;
  }
  const bool vec = cand.kind == Kind::kSplitK ? loads_vec(a) : tiles_vec(a);
  const KernelInfo info{d.sms, d.blocks[size_t(c)][vec ? 1 : 0], 0};
  if (info.blocks_per_sm <= 0 || !grid_ok(div_up(a.N, cand.BN), div_up(a.M, cand.BM), nullptr)) return t;
  const int64_t slots = int64_t(info.sms) * info.blocks_per_sm;
  t.unaligned = !vec;
  t.unalignedC = !rows_aligned_all(a.C, a.ldc, a.strideC, a.batch);
  t.guarded = guarded_fraction(a, cand.BM, cand.BN, cand.kind == Kind::kSplitK ? 0 : cand.BK, cand.tailSlab);
  if (cand.kind == Kind::kSplitK && a.batch > 1) return t;  // split-K runs one product
  if (cand.kind == Kind::kSplitK)
    return with_split(t, a, split_of(a, cand.BM, cand.BN, cand.BK, info, k.costs[size_t(c)], k.bytesPerNs));
  if (a.batch > 1) {  // whole tiles of every product, in waves
    t.tiles = double(div_up(a.batch * div_up(a.M, cand.BM) * div_up(a.N, cand.BN), slots));
    t.slabs = t.tiles * double(div_up(a.K, cand.BK));
    t.runs = true;
    return t;
  }
  t.restreamMB = restream_mb(a, cand.BM, cand.BN, slots, d.l2Bytes);
  // The capstone's own launch (its cut) where C's rows are aligned as its operands' (capstone_own).
  if (c == int(kCapstone) && capstone_own(a) && d.cutBlocks[vec ? 1 : 0] > 0) {
    const cut::Plan cp = capstone_rung::plan_on(a, int64_t(d.sms) * d.cutBlocks[vec ? 1 : 0], d.rates, d.overlap);
    if (cp.cut()) {
      // The capstone cuts the last wave: the cut plan's time, less what it charges every block
      // besides its slabs (the whole-tile terms here charge none).
      t.slabs = cp.slabTimes - cp.blockSlabs;
      t.runs = true;
      return t;
    }
  }
  const stream_k::Model m{cand.BM, cand.BN, cand.BK, capstone_rung::model().slabCost, capstone_rung::model().minSlabsPerUnit};
  const stream_k::Plan p = stream_k::plan(m, a.M, a.N, a.K, slots);
  if (p.skBlocks > 0) {  // the whole tiles' waves, then the busiest share
    t.tiles = double(p.sched.dpTiles / slots);
    t.slabs = t.tiles * double(p.sched.kTiles);
    t.shareSlabs = double(stream_k::div_up(p.sched.skSlabs, p.skBlocks));
    for (int b = 0; b < p.skBlocks; ++b) {  // units: the tiles a share touches
      const int64_t first = p.sched.sk_begin(b, p.skBlocks), end = p.sched.sk_begin(b + 1, p.skBlocks);
      if (end > first) t.shareUnits = std::max(t.shareUnits, double((end - 1) / p.sched.kTiles - first / p.sched.kTiles + 1));
    }
  } else {
    t.slabs = p.slabTimes;
    t.tiles = double(div_up(int64_t(p.sched.dpTiles), slots));  // whole tiles only: dpTiles is every tile
  }
  t.fixups = fixups_of(p);
  t.runs = true;
  return t;
}

// ---- the prediction and the pick ----------------------------------------------------------------

// A slab of the tiles in a call's layout over one in NN: a transposed B goes through registers and
// transposed stores, a transposed A by cp.async. Each candidate's factors are measured by
// sgemm_autotune --dispatch (a 4096^3 product in TN and in NT against the NN fit); a calibration
// older than them takes the capstone's for every candidate (tuned::kCapstoneLayoutShares, from
// sgemm_bench's layouts), B's alone where both are transposed.
double layout_factor(const Cost& cost, const GemmArgs& a) {
  constexpr tuned::LayoutShares kOld = tuned::kCapstoneLayoutShares;
  if (cost.transa <= 0 && cost.transb <= 0) return a.transb ? 1.0 / kOld.nt : a.transa ? 1.0 / kOld.tn : 1.0;
  return (a.transa ? cost.transa : 1.0) * (a.transb ? cost.transb : 1.0);
}

double gemv_rate(const Terms& t, const Constants& k) {
  const size_t g = size_t(t.gemvGroup);
  if (t.gemvNarrow && g < k.gemvNarrowFlopsPerNs.size() && k.gemvNarrowFlopsPerNs[g] > 0) return k.gemvNarrowFlopsPerNs[g];
  return k.gemvFlopsPerNs[g];
}

bool offered(int c, const GemmArgs& a, const Constants& k) {
  const int maxK = kCandidateList[size_t(c)].maxK;
  const Cost& cost = k.costs[size_t(c)];
  return calibrated(cost.slab_ns, cost.launch_ns) && (maxK == 0 || a.K <= maxK);
}

// Its terms times the constants, plus its fixed cost; the GEMM kernel never faster than the bytes
// it must move over the measured bandwidth. Repack: its copies, plus the prediction for the
// candidate that runs on them.
double predict_ns(int c, const GemmArgs& a, const Device& d, const Constants& k) {
  if (!offered(c, a, k)) return std::numeric_limits<double>::infinity();
  const Terms t = model_terms(c, a, d, k);
  const Cost& cost = k.costs[size_t(c)];
  if (!t.runs) return std::numeric_limits<double>::infinity();
  const double moved = t.moveBytes / k.bytesPerNs + cost.launch_ns;
  if (t.inner >= 0) return predict_ns(t.inner, t.repacked, d, k) + moved;
  const double slab = slab_ns_at(cost, t.residency) * (t.unaligned ? cost.unaligned : 1.0) *
                      (1.0 + (cost.guard - 1.0) * t.guarded) * layout_factor(cost, a);
  const double gemv = t.gemvFlops > 0 ? std::max(t.gemvBytes / k.bytesPerNs, t.gemvFlops / gemv_rate(t, k)) : 0.0;
  const double tile = cost.tile_ns + (t.unalignedC ? cost.tile32_ns : 0.0) + (a.transa ? cost.tileta_ns : 0.0) +
                      (a.transb ? cost.tiletb_ns : 0.0);
  const double kernel = (t.slabs + t.shareSlabs * cost.share) * slab + t.shareUnits * cost.unit_ns +
                        t.fixups * cost.fixup_ns + t.tiles * tile + t.restreamMB * cost.restream_ns;
  return std::max(t.minBytes / k.bytesPerNs, kernel + gemv) + moved;
}

size_t choose(const GemmArgs& a, bool direct_only, const Device& d, const Constants& k) {
  size_t best = 0;
  double bestNs = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < kCandidates; ++c) {
    if (direct_only && kCandidateList[c].kind == Kind::kRepack) continue;
    if (const double ns = predict_ns(int(c), a, d, k); ns < bestNs) best = c, bestNs = ns;
  }
  return best;
}

// ---- on the current device ----------------------------------------------------------------------

namespace {
// f() of the current device, made once per device.
template <class T, class Make>
const T& per_device(Make make) {
  static std::mutex mutex;
  static std::map<int, T> perDevice;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = perDevice.find(device);
  if (it == perDevice.end()) it = perDevice.emplace(device, make()).first;
  return it->second;  // map nodes stay put
}
}  // namespace

const Constants& device_constants() { return per_device<Constants>(measured_constants); }
// What the model knows of this GPU: its SMs and peaks, and each candidate's kernels' occupancy.
const Device& current_device() {
  return per_device<Device>([] {
    Device d;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return Device{};
    if (device_rates(&d.rates) != Status::kOk) d.rates = DeviceRates{};
    int l2 = 0;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) == cudaSuccess) d.l2Bytes = double(l2);
    occupancy_of(&d);
    return d;
  });
}

Terms model_terms(int c, const GemmArgs& a) { return model_terms(c, a, current_device(), device_constants()); }
double predict_ns(int c, const GemmArgs& a, const Constants& k) { return predict_ns(c, a, current_device(), k); }
double predict_ns(int c, const GemmArgs& a) { return predict_ns(c, a, device_constants()); }

// Remembered per device and per everything the model reads (sizes, leading dimensions, which
// operands are 16-byte aligned, beta == 0, the layouts, the batch and its strides' alignment): the
// model evaluates every candidate's plan, host time that a short GEMV must not pay at every call.
std::pair<size_t, double> choose_ns(const GemmArgs& a, bool direct_only) {
  using Key = std::array<int64_t, 10>;
  static std::mutex mutex;
  static std::map<Key, std::pair<size_t, double>> cache;
  auto pick = [&] {
    const size_t c = choose(a, direct_only, current_device(), device_constants());
    return std::pair<size_t, double>{c, predict_ns(int(c), a)};
  };
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return pick();
  auto aligned = [](const void* p) { return int64_t(reinterpret_cast<uintptr_t>(p) % 16 == 0); };
  const Key key{a.M, a.N, a.K, a.lda, a.ldb, a.ldc,
                aligned(a.A) | aligned(a.B) << 1 | aligned(a.C) << 2 | int64_t(a.beta == 0) << 3 |
                    int64_t(a.transa) << 4 | int64_t(a.transb) << 5 | int64_t(vec4_ok_batched(a)) << 6 |
                    int64_t(a.plain()) << 7,
                a.batch, int64_t(direct_only), int64_t(device)};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const std::pair<size_t, double> c = pick();
  const std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 4096) cache.clear();  // bounded: a long-running caller with ever new shapes
  cache.emplace(key, c);
  return c;
}
size_t choose(const GemmArgs& a, bool direct_only) { return choose_ns(a, direct_only).first; }

const char* choice(const GemmArgs& a) {
  static const std::vector<std::string> repacked = [] {
    std::vector<std::string> names;
    for (const Candidate& c : kCandidateList) names.push_back(std::string("repack+") + c.name);
    return names;
  }();
  const auto [c, ns] = choose_ns(a, false);
  if (tensor::declined(a, nullptr, ns).empty()) return kTensorName;
  if (kCandidateList[c].kind != Kind::kRepack) return kCandidateList[c].name;
  return repacked[size_t(model_terms(int(c), a).inner)].c_str();
}

double predicted_ns(const GemmArgs& a) {
  const double ns = choose_ns(a, false).second;
  double tensorNs = 0;
  return tensor::declined(a, nullptr, ns, &tensorNs).empty() ? tensorNs : ns;
}

int candidate_count() { return int(kCandidates); }
const char* candidate_name(int c) { return kCandidateList[size_t(c)].name; }
std::pair<int, int> candidate_tile(int c) { return {kCandidateList[size_t(c)].BM, kCandidateList[size_t(c)].BN}; }
int candidate_slab(int c) { return kCandidateList[size_t(c)].BK; }

Terms split_terms(int c, const GemmArgs& a, int splits) {
  const Candidate& cand = kCandidateList[size_t(c)];
  Terms t = model_terms(c, a);  // the bytes every kernel moves, the alignment
  if (cand.kind != Kind::kSplitK) return t;
  t.runs = false;
  const Device& d = current_device();
  const KernelInfo info{d.sms, d.blocks[size_t(c)][loads_vec(a) ? 1 : 0], 0};
  if (info.blocks_per_sm <= 0) return t;
  return with_split(t, a, split_into(a, cand.BM, cand.BN, cand.BK, splits, info));
}

// ---- host plumbing of the launches (30_auto.cuh) -------------------------------------------------

int blocks_of(Status (*prepare)(KernelInfo* info, std::string* why)) {
  KernelInfo info;
  std::string why;
  return prepare(&info, &why) == Status::kOk ? info.blocks_per_sm : 0;
}

Status gemv_scratch(const GemmArgs& a, unsigned colGroups, unsigned splits, cudaStream_t stream, GemvScratch* out) {
  if (splits <= 1) return Status::kOk;
  const size_t partialBytes = size_t(splits) * size_t(a.M) * size_t(a.N) * sizeof(float);
  unsigned* tickets = kept_tickets(stream, colGroups);
  const size_t ticketBytes = tickets == nullptr ? colGroups * sizeof(unsigned) : 0;
  void* ws = nullptr;
  if (const Status s = workspace_alloc(partialBytes + ticketBytes, stream, &ws); s != Status::kOk) return s;
  *out = GemvScratch{ws, static_cast<float*>(ws), tickets};
  if (tickets != nullptr) return Status::kOk;
  out->tickets = reinterpret_cast<unsigned*>(static_cast<char*>(ws) + partialBytes);
  return from_cuda(cudaMemsetAsync(out->tickets, 0, ticketBytes, stream));
}

}  // namespace sgemm::rung30
