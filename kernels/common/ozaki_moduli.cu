// The process-wide number of moduli of the Ozaki rungs (sgemm_ladder.hpp: set_ozaki_moduli), read by
// ozaki::checked_scales (common/ozaki.cuh) on every call.
#include <atomic>

#include "common/ozaki_moduli.cuh"
#include "sgemm_ladder.hpp"

namespace sgemm {
namespace {
std::atomic<int> g_ozaki_moduli{0};  // 0: the plan's
}  // namespace

bool set_ozaki_moduli(int n) {
  if (n < 0 || n > ozaki::kMaxModuli) return false;
  g_ozaki_moduli.store(n);
  return true;
}
int ozaki_moduli() { return g_ozaki_moduli.load(); }

}  // namespace sgemm
