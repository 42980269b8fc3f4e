// sgemm_autotune --dispatch-tensor: the dispatch rung's tensor-path constants (dispatch/tensor.hpp)
// from rung 32's times (its launch_overlapped, the way the dispatch rung runs it) on problems that
// vary each term of the model, fitted by least squares on the relative error, and written as
// kernels/tuned/tensor_sm_90.cuh (one entry per GPU).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dispatch.hpp"
#include "dispatch/model.hpp"
#include "dispatch/tensor.hpp"
#include "harness/problem.hpp"
#include "harness/timing.hpp"
#include "provenance.hpp"
#include "sgemm_ladder.hpp"
#include "tuned/tensor.cuh"

namespace sgemm::autotune {

namespace {

constexpr int kLaunches = 30;  // timed launches per problem: the median of these
constexpr int kConstants = 6;  // fixed, slab, unit, pre-pass byte, rebuild byte, unaligned byte

// The problems: squares from 1024 to 8192, short and long K, few rows and many columns (a prefill's
// projections, a vocabulary), large outputs over a short K (where the rebuild's bytes weigh most),
// and odd shapes (rows not 16-byte aligned), so that every term moves against the others.
const std::vector<harness::Shape> kShapes = {
    {1024, 1024, 1024},   {2048, 2048, 2048},    {4096, 4096, 4096}, {8192, 8192, 8192},  {4096, 4096, 256},
    {4096, 4096, 16384},  {8192, 8192, 1024},    {512, 4096, 4096},  {2048, 14336, 4096}, {2048, 4096, 14336},
    {16384, 2048, 512},   {2048, 50257, 768},    {3001, 2999, 997},  {1024, 8192, 8192},  {8192, 8192, 256},
    {4096, 32768, 512},   {16384, 8192, 384},    {512, 8192, 2048},   {4097, 4095, 4093},  {2048, 32001, 1024},
    {8191, 8193, 511},
};

struct Point {
  harness::Shape shape;
  rung30::tensor::Terms terms;
  double ns = 0;
};

std::vector<double> features(const rung30::tensor::Terms& t) {
  return {1.0, t.slabs, t.waves, t.prepassBytes, t.rebuildBytes, t.unalignedBytes};
}

// The constants that minimise the sum of squared relative errors, none negative: a constant the
// unconstrained fit puts below 0 is held at 0 and the rest fitted again.
std::vector<double> fit(const std::vector<Point>& points) {
  std::vector<bool> held(kConstants, false);
  for (;;) {
    std::vector<int> free;
    for (int c = 0; c < kConstants; ++c)
      if (!held[size_t(c)]) free.push_back(c);
    const size_t n = free.size();
    std::vector<std::vector<double>> m(n, std::vector<double>(n, 0.0));
    std::vector<double> b(n, 0.0);
    for (const Point& p : points) {
      const std::vector<double> x = features(p.terms);
      for (size_t i = 0; i < n; ++i) {
        const double xi = x[size_t(free[i])] / p.ns;
        b[i] += xi;  // the target of each row: 1 (its own time over itself)
        for (size_t j = 0; j < n; ++j) m[i][j] += xi * x[size_t(free[j])] / p.ns;
      }
    }
    const std::vector<double> y = solve_linear(m, b);
    std::vector<double> k(kConstants, 0.0);
    bool negative = false;
    for (size_t i = 0; i < n; ++i) {
      k[size_t(free[i])] = y[i];
      if (y[i] < 0) held[size_t(free[i])] = negative = true;
    }
    if (!negative) return k;
  }
}

}  // namespace

int calibrate_tensor(const harness::DeviceInfo& dev, const std::string& header_path, const std::string& json_path,
                     cudaStream_t stream) {
  if (!rung32::available()) throw std::runtime_error("rung 32 cannot run here (an sm_90a build on an H100 or H200)");
  const int sms = rung30::current_device().sms;
  nlohmann::json j = {{"gpu", dev.name}, {"arch", dev.arch()}, {"sms", sms}, {"points", nlohmann::json::array()}};
  std::vector<Point> points;
  for (const harness::Shape& shape : kShapes) {
    harness::ProblemSpec spec;
    spec.shape = harness::with_default_ld(shape);
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) throw std::runtime_error("cudaMemGetInfo failed");
    spec.sets = harness::rotation_sets(harness::set_bytes(spec.shape), dev.l2_bytes, int64_t(free_b) / 2);
    harness::Problem p(spec);
    const GemmArgs a = p.args(0);
    const rung32::Footprint f = rung32::footprint(a);
    std::string why;
    const std::vector<double> ms = harness::time_launches(
        [&](int set) { return rung32::launch_overlapped(p.args(set), stream, &why); }, p.sets(), kLaunches, {3}, stream);
    Point pt{spec.shape, rung30::tensor::terms(a, f, sms), harness::median(ms) * 1e6};
    points.push_back(pt);
    std::printf("  %-18s %d moduli, %4.0f waves, %10.0f ns\n", spec.shape.str().c_str(), f.moduli, pt.terms.waves, pt.ns);
  }
  const std::vector<double> k = fit(points);
  const rung30::tensor::Cost cost{k[0], k[1], k[2], k[3], k[4], k[5]};
  double worst = 0;
  for (const Point& p : points) {
    const double predicted = rung30::tensor::predict_ns(p.terms, cost);
    worst = std::max(worst, std::abs(predicted / p.ns - 1));
    j["points"].push_back({{"shape", p.shape.str()}, {"ns", p.ns}, {"predicted_ns", predicted},
                           {"waves", p.terms.waves}, {"slabs", p.terms.slabs}, {"prepass_bytes", p.terms.prepassBytes},
                           {"rebuild_bytes", p.terms.rebuildBytes}, {"unaligned_bytes", p.terms.unalignedBytes}});
    std::printf("  %-18s measured %10.0f ns, predicted %10.0f (%+.1f%%)\n", p.shape.str().c_str(), p.ns, predicted,
                100 * (predicted / p.ns - 1));
  }
  std::printf("  fixed %.0f ns, slab %.1f ns, unit %.0f ns, pre-pass %.3g ns/B, rebuild %.3g ns/B, unaligned %.3g ns/B; "
              "worst error %.1f%%\n", cost.fixed_ns, cost.slab_ns, cost.unit_ns, cost.prepass_ns_per_byte,
              cost.rebuild_ns_per_byte, cost.unaligned_ns_per_byte, 100 * worst);
  j["constants"] = {{"fixed_ns", cost.fixed_ns}, {"slab_ns", cost.slab_ns}, {"unit_ns", cost.unit_ns},
                    {"prepass_ns_per_byte", cost.prepass_ns_per_byte},
                    {"rebuild_ns_per_byte", cost.rebuild_ns_per_byte},
                    {"unaligned_ns_per_byte", cost.unaligned_ns_per_byte}, {"worst_relative_error", worst}};

