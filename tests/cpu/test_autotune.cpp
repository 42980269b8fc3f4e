// The autotuner's search space: large enough, its pre-compile rules agree with the rung files'
// static_asserts (checked by compiling a small sample with NVRTC, which needs no GPU), and the
// tuned header the build uses holds valid configurations.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "nvrtc_compile.hpp"
#include "space.hpp"
#include "sgemm_ladder.hpp"
#include "tuned/tuned.cuh"

using namespace sgemm::autotune;

namespace {

const std::string kKernels = std::string(SGEMM_SOURCE_DIR) + "/kernels";

Config make(int rung, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int S, int U = 0) {
  Config c;
  c.rung = rung, c.BM = BM, c.BN = BN, c.BK = BK, c.WM = WM, c.WN = WN, c.TM = TM, c.TN = TN, c.Stages = S;
  c.KU = U > 0 ? U : BK;  // rung 10: the whole slab unrolled unless asked
  return c;
}

}  // namespace

TEST(AutotuneSpace, AtLeastAHundredValidConfigurationsPerRung) {
  for (int rung : tunable_rungs()) {
    const auto valid = search_space(rung, Limits{});
    EXPECT_GE(valid.size(), 100u) << "rung " << rung;
    EXPECT_GT(candidates(rung).size(), valid.size()) << "the pre-compile checks must reject something";
  }
}

TEST(AutotuneSpace, TunedHeaderHoldsValidConfigurations) {
  const Limits lim;
  using namespace sgemm::tuned;
  EXPECT_EQ(invalid_reason(make(8, Rung08::BM, Rung08::BN, Rung08::BK, 0, 0, Rung08::TM, Rung08::TN, 0), lim), "");
  EXPECT_EQ(invalid_reason(make(9, Rung09::BM, Rung09::BN, Rung09::BK, Rung09::WM, Rung09::WN, Rung09::TM,
                                Rung09::TN, 0), lim), "");
  EXPECT_EQ(invalid_reason(make(10, Rung10::BM, Rung10::BN, Rung10::BK, Rung10::WM, Rung10::WN, Rung10::TM,
                                Rung10::TN, Rung10::Stages, Rung10::KU), lim), "");
}

TEST(AutotuneSpace, TileTextMatchesTheRegistry) {
  using namespace sgemm::tuned;
  EXPECT_EQ(make(10, Rung10::BM, Rung10::BN, Rung10::BK, Rung10::WM, Rung10::WN, Rung10::TM, Rung10::TN,
                 Rung10::Stages, Rung10::KU).tile(),
            sgemm::find_rung(10)->tile());
  EXPECT_EQ(make(8, Rung08::BM, Rung08::BN, Rung08::BK, 0, 0, Rung08::TM, Rung08::TN, 0).tile(),
            sgemm::find_rung(8)->tile());
}

TEST(AutotuneSpace, CurrentTileKeptUnlessBeatenByMoreThanTheMargin) {
  const std::vector<double> scores = {49187, 49072, 48667};  // finalists, best first
  EXPECT_EQ(pick_winner(scores, 1, 1.0), 1);   // +0.2%: noise, the current tile stays
  EXPECT_EQ(pick_winner(scores, 2, 1.0), 0);   // +1.1%: replaced
  EXPECT_EQ(pick_winner(scores, 1, 0.0), 0);   // no margin: the fastest wins
  EXPECT_EQ(pick_winner(scores, 0, 1.0), 0);   // the current tile is the fastest
  EXPECT_EQ(pick_winner(scores, -1, 1.0), 0);  // not among the finalists
}

TEST(AutotuneSpace, HeaderSaysWhenTheCurrentTileWasKept) {
  RungOutcome o;
  o.winner = make(10, 64, 256, 32, 32, 128, 8, 16, 2, 8);
  o.runner_up = make(10, 256, 128, 32, 32, 128, 8, 16, 4, 16);
  o.winner_gflops = 49072, o.runner_up_gflops = 49187, o.min_gain = 1.0;
  const std::string kept = tuned_header({o}, "test");
  EXPECT_NE(kept.find("winner 64x256x32_32x128_8x16_s2_u8, runner-up 256x128x32_32x128_8x16_s4_u16 "
                      "(faster, but not by more than --min-gain 1.0: the current tile kept)\n"),
            std::string::npos)
      << kept;
  EXPECT_EQ(margin_text(o), "runner-up +0.2%, not more than --min-gain 1.0%: the current tile kept");
  std::swap(o.winner, o.runner_up);
  std::swap(o.winner_gflops, o.runner_up_gflops);
  o.min_gain = -1;
  EXPECT_EQ(margin_text(o), "winner +0.2%");  // the text the tuner prints
  o.runner_up_gflops = 0;
  EXPECT_EQ(margin_text(o), "");
}

