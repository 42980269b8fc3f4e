#include "dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "dispatch/model.hpp"
#include "common/launch.hpp"
#include "harness/problem.hpp"
#include "harness/timing.hpp"
#include "provenance.hpp"
#include "sgemm_ladder.hpp"

namespace sgemm::autotune {

namespace {

constexpr int kLaunches = 100;  // timed launches per problem: the median of these

struct Point {
  harness::Shape shape;
  GemmArgs args;         // the arguments of input set 0 (for the model's terms)
  rung30::Terms terms;
  double ns = 0;         // the median launch time
};

// Split-K's split of K (into at most that many parts) for candidate c on these arguments: the
// largest at which every SM holds as many blocks as fit (`full`), or the largest at the least
// residency any split reaches (one block per SM where the grid allows).
int split_at(int c, const GemmArgs& a, bool full) {
  int best = 0;
  double bestResidency = full ? 0.0 : 2.0;
  for (int s = 2; s <= 4096; ++s) {
    const rung30::Terms x = rung30::split_terms(c, a, s);
    if (!x.runs || x.residency > 1.0) continue;
    if (full ? x.residency >= bestResidency : x.residency <= bestResidency) best = s, bestResidency = x.residency;
  }
  if (best == 0) throw std::runtime_error(std::string(rung30::candidate_name(c)) + " has no split here");
  return best;
}

enum class Plan { kModel, kFullSms, kLoneBlocks };

// The median time of candidate `c` on `shape`, with the model's plan, or for split-K with K cut
// by split_at.
Point measure(int c, harness::Shape shape, const harness::DeviceInfo& dev, cudaStream_t stream,
              Plan plan = Plan::kModel) {
  harness::ProblemSpec spec;
  spec.shape = harness::with_default_ld(shape);
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) throw std::runtime_error("cudaMemGetInfo failed");
  spec.sets = harness::rotation_sets(harness::set_bytes(spec.shape), dev.l2_bytes, int64_t(free_b));
  harness::Problem p(spec);
  const int splits = plan == Plan::kModel ? 0 : split_at(c, p.args(0), plan == Plan::kFullSms);
  const rung30::Terms t = splits > 0 ? rung30::split_terms(c, p.args(0), splits) : rung30::model_terms(c, p.args(0));
  if (!t.runs) throw std::runtime_error(std::string(rung30::candidate_name(c)) + " cannot run " + spec.shape.str());
  const std::vector<double> ms = harness::time_launches(
      [&](int set) {
        std::string why;
        return splits > 0 ? rung30::launch_candidate_split(c, p.args(set), splits, stream, &why)
                          : rung30::launch_candidate(c, p.args(set), stream, &why);
      },
      p.sets(), kLaunches, {3}, stream);
  return {spec.shape, p.args(0), t, harness::median(ms) * 1e6};
}

// The shape with op(A) = A^T (transa) or op(B) = B^T (transb): A and B stored transposed.
harness::Shape in_layout(harness::Shape s, bool transa, bool transb) {
  s.transa = transa;
  s.transb = transb;
  return s;
}

// The plain product repack runs its candidate on: the copies' shape and leading dimensions, in the
// layout they keep (a transposed A is copied as stored, so op(A) stays A^T).
harness::Shape copies_shape(const GemmArgs& r) {
  return in_layout({r.M, r.N, r.K, r.lda, r.ldb, r.ldc}, r.transa, r.transb);
}

int index_of(const std::string& name) {
  for (int c = 0; c < rung30::candidate_count(); ++c)
    if (name == rung30::candidate_name(c)) return c;
  throw std::runtime_error("the dispatch rung has no candidate " + name);
}

nlohmann::json point_json(const Point& p) {
  return {{"shape", p.shape.str()}, {"ns", p.ns}, {"slabs", p.terms.slabs}, {"residency", p.terms.residency}, {"fixups", p.terms.fixups}, {"share_slabs", p.terms.shareSlabs}, {"share_units", p.terms.shareUnits},
          {"move_bytes", p.terms.moveBytes}, {"gemv_bytes", p.terms.gemvBytes}, {"restream_mb", p.terms.restreamMB}};
}

}  // namespace

