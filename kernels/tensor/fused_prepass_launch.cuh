// Rung 32's host side (32_fused_prepass.cuh includes it after its kernels, outside device-only
// builds): the tile, the plan and its footprint, the launches of the pre-pass, the INT8 GEMMs and the
// rebuild, the workspace, and the two ways through the scheme: launch() (the rung's own) and
// launch_overlapped() (the dispatch rung's). Beside the rung's file only to keep each file readable;
// against rung 31, diff the rung file's kernels and this file with 31_ordered_units.cuh.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <map>
#include "common/launch.hpp"
#include "tensor/32_fused_prepass.hpp"

namespace sgemm::rung32 {

constexpr int kBM = 128, kBN = 256, kBK = 128, kStages = 4;
using Config = Tile<kBM, kBN, kBK, kStages>;
// The fewest moduli with an instance: a plan asks for 7 or 8, a forced count (set_ozaki_moduli) for
// as few as this, so that the table of accuracy against speed on the page reaches below the plan.
constexpr int kFewestModuli = 4;
// The spread the dispatch rung's way through the scheme plans for before it reads the inputs
// (launch_overlapped): normal inputs' two bits (ozaki::spread_bits), so that activations after a
// normalisation need no second pass; uniform ones then keep more bits than they need.
constexpr int kOverlapSpread = 2;

std::string tile() {
  return wgmma_tile(kBM, kBN, kBK, kStages, "_int8");
}

// The error bound of the rung's precision model (registry): the scaled integers are off by at
// most 2^-beta times their row's (column's) largest magnitude, beta at least least_plan(K)'s (the
// plan's, or a forced count's): the inputs' spread only adds bits (ozaki::checked_scales).
double scaled_error(int64_t K) { return ozaki::scaled_error(K); }

bool supports(const GemmArgs& a, std::string* why) {
  if (!fits_int32(a, why) || !grid_ok(ceil_div64(a.N, kBN), ceil_div64(a.M, kBM), why)) return false;
  // The TMA's coordinates are 32-bit: the residues of every modulus, stacked.
  const int64_t rows = int64_t(ozaki::kMaxModuli) * std::max(ceil_div64(a.M, kBM) * kBM, ceil_div64(a.N, kBN) * kBN);
  if (rows > INT32_MAX) {
    if (why) *why = "M or N above 2^28: the stacked residues exceed the TMA's 32-bit coordinates";
    return false;
  }
  return true;
}

#ifdef SGEMM_SM90A_BUILT
// The K per block of the fused pre-pass for rows Kp long (a multiple of kBK), the fewest blocks
// (at most kMaxCluster) that hold Kp in chunks of kFuseChunk or more; 0 past kMaxCluster x
// kMaxFuseChunk, where the pre-pass is rung 31's two passes.
int fuse_chunk(int64_t Kp) {
  const int64_t blocks = std::min<int64_t>(kMaxCluster, ceil_div64(Kp, kFuseChunk));
  const int64_t chunk = ceil_div64(ceil_div64(Kp, blocks), kBK) * kBK;
  return chunk <= kMaxFuseChunk ? int(chunk) : 0;
}

// The fused pre-pass over one operand's L lines (rows of op(A) or columns of op(B)), each K long,
// read from X in place: along its rows where they are the lines (kMajor), else down its columns.
template <int NMod>
Status fused_lines(const float* X, int64_t ld, bool kMajor, int64_t L, int64_t K, int beta, int chunk, int64_t Lp,
                   int64_t Kp, int* shift, int* spread, signed char* res, cudaStream_t stream, std::string* why) {
  auto kernel = !kMajor                ? sgemm_32_fused_prepass<NMod, false, false>
                : rows_aligned(X, ld) ? sgemm_32_fused_prepass<NMod, true, true>
                                      : sgemm_32_fused_prepass<NMod, true, false>;
  constexpr int kMaxSmem = kFuseLines * (kMaxFuseChunk + kFusePad) * int(sizeof(float));
  if (const Status s = prepare(kernel, kFuseThreads, kMaxSmem, nullptr, why); s != Status::kOk) return s;
  const int blocks = int(ceil_div64(Kp, chunk));
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = unsigned(blocks);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(blocks), unsigned(std::min<int64_t>(Lp / kFuseLines, ozaki::kMaxGridY)));
  cfg.blockDim = dim3(kFuseThreads);
  cfg.dynamicSmemBytes = size_t(kFuseLines) * (chunk + kFusePad) * sizeof(float);
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return from_cuda(cudaLaunchKernelEx(&cfg, kernel, int(L), int(K), X, int(ld), chunk, beta, Lp, Kp, shift, spread,
                                      res));
}

