#include "dispatch.hpp"

#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/dispatch.hpp"
#include "harness/problem.hpp"
#include "harness/timing.hpp"
#include "sgemm_ladder.hpp"

namespace sgemm::autotune {

namespace {

constexpr int kLaunches = 40;  // timed launches per problem: the median of these

struct Point {
  harness::Shape shape;
  double term = 0;   // the model term: slab-times, or GEMV's bytes
  double flops = 0;  // GEMV's FLOPs
  double ns = 0;     // the median launch time
};

Point measure(int c, harness::Shape shape, const harness::DeviceInfo& dev, cudaStream_t stream) {
  harness::ProblemSpec spec;
  spec.shape = harness::with_default_ld(shape);
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) throw std::runtime_error("cudaMemGetInfo failed");
  spec.sets = harness::rotation_sets(harness::set_bytes(spec.shape), dev.l2_bytes, int64_t(free_b));
  harness::Problem p(spec);
  const rung30::Terms t = rung30::model_terms(c, p.args(0));
  if (!t.runs) throw std::runtime_error(std::string(rung30::candidate_name(c)) + " cannot run " + spec.shape.str());
  const std::vector<double> ms = harness::time_launches(
      [&](int set) {
        std::string why;
        return rung30::launch_candidate(c, p.args(set), stream, &why);
      },
      p.sets(), kLaunches, {3}, stream);
  return {spec.shape, t.slabs + t.gemvBytes, t.gemvFlops, harness::median(ms) * 1e6};
}

}  // namespace

int calibrate_dispatch(const harness::DeviceInfo& dev, const std::string& header_path, const std::string& json_path,
                       cudaStream_t stream) {
  std::ostringstream costs;
  nlohmann::json j = {{"gpu", dev.name}, {"arch", dev.arch()}, {"candidates", nlohmann::json::array()}};
  double bytesPerNs = 0, flopsPerNs = 0;
  for (int c = 0; c < rung30::candidate_count(); ++c) {
    const std::string name = rung30::candidate_name(c);
    const bool gemv = name == "gemv";
    // Two problems a model term apart: for a tile, a slab of one tile and a problem that fills the
    // GPU many times; for GEMV, two rows of one that are bound by reading B (bytes).
    const harness::Shape tiny = gemv ? harness::Shape{1, 1024, 4096} : harness::Shape{32, 64, 32};
    const harness::Shape big = gemv ? harness::Shape{1, 16384, 8192} : harness::Shape{4096, 4096, 4096};
    const Point a = measure(c, tiny, dev, stream), b = measure(c, big, dev, stream);
    const double slope = (b.ns - a.ns) / (b.term - a.term), launch = std::max(0.0, a.ns - slope * a.term);
    nlohmann::json entry = {{"name", name},
                            {"tiny", {{"shape", a.shape.str()}, {"ns", a.ns}, {"term", a.term}}},
                            {"big", {{"shape", b.shape.str()}, {"ns", b.ns}, {"term", b.term}}},
                            {"slab_ns", gemv ? 0.0 : slope}, {"launch_ns", launch}};
    std::printf("  %-9s %s: %.0f ns (%.4g terms), %s: %.0f ns (%.4g terms) -> %.4g ns per %s, launch %.0f ns\n",
                name.c_str(), a.shape.str().c_str(), a.ns, a.term, b.shape.str().c_str(), b.ns, b.term, slope,
                gemv ? "byte" : "slab", launch);
    if (gemv) {
      // Where GEMV's arithmetic binds (its most rows), the FLOP rate, once the launch is taken off.
      bytesPerNs = 1.0 / slope;
      const Point f = measure(c, {32, 16384, 8192}, dev, stream);
      flopsPerNs = f.flops / std::max(1.0, f.ns - launch);
      entry["flops"] = {{"shape", f.shape.str()}, {"ns", f.ns}, {"flops", f.flops}};
      std::printf("  %-9s %s: %.0f ns -> %.4g FLOPs per ns\n", name.c_str(), f.shape.str().c_str(), f.ns, flopsPerNs);
    }
    costs << (c ? ", " : "") << "{" << (gemv ? 0.0 : slope) << ", " << launch << "}";
    j["candidates"].push_back(entry);
  }
  j["gemv_bytes_per_ns"] = bytesPerNs;
  j["gemv_flops_per_ns"] = flopsPerNs;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
  std::ofstream h(header_path);
  h << "// Dispatch model constants for " << dev.arch() << ", measured by `sgemm_autotune --dispatch` on "
    << dev.name << " (" << date << ").\n// Do not edit by hand: rerun it on the GPU (docs/rungs/30_auto.md).\n"
    << "#pragma once\n\nnamespace sgemm::tuned {\n\n// In the order of the dispatch rung's candidates:";
  for (int c = 0; c < rung30::candidate_count(); ++c) h << (c ? ", " : " ") << rung30::candidate_name(c);
  h << ".\nconstexpr DispatchCost kDispatchCosts[] = {" << costs.str() << "};\n"
    << "// GEMV's bytes per nanosecond read from device memory (also the floor of every prediction).\n"
    << "constexpr double kGemvBytesPerNs = " << bytesPerNs << ";\n"
    << "// GEMV's FLOPs per nanosecond where its arithmetic binds (many rows).\n"
    << "constexpr double kGemvFlopsPerNs = " << flopsPerNs << ";\n\n}  // namespace sgemm::tuned\n";
  if (!h) throw std::runtime_error("cannot write " + header_path);
  std::printf("wrote %s\n", header_path.c_str());
  if (!json_path.empty()) {
    std::ofstream(json_path) << j.dump(1) << "\n";
    std::printf("wrote %s\n", json_path.c_str());
  }
  return 0;
}

}  // namespace sgemm::autotune