// The x of m x = b (Gaussian elimination with partial pivoting; m square, not singular).
std::vector<double> solve_linear(std::vector<std::vector<double>> m, std::vector<double> b) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(m[r][c]) > std::abs(m[pivot][c])) pivot = r;
    std::swap(m[c], m[pivot]);
    std::swap(b[c], b[pivot]);
    if (m[c][c] == 0) throw std::runtime_error("calibration points do not determine the constants");
    for (size_t r = c + 1; r < n; ++r) {
      const double f = m[r][c] / m[c][c];
      for (size_t k = c; k < n; ++k) m[r][k] -= f * m[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (size_t c = n; c-- > 0;) {
    double v = b[c];
    for (size_t k = c + 1; k < n; ++k) v -= m[c][k] * x[k];
    x[c] = v / m[c][c];
  }
  return x;
}


int calibrate_dispatch(const harness::DeviceInfo& dev, const std::string& header_path, const std::string& json_path,
                       cudaStream_t stream) {
  rung30::Constants k = rung30::measured_constants();  // replaced term by term below
  nlohmann::json j = {{"gpu", dev.name}, {"arch", dev.arch()}, {"candidates", nlohmann::json::object()}};

  // GEMV first: its bandwidth is every other prediction's floor. Two rows of one that are bound by
  // reading B give the time per byte and the launch; each row group's kernel (1, 2, 4, ... 32 rows)
  // on a problem of its rows and a large B, its FLOP rate (where B's bytes bind instead, the rate
  // that reproduces that time: the prediction takes whichever is slower).
  const int gemv = index_of("gemv");
  {
    const Point a = measure(gemv, {1, 1024, 4096}, dev, stream), b = measure(gemv, {1, 16384, 8192}, dev, stream);
    const double perByte = (b.ns - a.ns) / (b.terms.gemvBytes - a.terms.gemvBytes);
    const double launch = std::max(0.0, a.ns - perByte * a.terms.gemvBytes);
    k.bytesPerNs = 1.0 / perByte;
    k.costs[size_t(gemv)] = {0, launch, 0, 1, 0};
    nlohmann::json points = {point_json(a), point_json(b)}, rates = nlohmann::json::array();
    k.gemvFlopsPerNs.assign(rung30::kGemvGroups, 0.0);
    for (int g = 0; g < rung30::kGemvGroups; ++g) {
      const Point f = measure(gemv, {1 << g, 16384, 8192}, dev, stream);
      k.gemvFlopsPerNs[size_t(g)] = f.terms.gemvFlops / std::max(1.0, f.ns - launch);
      points.push_back(point_json(f));
      rates.push_back(k.gemvFlopsPerNs[size_t(g)]);
    }
    // The narrow-N form (C^T = op(B)^T A^T: a tall A, 1-16 columns of C) on its own kernel, per
    // group of C's columns, the same way: the rate that reproduces its time beyond the launch and
    // the copy of B it reads its columns from (the 32-row group, which it has not, takes 16's).
    k.gemvNarrowFlopsPerNs.assign(rung30::kGemvGroups, 0.0);
    nlohmann::json narrow = nlohmann::json::array();
    for (int g = 0; g < rung30::kGemvGroups; ++g) {
      if ((1 << g) > rung30::kGemvNarrowMaxCols) {
        k.gemvNarrowFlopsPerNs[size_t(g)] = k.gemvNarrowFlopsPerNs[size_t(g - 1)];
        continue;
      }
      const Point f = measure(gemv, {16384, 1 << g, 8192}, dev, stream);
      if (!f.terms.gemvNarrow) throw std::runtime_error("the narrow-N GEMV does not take " + f.shape.str());
      k.gemvNarrowFlopsPerNs[size_t(g)] = f.terms.gemvFlops / std::max(1.0, f.ns - launch - f.terms.moveBytes / k.bytesPerNs);
      points.push_back(point_json(f));
      narrow.push_back(k.gemvNarrowFlopsPerNs[size_t(g)]);
    }
    j["candidates"]["gemv"] = {{"points", points}, {"launch_ns", launch}, {"flops_per_ns", rates}, {"narrow_flops_per_ns", narrow}};
    std::printf("  gemv         %.4g bytes per ns, launch %.0f ns, FLOPs per ns at 1-32 rows:", k.bytesPerNs, launch);
    for (const double f : k.gemvFlopsPerNs) std::printf(" %.4g", f);
    std::printf("; narrow N, 1-16 columns:");
    for (size_t g = 0; g + 1 < k.gemvNarrowFlopsPerNs.size(); ++g) std::printf(" %.4g", k.gemvNarrowFlopsPerNs[g]);
    std::printf("\n");
  }

  // Tiles: six problems, ns = launch + slabs * slab_ns + shareSlabs * share * slab_ns +
  // shareUnits * unit_ns + fixups * fixup_ns + tiles * tile_ns: a tiny one (one slab of one tile),
  // one that fills the GPU many times with whole tiles, one tile over a long K (stream-K cuts it
  // into many shares, so its fix-up adds many partial tiles), 32 tiles over K = 8192 and K = 2048
  // (every slab in a share, few fix-ups; long and short shares), and the many whole tiles again
  // over one slab (a tile's start and end are then most of its time: tile_ns).
  for (const char* name : {"capstone", "few_rows", "few_cols", "small", "short_k"}) {
    const int c = index_of(name);
    const std::pair<int, int> t = rung30::candidate_tile(c);
    const int bk = rung30::candidate_slab(c);
    const Point pts[6] = {measure(c, {32, 64, 32}, dev, stream), measure(c, {4096, 4096, 4096}, dev, stream),
                          measure(c, {t.first, t.second, 65536}, dev, stream),
                          measure(c, {2 * t.first, 16 * t.second, 8192}, dev, stream),
                          measure(c, {2 * t.first, 16 * t.second, 2048}, dev, stream),
                          measure(c, {4096, 4096, bk}, dev, stream)};
    std::vector<std::vector<double>> m;
    std::vector<double> ns;
    nlohmann::json points = nlohmann::json::array();
    for (const Point& p : pts) {
      m.push_back({p.terms.slabs, 1.0, p.terms.fixups, p.terms.shareSlabs, p.terms.shareUnits, p.terms.tiles});
      ns.push_back(p.ns);
      points.push_back(point_json(p));
    }
    const std::vector<double> x = solve_linear(m, ns);  // slab_ns, launch_ns, fixup_ns, share * slab_ns, unit_ns, tile_ns
    const double share = x[3] / x[0];
    rung30::Cost& cost = k.costs[size_t(c)];
    cost = {x[0], std::max(0.0, x[1]), std::max(0.0, x[2]), share, x[4]};
    cost.tile_ns = std::max(0.0, x[5]);
    // Tiles checking bounds (two rows of tiles, the second one row short: half the tiles check every
    // slab; at least a wave of them), and rows that are not 16-byte aligned (32-bit accesses): a
    // slab's cost over the aligned unchecked one, once the launch, fix-ups, units and tiles are taken
    // off, the checking slabs' share of it scaled up to a whole slab.
    // Never below 1: checking bounds and 32-bit accesses add work to a slab, so a factor under 1
    // is the fit's error (a short_k slab's, measured at 8106687: 0.91 and 0.94, made it look
    // cheapest on every ragged shape).
    // A point's time less its launch, fix-ups and units (what its slabs and tiles take), and its
    // slabs' time at the fitted constants (aligned, unchecked).
    auto beyond_fixed = [&](const Point& p) {
      return p.ns - cost.launch_ns - p.terms.fixups * cost.fixup_ns - p.terms.shareUnits * cost.unit_ns;
    };
    auto slabs_ns = [&](const Point& p) { return (p.terms.slabs + p.terms.shareSlabs * cost.share) * cost.slab_ns; };
    auto factor = [&](const Point& p, double share) {
      const double ratio = (beyond_fixed(p) - p.terms.tiles * cost.tile_ns) / slabs_ns(p);
      return std::max(1.0, 1.0 + (ratio - 1.0) / share);
    };
    const Point g = measure(c, {2 * t.first - 1, 256 * t.second, 1024}, dev, stream);
    const Point u = measure(c, {4096, 4096, 4096, 4097, 4097, 4097}, dev, stream);
    cost.guard = factor(g, g.terms.guarded);
    cost.unaligned = factor(u, 1.0);
    // Tiles over one slab with A and B aligned and C's rows not (K = BK, ldc 4097): what storing C a
    // float at a time adds to a tile's start and end beyond the aligned tile_ns. A short K does
    // little else, so it is most of such a call (measured at 06b79d7: the capstone, whose 128
    // accumulators a thread store C straight from the registers, at 4095x1001x127 predicted 31 us and
    // measured 56-61; after repack, A and B aligned and C not, 70.7).
    const Point v = measure(c, {4096, 4096, bk, bk, 4096, 4097}, dev, stream);
    cost.tile32_ns =
        v.terms.tiles > 0 ? std::max(0.0, (beyond_fixed(v) - slabs_ns(v)) / v.terms.tiles - cost.tile_ns) : 0.0;
    points.push_back(point_json(g));
    points.push_back(point_json(u));
    points.push_back(point_json(v));
    // The layouts: the 4096^3 product with A stored transposed (TN), then B (NT), gives each one's
    // slab factor over NN (the tiles read a transposed B through registers and transposed stores to
    // shared memory, a transposed A by cp.async); the one-slab tiles in that layout, what it adds to
    // a tile's start and end. Not held to 1 from below: a layout may be cheaper (measured, not assumed).
    for (const bool transb : {false, true}) {
      const Point s = measure(c, in_layout({4096, 4096, 4096}, !transb, transb), dev, stream);
      const Point e = measure(c, in_layout({4096, 4096, bk}, !transb, transb), dev, stream);
      const double f = (beyond_fixed(s) - s.terms.tiles * cost.tile_ns) / slabs_ns(s);
      const double tile = e.terms.tiles > 0 ? std::max(0.0, (beyond_fixed(e) - f * slabs_ns(e)) / e.terms.tiles - cost.tile_ns) : 0.0;
      (transb ? cost.transb : cost.transa) = f;
      (transb ? cost.tiletb_ns : cost.tileta_ns) = tile;
      points.push_back(point_json(s));
      points.push_back(point_json(e));
    }
    // B read again: eight rows of tiles against a B of 268 MB (131072 columns, more tiles a row than
    // blocks resident at once, K = 512), B read from memory once a row. What the time has beyond the
    // prediction without the term, per MB read again (never below 0). Not for a candidate offered
    // only up to a short K (short_k): the model never offers it there.
    if (rung30::kCandidateList[size_t(c)].maxK == 0) {
      const Point w = measure(c, {8 * t.first, 131072, 512}, dev, stream);
      if (w.terms.restreamMB > 0)
        cost.restream_ns = std::max(0.0, (w.ns - rung30::predict_ns(c, w.args, k)) / w.terms.restreamMB);
      points.push_back(point_json(w));
    }
    j["candidates"][name] = {{"points", points}, {"slab_ns", x[0]}, {"launch_ns", x[1]}, {"fixup_ns", x[2]},
                             {"share", share}, {"unit_ns", x[4]}, {"guard", cost.guard}, {"unaligned", cost.unaligned},
                             {"tile_ns", cost.tile_ns}, {"tile32_ns", cost.tile32_ns}, {"transa", cost.transa},
                             {"transb", cost.transb}, {"tileta_ns", cost.tileta_ns}, {"tiletb_ns", cost.tiletb_ns},
                             {"restream_ns_per_mb", cost.restream_ns}};
    std::printf("  %-12s %.4g ns per slab (x%.3g in a share, %.0f ns per unit, x%.4g checking bounds, x%.4g on 32-bit "
                "accesses, x%.4g TN, x%.4g NT), %.0f ns per whole tile (+%.0f with C unaligned, +%.0f TN, +%.0f NT), "
                "launch %.0f ns, %.4g ns per fix-up partial, %.4g ns per MB of B read again\n",
                name, x[0], share, x[4], cost.guard, cost.unaligned, cost.transa, cost.transb, cost.tile_ns, cost.tile32_ns,
                cost.tileta_ns, cost.tiletb_ns, x[1], x[2], cost.restream_ns);
  }

  // Split-K, on each of its tiles, with K cut where the calibration chooses: one tile over a long K
  // (a few slabs a block) and 16 tiles over K = 16384 (many), each split so that every SM holds
  // as many blocks as fit; then the 16 tiles split so that each SM holds one block (or as few as
  // the grid allows). Once the partials' bytes are taken off, ns = launch + slabs per block *
  // slab_ns on full SMs, and lone_ns is the slab of a block alone on its SM. The 16 tiles with
  // one row fewer than the tile (every tile checks bounds) give the guard factor, and with rows
  // one float longer than a whole number of float4s, the 32-bit-access factor.
  for (const char* name : {"split_k", "split_k_rows"}) {
    const int c = index_of(name);
    const std::pair<int, int> t = rung30::candidate_tile(c);
    const harness::Shape one{t.first, t.second, 65536}, sixteen{t.first, 16 * t.second, 16384};
    const Point p = measure(c, one, dev, stream, Plan::kFullSms);
    const Point q = measure(c, sixteen, dev, stream, Plan::kFullSms);
    const Point l = measure(c, sixteen, dev, stream, Plan::kLoneBlocks);
    const Point g = measure(c, {t.first - 1, 16 * t.second, 16384}, dev, stream, Plan::kFullSms);
    const Point u = measure(c, {t.first, 16 * t.second, 16384, 16385, 16 * t.second + 1, 16 * t.second + 1}, dev,
                            stream, Plan::kFullSms);
    auto net = [&](const Point& x) { return x.ns - x.terms.moveBytes / k.bytesPerNs; };
    const double slab = (net(q) - net(p)) / (q.terms.slabs - p.terms.slabs);
    const double launch = std::max(0.0, net(p) - slab * p.terms.slabs);
    const double lone = std::max(0.0, (net(l) - launch) / l.terms.slabs);
    rung30::Cost& cost = k.costs[size_t(c)];
    cost = {slab, launch, 0, 1, 0, lone};
    auto factor = [&](const Point& x) {  // never below 1, as the tiles'
      return std::max(1.0, (net(x) - launch) / (x.terms.slabs * rung30::slab_ns_at(cost, x.terms.residency)));
    };
    cost.guard = factor(g);
    cost.unaligned = factor(u);
    // The layouts: the 16 tiles with A stored transposed (TN), then B (NT), at the same residency.
    auto layout = [&](const Point& x) { return (net(x) - launch) / (x.terms.slabs * rung30::slab_ns_at(cost, x.terms.residency)); };
    const Point ta = measure(c, in_layout(sixteen, true, false), dev, stream, Plan::kFullSms);
    const Point tb = measure(c, in_layout(sixteen, false, true), dev, stream, Plan::kFullSms);
    cost.transa = layout(ta);
    cost.transb = layout(tb);
    j["candidates"][name] = {{"points", {point_json(p), point_json(q), point_json(l), point_json(g), point_json(u), point_json(ta), point_json(tb)}},
                             {"slab_ns", slab}, {"launch_ns", launch}, {"lone_ns", lone}, {"guard", cost.guard},
                             {"unaligned", cost.unaligned}, {"transa", cost.transa}, {"transb", cost.transb}};
    std::printf("  %-12s %.4g ns per slab on full SMs, %.4g alone (residency %.3g), x%.4g checking bounds, x%.4g on "
                "32-bit accesses, x%.4g TN, x%.4g NT, launch %.0f ns\n", name, slab, lone, l.terms.residency, cost.guard,
                cost.unaligned, cost.transa, cost.transb, launch);
  }

  // Repack: what its copy launches add beyond their bytes, on an odd problem: repack's time less
  // that of the candidate it runs on the copies, timed alone on an aligned problem of their shape.
  const int repack = index_of("repack");
  {
    const Point p = measure(repack, {1023, 1023, 1023}, dev, stream);
    const Point inner = measure(p.terms.inner, copies_shape(p.terms.repacked), dev, stream);
    const double launch = std::max(0.0, p.ns - inner.ns - p.terms.moveBytes / k.bytesPerNs);
    k.costs[size_t(repack)] = {0, launch, 0, 1, 0};
    j["candidates"]["repack"] = {{"points", {point_json(p), point_json(inner)}},
                                 {"inner", rung30::candidate_name(p.terms.inner)}, {"launch_ns", launch}};
    std::printf("  repack       launch %.0f ns (%s on the copies: %.0f ns of %.0f)\n", launch,
                rung30::candidate_name(p.terms.inner), inner.ns, p.ns);
  }

  DeviceRates rates;  // the peaks the dispatch rung scales these constants by on another device
  if (device_rates(&rates) != Status::kOk || rates.fp32_flops <= 0 || rates.dram_bytes <= 0)
    throw std::runtime_error("cannot read the device's peaks");
  j["calibrated_fp32_gflops"] = rates.fp32_flops / 1e9;
  j["calibrated_dram_gbps"] = rates.dram_bytes / 1e9;
  j["calibrated_sms"] = rates.sms;
  j["l2_bytes"] = rung30::current_device().l2Bytes;
  j["bytes_per_ns"] = k.bytesPerNs;
  j["gemv_flops_per_ns"] = k.gemvFlopsPerNs;
  j["gemv_narrow_flops_per_ns"] = k.gemvNarrowFlopsPerNs;
  const std::string date = today();
  // The header keeps every other GPU's calibration as this build has it and replaces (or adds) this one's.
  struct Entry {
    std::string gpu, date;
    DeviceRates rates;
    rung30::Constants k;
  };
  std::vector<Entry> entries{{dev.name, date, rates, k}};
  for (int i = 0; i < rung30::calibration_count(); ++i)
    if (dev.name != rung30::calibration_gpu(i))
      entries.push_back({rung30::calibration_gpu(i), rung30::calibration_date(i), rung30::calibration_rates(i), rung30::tuned_constants(i)});
  std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.gpu < y.gpu; });
  std::ofstream h(header_path);
  h << "// Dispatch model constants for " << dev.arch() << ", one entry per GPU measured by `sgemm_autotune --dispatch`\n"
    << "// (each run replaces its GPU's entry and keeps the others). Do not edit by hand: rerun it on the GPU\n"
    << "// (docs/rungs/30_auto.md).\n#pragma once\n\nnamespace sgemm::tuned {\n\n"
    << "// Costs in the order of the dispatch rung's candidates:";
  for (int c = 0; c < rung30::candidate_count(); ++c) h << (c ? ", " : " ") << rung30::candidate_name(c);
  h << ".\nconstexpr DispatchCalibration kDispatchCalibrations[] = {\n";
  for (const Entry& e : entries) {
    h << "    {\"" << e.gpu << "\", " << e.rates.fp32_flops / 1e9 << ", " << e.rates.dram_bytes / 1e9 << ", " << e.rates.sms
      << ",\n     {";
    for (size_t c = 0; c < e.k.costs.size(); ++c) {
      const rung30::Cost& x = e.k.costs[c];
      h << (c ? ", " : "") << "{" << x.slab_ns << ", " << x.launch_ns << ", " << x.fixup_ns << ", " << x.share << ", "
        << x.unit_ns << ", " << x.lone_ns << ", " << x.guard << ", " << x.unaligned << ", " << x.tile_ns << ", "
        << x.tile32_ns << ", " << x.transa << ", " << x.transb << ", " << x.tileta_ns << ", " << x.tiletb_ns << ", "
        << x.restream_ns << "}";
    }
    h << "},\n     " << e.k.bytesPerNs << ", {";
    for (size_t g = 0; g < e.k.gemvFlopsPerNs.size(); ++g) h << (g ? ", " : "") << e.k.gemvFlopsPerNs[g];
    h << "}, \"" << e.date << "\", {";
    for (size_t g = 0; g < e.k.gemvNarrowFlopsPerNs.size(); ++g) h << (g ? ", " : "") << e.k.gemvNarrowFlopsPerNs[g];
    h << "}},\n";
  }
  h << "};\n\n}  // namespace sgemm::tuned\n";
  if (!h) throw std::runtime_error("cannot write " + header_path);
  std::printf("wrote %s\n", header_path.c_str());
  if (!json_path.empty()) {
    j.update(provenance());  // the commit measured, and whether the tree was clean
    std::ofstream(json_path) << j.dump(1) << "\n";
    std::printf("wrote %s\n", json_path.c_str());
  }
  return 0;
}

