/* SGEMM Ladder — C ABI (the only symbols libsgemm_ladder.so exports).
 *
 * Row-major C = alpha * op(A) * op(B) + beta * C in FP32 (sgemm_ladder_gemm: op(X) = X or X^T,
 * batched, with a bias). sgemm_ladder_run is the plain form, op(X) = X, one product, no bias:
 *   A is M x K with leading dimension lda >= max(1, K)
 *   B is K x N with leading dimension ldb >= max(1, N)
 *   C is M x N with leading dimension ldc >= max(1, N)
 * All pointers are device pointers; `stream` is a cudaStream_t (NULL: the default stream).
 * The call is asynchronous like a kernel launch: errors found before the launch are returned,
 * errors inside the kernel surface at the next synchronisation.
 *
 * Bad input never writes C: every check runs before any GPU work.
 * Kernel ids: 0 is the cuBLAS baseline; the rungs of the CUDA-core track are 1, 2, ...; the
 * tensor-core track starts at 21; 30 ("auto") picks a kernel per shape and takes any valid input.
 * List them with sgemm_ladder_kernel_count() and sgemm_ladder_kernel_id(index). From Python, use the sgemm_ladder package, which declares
 * every argument type (int64_t leading dimensions included).
 */
#ifndef SGEMM_LADDER_H
#define SGEMM_LADDER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. 0 is success; every other value is an error and C was not written. */
enum sgemm_ladder_status {
  SGEMM_LADDER_OK = 0,
  SGEMM_LADDER_ERR_INVALID_SIZE = 1,    /* M, N or K negative */
  SGEMM_LADDER_ERR_INVALID_LD = 2,      /* lda < max(1,K), ldb < max(1,N) or ldc < max(1,N) */
  SGEMM_LADDER_ERR_NULL_POINTER = 3,    /* an operand the call must read or write is NULL */
  SGEMM_LADDER_ERR_SIZE_OVERFLOW = 4,   /* an operand's byte count does not fit in 64 bits */
  SGEMM_LADDER_ERR_UNKNOWN_KERNEL = 5,  /* no kernel with this id */
  SGEMM_LADDER_ERR_UNSUPPORTED = 6,     /* the rung's preconditions fail (alignment, limits) */
  SGEMM_LADDER_ERR_NO_DEVICE = 7,       /* no usable CUDA device */
  SGEMM_LADDER_ERR_ARCH = 8,            /* the kernel was not built for this GPU's architecture */
  SGEMM_LADDER_ERR_OUT_OF_MEMORY = 9,   /* device allocation failed */
  SGEMM_LADDER_ERR_CUDA = 10,           /* any other CUDA runtime error */
  SGEMM_LADDER_ERR_CUBLAS = 11,         /* cuBLAS returned an error (kernel 0) */
  SGEMM_LADDER_ERR_TF32_OVERRIDE = 12,  /* NVIDIA_TF32_OVERRIDE set: the FP32 baseline refuses */
  SGEMM_LADDER_ERR_DEVICE_LIMIT = 13,   /* the GPU's limits (shared memory, registers) are too small */
  /* Added in 0.3.0, with sgemm_ladder_gemm: */
  SGEMM_LADDER_ERR_INVALID_TRANS = 14,  /* transa or transb is not one of 'N', 'n', 'T', 't' */
  SGEMM_LADDER_ERR_INVALID_BATCH = 15   /* batch < 1, a negative stride, or strideC < M*ldc with batch > 1 */
};

/* Run kernel `kernel_id`. Returns 0 on success, a sgemm_ladder_status otherwise. */
int sgemm_ladder_run(int kernel_id, int64_t M, int64_t N, int64_t K, float alpha,
                     const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                     float* C, int64_t ldc, void* stream);

/* C = alpha * op(A) * op(B) + beta * C (+ bias), batched, row-major; op(X) = X ('N'/'n') or X^T ('T'/'t').
 *   op(A) is M x K: A is M x K (lda >= max(1,K)) for 'N', K x M (lda >= max(1,M)) for 'T'.
 *   op(B) is K x N: B is K x N (ldb >= max(1,N)) for 'N', N x K (ldb >= max(1,K)) for 'T'.
 *   C is M x N, ldc >= max(1,N).
 *   batch >= 1 products; matrix i reads A + i*strideA, B + i*strideB, writes C + i*strideC.
 *   strideA, strideB >= 0 (0: every product reads the same operand). strideC >= M*ldc when batch > 1
 *   (products never write the same element); any stride value is ignored when batch == 1.
 *   bias: NULL, or N floats added to every row of every product's C (after alpha/beta), as nn.Linear.
 * With M or N = 0 nothing happens; with K = 0 or alpha = 0, C = beta * C (+ bias) without reading A
 * or B. sgemm_ladder_run(id, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream) is
 * sgemm_ladder_gemm(id, 'N', 'N', M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, NULL, 1, stream).
 * What a kernel does not do itself (SGEMM_LADDER_TAKES_* in its descriptor's `takes`), the library
 * does around it: transposed operands are copied row-major into a workspace first, the batch is a
 * loop of launches, the bias is added by a kernel after the product. Added in 0.3.0. */