// The residues of op(A) and op(B) for NMod moduli at `beta` bits, their scales and the inputs'
// spread (zeroed first), in one fused pass over each operand.
template <int NMod>
Status fused_prepass(const GemmArgs& a, int beta, const ozaki::Scales& sc, signed char* res, int chunk, int64_t Mp,
                     int64_t Np, int64_t Kp, cudaStream_t stream, std::string* why) {
  if (cudaMemsetAsync(sc.spread, 0, sizeof *sc.spread, stream) != cudaSuccess) return launch_status();
  signed char* resA = res;                   // [NMod][Mp][Kp]
  signed char* resB = res + NMod * Mp * Kp;  // [NMod][Np][Kp]
  const Status s = fused_lines<NMod>(a.A, a.lda, !a.transa, a.M, a.K, beta, chunk, Mp, Kp, sc.shiftA, sc.spread,
                                     resA, stream, why);
  if (s != Status::kOk) return s;
  return fused_lines<NMod>(a.B, a.ldb, a.transb, a.N, a.K, beta, chunk, Np, Kp, sc.shiftB, sc.spread, resB, stream,
                           why);
}

// The INT8 GEMMs for NMod moduli, once the residues are written: each unit's product modulo its
// modulus into `scratch` (`next`: the units' counter).
template <int NMod>
Status launch_units(signed char* res, unsigned long long* next, unsigned* scratch, int64_t Mp, int64_t Np, int64_t Kp,
                    cudaStream_t stream, std::string* why) {
  auto kernel = sgemm_32_ordered_units<kBM, kBN, kBK, kStages>;
  KernelInfo info;
  if (const Status s = prepare(kernel, Config::kThreads, Config::kSmemBytes, &info, why); s != Status::kOk) return s;
  signed char* resA = res;                   // [NMod][Mp][Kp]
  signed char* resB = res + NMod * Mp * Kp;  // [NMod][Np][Kp]
  TmaMap mapA, mapB;
  Status s = encode_map(resA, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, NMod * Mp, Kp, kBM, kBK, &mapA, why);
  if (s == Status::kOk) s = encode_map(resB, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, NMod * Np, Kp, kBN, kBK, &mapB, why);
  if (s != Status::kOk) return s;
  if (cudaMemsetAsync(next, 0, sizeof *next, stream) != cudaSuccess) s = launch_status();
  const int tilesM = int(Mp / kBM), tilesN = int(Np / kBN);
  const int64_t tiles = int64_t(tilesM) * tilesN;
  // One block per resident slot, no more than there are units: every block takes units until none is left.
  const int blocks = int(std::min<int64_t>(tiles * NMod, int64_t(info.sms) * info.blocks_per_sm));
  kernel<<<blocks, Config::kThreads, Config::kSmemBytes, stream>>>(int(Kp / kBK), NMod, tilesM, tilesN, mapA, mapB,
                                                                int(Mp), int(Np), next, scratch);
  return launch_status_after(s);
}

// The rebuild of C from the units' residues and the scales, for NMod moduli.
template <int NMod>
Status launch_rebuild(const GemmArgs& a, const ozaki::Scales& sc, const unsigned* scratch, int64_t Mp, int64_t Np,
                      cudaStream_t stream, std::string* why) {
  const bool vec = vec4_ok(a, nullptr);
  auto rebuild = vec ? sgemm_32_rebuild<NMod, true, kBM, kBN, kBK, kStages>
                     : sgemm_32_rebuild<NMod, false, kBM, kBN, kBK, kStages>;
  constexpr int kRebuildThreads = Config::kConsumers * kWarpgroupThreads;
  if (const Status s = prepare(rebuild, kRebuildThreads, 0, nullptr, why); s != Status::kOk) return s;
  const int tilesM = int(Mp / kBM), tilesN = int(Np / kBN);
  const int64_t tiles = int64_t(tilesM) * tilesN;
  rebuild<<<dim3(unsigned(tiles), kRebuildSplit), kRebuildThreads, 0, stream>>>(int(a.M), int(a.N), tilesM, tilesN, a.alpha, sc.shiftA,
                                                          sc.shiftB, a.beta, a.C, int(a.ldc), scratch);
  return launch_status();
}

