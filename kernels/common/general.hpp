// The general call (common/general.cu): what run() does around a rung for the parts of a call
// (layouts, batch, bias) that the rung's launch does not take (Rung::takes). A rung's launch sees
// only what it takes; the rest of GemmArgs is the plain call's. Its copies and its pass over C
// (copy_transposed, update_c) serve the rungs too: here, under common/, with the rest of the host
// machinery that the front door and the rungs share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/launch.hpp"

namespace sgemm {

// How run() runs a call that is not plain on one rung.
struct GeneralPlan {
  bool copyA = false, copyB = false;  // a transposed operand copied row-major (the rung lacks kTakesLayouts)
  bool loop = false;                  // one launch per product (the rung lacks kTakesBatch, batch > 1)
  bool biasPass = false;              // the bias added after the products (the rung lacks kTakesBias)
  // What the rung's launch gets: the copies (rows of whole float4s) at 256-byte-aligned stand-in
  // addresses, which run_general replaces by their places in its workspace; with `loop`, the
  // strides between products and batch as the call has them (product() takes one of them).
  GemmArgs inner;
  int64_t copiesA = 0, copiesB = 0;  // copies made: one per product, or one that every product reads (stride 0)
  size_t offB = 0, bytes = 0;        // B's copies' offset in the workspace, and its size
  bool too_big = false;              // the copies' byte count does not fit 64 bits
};
GeneralPlan plan_general(const Rung& rung, const GemmArgs& args);

// Product i of the plan's inner arguments: pointers moved by i strides, batch 1, strides 0.
GemmArgs product(const GemmArgs& inner, int64_t i);

// The arguments of the rung's first launch for `args` (plain arguments: themselves).
GemmArgs first_launch(const Rung& rung, const GemmArgs& args);

// A call that is not plain, valid, supported (can_run), with M, N, K >= 1 and alpha != 0: the
// copies, the rung's launches, the bias pass.
Status run_general(const Rung& rung, const GemmArgs& args, cudaStream_t stream, std::string* why);

// One pass over C of every product: C = beta * C (+ bias) with `scale` (K = 0 or alpha = 0; beta = 0
// writes without reading C), C += bias without it (the bias pass).
Status update_c(const GemmArgs& args, bool scale, cudaStream_t stream);

}  // namespace sgemm
