#!/usr/bin/env python3
"""exp41: variants of the k loop and stream-K path of rungs 16 and 17 (commit cb6b2a1), for one run.

Usage:  python3 tools/experiments/exp41_variants.py VARIANT RUNG_HEADER   (edits the header in place)

  base   unchanged
  skc    kStreamKSlabCost 1.35 -> 1.05: the model then cuts the last wave's tiles at 4096^3 and on
         the non-square shapes with K = 8192 or 16384 (3.88 waves of whole tiles), where rung 16
         runs whole tiles only. Asks: what does a stream-K slab cost now, against the whole tiles
         of rungs 16-17 (the 1.35 was fitted to rung 15's slower whole tiles)?
  skp    the stream-K unit's FFMAs in rung 16's paired order too (it keeps rung 15's order)
  skpc   both
  noguard  the whole-tile loop without runtime K-tail checks: rung 16 asks at every slab end
         whether this slab runs past K (`kGuard || (tile + 1) * BK > K`), and ptxas turns each of
         the A slab's four loads into a guarded branch region (BSSY/BSYNC, address math with
         3-13 cycle stalls). Here only tiles inside M and N whose K is a multiple of BK take the
         unguarded path, which then checks nothing; the rest take the guarded one
  slabend  B's cp.async for slab kt+Stages issued right after the slab-end barrier (the stage
         every warp has just left) instead of at the start of the next slab: one runtime test per
         chunk (`c == 0`) less, the prologue issues Stages slabs
  ngse   noguard and slabend
  ku16   the k loop unrolled in chunks of 16 steps instead of the tuned 8
  ski    the stream-K unit inlined into the stream-K kernel (it is __noinline__: its own
         register assignment, an ABI call per unit)
  expect   (rung 17) the slab-end test marked unlikely (__builtin_expect), so ptxas may lay the
         common path out without a taken branch
  fragfirst (rung 17) after the slab-end barrier, the first fragment read before B's copies
  afirst (rung 17, after fragfirst) A's loads for slab kt+2 before B's copies for kt+Stages
  spreadb (rung 17) the whole-tile kernel's B copies spread over the FFMAs: chunk c of slab kt
         issues rows [c*KU, (c+1)*KU) of B slab kt+1 (one commit group each, predicated off past
         the last slab, no branch), in the same basic block as the chunk's FFMAs; the slab end
         then issues no B copies. Two stages only: the last quarter has about one chunk to land
  spreada (rung 17) the whole-tile kernel's A slab in quarters inside the FFMA stream: at step 0
         of chunk c, store the quarter of A slab kt+1 that chunk c-1 loaded (chunk 0 rewrites the
         slab end's leftover where the slab end overwrites it later) and load quarter c; the slab
         end stores the last quarter. One float4 of A in registers instead of four
  sts64  (rung 17) A staged as row pairs: a thread loads rows 2p and 2p+1 (and the pair 2*kRowsA
         below), so that at the slab end the two rows' values of each k sit side by side in the
         transposed tile: 8 STS.64 per slab instead of 16 STS
  loop   (rung 17) exp40's loop shape on rung 17: a slab loop around a chunk loop whose body has
         no slab test (the last step of a chunk reads the next chunk's first fragment, a
         throw-away read of this stage at the slab end), the slab end after the chunk loop
Variants combine with '+': ngse+ku16. Each asserts the text it replaces: noguard, slabend,
ngse and ku16 match rung 16; fragfirst and afirst rung 17 as of 730e5f3 (fragfirst is part of
the rung since b9b59a0); spreada and sts64 rung 17 as of 7421a50 (sts64 is part of the rung
since); expect, loop and spreadb rung 17 as it is; skc, skp and ski
both rungs.

Driven by exp40_run.sh (RUNG=16 or 17, PATCHER="python3 tools/experiments/exp41_variants.py"); only
the GPU machine's copy of the tree is patched, nothing is committed in a patched state.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exp40_variants import LOOP_NEW, cli  # noqa: E402  (exp40's loop shape and command line)

COST = ("constexpr double kStreamKSlabCost = 1.35;", "constexpr double kStreamKSlabCost = 1.05;")
NOGUARD = [("if (kGuard || (tile + 1) * BK > K) load_b_async", "if (kGuard) load_b_async"),
           ("if (kGuard || (tile + 1) * BK > K) load_a", "if (kGuard) load_a"),
           ("if (m0 + BM <= M && n0 + BN <= N)\n", "if (m0 + BM <= M && n0 + BN <= N && K % BK == 0)\n"),
           ("if ((blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N)\n",
            "if ((blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N && K % BK == 0)\n")]
SLABEND = [("for (int s = 0; s < Stages - 1; ++s) issue_b(s);", "for (int s = 0; s < Stages; ++s) issue_b(s);"),
           ("  cp_async_wait<Stages - 2>();\n  __syncthreads();\n  float rA",
            "  cp_async_wait<Stages - 1>();\n  __syncthreads();\n  float rA"),
           ("    if (c == 0) issue_b(kt + Stages - 1);", "    "),
           ("        cp_async_wait<Stages - 2>();\n        __syncthreads();\n",
            "        cp_async_wait<Stages - 2>();\n        __syncthreads();\n        issue_b(kt + Stages);\n")]
INLINE = [("__device__ __noinline__ void stream_k_unit", "__device__ __forceinline__ void stream_k_unit")]
EXPECT = [("      if (k == KU - 1 && c == kChunks - 1) {", "      if (__builtin_expect(k == KU - 1 && c == kChunks - 1, 0)) {")]
FRAGFIRST = [("""        if (kWhole) issue_b(kt + Stages);
        if (kt + 1 < kTiles) {
          load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[(k + 1) % 2], rB[(k + 1) % 2], stage(kt + 1), 0, 0, aBase,
                                                       bBase);