// The INT8 GEMMs and the rebuild for NMod moduli, once the residues and the scales are written.
template <int NMod>
Status launch_moduli(const GemmArgs& a, const ozaki::Scales& sc, signed char* res, unsigned long long* next,
                     unsigned* scratch, int64_t Mp, int64_t Np, int64_t Kp, cudaStream_t stream, std::string* why) {
  const Status s = launch_units<NMod>(res, next, scratch, Mp, Np, Kp, stream, why);
  return s != Status::kOk ? s : launch_rebuild<NMod>(a, sc, scratch, Mp, Np, stream, why);
}

// The plan and the residues: the fused pre-pass with the moduli a call starts from (a forced count's,
// every modulus for a narrow product, else plan(K)'s), then, unless forced, the spread read back
// (the stream waits) and the plan for it. Inputs whose spread asks for more moduli than that have
// their scales raised and their residues written again by rung 31's pass (A and B read a second
// time); rows longer than fuse_chunk() allows take rung 31's two passes from the start.
Status plan_and_residues(const GemmArgs& a, void* ws, signed char* res, int64_t Mp, int64_t Np, int64_t Kp,
                         cudaStream_t stream, ozaki::Plan* plan, ozaki::Scales* sc, std::string* why) {
  auto two_passes = [&] {  // rung 31's residue pass, for plan->moduli
    return ozaki::with_moduli<kFewestModuli>(plan->moduli, [&](auto n) {
      return ozaki::residues<decltype(n)::value>(a, *sc, res, Mp, res + decltype(n)::value * Mp * Kp, Np, Kp, stream);
    });
  };
  const int chunk = fuse_chunk(Kp);
  if (chunk == 0) {
    const Status s = ozaki::checked_scales(a, ws, stream, sc, plan, why, kFewestModuli);
    return s != Status::kOk ? s : two_passes();
  }
  bool forced = false;
  if (const Status s = ozaki::first_plan(a, kFewestModuli, plan, &forced, why); s != Status::kOk) return s;
  if (!forced && ozaki::narrow(a)) *plan = {ozaki::kMaxModuli, ozaki::max_beta(ozaki::kMaxModuli, a.K)};
  *sc = ozaki::scales_in(ws, a.M, a.N);
  const ozaki::Plan first = *plan;
  Status s = ozaki::with_moduli<kFewestModuli>(first.moduli, [&](auto n) {
    return fused_prepass<decltype(n)::value>(a, first.beta, *sc, res, chunk, Mp, Np, Kp, stream, why);
  });
  if (s != Status::kOk || forced) return s;
  int spread = 0;
  if (s = ozaki::read_spread(*sc, stream, &spread, why); s != Status::kOk) return s;
  if (s = ozaki::plan_for_spread(a, spread, plan, why); s != Status::kOk || plan->moduli == first.moduli) return s;
  s = ozaki::raise_all_scales(a, *sc, plan->beta - first.beta, stream);
  return s != Status::kOk ? s : two_passes();
}

// A page-locked word and an event of this thread on the current device, for a read-back the host
// waits on while later work runs (a copy to pageable memory would wait for the whole stream). Made
// once per thread and device, and kept for the process (4 bytes each).
struct ReadBack {
  int* word = nullptr;
  cudaEvent_t done = nullptr;
};
Status read_back_of(ReadBack* out) {
  thread_local std::map<int, ReadBack> perDevice;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return launch_status();
  auto it = perDevice.find(device);
  if (it == perDevice.end()) {
    ReadBack r;
    if (cudaHostAlloc(&r.word, sizeof *r.word, cudaHostAllocDefault) != cudaSuccess) return launch_status();
    if (cudaEventCreateWithFlags(&r.done, cudaEventDisableTiming) != cudaSuccess) {
      cudaFreeHost(r.word);
      return launch_status();
    }
    it = perDevice.emplace(device, r).first;
  }
  *out = it->second;
  return Status::kOk;
}

