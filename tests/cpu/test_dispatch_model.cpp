// The dispatch rung's cost model (kernels/dispatch/model.cpp) on the CPU: the build's measured
// constants on an H200 described by hand (its SMs, peaks and the blocks each candidate's kernels
// keep resident), no GPU needed. Its picks on each class of shape are the ones the model made on
// the GPU before it moved out of the rung file (the suite's "kernel chosen" column,
// docs/rungs/30_auto.md), and its predictions are finite where a candidate runs and never fall
// as the work grows.
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "dispatch/model.hpp"
#include "dispatch/tensor.hpp"
#include "ffma/17_any_layout.hpp"

namespace {

using namespace sgemm::rung30;

// An H200: 132 SMs, its FP32 and DRAM peaks, its L2 (60 MiB, as the driver reports it), and the
// blocks of each candidate's kernels an SM holds (the same with 32-bit and 128-bit accesses): from
// the registers and shared memory of this build's sm_90 kernels (tools/cuobjdump.sh -res-usage),
// the capstone's as its launch bounds ask.
constexpr int kFewRowsBlocks = 2, kFewColsBlocks = 2, kSmallBlocks = 3, kSplitKSmallBlocks = 4, kShortKBlocks = 4;
Device h200() {
  Device d;
  d.sms = 132;
  d.rates = {66908.2e9, 4814.3e9, 132};
  d.overlap = true;
  d.l2Bytes = 60.0 * 1024 * 1024;
  const int blocks[kCandidates] = {sgemm::rung17::min_blocks_per_sm(), kFewRowsBlocks, kFewColsBlocks, kSmallBlocks,
                                   kSplitKSmallBlocks, kFewRowsBlocks, 0, 0, kShortKBlocks};
  for (size_t c = 0; c < kCandidates; ++c) d.blocks[c][0] = d.blocks[c][1] = blocks[c];
  d.cutBlocks[0] = d.cutBlocks[1] = sgemm::rung17::min_blocks_per_sm();
  return d;
}

// M x N x K, contiguous rows (leading dimensions K, N, N) from 256-byte-aligned addresses, beta 0.
sgemm::GemmArgs shape(int64_t M, int64_t N, int64_t K) {
  sgemm::GemmArgs a;
  a.M = M, a.N = N, a.K = K, a.lda = K, a.ldb = N, a.ldc = N;
  a.A = reinterpret_cast<const float*>(uintptr_t{1} << 20);
  a.B = reinterpret_cast<const float*>(uintptr_t{1} << 36);
  a.C = reinterpret_cast<float*>(uintptr_t{1} << 40);
  a.alpha = 1.0f, a.beta = 0.0f;
  return a;
}

std::string picked(const sgemm::GemmArgs& a) {
  const Device d = h200();
  const Constants k = tuned_constants();
  const size_t c = choose(a, false, d, k);
  if (kCandidateList[c].kind != Kind::kRepack) return kCandidateList[c].name;
  return std::string("repack+") + kCandidateList[model_terms(int(c), a, d, k).inner].name;
}

TEST(DispatchModelOnCpu, PicksPerClassOfShape) {
  EXPECT_EQ(picked(shape(1, 4096, 4096)), "gemv");              // decode, batch 1
  EXPECT_EQ(picked(shape(8, 4096, 4096)), "gemv");              // decode, a few rows
  EXPECT_EQ(picked(shape(16, 128256, 4096)), "gemv");           // vocabulary projection, 16 tokens
  // decode, 32 rows: the 32-row tile, split along K or not: the two are within a few percent
  // and the calibration decides between them
  EXPECT_TRUE(picked(shape(32, 4096, 4096)) == "split_k_rows" || picked(shape(32, 4096, 4096)) == "few_rows");
  EXPECT_EQ(picked(shape(64, 14336, 4096)), "few_rows");        // few rows
  // few tile rows: the 32x256 and the 128x64 tile are within a few percent; the calibration decides
  EXPECT_TRUE(picked(shape(128, 4096, 4096)) == "few_cols" || picked(shape(128, 4096, 4096)) == "few_rows");
  EXPECT_EQ(picked(shape(65536, 64, 1024)), "few_cols");        // few columns
  EXPECT_EQ(picked(shape(64, 64, 65536)), "split_k");           // a reduction over a long K
  EXPECT_EQ(picked(shape(2048, 64, 2048)), "split_k");          // small, split-K
  EXPECT_EQ(picked(shape(128, 128, 128)), "small");             // small
  EXPECT_EQ(picked(shape(1024, 1024, 80)), "small");
  EXPECT_EQ(picked(shape(4096, 4096, 16)), "short_k");          // a K of one 16-deep slab
  EXPECT_EQ(picked(shape(8192, 1024, 8)), "short_k");
  EXPECT_EQ(picked(shape(2048, 6144, 4096)), "capstone");       // the capstone
  EXPECT_EQ(picked(shape(8192, 8192, 8192)), "capstone");
  // Ragged rows: repack. C keeps its ragged rows, which the capstone stores a float at a time
  // (tile32_ns), so the few-rows tile runs on the copies, as on both GPUs at a6d4010 (at 2048 x
  // 50257 x 768 predicted 25% fast there: rung 30's page).
  EXPECT_EQ(picked(shape(3001, 2999, 997)), "repack+few_rows");
  EXPECT_EQ(picked(shape(2048, 50257, 768)), "repack+few_rows");
  EXPECT_EQ(picked(shape(1023, 1023, 1023)), "few_cols");       // ragged, too short to repack
}

TEST(DispatchModelOnCpu, PredictionsAreFiniteWhereACandidateRuns) {
  const Device d = h200();
  const Constants k = tuned_constants();
  for (const sgemm::GemmArgs& a : {shape(1, 4096, 4096), shape(32, 4096, 4096), shape(1023, 1023, 1023),
                                   shape(4096, 4096, 4096), shape(64, 64, 65536)})
    for (int c = 0; c < candidate_count(); ++c) {
      const double ns = predict_ns(c, a, d, k);
      if (!model_terms(c, a, d, k).runs || !offered(c, a, k)) {  // or not calibrated here, or K past its maxK
        EXPECT_TRUE(std::isinf(ns)) << candidate_name(c);
        continue;
      }
      EXPECT_TRUE(std::isfinite(ns)) << candidate_name(c) << " " << a.M << "x" << a.N << "x" << a.K;
      EXPECT_GT(ns, 0.0) << candidate_name(c);
    }
  Constants without = k;  // a calibration measured before a candidate existed leaves it out
  without.costs[kShortK] = Cost{};
  EXPECT_TRUE(std::isinf(predict_ns(kShortK, shape(4096, 4096, 16), d, without)));
  EXPECT_NE(choose(shape(4096, 4096, 16), false, d, without), size_t(kShortK));
  Constants noLaunch = k;  // a fit that puts a tile's launch at 0 leaves it calibrated
  noLaunch.costs[kCapstone].launch_ns = 0;
  EXPECT_TRUE(offered(kCapstone, shape(8192, 8192, 8192), noLaunch));
  EXPECT_TRUE(offered(kShortK, shape(4096, 4096, 16), k));  // its one slab
  EXPECT_FALSE(offered(kShortK, shape(4096, 4096, 17), k));
  EXPECT_TRUE(std::isinf(predict_ns(kShortK, shape(4096, 4096, 130), d, k)));
  // A whole tile's start and end: once per tile the busiest block runs, whatever K.
  EXPECT_DOUBLE_EQ(model_terms(kSmall, shape(4096, 4096, 16), d, k).tiles, double((64 * 64 + 395) / 396));
  Constants withTile = k;
  withTile.costs[kSmall].tile_ns = 1000;
  EXPECT_NEAR(predict_ns(kSmall, shape(4096, 4096, 16), d, withTile) - predict_ns(kSmall, shape(4096, 4096, 16), d, k) -
                  (withTile.costs[kSmall].tile_ns - k.costs[kSmall].tile_ns) * 11.0, 0.0, 1e-6);
  // What an unaligned C adds to a tile's start and end: charged per tile where C's rows are not
  // 16-byte aligned, whatever A's and B's, never where they are.
  Constants with32 = k;
  with32.costs[kSmall].tile32_ns = k.costs[kSmall].tile32_ns + 500;
  sgemm::GemmArgs oddC = shape(4096, 4096, 16);
  oddC.ldc = 4097;
  const Terms oddTerms = model_terms(kSmall, oddC, d, k);
  ASSERT_TRUE(oddTerms.unalignedC);
  EXPECT_NEAR(predict_ns(kSmall, oddC, d, with32) - predict_ns(kSmall, oddC, d, k) - 500 * oddTerms.tiles, 0.0, 1e-6);
  sgemm::GemmArgs oddA = shape(4096, 4096, 16);
  oddA.lda = 17;
  EXPECT_DOUBLE_EQ(predict_ns(kSmall, oddA, d, with32), predict_ns(kSmall, oddA, d, k));
  EXPECT_DOUBLE_EQ(predict_ns(kSmall, shape(4096, 4096, 16), d, with32), predict_ns(kSmall, shape(4096, 4096, 16), d, k));
  EXPECT_FALSE(model_terms(kGemv, shape(33, 4096, 4096), d, k).runs);      // the GEMV serves M <= 32
  EXPECT_FALSE(model_terms(kRepack, shape(1024, 1024, 1024), d, k).runs);  // nothing to repack
  EXPECT_TRUE(model_terms(kRepack, shape(1023, 1023, 1023), d, k).runs);
  EXPECT_FALSE(model_terms(kFewRows, shape(64, 64, 64), Device{}, k).runs);  // no kernel fits: no tiles
}

// A general call: op(B) = B^T at decode sizes (nn.Linear's layout) takes the GEMV that reads B
// along K; a large one copies B^T to K x N rows first (repack), where the copy costs less than
// the in-place loop's slower slabs; a batch never goes to a candidate that runs one product
// (split-K, repack), nor to the GEMV of op(B) = B.
TEST(DispatchModelOnCpu, GeneralCallsGoToCandidatesThatTakeThem) {
  const Device d = h200();
  const Constants k = tuned_constants();
  auto nt = [](int64_t M, int64_t N, int64_t K) {
    sgemm::GemmArgs a = shape(M, N, K);
    a.transb = true, a.ldb = K;
    return a;
  };
  EXPECT_EQ(picked(nt(1, 4096, 4096)), "gemv");
  EXPECT_EQ(picked(nt(16, 128256, 4096)), "gemv");
  EXPECT_FALSE(model_terms(kGemv, nt(17, 4096, 4096), d, k).runs);  // op(B) = B^T: M <= 16
  EXPECT_EQ(picked(nt(8192, 8192, 8192)), "repack+capstone");
  EXPECT_EQ(picked(nt(4096, 4096, 4096)), "repack+capstone");
  EXPECT_TRUE(model_terms(kRepack, nt(4096, 4096, 4096), d, k).repacked.plain()) << "NN on the copy";
  // Where the copy of B is large beside the product, the tiles read B^T in place.
  for (const sgemm::GemmArgs& a : {nt(32, 4096, 4096), nt(64, 14336, 4096), nt(24, 4096, 4096)})
    EXPECT_NE(candidate_name(int(choose(a, false, d, k))), std::string("repack")) << a.M << "x" << a.N << "x" << a.K;
  // The model's price of the copy: B's bytes read and written once.
  EXPECT_DOUBLE_EQ(model_terms(kRepack, nt(4096, 4096, 4096), d, k).moveBytes, 8.0 * 4096 * 4096);
  sgemm::GemmArgs batched = shape(64, 64, 64);
  batched.batch = 512, batched.strideA = batched.strideB = batched.strideC = 64 * 64;
  sgemm::GemmArgs biased = shape(3001, 2999, 997);
  biased.bias = reinterpret_cast<const float*>(uintptr_t{1} << 44);
  sgemm::GemmArgs ragged_nt = nt(3001, 2999, 997);
  for (const sgemm::GemmArgs& a : {batched, biased, ragged_nt, nt(64, 64, 65536)}) {
    for (size_t c : {size_t(kSplitKSmall), size_t(kSplitKRows), size_t(kRepack)})
      if (a.batch > 1) EXPECT_FALSE(model_terms(int(c), a, d, k).runs) << candidate_name(int(c));
    EXPECT_TRUE(std::isfinite(predict_ns(int(choose(a, false, d, k)), a, d, k)));
  }
  EXPECT_TRUE(model_terms(kRepack, ragged_nt, d, k).runs);  // one product: B^T copied, the bias kept
  // TT with odd sizes: repack copies A as it lies (K x M, rows made whole float4s; still op(A) =
  // A^T), B^T to K x N rows and C, so the tiles on the copies read and store with 128-bit accesses.
  sgemm::GemmArgs tt = nt(999, 1537, 513);
  tt.transa = true, tt.lda = 999;
  const Terms r = model_terms(kRepack, tt, d, k);
  ASSERT_TRUE(r.runs);
  EXPECT_TRUE(r.repacked.transa && !r.repacked.transb);
  EXPECT_EQ(r.repacked.lda, 1000);
  EXPECT_EQ(r.repacked.ldb, 1540);
  EXPECT_EQ(r.repacked.ldc, 1540);
  EXPECT_DOUBLE_EQ(r.moveBytes, 8.0 * (513.0 * 999 + 513.0 * 1537 + 999.0 * 1537));
  EXPECT_TRUE(sgemm::rung30::tiles_vec(r.repacked));
  EXPECT_TRUE(model_terms(kRepack, biased, d, k).runs);
  EXPECT_FALSE(model_terms(kGemv, [] {
                 sgemm::GemmArgs a = shape(1, 4096, 4096);
                 a.batch = 2, a.strideA = 4096, a.strideB = 4096 * 4096, a.strideC = 4096;
                 return a;
               }(), d, k).runs);
  // A batch of whole tiles costs more than one of its products.
  EXPECT_GT(predict_ns(kSmall, batched, d, k), predict_ns(kSmall, shape(64, 64, 64), d, k));
}

// The layouts' slab factors and tile costs are each candidate's own where its calibration measured
// them; where it did not (a header older than them), every candidate takes the capstone's fixed
// factors. The narrow-N GEMV is priced at its own FLOP rates where measured, else the rows GEMV's.
TEST(DispatchModelOnCpu, LayoutsAndTheNarrowGemvArePricedByTheirOwnConstants) {
  const Device d = h200();
  Constants k = tuned_constants();
  sgemm::GemmArgs nt = shape(512, 4096, 4096), tn = nt, tt = nt;
  nt.transb = true, nt.ldb = 4096;
  tn.transa = true, tn.lda = 512;
  tt.transa = tt.transb = true, tt.lda = 512, tt.ldb = 4096;
  const Cost old{};  // no layout factors measured
  EXPECT_DOUBLE_EQ(layout_factor(old, shape(512, 4096, 4096)), 1.0);
  EXPECT_DOUBLE_EQ(layout_factor(old, nt), 1.0 / 0.875);
  EXPECT_DOUBLE_EQ(layout_factor(old, tn), 1.0 / 0.97);
  EXPECT_DOUBLE_EQ(layout_factor(old, tt), 1.0 / 0.875);
  Cost measured{};
  measured.transa = 1.05, measured.transb = 1.3;
  EXPECT_DOUBLE_EQ(layout_factor(measured, shape(512, 4096, 4096)), 1.0);
  EXPECT_DOUBLE_EQ(layout_factor(measured, nt), 1.3);
  EXPECT_DOUBLE_EQ(layout_factor(measured, tn), 1.05);
  EXPECT_DOUBLE_EQ(layout_factor(measured, tt), 1.05 * 1.3);
  // A layout's tile cost is charged once per whole tile, only in that layout.
  for (Cost& c : k.costs) c.tileta_ns = c.tiletb_ns = 0;
  Constants tiled = k;
  tiled.costs[kSmall].tiletb_ns = 700, tiled.costs[kSmall].tileta_ns = 300;
  sgemm::GemmArgs batched = nt;  // whole tiles in waves
  batched.M = batched.N = 512, batched.K = 64, batched.ldb = 64, batched.batch = 32;
  batched.strideA = 512 * 64, batched.strideB = 512 * 64, batched.strideC = 512 * 512;
  const Terms bt = model_terms(kSmall, batched, d, k);
  ASSERT_GT(bt.tiles, 0.0);
  EXPECT_NEAR(predict_ns(kSmall, batched, d, tiled) - predict_ns(kSmall, batched, d, k), 700 * bt.tiles, 1e-6);
  sgemm::GemmArgs batchedTt = batched;
  batchedTt.transa = true, batchedTt.lda = 512;
  EXPECT_NEAR(predict_ns(kSmall, batchedTt, d, tiled) - predict_ns(kSmall, batchedTt, d, k),
              1000 * model_terms(kSmall, batchedTt, d, k).tiles, 1e-6);
  sgemm::GemmArgs batchedNn = batched;
  batchedNn.transb = false, batchedNn.ldb = 512;
  EXPECT_DOUBLE_EQ(predict_ns(kSmall, batchedNn, d, tiled), predict_ns(kSmall, batchedNn, d, k));
  // The narrow-N form (N <= 16, a tall A) at its own rates; the rows GEMV keeps the rows' rates.
  const sgemm::GemmArgs narrow = shape(16384, 16, 8192), rows = shape(16, 16384, 8192);
  const Terms nterms = model_terms(kGemv, narrow, d, k);
  ASSERT_TRUE(nterms.runs && nterms.gemvNarrow);
  EXPECT_FALSE(model_terms(kGemv, rows, d, k).gemvNarrow);
  Constants slow = k;
  slow.gemvNarrowFlopsPerNs.assign(kGemvGroups, 1000.0);
  EXPECT_DOUBLE_EQ(gemv_rate(nterms, slow), 1000.0);
  EXPECT_DOUBLE_EQ(gemv_rate(model_terms(kGemv, rows, d, k), slow), k.gemvFlopsPerNs[4]);
  EXPECT_GT(predict_ns(kGemv, narrow, d, slow), predict_ns(kGemv, narrow, d, k));
  EXPECT_DOUBLE_EQ(predict_ns(kGemv, rows, d, slow), predict_ns(kGemv, rows, d, k));
  Constants none = k;  // a header older than the narrow rates: the rows' stand in
  none.gemvNarrowFlopsPerNs.assign(kGemvGroups, 0.0);
  EXPECT_DOUBLE_EQ(gemv_rate(nterms, none), k.gemvFlopsPerNs[size_t(nterms.gemvGroup)]);
}

// B read again from memory: where op(B) passes L2 and the rows of tiles outnumber what one wave
// covers, each pass over B is a new read, priced per MB by the candidate's own constant.
TEST(DispatchModelOnCpu, BReadAgainIsPricedWhereItPassesL2) {
  constexpr double kL2 = 50e6;
  const int64_t slots = 132 * kFewRowsBlocks;
  const sgemm::GemmArgs vocab = shape(2048, 50257, 768);  // B 154 MB; 64 rows of 197 few_rows tiles
  const double bMB = 4.0 * 768 * 50257 / 1e6;
  EXPECT_NEAR(restream_mb(vocab, 32, 256, slots, kL2), (64.0 * 197.0 / double(slots) - 1.0) * bMB, 1e-6);
  // More tiles a row than slots: a pass a row of tiles.
  EXPECT_NEAR(restream_mb(shape(256, 131072, 512), 32, 256, slots, kL2), 7.0 * 4.0 * 512 * 131072 / 1e6, 1e-6);
  EXPECT_EQ(restream_mb(shape(2048, 4096, 768), 32, 256, slots, kL2), 0.0);  // B (12.6 MB) stays in L2
  EXPECT_EQ(restream_mb(shape(32, 50257, 768), 32, 256, slots, kL2), 0.0);   // one row of tiles: one pass
  EXPECT_EQ(restream_mb(vocab, 32, 256, slots, 0.0), 0.0);                   // L2 unknown
  Device d = h200();
  d.l2Bytes = kL2;
  Constants k = tuned_constants();
  for (Cost& c : k.costs) c.restream_ns = 0;
  Constants priced = k;
  priced.costs[kFewRows].restream_ns = 100;
  const Terms t = model_terms(kFewRows, vocab, d, k);
  ASSERT_GT(t.restreamMB, 0.0);
  const double base = predict_ns(kFewRows, vocab, d, k);
  EXPECT_NEAR(predict_ns(kFewRows, vocab, d, priced) - base, 100 * t.restreamMB, 1e-9 * base);
  EXPECT_DOUBLE_EQ(predict_ns(kFewCols, vocab, d, priced), predict_ns(kFewCols, vocab, d, k));  // its own constant
  // Split-K and batched tiles have none.
  EXPECT_EQ(model_terms(kSplitKRows, shape(64, 65536, 8192), d, k).restreamMB, 0.0);
  sgemm::GemmArgs batched = vocab;
  batched.batch = 2, batched.strideA = 2048 * 768, batched.strideB = 768 * 50260, batched.strideC = 2048 * 50257;
  EXPECT_EQ(model_terms(kFewRows, batched, d, k).restreamMB, 0.0);
  // On a GPU with twice the memory bandwidth, a MB read again costs half.
  const sgemm::DeviceRates calibrated{66908.2e9, 4814.3e9, 132}, faster{66908.2e9, 2 * 4814.3e9, 132};
  EXPECT_DOUBLE_EQ(scale_constants(priced, faster, calibrated).costs[kFewRows].restream_ns, 50.0);
}

// The header holds one calibration per GPU measured: a GPU takes its own by name; one it does not
// list takes the calibration whose DRAM peak is nearest (then scaled by its own peaks).
TEST(DispatchModelOnCpu, EachGpuTakesItsOwnCalibration) {
  ASSERT_GE(calibration_count(), 1);
  std::set<std::string> names;
  for (int i = 0; i < calibration_count(); ++i) {
    EXPECT_TRUE(names.insert(calibration_gpu(i)).second) << "one entry per GPU: " << calibration_gpu(i);
    EXPECT_GT(calibration_rates(i).dram_bytes, 0.0);
    EXPECT_GT(calibration_rates(i).fp32_flops, 0.0);
    EXPECT_FALSE(std::string(calibration_date(i)).empty());
    EXPECT_EQ(calibration_for(calibration_gpu(i), sgemm::DeviceRates{}), i);
    EXPECT_EQ(calibration_for("a GPU no calibration names", calibration_rates(i)), i);
    EXPECT_GT(tuned_constants(i).bytesPerNs, 0.0);
  }
}

TEST(DispatchModelOnCpu, PredictionsGrowWithTheWork) {
  const Device d = h200();
  const Constants k = tuned_constants();
  // Along K (more slabs of the same tiles) and along N for the GEMV (more of B to read): the
  // prediction never falls. The floor of every prediction is the bytes it must move.
  for (int c : {int(kCapstone), int(kFewRows), int(kFewCols), int(kSmall), int(kGemv)}) {
    double before = 0;
    for (int64_t K = 256; K <= 16384; K *= 2) {
      const double ns = predict_ns(c, shape(c == int(kGemv) ? 8 : 1024, 4096, K), d, k);
      EXPECT_GE(ns, before) << candidate_name(c) << " K " << K;
      before = ns;
    }
  }
  double before = 0;
  for (int64_t N = 1024; N <= 131072; N *= 2) {
    const double ns = predict_ns(kGemv, shape(1, N, 4096), d, k);
    EXPECT_GE(ns, before) << "gemv N " << N;
    EXPECT_GE(ns, 4.0 * 4096.0 * double(N) / k.bytesPerNs);  // B read once, at best
    before = ns;
  }
  // Repack costs its copies on top of what runs on them.
  const sgemm::GemmArgs odd = shape(3001, 2999, 997);
  const Terms t = model_terms(kRepack, odd, d, k);
  ASSERT_TRUE(t.runs);
  EXPECT_GT(predict_ns(kRepack, odd, d, k), predict_ns(t.inner, t.repacked, d, k));
}

// The transposed-B GEMV's K split (gemv_t_split): a power of two up to the block's warps; each warp
// still walks 8 k steps of 128 floats (128-bit loads) or 4 (single floats); a block's reads of the
// few rows from L2 stay within twice the bytes of B it streams; and the split is the largest that
// keeps all three (doubling it would break one).
TEST(DispatchModelOnCpu, GemvTSplitKeepsWalksLongAndL2ReadsBounded) {
  constexpr int kWarps = 8, kSpan = 128;
  for (const auto& [MT, CT] : {std::pair{1, 1}, {2, 1}, {4, 1}, {8, 2}, {16, 4}})
    for (const bool vec : {false, true})
      for (int64_t K = 1; K <= 65536; K = K * 3 / 2 + 1) {
        const int steps = vec ? 8 : 4;
        const int s = gemv_t_split(K, vec, MT, CT, kWarps);
        SCOPED_TRACE("MT " + std::to_string(MT) + " vec " + std::to_string(vec) + " K " + std::to_string(K));
        ASSERT_TRUE(s >= 1 && s <= kWarps && (s & (s - 1)) == 0);
        if (s > 1) {
          EXPECT_GE(K, int64_t(s) * steps * kSpan);   // every warp walks its steps
          EXPECT_LE(s * MT, 2 * kWarps * CT);          // L2 reads of op(A) <= 2 x B's bytes
        }
        const bool wider = 2 * s <= kWarps && K >= int64_t(2 * s) * steps * kSpan && 2 * s * MT <= 2 * kWarps * CT;
        EXPECT_FALSE(wider);  // the largest such split
      }
  // Measured points (rung 30's page): 8192x16x8192 splits over 4 warps, not 8; a 4096-deep decode row over 4.
  EXPECT_EQ(gemv_t_split(8192, true, 16, 4, kWarps), 4);
  EXPECT_EQ(gemv_t_split(4096, true, 1, 1, kWarps), 4);
  EXPECT_EQ(gemv_t_split(1024, true, 16, 4, kWarps), 1);
  EXPECT_EQ(gemv_t_split(4096, false, 1, 1, kWarps), 8);
}


// The tensor path's model (dispatch/tensor.hpp): units in waves of one per SM, the pre-pass's bytes
// (A and B read, eight-bit residues of the padded operands written per modulus), the rebuild's (the
// product's residues read, C written, read again for beta, twice more for the bias pass).
TEST(DispatchTensorModelOnCpu, TermsAndPrediction) {
  float* p = reinterpret_cast<float*>(uintptr_t{256});  // 16-byte-aligned stand-ins: nothing runs
  sgemm::GemmArgs a{1000, 3000, 500, 1.0f, p, 500, p, 3000, 0.0f, p, 3000};
  sgemm::rung32::Footprint f;
  f.moduli = 7;
  f.Mp = 1024, f.Np = 3072, f.Kp = 512;
  f.units = 7 * 8 * 12;
  f.slabs = 4;
  const tensor::Terms t = tensor::terms(a, f, 132);
  EXPECT_DOUBLE_EQ(t.waves, 6.0);  // 672 units over 132 SMs
  EXPECT_DOUBLE_EQ(t.slabs, 24.0);
  EXPECT_DOUBLE_EQ(t.prepassBytes, 4.0 * 4000 * 500 + 7.0 * 4096 * 512);
  EXPECT_DOUBLE_EQ(t.rebuildBytes, 7.0 * 1024 * 3072 + 4.0 * 1000 * 3000);
  EXPECT_DOUBLE_EQ(t.unalignedBytes, 0.0);
  sgemm::GemmArgs odd = a;
  odd.ldc = 3001;  // C's rows not 16-byte aligned: every byte of both passes is priced again
  const tensor::Terms u = tensor::terms(odd, f, 132);
  EXPECT_DOUBLE_EQ(u.unalignedBytes, u.prepassBytes + u.rebuildBytes);
  a.beta = 1.0f;
  float bias = 0;
  a.bias = &bias;
  EXPECT_DOUBLE_EQ(tensor::terms(a, f, 132).rebuildBytes, 7.0 * 1024 * 3072 + 16.0 * 1000 * 3000);
  const tensor::Cost c{1000, 500, 100, 0.001, 0.002, 0.003};
  EXPECT_DOUBLE_EQ(tensor::predict_ns(t, c),
                   1000 + 24 * 500 + 6 * 100 + 0.001 * t.prepassBytes + 0.002 * t.rebuildBytes);
  EXPECT_DOUBLE_EQ(tensor::predict_ns(u, c) - tensor::predict_ns(t, c), 0.003 * u.unalignedBytes);
}

// Without a GPU that runs rung 32 the path declines every call, and says why; the switches are
// read and set back.
TEST(DispatchTensorModelOnCpu, DeclinesWithoutRung32AndSwitches) {
  const sgemm::GemmArgs a{8192, 8192, 8192};
  if (!sgemm::rung32::available()) EXPECT_FALSE(tensor::declined(a, nullptr, 1e12).empty());
  const bool before = tensor::enabled();
  tensor::set_enabled(!before);
  EXPECT_EQ(tensor::enabled(), !before);
  tensor::set_enabled(before);
  EXPECT_GE(tensor::workspace_budget(), size_t(1) << 20);
}

}  // namespace