""", """        if (kt + 1 < kTiles)
          load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[(k + 1) % 2], rB[(k + 1) % 2], stage(kt + 1), 0, 0, aBase,
                                                       bBase);
        if (kWhole) issue_b(kt + Stages);
        if (kt + 1 < kTiles) {
""")]
AFIRST = [("""        if (kWhole) issue_b(kt + Stages);
        if (kt + 1 < kTiles) {
          if (kt + 2 < kTiles) fetch_a(kt + 2);
        }""", """        if (kt + 2 < kTiles) fetch_a(kt + 2);
        if (kWhole) issue_b(kt + Stages);""")]
SPREADB = [
    ("// The register fragments of step k", """// Issue the cp.async copies of B rows [r0, r0 + KU) of the slab starting at k0: one chunk's
// share of the next slab. live = false: nothing is read (the slab after the last).
template <typename T, int BM, int BN, int BK, int KU, bool kGuard>
__device__ __forceinline__ void load_b_chunk(Stage<BM, BN> st, const float* B, int ldb, int N, int K, int n0, int k0,
                                             int r0, bool live) {
  static_assert(KU % (2 * T::kWarps) == 0, "a chunk's B rows must split into row pairs per warp");
  const int lane = threadIdx.x % kWarpSize;
  const int bRow = r0 + threadIdx.x / kWarpSize * (KU / T::kWarps) + lane / T::kLanesB;
  const int bCol = lane % T::kLanesB * kVecWidth;
#pragma unroll
  for (int r = 0; r < KU / T::kWarps; r += 2) {
    const int gRow = k0 + bRow + r;
    const float* src = B + int64_t(gRow) * ldb + n0 + bCol;
#pragma unroll
    for (int c = 0; c < BN; c += T::kLanesB * kVecWidth) {
      int valid = live ? kVecWidth : 0;
      if (kGuard) valid = live && gRow < K ? min(max(N - (n0 + bCol + c), 0), kVecWidth) : 0;
      cp_async_16(&st.b[bRow + r][bCol + c], valid > 0 ? src + c : B, valid * int(sizeof(float)));
    }
  }
}

// The register fragments of step k"""),
    ("  constexpr int kAhead = kWhole ? Stages : Stages - 1;", "  constexpr int kAhead = Stages - 1;\n  static_assert(!kWhole || Stages == 2, \"spreadb: the next slab only\");"),
    ("    for (int k = 0; k < KU; ++k) {\n", """    for (int k = 0; k < KU; ++k) {
      if (kWhole && k == 0) {  // this chunk's share of B slab kt+1
        load_b_chunk<T, BM, BN, BK, KU, kGuard>(stage(kt + 1), B, ldb, N, K, n0, (kt + 1) * BK, c * KU, kt + 1 < kTiles);
        cp_async_commit();
      }
"""),
    ("        if (kWhole) issue_b(kt + Stages);\n", ""),
]
SPREADA = [
    ("// Issue the cp.async copies of the B slab starting at k0 into its stage.", """// Quarter q of the A slab starting at k0 into a register (spreada), and back into a stage.
template <typename T, int BM, int BK, bool kGuard>
__device__ __forceinline__ float4 load_a_part(const float* A, int lda, int M, int K, int m0, int k0, int q) {
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
  const int gRow = m0 + aRow + q * T::kRowsA;
  const float* src = A + int64_t(gRow) * lda;
  return kGuard ? load4_or_zero(src, k0 + aCol, K, gRow < M) : load_f4(src + k0 + aCol);
}
template <typename T, int BM, int BN, int BK>
__device__ __forceinline__ void store_a_part(Stage<BM, BN> st, float4 v, int q) {
  const int aRow = threadIdx.x / T::kVecA, aCol = threadIdx.x % T::kVecA * kVecWidth;
  const int m = swizzle_a<BK>(aCol, aRow + q * T::kRowsA);
  st.a[aCol + 0][m] = v.x;
  st.a[aCol + 1][m] = v.y;
  st.a[aCol + 2][m] = v.z;
  st.a[aCol + 3][m] = v.w;
}

// Issue the cp.async copies of the B slab starting at k0 into its stage."""),
    ("  if (kTiles > 1) fetch_a(1);\n", """  if (!kWhole && kTiles > 1) fetch_a(1);
  static_assert(BK / KU == T::kLoadsA, "spreada: one quarter of A per chunk");
  float4 rS = make_float4(0.f, 0.f, 0.f, 0.f);  // the quarter of A on its way (whole tiles)
"""),
    ("    for (int k = 0; k < KU; ++k) {\n", """    for (int k = 0; k < KU; ++k) {
      if (kWhole && k == 0) {  // A slab kt+1, a quarter per chunk
        store_a_part<T, BM, BN, BK>(stage(kt + 1), rS, (c + kChunks - 1) % kChunks);
        if (kt + 1 < kTiles) rS = load_a_part<T, BM, BK, kGuard>(A, lda, M, K, m0, (kt + 1) * BK, c);
      }
"""),
    ("        if (kt + 1 < kTiles) store_a<T, BM, BN, BK>(stage(kt + 1), rStage);\n",
     """        if (kt + 1 < kTiles) {
          if (kWhole) store_a_part<T, BM, BN, BK>(stage(kt + 1), rS, kChunks - 1);
          else store_a<T, BM, BN, BK>(stage(kt + 1), rStage);
        }
"""),
    ("          if (kt + 2 < kTiles) fetch_a(kt + 2);\n", "          if (!kWhole && kt + 2 < kTiles) fetch_a(kt + 2);\n"),
]
LOOP17_START = "#pragma unroll 1\n  for (int chunk = 0; chunk < kTiles * kChunks; ++chunk) {"
LOOP17_END = "  cp_async_wait<0>();\n\n  // Partial tiles"
STS64 = [
    ("""    const int gRow = m0 + aRow + i * T::kRowsA;
    const float* src = A + int64_t(gRow) * lda;""", """    const int gRow = m0 + 2 * aRow + i % 2 + i / 2 * 2 * T::kRowsA;  // row pairs
    const float* src = A + int64_t(gRow) * lda;"""),
    ("""  for (int i = 0; i < T::kLoadsA; ++i) {
    const int m = swizzle_a<BK>(aCol, aRow + i * T::kRowsA);  // the same for the 4 k of this float4
    st.a[aCol + 0][m] = rStage[i].x;
    st.a[aCol + 1][m] = rStage[i].y;
    st.a[aCol + 2][m] = rStage[i].z;
    st.a[aCol + 3][m] = rStage[i].w;
  }""", """  for (int i = 0; i < T::kLoadsA; i += 2) {  // rows m, m+1 (m even): side by side after the swizzle
    const int m = swizzle_a<BK>(aCol, 2 * aRow + i / 2 * 2 * T::kRowsA);
    *reinterpret_cast<float2*>(&st.a[aCol + 0][m]) = make_float2(rStage[i].x, rStage[i + 1].x);
    *reinterpret_cast<float2*>(&st.a[aCol + 1][m]) = make_float2(rStage[i].y, rStage[i + 1].y);
    *reinterpret_cast<float2*>(&st.a[aCol + 2][m]) = make_float2(rStage[i].z, rStage[i + 1].z);
    *reinterpret_cast<float2*>(&st.a[aCol + 3][m]) = make_float2(rStage[i].w, rStage[i + 1].w);
  }"""),
]
# exp40's loop shape (LOOP_NEW) in rung 17's terms: B issued at the slab start only in the
# stream-K unit, the whole-tile kernel's after the slab-end barrier, the order by kWhole.
LOOP17 = (LOOP_NEW.replace("  constexpr int kChunks = BK / KU;  // chunks per slab\n", "")
          .replace("    issue_b(kt + Stages - 1);  //", "    if (!kWhole) issue_b(kt + Stages - 1);  //")
          .replace("outer_product(rA", "outer_product<kWhole>(rA")
          .replace("    __syncthreads();\n", "    __syncthreads();\n    if (kWhole) issue_b(kt + Stages);\n"))