// The header under kernels/ holds no measured figure (tests/cpu/test_registry.cpp's rule): the
// margins the tuner prints and the speeds --json records stay out of it, and a record line kept
// from an older header that carried a margin loses it.
TEST(AutotuneSpace, HeaderHoldsNoMeasuredFigure) {
  RungOutcome o;
  o.winner = make(10, 256, 128, 32, 32, 128, 8, 16, 4, 16);
  o.runner_up = make(10, 64, 256, 32, 32, 128, 8, 16, 2, 8);
  o.winner_gflops = 49187, o.runner_up_gflops = 49072;
  o.candidates = 10, o.valid = 9, o.compiled = 8, o.verified = 7;
  RungOutcome old;
  old.winner = make(8, 64, 128, 32, 0, 0, 8, 8, 0);
  old.record = "//   rung 8: 432 candidates, 234 valid, 234 compiled, 227 verified; winner 64x128x32_8x8, "
               "runner-up 128x64x32_8x8 (winner +2.4%)";
  const std::string header = tuned_header({old, o}, "test");
  EXPECT_NE(header.find("//   rung 8: 432 candidates, 234 valid, 234 compiled, 227 verified; winner 64x128x32_8x8, "
                        "runner-up 128x64x32_8x8\n"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("//   rung 10: 10 candidates, 9 valid, 8 compiled, 7 verified; winner "
                        "256x128x32_32x128_8x16_s4_u16, runner-up 64x256x32_32x128_8x16_s2_u8\n"),
            std::string::npos)
      << header;
  for (const char* figure : {"%", "GFLOP", "49187", "49072"})
    EXPECT_EQ(header.find(figure), std::string::npos) << figure << " in\n" << header;
  EXPECT_EQ(record_without_margin("//   rung 9: 1 candidates; winner a, runner-up b (runner-up +0.2%, not more than "
                                  "--min-gain 1.0%: the current tile kept)"),
            "//   rung 9: 1 candidates; winner a, runner-up b");
}

TEST(AutotuneSpace, RejectsWithAReason) {
  const Limits lim;
  EXPECT_NE(invalid_reason(make(9, 128, 128, 8, 64, 64, 8, 8, 0), lim).find("32 thread tiles"), std::string::npos);
  EXPECT_NE(invalid_reason(make(8, 256, 256, 32, 0, 0, 4, 4, 0), lim), "");
  EXPECT_NE(invalid_reason(make(10, 256, 256, 32, 64, 64, 16, 16, 4), lim), "");
}

// Valid configurations compile; configurations that break a rung's static_assert do not.
// A few only: CI never compiles the search space.
TEST(AutotuneSpace, RulesAgreeWithTheRungFilesStaticAsserts) {
  const Limits lim;
  const Config good[] = {make(8, 64, 128, 16, 0, 0, 8, 4, 0), make(9, 128, 64, 16, 32, 64, 8, 8, 0),
                         make(10, 64, 128, 16, 32, 64, 8, 8, 2), make(10, 64, 128, 32, 32, 64, 8, 8, 3, 8)};
  for (const Config& c : good) {
    ASSERT_EQ(invalid_reason(c, lim), "") << c.tile();
    const Compiled k = compile(c, kKernels, "sm_90");
    EXPECT_TRUE(k.ok) << c.name_expression() << "\n" << k.log;
  }
  // Broken divisibility / warp-shape rules: the static_asserts must fire.
  const Config bad[] = {make(9, 128, 128, 8, 64, 64, 8, 8, 0), make(10, 128, 128, 64, 64, 32, 8, 8, 3),
                        make(10, 64, 128, 16, 32, 64, 8, 8, 2, 12)};
  for (const Config& c : bad) {
    ASSERT_NE(invalid_reason(c, lim), "") << c.tile();
    const Compiled k = compile(c, kKernels, "sm_90");
    EXPECT_FALSE(k.ok) << c.name_expression() << " compiled but the space calls it invalid";
    EXPECT_NE(k.log.find("static assertion failed"), std::string::npos) << k.log;
  }
}

// The finalists are rebuilt by nvcc, the library's compiler; its cubin must name the same kernel.
TEST(AutotuneSpace, NvccBuildOfAFinalist) {
  const Config c = make(10, 64, 128, 16, 32, 64, 8, 8, 2);
  const Compiled rtc = compile(c, kKernels, "sm_90");
  ASSERT_TRUE(rtc.ok) << rtc.log;
  const std::string dir = ::testing::TempDir();
  const Compiled nv = compile_nvcc(c, kKernels, "sm_90", rtc.lowered, dir);
  ASSERT_TRUE(nv.ok) << nv.log;
  const std::string cubin(nv.cubin.begin(), nv.cubin.end());
  EXPECT_NE(cubin.find(rtc.lowered), std::string::npos) << "the nvcc cubin lacks " << rtc.lowered;
}

// The tuner compiles each rung's own file, as the registry names it, and its kernel by the
// registry's name.
TEST(AutotuneSpace, RungFilesAndKernelsComeFromTheRegistry) {
  for (int rung : tunable_rungs()) {
    Config c;
    c.rung = rung;
    const sgemm::Rung* r = sgemm::find_rung(rung);
    EXPECT_EQ(c.rung_file(), r->source);
    const std::string kernel = r->kernel;  // "sgemm_08_autotuned<true": the name before '<'
    EXPECT_NE(c.kernel_name().find("::" + kernel.substr(0, kernel.find('<'))), std::string::npos) << c.kernel_name();
    EXPECT_EQ(c.name_expression().rfind(c.kernel_name() + "<true,", 0), 0u) << "the 128-bit instance";
  }
}

// Ranking by the geometric mean over the sizes the ladder is judged on, recorded in the header.
TEST(AutotuneSpace, SizesAndGeometricMean) {
  EXPECT_DOUBLE_EQ(geomean({1000, 4000}), 2000);
  EXPECT_EQ(geomean({}), 0);
  EXPECT_EQ(geomean({5, 0}), 0) << "a size that failed makes the score 0";
  EXPECT_EQ(sizes_text({1024, 4096}), "1024^3 and 4096^3");
  EXPECT_EQ(sizes_text({1024, 2048, 4096, 8192}), "1024^3, 2048^3, 4096^3 and 8192^3");
  EXPECT_EQ(sizes_text({512}), "512^3");
  const std::string ranking = ranking_text({1024, 4096}, {1024, 2048, 4096, 8192});
  EXPECT_EQ(ranking, "ranked by the geometric mean at 1024^3 and 4096^3, finalists at 1024^3, 2048^3, 4096^3 and 8192^3");
  RungOutcome o;
  o.winner = make(8, 64, 128, 32, 0, 0, 8, 8, 0);
  EXPECT_NE(tuned_header({o}, "GPU, sm_90, 2026-01-01, " + ranking).find(ranking), std::string::npos);
}

// The --json file is JSON whatever a compiler log holds, and a number that is not finite is null.
TEST(AutotuneSpace, ResultsJsonIsValidJson) {
  Entry e;
  e.config = make(10, 64, 128, 16, 32, 64, 8, 8, 2);
  e.stage = "compile-failed";
  e.note = std::string("error: \"quoted\"\n\tat line 3\x01 \xff\xfe");  // control characters, not UTF-8
  e.gflops = std::numeric_limits<double>::quiet_NaN();
  e.ranking = {std::numeric_limits<double>::infinity(), 33000};
  Entry timed;
  timed.config = make(8, 64, 128, 32, 0, 0, 8, 8, 0);
  timed.stage = "timed";
  timed.ranking = {30000, 45000};
  timed.gflops = geomean(timed.ranking);
  timed.confirm = {30000, 40000, 45000, 46000};
  timed.score = geomean(timed.confirm);
  const auto doc = nlohmann::json::parse(
      results_json("GPU \"x\"", "sm_90", {1024, 4096}, {1024, 2048, 4096, 8192}, 12.5, {e, timed}));
  EXPECT_EQ(doc.at("sizes"), nlohmann::json({1024, 4096}));
  EXPECT_EQ(doc.at("confirm_sizes").size(), 4u);
  const auto& bad = doc.at("configs").at(0);
  EXPECT_TRUE(bad.at("gflops").is_null());
  EXPECT_TRUE(bad.at("gflops_by_size").at("1024").is_null());
  EXPECT_EQ(bad.at("gflops_by_size").at("4096"), 33000);
  EXPECT_EQ(bad.at("note").get<std::string>().substr(0, 17), "error: \"quoted\"\n\t");
  const auto& good = doc.at("configs").at(1);
  EXPECT_EQ(good.at("tile"), "64x128x32_8x8");
  EXPECT_EQ(good.at("confirm_gflops_by_size").at("8192"), 46000);
  EXPECT_DOUBLE_EQ(good.at("score").get<double>(), timed.score);
}