// The scheme as the dispatch rung runs it (launch_overlapped): the pre-pass with the plan for inputs
// of kOverlapSpread bits of spread, its INT8 GEMMs queued at once, and the spread read back behind
// them, so that the host waits for the pre-pass alone while the GPU multiplies; the rebuild once the
// plan holds. Inputs that need more bits than that plan keeps are written again and multiplied
// again (the first GEMMs wasted); inputs the plan refuses return kUnsupported before C is written.
Status overlapped(const GemmArgs& a, void* ws, signed char* res, unsigned long long* next, unsigned* scratch,
                  int64_t Mp, int64_t Np, int64_t Kp, int chunk, cudaStream_t stream, std::string* why) {
  const ozaki::Plan first = ozaki::narrow(a) ? ozaki::Plan{ozaki::kMaxModuli, ozaki::max_beta(ozaki::kMaxModuli, a.K)}
                                             : ozaki::plan(a.K, kOverlapSpread);
  const ozaki::Scales sc = ozaki::scales_in(ws, a.M, a.N);
  ReadBack rb;
  Status s = read_back_of(&rb);
  if (s == Status::kOk)
    s = ozaki::with_moduli<kFewestModuli>(first.moduli, [&](auto n) {
      constexpr int N = decltype(n)::value;
      Status t = fused_prepass<N>(a, first.beta, sc, res, chunk, Mp, Np, Kp, stream, why);
      if (t == Status::kOk && (cudaMemcpyAsync(rb.word, sc.spread, sizeof *rb.word, cudaMemcpyDeviceToHost, stream) !=
                                   cudaSuccess ||
                               cudaEventRecord(rb.done, stream) != cudaSuccess))
        t = launch_status();
      return t == Status::kOk ? launch_units<N>(res, next, scratch, Mp, Np, Kp, stream, why) : t;
    });
  if (s != Status::kOk) return s;
  if (cudaEventSynchronize(rb.done) != cudaSuccess) return launch_status();  // the pre-pass alone
  int spread = 0;
  ozaki::Plan plan;
  if (s = ozaki::spread_from_word(*rb.word, &spread, why); s != Status::kOk) return s;
  if (s = ozaki::plan_for_spread(a, spread, &plan, why); s != Status::kOk) return s;
  if (plan.beta <= first.beta)  // the first plan keeps the bits these inputs need (or more)
    return ozaki::with_moduli<kFewestModuli>(first.moduli, [&](auto n) {
      return launch_rebuild<decltype(n)::value>(a, sc, scratch, Mp, Np, stream, why);
    });
  if (s = ozaki::raise_all_scales(a, sc, plan.beta - first.beta, stream); s != Status::kOk) return s;
  return ozaki::with_moduli<kFewestModuli>(plan.moduli, [&](auto n) {
    constexpr int N = decltype(n)::value;
    const Status t = ozaki::residues<N>(a, sc, res, Mp, res + N * Mp * Kp, Np, Kp, stream);
    return t != Status::kOk ? t : launch_moduli<N>(a, sc, res, next, scratch, Mp, Np, Kp, stream, why);
  });
}
#endif

// Workspace: the scales' statistics, then the residues [n][Mp][Kp] of A and [n][Np][Kp] of B,
// then the product's residues (n bytes per output of the padded C), each with room for
// kMaxModuli (n is known once the inputs' spread is), then the units' counter. SIZE_MAX where a
// byte count would pass 64 bits.
namespace {
struct Bytes {
  size_t stats = 0, residues = 0, scratch = 0, total = SIZE_MAX;
};
Bytes workspace_bytes(const GemmArgs& a, int64_t Mp, int64_t Np, int64_t Kp) {
  Bytes b;
  constexpr int64_t kMaxBytes = INT64_MAX / 2;  // no byte count below, nor their sum, passes 64 bits
  if (Mp + Np > kMaxBytes / ozaki::kMaxModuli / Kp || Mp > kMaxBytes / ozaki::kMaxModuli / Np) return b;
  b.stats = ceil_div64(int64_t(ozaki::stats_bytes(a.M, a.N)), kSwizzleAtomBytes) * kSwizzleAtomBytes;
  b.residues = size_t(ozaki::kMaxModuli * (Mp + Np) * Kp);
  b.scratch = size_t(ozaki::kMaxModuli * Mp * Np);
  b.total = b.stats + b.residues + b.scratch + sizeof(unsigned long long);
  return b;
}
}  // namespace

