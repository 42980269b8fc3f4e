// =====================================================================================
// SGEMM Ladder — the fault lab: deliberately broken copies of rungs 03 and 06
//
// Each faulty kernel is a real rung (kernels/ffma/03_smem_tiling.cuh, 06_vectorized.cuh) with
// exactly one thing broken, made at build time from the rung file itself: the build tree's
// generated/fault_<kind>_rung<NN>.cuh is the rung with patches/fault_<kind>_rung<NN>.diff applied
// (bench/fault_lab/CMakeLists.txt), so `diff` of the rung and its copy is the fault. The broken
// lines carry a comment `// FAULT: <kind>: ...`; everything else is the rung as it is.
//
//   oob-read   the A-tile load of edge tiles loses its row check: the last block row reads
//              rows past the end of A. Usually silent (the bytes are mapped, and the extra rows
//              only feed outputs that are never stored): compute-sanitizer memcheck finds it.
//   oob-write  the C store of edge tiles loses its bounds check: rows past M are written past
//              the end of C (first the harness's guard region, then beyond the allocation).
//   race       the __syncthreads() between the shared-memory products of slab k and the store
//              of slab k+1 is gone: a write-after-read hazard on sA/sB. racecheck finds it.
//
// This file is the host side: which copy, what it breaks, one launch, verification. Built only
// when SGEMM_LADDER_FAULT_LAB is ON (the debug preset), into sgemm_bench only: never into
// libsgemm_ladder.so, never listed in the registry (tests/fault_lab/ checks both).
// Walkthrough: docs/debugging.md; one command per demonstration: tools/fault_lab.sh.
// =====================================================================================
#include "fault_lab/fault_lab.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include <cuda_runtime.h>

// What the rungs share, included here at namespace scope before the copies, which include it
// again from inside a namespace, where #pragma once makes that include a no-op.
#include "common/common.cuh"
#include "common/launch.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device_info.hpp"
#include "harness/problem.hpp"
#include "harness/verify.hpp"
#include "sgemm_ladder.hpp"

// ---- the faulty copies: each in a namespace named after its kernel --------------------------
//
// Inside sgemm::fault_lab::fault_oob_read_rung06, the copy's own `namespace sgemm::rung06` holds
// its kernel: sgemm::fault_lab::fault_oob_read_rung06::sgemm::rung06::sgemm_06_vectorized<...>.
// So every report names the fault, the six copies and the real rungs never share a name, and the
// copies' code finds the shared helpers (epilogue, load4, ...) in the enclosing namespace sgemm.
// SGEMM_DEVICE_ONLY leaves out each copy's launcher: the fault lab launches the kernels itself.
#define SGEMM_DEVICE_ONLY
namespace sgemm::fault_lab {
namespace fault_oob_read_rung03 {
#include "fault_oob_read_rung03.cuh"
}
namespace fault_oob_write_rung03 {
#include "fault_oob_write_rung03.cuh"
}
namespace fault_race_rung03 {
#include "fault_race_rung03.cuh"
}
namespace fault_oob_read_rung06 {
#include "fault_oob_read_rung06.cuh"
}
namespace fault_oob_write_rung06 {
#include "fault_oob_write_rung06.cuh"
}
namespace fault_race_rung06 {
#include "fault_race_rung06.cuh"
}
}  // namespace sgemm::fault_lab
#undef SGEMM_DEVICE_ONLY

namespace sgemm::fault_lab {

enum class Fault { kOobRead, kOobWrite, kRace };

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
  const char* kernel;  // the faulty copy's name: its namespace, its file, its patch
  KernelFn fn;
  int bm, bn;          // block tile (rows x columns of C per block)
  int bk;              // depth of a K slab
  int block_x, block_y;
  const char* what;    // what exactly is broken
};

// A copy's kernel, tile and block, read from the copy itself, launched as its rung launches it
// (rung 06: the 128-bit path only, kVec = true).
#define SGEMM_FAULT_RUNG03(COPY)                                                                         \
  3, #COPY, COPY::sgemm::rung03::sgemm_03_smem_tiling, COPY::sgemm::rung03::kTile,                       \
      COPY::sgemm::rung03::kTile, COPY::sgemm::rung03::kSlab, COPY::sgemm::rung03::kTile,                \
      COPY::sgemm::rung03::kTile
#define SGEMM_FAULT_RUNG06(COPY)                                                                         \
  6, #COPY,                                                                                              \
      COPY::sgemm::rung06::sgemm_06_vectorized<true, COPY::sgemm::rung06::kBM, COPY::sgemm::rung06::kBN, \
                                               COPY::sgemm::rung06::kBK, COPY::sgemm::rung06::kTM,       \
                                               COPY::sgemm::rung06::kTN>,                                \
      COPY::sgemm::rung06::kBM, COPY::sgemm::rung06::kBN, COPY::sgemm::rung06::kBK,                      \
      COPY::sgemm::rung06::Config::kThreads, 1

const Variant kVariants[] = {
    {Fault::kOobRead, SGEMM_FAULT_RUNG03(fault_oob_read_rung03),
     "block_tile<kGuard=true> and load_slab<kGuard=true>: edge tiles no longer clamp the rows past M "
     "to row 0, and the A-tile load checks the column (ka < K) but no longer the row (row < M)"},
    {Fault::kOobWrite, SGEMM_FAULT_RUNG03(fault_oob_write_rung03),
     "block_tile<kGuard=true>: the C store of edge tiles lost its (row < M && col < N) check: rows "
     "past M go past the end of C, columns past N into the next row"},
    {Fault::kRace, SGEMM_FAULT_RUNG03(fault_race_rung03),
     "block_tile: the __syncthreads() after dot_slab is gone: a warp that finishes slab k early "
     "stores slab k+1 into sA/sB while slower warps still read slab k (write-after-read hazard)"},
    {Fault::kOobRead, SGEMM_FAULT_RUNG06(fault_oob_read_rung06),
     "load_slab<kGuard=true>: edge tiles load A with an unguarded 128-bit load (no gRow < M check)"},
    {Fault::kOobWrite, SGEMM_FAULT_RUNG06(fault_oob_write_rung06),
     "block_tile<kGuard=true>: edge tiles store C with an unguarded 128-bit store: no row < M skip, "
     "no column count: rows past M go past the end of C, columns past N into the next row"},
    {Fault::kRace, SGEMM_FAULT_RUNG06(fault_race_rung06),
     "block_tile: the __syncthreads() after compute_slab is gone: a warp that finishes slab k early "
     "stores slab k+1 into sA/sB while slower warps still read slab k (write-after-read hazard)"},
};

#undef SGEMM_FAULT_RUNG03
#undef SGEMM_FAULT_RUNG06

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
    const int64_t cols = v.rung == 6 ? round_up(s.K, v.bk) : s.K;  // rung 06 reads whole float4s of a slab
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
                (long long)(s.K / v.bk));
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

  std::printf("fault lab: injecting %s into rung %s -> kernel %s (kernels/%s + bench/fault_lab/patches/%s.diff, the "
              "lines marked `// FAULT: %s`)\n",
              kind->name, base->slug, variant->kernel, base->source, variant->kernel, kind->name);
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
