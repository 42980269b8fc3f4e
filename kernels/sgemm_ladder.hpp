// SGEMM Ladder — C++ API inside the project (bench, tests, tools): the argument block, status
// codes and the registry of rungs. Not installed: other projects use the C ABI, sgemm_ladder.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "sgemm_ladder.h"

namespace sgemm {

// Row-major C = alpha * op(A) * op(B) + beta * C (+ bias), batched (see sgemm_ladder.h,
// sgemm_ladder_gemm, for the layout rules). The fields after ldc default to the plain call: NN, one
// product, no bias, which is all a rung's launch sees of what its Rung::takes leaves out.
struct GemmArgs {
  int64_t M = 0, N = 0, K = 0;
  float alpha = 1.0f;
  const float* A = nullptr;
  int64_t lda = 0;
  const float* B = nullptr;
  int64_t ldb = 0;
  float beta = 0.0f;
  float* C = nullptr;
  int64_t ldc = 0;
  bool transa = false, transb = false;            // op(A) = A^T / op(B) = B^T
  int64_t batch = 1;                              // products; product i at A + i*strideA, ...
  int64_t strideA = 0, strideB = 0, strideC = 0;  // elements; ignored when batch == 1
  const float* bias = nullptr;                    // N floats, added to every row of C

  // A and B as stored: op(A) = A is M x K, A^T is stored K x M; op(B) = B is K x N, B^T N x K.
  int64_t rowsA() const { return transa ? K : M; }
  int64_t colsA() const { return transa ? M : K; }
  int64_t rowsB() const { return transb ? N : K; }
  int64_t colsB() const { return transb ? K : N; }
  // The plain call (sgemm_ladder_run's): NN, one product, no bias.
  bool plain() const { return !transa && !transb && batch == 1 && bias == nullptr; }
};

enum class Status : int {
  kOk = SGEMM_LADDER_OK,
  kInvalidSize = SGEMM_LADDER_ERR_INVALID_SIZE,
  kInvalidLd = SGEMM_LADDER_ERR_INVALID_LD,
  kNullPointer = SGEMM_LADDER_ERR_NULL_POINTER,
  kSizeOverflow = SGEMM_LADDER_ERR_SIZE_OVERFLOW,
  kUnknownKernel = SGEMM_LADDER_ERR_UNKNOWN_KERNEL,
  kUnsupported = SGEMM_LADDER_ERR_UNSUPPORTED,
  kNoDevice = SGEMM_LADDER_ERR_NO_DEVICE,
  kArch = SGEMM_LADDER_ERR_ARCH,
  kOutOfMemory = SGEMM_LADDER_ERR_OUT_OF_MEMORY,
  kCuda = SGEMM_LADDER_ERR_CUDA,
  kCublas = SGEMM_LADDER_ERR_CUBLAS,
  kTf32Override = SGEMM_LADDER_ERR_TF32_OVERRIDE,
  kDeviceLimit = SGEMM_LADDER_ERR_DEVICE_LIMIT,
  kInvalidTrans = SGEMM_LADDER_ERR_INVALID_TRANS,
  kInvalidBatch = SGEMM_LADDER_ERR_INVALID_BATCH,
};

const char* status_string(Status s);

// How a rung's arithmetic rounds, used by the verifier's element-wise bound
//   |C - C_ref| <= (gamma_{K+2}(u_acc) + e_prod) * |alpha||A||B| + gamma_2(u_acc) * |beta||C|
// FP32 FFMA rungs: u_acc = 2^-24, e_prod = 0. Tensor-core rungs say what their operand
// rounding adds per product (e_prod) and that the MMA unit accumulates with truncation.
struct Precision {
  const char* name;  // "fp32", "3xtf32", "tf32"
  double u_acc;      // unit roundoff of the accumulation
  double e_prod;     // relative error added to each product by operand rounding
  bool fp32_accurate;
  bool inf_exact;    // an infinite input gives the FP64 result (false: +-Inf may come out as NaN)
  // Rungs that scale rows of A and columns of B to integers (the Ozaki scheme): each element is
  // off by up to scaled(K) times its row's (column's) largest magnitude, which adds
  //   scaled(K) * |alpha| * (2 max_k|A_ik| sum_k|B_kj| + sum_k|A_ik| max_k|B_kj|)
  // to the bound. nullptr elsewhere.
  double (*scaled)(int64_t K) = nullptr;
};

// The tracks of the ladder. In a track every rung is a copy of the one before it; the first rung
// of a track says what it starts from (builds_on may name a rung of another track).
enum class Track : int {
  kBaseline = 0,    // cuBLAS, the yardstick
  kCudaCore = 1,    // FFMA on the CUDA cores
  kTensorCore = 2,  // mma.sync / wgmma on the tensor cores
  kDispatch = 3,    // on top: picks a kernel per shape
};
const char* track_name(Track t);  // "baseline", "cuda-core", "tensor-core", "dispatch"

// What a rung's launch takes as it is (Rung::takes, a bit set; the C ABI's SGEMM_LADDER_TAKES_*).
// run() provides what a rung does not take: transposed operands copied row-major into a workspace,
// the batch as a loop of launches, the bias as a pass over C after the product.
constexpr unsigned kTakesLayouts = SGEMM_LADDER_TAKES_LAYOUTS;  // reads op(A), op(B) in place (transa, transb)
constexpr unsigned kTakesBatch = SGEMM_LADDER_TAKES_BATCH;      // the whole batch in one launch
constexpr unsigned kTakesBias = SGEMM_LADDER_TAKES_BIAS;        // adds the bias in its epilogue

// One rung of the ladder. The registry (registry.cu) is the only list of rungs: the CLI, the
// benchmark, the tests, the C ABI, the Python package and the doc generator read it.
struct Rung {
  int id;
  const char* slug;    // "07_bank_conflict_free"
  Track track;
  int builds_on;       // id of the rung this file started as a copy of; -1: none
  const char* source;  // its file, relative to kernels/: "ffma/07_bank_conflict_free.cuh"
  const char* title;   // short human name
  const char* lesson;  // the one thing this rung changes
  const char* arch;    // the oldest GPU architecture it runs on: "sm_70", "sm_80", "sm_90a"
  const char* kernel;  // text in the name of the kernel that carries the lesson (cuobjdump, ncu)
  Precision precision;
  std::string (*tile)();  // its tile parameters as text, e.g. "128x128x8_64x32_8x8"
  // True when the rung can run these arguments; otherwise `why` says which operand and why.
  // Called with null pointers it checks shapes and leading dimensions only.
  bool (*supports)(const GemmArgs& args, std::string* why);
  // Launch on `stream`; arguments are valid, supported, M,N,K >= 1 and alpha != 0. When the
  // device cannot run the rung (kDeviceLimit, kArch), `why` says which limit.
  Status (*launch)(const GemmArgs& args, cudaStream_t stream, std::string* why);
  // For a rung that picks among kernels (the dispatch rung): the name of the one it runs for these
  // arguments, as results record it. nullptr for the others.
  const char* (*choice)(const GemmArgs& args) = nullptr;
  // True for a rung whose kernel reads A and B and writes C itself, with 128-bit accesses where
  // rows start on 16-byte boundaries and a 32-bit path elsewhere: the front door may pack its
  // unaligned operands into aligned copies first (see packs()).
  bool packs_unaligned = false;
  // True for the one rung of the CUDA-core track that the others lead up to: the README's headline,
  // the rung the dispatch rung builds its candidates on, the package's rung when there is no
  // dispatch rung. The registry sets it on the rung ffma/capstone.hpp names (kCapstoneRung), the
  // rung whose kernels the dispatch rung runs; nothing else decides it.
  bool capstone = false;
  // kTakes* bits: what of the general call (layouts, batch, bias) the launch handles itself. Its
  // supports() and launch() see only those; the rest of GemmArgs is the plain call's.
  unsigned takes = 0;
  // For a rung that predicts its own time (the dispatch rung's model): nanoseconds for these
  // arguments on the current device, as results record beside the measured time. nullptr for the others.
  double (*predicted_ns)(const GemmArgs& args) = nullptr;
};

// The registry: the baseline and every rung, in track order (ids ascending).
const std::vector<Rung>& registry();
// The capstone: the registry's one rung with `capstone` set (null only if the table has none).
const Rung* capstone();
// The rung for an id or a slug ("7", "07", "07_bank_conflict_free", "bank_conflict_free"), or null.
const Rung* find_rung(const std::string& id_or_slug);
const Rung* find_rung(int id);

// Check arguments the way BLAS does (sizes, leading dimensions per layout, batch and strides,
// pointers, byte counts including the batch's span), without touching the GPU. `detail` gets a
// one-line message on failure.
Status validate(const GemmArgs& args, std::string* detail);

// The front door: validate, check the rung's preconditions, handle the degenerate cases
// (M or N = 0: nothing; K = 0 or alpha = 0: C = beta * C (+ bias) without reading A or B) and launch.
// A plain call launches the rung as it is; a general one gets what the rung does not take (takes).
Status run(int kernel_id, const GemmArgs& args, cudaStream_t stream = nullptr,
           std::string* detail = nullptr);

// Whether run() runs arguments that validate() accepts (with M, N >= 1) on `rung`: the rung's
// supports() on what the front door hands its launch (a general call the rung does not take
// whole: each product, with the transposed operands' row-major copies). `why` as supports() says
// it. Checks no device; null pointers: shapes and leading dimensions only.
bool can_run(const Rung& rung, const GemmArgs& args, std::string* why);

// The number of moduli of the Ozaki rungs (25-29, 31) and of the benchmark's Ozaki scheme on cuBLAS
// (bench/peers/cublas.hpp): 0, the default, takes what K and the inputs' range ask for (the plan on
// rung 25's page: an error at or below cuBLAS SGEMM's, or a refusal where eight moduli cannot give
// one); n in 1..8 forces n moduli holding as many bits as they can at each K, whatever the error,
// and refuses no inputs for their range: the switch behind rung 31's table of accuracy against
// speed (sgemm_bench --moduli). A rung without an instance for n refuses (kUnsupported; `why` names
// the counts it has). Process-wide. false, and nothing changed, for n outside 0..8.
bool set_ozaki_moduli(int n);
int ozaki_moduli();

// Unaligned operands (a leading dimension that is not a multiple of 4, or a pointer that is not
// 16-byte aligned), for rungs with packs_unaligned: run() copies them to aligned rows in a
// workspace, runs the rung on the copies and copies C back, when the copies move few bytes beside
// the product's arithmetic (kAuto: at the device's DRAM peak they take at most a tenth of the
// product's time at the FP32 peak); kAlways packs whenever an operand is unaligned, kNever never
// (the rung's 32-bit path). Process-wide; kAuto by default.
enum class Packing { kAuto, kAlways, kNever };
void set_packing(Packing p);
Packing packing();
// Whether run() packs for this rung and these arguments, under the current policy and device (for a
// general call, its first product as the front door hands it to the rung).
bool packs(const Rung& rung, const GemmArgs& args);

// The FP32 FFMA lanes of one SM of compute capability major.minor, and the FP32 peak of a device
// (GFLOP/s: lanes x SMs x 2 flops x clock). The one formula the library, bench and tools use.
int fp32_lanes_per_sm(int cc_major, int cc_minor);
double fp32_peak_gflops(int cc_major, int cc_minor, int sm_count, int clock_mhz);

// The number of bytes an operand of `rows` x `cols` with leading dimension `ld` spans,
// or -1 when it overflows 64 bits.
int64_t operand_bytes(int64_t rows, int64_t cols, int64_t ld);

}  // namespace sgemm
