// The dispatch rung's candidates as the rung file (30_auto.cuh) calls them: the capstone's kernel in
// five tiles, split-K on two of them, and the GEMVs. Each is compiled in a translation unit of its
// own (kernels/CMakeLists.txt generates rungs/30_auto.<part>.cu), so that the parts build in
// parallel and a change to one recompiles it alone; this header declares what those units define.
#pragma once

#include <cstddef>
#include <string>

#include "common/common.cuh"
#include "dispatch/model.hpp"
#include "tuned/tuned.cuh"

// The capstone's tile configuration (its kernel templates are instantiated in the parts, not here).
#include "ffma/capstone.cuh"

namespace sgemm::rung30 {

// The capstone's kernels in the tiles of the model's candidates (dispatch/model.hpp names them).
template <class T>
using TileConfig = capstone_rung::Config<T::BM, T::BN, T::BK, T::WM, T::WN, T::TM, T::TN, T::Stages, T::KU>;
using Capstone = TileConfig<CapstoneTile>;
using FewRows = TileConfig<FewRowsTile>;
using FewCols = TileConfig<FewColsTile>;
using Small = TileConfig<SmallTile>;
using ShortK = TileConfig<ShortKTile>;
template <class Cfg, size_t kC>
constexpr bool same_tile() {
  return kCandidateList[kC].BM == Cfg::BM && kCandidateList[kC].BN == Cfg::BN && kCandidateList[kC].BK == Cfg::BK &&
         kCandidateList[kC].tailSlab == Cfg::kTailSlab;
}

// Defined in rungs/30_auto.tiles_<Cfg>.cu (dispatch/tiles.cuh): the capstone's kernels in tile Cfg
// with its stream-K plan (a batch in whole tiles), and their NN kernels prepared for the model's
// occupancy (kVec: 128-bit accesses).
template <class Cfg>
Status launch_tiles(const GemmArgs& a, cudaStream_t stream, std::string* why);
template <bool kVec, class Cfg>
Status prepare_tiles(KernelInfo* info, std::string* why);
// The capstone's tile where rung 17's own launch does not serve (capstone_own): NN with 128-bit
// loads and C stored a float at a time (rungs/30_auto.tiles_Capstone.cu).
Status launch_capstone_tiles(const GemmArgs& a, cudaStream_t stream, std::string* why);

// Defined in rungs/30_auto.split_k_<Cfg>.cu (dispatch/split_k.cuh): split-K on tile Cfg, priced
// as candidate kC, into the model's parts (splits 0) or at most `splits`; its NN kernels prepared.
template <class Cfg, size_t kC>
Status launch_split_k_into(const GemmArgs& a, int splits, cudaStream_t stream, std::string* why);
template <bool kVec, class Cfg>
Status prepare_split_k(KernelInfo* info, std::string* why);

// Defined in rungs/30_auto.gemv_rows.cu and rungs/30_auto.gemv_t.cu (dispatch/gemv_launch.cuh):
// the GEMVs by form (gemv_form): op(B) = B along its rows; op(B) = B^T, and the narrow-N form.
Status launch_gemv_rows(const GemmArgs& a, cudaStream_t stream, std::string* why);
Status launch_gemv_t(const GemmArgs& a, cudaStream_t stream, std::string* why);

}  // namespace sgemm::rung30
