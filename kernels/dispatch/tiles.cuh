// The dispatch rung's tile candidates: the capstone's kernels (rung 17's templates) in another tile,
// with its stream-K plan. Each tile's instances are compiled in a unit of their own
// (rungs/30_auto.tiles_<Cfg>.cu, the sections at the end).
#pragma once

#include <string>

#include "common/common.cuh"
#include "common/cut.cuh"
#include "common/launch.cuh"
#include "common/stream_k.cuh"
#include "dispatch/tiles.hpp"
#include "ffma/capstone.hpp"

namespace sgemm::rung30 {

// The kernels of tile Cfg for one access width and layout: the full waves' and the stream-K shares'
// (the type spelled out: naming one instance for it would ask every unit for its definition).
template <class Cfg>
struct Tiles {
  using Kernel = void (*)(int, int, int, float, const float*, int, const float*, int, float, float*, int,
                          stream_k::Schedule, stream_k::Partials, Batch);
  Kernel whole, shares;
};
template <class Cfg>
Tiles<Cfg> tiles_of(bool vec, bool transA, bool transB) {
  return by_layout(vec, transA, transB, [](auto v, auto ta, auto tb) {
    return Tiles<Cfg>{capstone_rung::sgemm_17_any_layout<v(), ta(), tb(), Cfg>,
                      capstone_rung::sgemm_17_any_layout_shares<v(), ta(), tb(), Cfg>};
  });
}
// NN with 128-bit loads and C stored a float at a time (C's rows not 16-byte aligned).
template <class Cfg>
Tiles<Cfg> tiles_c32() {
  return Tiles<Cfg>{capstone_rung::sgemm_17_any_layout<true, false, false, Cfg, false>,
                    capstone_rung::sgemm_17_any_layout_shares<true, false, false, Cfg, false>};
}
template <class Cfg>
Status prepare_kernels(const Tiles<Cfg>& t, bool transB, KernelInfo* info, std::string* why) {
  const int smem = Cfg::smem_bytes(transB);
  const Status s = prepare(t.whole, Cfg::kThreads, smem, nullptr, why);
  return s != Status::kOk ? s : prepare(t.shares, Cfg::kThreads, smem, info, why);
}
template <bool kVec, class Cfg>  // NN's, for the model's occupancy (its constants are NN's)
Status prepare_tiles(KernelInfo* info, std::string* why) {
  return prepare_kernels(tiles_of<Cfg>(kVec, false, false), false, info, why);
}

// A batch runs whole tiles, grid z the product (as the capstone's own launch does).
template <class Cfg>
Status launch_with(const Tiles<Cfg>& t, const GemmArgs& a, cudaStream_t stream, std::string* why) {
  KernelInfo info;
  if (const Status s = prepare_kernels(t, a.transb, &info, why); s != Status::kOk) return s;
  const Batch batch{a.strideA, a.strideB, a.strideC, a.bias};
  if (a.batch > 1) return cut::launch_batch<Cfg>(t.whole, a, batch, stream);
  const stream_k::Model m{Cfg::BM, Cfg::BN, Cfg::BK, capstone_rung::model().slabCost, capstone_rung::model().minSlabsPerUnit};
  const stream_k::Plan p = stream_k::plan(m, a.M, a.N, a.K, int64_t(info.sms) * info.blocks_per_sm);
  return stream_k::launch(p, m, t.whole, t.shares, Cfg::kThreads, Cfg::smem_bytes(a.transb), a, stream, batch);
}
// 128-bit loads where the operands allow them (tiles_vec); NN stores an unaligned C a float at a time.
template <class Cfg>
Status launch_tiles(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  const bool vec = tiles_vec(a);
  return launch_with(vec && !vec4_ok_batched(a) ? tiles_c32<Cfg>() : tiles_of<Cfg>(vec, a.transa, a.transb), a, stream,
                     why);
}

}  // namespace sgemm::rung30

// The instances of one tile candidate, in its unit (kernels/CMakeLists.txt defines SGEMM_30_TILE).
#ifdef SGEMM_30_TILE
namespace sgemm::rung30 {
template Status launch_tiles<SGEMM_30_TILE>(const GemmArgs& a, cudaStream_t stream, std::string* why);
template Status prepare_tiles<true, SGEMM_30_TILE>(KernelInfo* info, std::string* why);
template Status prepare_tiles<false, SGEMM_30_TILE>(KernelInfo* info, std::string* why);
}  // namespace sgemm::rung30
#endif
// The capstone's tile: rung 17's own launch (in its unit) serves every case but this one.
#ifdef SGEMM_30_CAPSTONE_TILES
namespace sgemm::rung30 {
Status launch_capstone_tiles(const GemmArgs& a, cudaStream_t stream, std::string* why) {
  return launch_with(tiles_c32<Capstone>(), a, stream, why);
}
}  // namespace sgemm::rung30
#endif