int sgemm_ladder_gemm(int kernel_id, char transa, char transb, int64_t M, int64_t N, int64_t K,
                      float alpha, const float* A, int64_t lda, int64_t strideA,
                      const float* B, int64_t ldb, int64_t strideB, float beta,
                      float* C, int64_t ldc, int64_t strideC, const float* bias,
                      int64_t batch, void* stream);

/* A fixed one-line description of a status code ("unknown status" for others). */
const char* sgemm_ladder_status_string(int status);

/* The detail of this thread's last failed call (which operand, which limit), or "". */
const char* sgemm_ladder_last_error(void);

/* The library's version, "MAJOR.MINOR.PATCH". */
const char* sgemm_ladder_version(void);

/* Number of kernels (the baseline and every rung). */
int sgemm_ladder_kernel_count(void);

/* The id of the kernel at `index` (0 .. count-1, in registry order), or -1. */
int sgemm_ladder_kernel_id(int index);

/* The kernel's slug ("07_bank_conflict_free"), or NULL for an unknown id. */
const char* sgemm_ladder_kernel_name(int kernel_id);

/* Added in 0.3.0: the kernel to pass as kernel_id for a name, as the Python package and the PyTorch
 * operators take it: an id ("7", "07") or a slug ("07_bank_conflict_free", "bank_conflict_free");
 * "capstone", the rung the CUDA-core track leads up to; "auto", the dispatch rung (the capstone where
 * the build has none); "auto_cuda_cores", the dispatch rung with SGEMM_LADDER_CUDA_CORES OR-ed in
 * (the capstone where the build has no dispatch rung). -1 for an unknown name
 * (sgemm_ladder_last_error() lists the kernels). */
int sgemm_ladder_kernel_lookup(const char* name);

/* What the registry says about one kernel. Strings are static; never free them. */
typedef struct sgemm_ladder_kernel_desc {
  int id;
  const char* slug;    /* "07_bank_conflict_free" */
  const char* track;   /* "baseline", "cuda-core", "tensor-core", "dispatch" */
  int builds_on;       /* the id of the rung this one started from, or -1 */
  const char* title;   /* short human name */
  const char* lesson;  /* the one thing the rung changes */
  int fp32_accurate;   /* 1: error within FP32's bound; 0: reduced precision (TF32) */
  const char* source;  /* its file under kernels/: "ffma/07_bank_conflict_free.cuh" */
  const char* arch;    /* the oldest GPU architecture it runs on: "sm_80", "sm_90a" */
  const char* kernel;  /* text in the name of the kernel that carries the lesson ("" for cuBLAS) */
  const char* tile;    /* its tile parameters, e.g. "64x256x32_32x128_8x16_s2_u8" */
  /* Added in 0.2.0, after every older field: */
  int capstone;        /* 1 for the one rung the CUDA-core track leads up to (its capstone), else 0 */
  /* Added in 0.3.0, after every older field: */
  int takes;           /* what its kernel does itself in sgemm_ladder_gemm: SGEMM_LADDER_TAKES_* bits */
} sgemm_ladder_kernel_desc;

/* The bits of sgemm_ladder_kernel_desc.takes (added in 0.3.0). A kernel without a bit still runs
 * every call; the library provides what it lacks, at the cost of the copies, launches or pass. */
#define SGEMM_LADDER_TAKES_LAYOUTS 1 /* reads transposed operands in place (no copy first) */
#define SGEMM_LADDER_TAKES_BATCH 2   /* runs the whole batch in one launch (no loop of launches) */
#define SGEMM_LADDER_TAKES_BIAS 4    /* adds the bias in its epilogue (no pass over C after it) */

/* Fill `out` for kernel `kernel_id`. Returns 0, or SGEMM_LADDER_ERR_UNKNOWN_KERNEL /
 * SGEMM_LADDER_ERR_NULL_POINTER. */
int sgemm_ladder_kernel_describe(int kernel_id, sgemm_ladder_kernel_desc* out);

/* Added in 0.3.0: the dispatch rung's tensor path. The dispatch rung (the "auto" kernel) runs rung
 * 32's Ozaki scheme (INT8 tensor cores, FP32-accurate by the contract in docs/design.md) where its
 * model predicts it faster than the CUDA cores, on compute capability 9.0 with an sm_90a build; else,
 * and for inputs the scheme turns back (a NaN or an Inf, a row or column too wide), its FFMA kernels.
 * Both switches below keep it on the FFMA kernels: bitwise the results of those kernels, the same for
 * every batch. */

/* OR-ed into a kernel id: this one call keeps to the CUDA cores (only the dispatch rung has another path). */
#define SGEMM_LADDER_CUDA_CORES 0x10000

/* The process-wide switch: on (1) unless the environment's SGEMM_LADDER_TENSOR_CORES is 0, off or
 * false. Returns the setting before the call. */
int sgemm_ladder_set_tensor_cores(int on);
int sgemm_ladder_tensor_cores(void);

/* The most workspace one call's tensor path may take, in bytes (default 2 GiB, or the environment's
 * SGEMM_LADDER_TENSOR_WORKSPACE_MB); a call that needs more runs on the CUDA cores. bytes < 0 only
 * asks. Returns the budget before the call. */
int64_t sgemm_ladder_set_tensor_workspace(int64_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* SGEMM_LADDER_H */
