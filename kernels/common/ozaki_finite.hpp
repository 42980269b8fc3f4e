// Whether this thread's Ozaki-scheme calls refuse inputs that hold a NaN or an Inf (host C++, for
// common/ozaki.cuh's read_spread and for the dispatch rung, which is not a CUDA unit of the scheme).
// The scheme makes the whole row or column of such an entry NaN, where FP32 arithmetic gives +-Inf
// for an Inf; the dispatch rung asks for the refusal, so that such inputs go to the CUDA cores.
#pragma once

namespace sgemm::ozaki {

inline thread_local bool t_finite_only = false;

// Refusals for this thread while one lives.
struct FiniteOnly {
  bool before = t_finite_only;
  FiniteOnly() { t_finite_only = true; }
  ~FiniteOnly() { t_finite_only = before; }
  FiniteOnly(const FiniteOnly&) = delete;
  FiniteOnly& operator=(const FiniteOnly&) = delete;
};

}  // namespace sgemm::ozaki