Footprint footprint(const GemmArgs& a) {
  Footprint f;
  f.Mp = ceil_div64(a.M, kBM) * kBM;
  f.Np = ceil_div64(a.N, kBN) * kBN;
  f.Kp = ceil_div64(a.K, kBK) * kBK;
  f.narrow = ozaki::narrow(a);
  // As plan_and_residues starts: a forced count, else every modulus for a narrow product, else plan(K)'s.
  const int planned = ozaki_moduli() == 0 && f.narrow ? ozaki::kMaxModuli : ozaki::least_plan(a.K).moduli;
  f.moduli = std::max(planned, kFewestModuli);
  f.slabs = f.Kp / kBK;
  f.units = int64_t(f.moduli) * (f.Mp / kBM) * (f.Np / kBN);
  f.workspace = workspace_bytes(a, f.Mp, f.Np, f.Kp).total;
  return f;
}

bool available() {
#ifndef SGEMM_SM90A_BUILT
  return false;
#else
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major == 9 && minor == 0;
#endif
}

// The workspace launch() and launch_overlapped() take, and the run of `body` on it.
template <class Body>
Status with_workspace(const GemmArgs& a, cudaStream_t stream, Body&& body) {
  const int64_t Mp = ceil_div64(a.M, kBM) * kBM, Np = ceil_div64(a.N, kBN) * kBN, Kp = ceil_div64(a.K, kBK) * kBK;
  const Bytes b = workspace_bytes(a, Mp, Np, Kp);
  if (b.total == SIZE_MAX) return Status::kOutOfMemory;
  void* ws = nullptr;
  if (const Status s = workspace_alloc(b.total, stream, &ws); s != Status::kOk) return s;
  signed char* res = static_cast<signed char*>(ws) + b.stats;
  unsigned* scratch = reinterpret_cast<unsigned*>(res + b.residues);  // Kp is a multiple of 128: aligned
  auto* next = reinterpret_cast<unsigned long long*>(res + b.residues + b.scratch);  // Mp, Np: multiples of 128
  Status s = body(ws, res, scratch, next, Mp, Np, Kp);
  if (const Status f = workspace_free(ws, stream); s == Status::kOk) s = f;
  return s;
}

Status launch_overlapped(const GemmArgs& a, cudaStream_t stream, std::string* why) {
#ifndef SGEMM_SM90A_BUILT
  (void)a;
  (void)stream;
  return refuse_without_sm90a(why);  // hopper.cuh
#else
  if (ozaki_moduli() != 0 || fuse_chunk(ceil_div64(a.K, kBK) * kBK) == 0) return launch(a, stream, why);
  if (const Status s = ozaki::refuse_capture(stream, why); s != Status::kOk) return s;
  return with_workspace(a, stream, [&](void* ws, signed char* res, unsigned* scratch, unsigned long long* next,
                                       int64_t Mp, int64_t Np, int64_t Kp) {
    return overlapped(a, ws, res, next, scratch, Mp, Np, Kp, fuse_chunk(Kp), stream, why);
  });
#endif
}

Status launch(const GemmArgs& a, cudaStream_t stream, std::string* why) {
#ifndef SGEMM_SM90A_BUILT
  (void)a;
  (void)stream;
  return refuse_without_sm90a(why);  // hopper.cuh
#else
  // sm_90a code loads on compute capability 9.0 only: elsewhere prepare() reports kArch.
  if (const Status s = ozaki::refuse_capture(stream, why); s != Status::kOk) return s;
  return with_workspace(a, stream, [&](void* ws, signed char* res, unsigned* scratch, unsigned long long* next,
                                       int64_t Mp, int64_t Np, int64_t Kp) {
    ozaki::Scales sc;
    ozaki::Plan plan;
    Status s = plan_and_residues(a, ws, res, Mp, Np, Kp, stream, &plan, &sc, why);
    if (s == Status::kOk)
      s = ozaki::with_moduli<kFewestModuli>(plan.moduli, [&](auto n) {
        return launch_moduli<decltype(n)::value>(a, sc, res, next, scratch, Mp, Np, Kp, stream, why);
      });
    return s;
  });
#endif
}

}  // namespace sgemm::rung32