int explain_dispatch(const harness::DeviceInfo& dev, const std::vector<harness::Shape>& shapes, cudaStream_t stream) {
  for (const harness::Shape& shape : shapes) {
    harness::ProblemSpec spec;
    spec.shape = harness::with_default_ld(shape);
    harness::Problem p(spec);
    const size_t chosen = rung30::choose(p.args(0), false);
    const std::string named = shape.name.empty() ? spec.shape.str() : shape.name + " (" + spec.shape.str() + ")";
    std::printf("%s: the model picks %s\n  %-14s %12s %12s %8s\n", named.c_str(), rung30::candidate_name(int(chosen)),
                "candidate", "predicted us", "measured us", "error");
    for (int c = 0; c < rung30::candidate_count(); ++c) {
      if (!rung30::model_terms(c, p.args(0)).runs) {
        std::printf("  %-14s %12s\n", rung30::candidate_name(c), "-");
        continue;
      }
      const double predicted = rung30::predict_ns(c, p.args(0));
      const Point m = measure(c, shape, dev, stream);
      if (!rung30::offered(c, p.args(0), rung30::device_constants())) {  // measured all the same: was leaving it out right?
        std::printf("  %-14s %12s %12.1f  (not offered: K past its limit, or not calibrated here)\n",
                    rung30::candidate_name(c), "-", m.ns / 1e3);
        continue;
      }
      std::printf("  %-14s %12.1f %12.1f %+7.0f%%%s\n", rung30::candidate_name(c), predicted / 1e3, m.ns / 1e3,
                  100.0 * (predicted / m.ns - 1.0), size_t(c) == chosen ? "  <- picked" : "");
      if (m.terms.inner >= 0) {  // repack: the candidate on the copies, timed alone in their shape and layout
        const harness::Shape copies = copies_shape(m.terms.repacked);
        const Point in = measure(m.terms.inner, copies, dev, stream);
        const double inPredicted = rung30::predict_ns(m.terms.inner, in.args);
        std::printf("    + %-10s %12.1f %12.1f %+7.0f%%  (on the copies, %s; the copies %.1f us at the bandwidth)\n",
                    rung30::candidate_name(m.terms.inner), inPredicted / 1e3, in.ns / 1e3,
                    100.0 * (inPredicted / in.ns - 1.0), copies.str().c_str(), m.terms.moveBytes / rung30::device_constants().bytesPerNs / 1e3);
      }
    }
  }
  return 0;
}

}  // namespace sgemm::autotune