  DeviceRates rates;
  if (device_rates(&rates) != Status::kOk || rates.dram_bytes <= 0) throw std::runtime_error("cannot read the device's peaks");
  const std::string date = today();
  struct Entry {
    std::string gpu, date;
    double dramGBps;
    int sms;
    tuned::TensorCost cost;
  };
  std::vector<Entry> entries{{dev.name, date, rates.dram_bytes / 1e9, sms, {k[0], k[1], k[2], k[3], k[4], k[5]}}};
  for (const tuned::TensorCalibration& cal : tuned::kTensorCalibrations)  // the others, as this build has them
    if (cal.gpu[0] != '\0' && dev.name != cal.gpu) entries.push_back({cal.gpu, cal.date, cal.dramGBps, cal.sms, cal.cost});
  std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.gpu < y.gpu; });
  std::ofstream h(header_path);
  h << "// Tensor-path model constants, one entry per GPU measured by `sgemm_autotune --dispatch-tensor`\n"
    << "// (each run replaces its GPU's entry and keeps the others). Do not edit by hand: rerun it on the GPU\n"
    << "// (docs/rungs/30_auto.md).\n#pragma once\n\nnamespace sgemm::tuned {\n\n"
    << "constexpr TensorCalibration kTensorCalibrations[] = {\n";
  for (const Entry& e : entries)
    h << "    {\"" << e.gpu << "\", " << e.dramGBps << ", " << e.sms << ", {" << e.cost.fixed_ns << ", " << e.cost.slab_ns
      << ", " << e.cost.unit_ns << ", " << e.cost.prepass_ns_per_byte << ", " << e.cost.rebuild_ns_per_byte << ", "
      << e.cost.unaligned_ns_per_byte << "}, \""
      << e.date << "\"},\n";
  h << "};\n\n}  // namespace sgemm::tuned\n";
  if (!h) throw std::runtime_error("cannot write " + header_path);
  std::printf("wrote %s\n", header_path.c_str());
  if (!json_path.empty()) {
    j.update(provenance());
    std::ofstream(json_path) << j.dump(1) << "\n";
    std::printf("wrote %s\n", json_path.c_str());
  }
  return 0;
}

}  // namespace sgemm::autotune