KU16 = [("kStages = Tuned::Stages, kKU = Tuned::KU;", "kStages = Tuned::Stages, kKU = 16;")]
PAIRED = ("Stages, KU, false, false>(smem", "Stages, KU, false, true>(smem"), \
         ("Stages, KU, true, false>(smem", "Stages, KU, true, true>(smem")


def patch(text: str, variant: str) -> str:
    edits = {"base": [], "skc": [COST], "skp": list(PAIRED), "skpc": [COST, *PAIRED], "noguard": NOGUARD,
             "slabend": SLABEND, "ngse": NOGUARD + SLABEND, "ku16": KU16, "ski": INLINE,
             "expect": EXPECT, "fragfirst": FRAGFIRST, "afirst": AFIRST, "spreadb": SPREADB, "spreada": SPREADA, "sts64": STS64, "loop": "loop"}
    if any(v not in edits for v in variant.split("+")):
        raise SystemExit(f"unknown variant {variant}")
    for v in variant.split("+"):
        if edits[v] == "loop":  # a whole block of the file
            a, b = text.index(LOOP17_START), text.index(LOOP17_END)
            text = text[:a] + LOOP17 + text[b:]
    for old, new in [e for v in variant.split("+") if edits[v] != "loop" for e in edits[v]]:
        assert text.count(old) == 1, f"expected exactly one {old!r}"
        text = text.replace(old, new)
    return text


if __name__ == "__main__":
    sys.exit(cli(patch, "16_ffma_order.cuh", __doc__))
