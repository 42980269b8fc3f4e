#!/usr/bin/env python3
"""exp40: variants of rung 15's k loop, written over kernels/15_stream_k.cuh for one experiment.

Usage:  python3 tools/experiments/exp40_variants.py VARIANT [RUNG_HEADER]   (edits the header in place)

  base        unchanged
  order       FFMAs of the outer product in 2x2 blocks (two rows x two columns), the row pairs
              walked forward and back in turn, as cuBLAS's FFMA loop orders them: more operands
              can come from the reuse cache
  loop        a slab loop around a branch-free chunk loop: every chunk runs the same body (the
              last step of a chunk reads the next chunk's first fragment, wrapping to step 0 of
              the same stage at the slab end); the slab end (store A, wait, barrier, first
              fragment of the next slab) follows the chunk loop instead of sitting inside it
  order_loop  both
  order_cm    as order, each 2x2 block walked down its first column, then its second
  order_i     2x2 blocks, row pairs outer, the column pairs walked forward and back in turn

Only for experiments on the GPU machine's copy of the tree (exp40_run.sh); nothing is committed
in a patched state.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ORDER_OLD = """#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) rAcc[i][j] += rA[i] * rB[j];
}"""
ORDER_NEW = """#pragma unroll
  for (int j = 0; j < TN; j += 2)
#pragma unroll
    for (int ii = 0; ii < TM; ii += 2) {
      const int i = (j / 2) % 2 == 0 ? ii : TM - 2 - ii;
      rAcc[i][j] += rA[i] * rB[j];
      rAcc[i][j + 1] += rA[i] * rB[j + 1];
      rAcc[i + 1][j] += rA[i + 1] * rB[j];
      rAcc[i + 1][j + 1] += rA[i + 1] * rB[j + 1];
    }
}"""
ORDER_CM = ORDER_NEW.replace("""      rAcc[i][j + 1] += rA[i] * rB[j + 1];
      rAcc[i + 1][j] += rA[i + 1] * rB[j];""", """      rAcc[i + 1][j] += rA[i + 1] * rB[j];
      rAcc[i][j + 1] += rA[i] * rB[j + 1];""")
ORDER_I = """#pragma unroll
  for (int i = 0; i < TM; i += 2)
#pragma unroll
    for (int jj = 0; jj < TN; jj += 2) {
      const int j = (i / 2) % 2 == 0 ? jj : TN - 2 - jj;
      rAcc[i][j] += rA[i] * rB[j];
      rAcc[i][j + 1] += rA[i] * rB[j + 1];
      rAcc[i + 1][j] += rA[i + 1] * rB[j];
      rAcc[i + 1][j + 1] += rA[i + 1] * rB[j + 1];
    }
}"""
LOOP_START = "  // The k loop runs in chunks of KU steps"
LOOP_END = "  cp_async_wait<0>();"
LOOP_NEW = """  constexpr int kChunks = BK / KU;  // chunks per slab
#pragma unroll 1
  for (int kt = 0; kt < kTiles; ++kt) {
    issue_b(kt + Stages - 1);  // into the stage every warp left at the last barrier
    const Stage<BM, BN> st = stage(kt);
#pragma unroll 1
    for (int c = 0; c < kChunks; ++c) {
      const int cNext = (c + 1) % kChunks;  // 0 at the slab end: a throw-away read of this stage
#pragma unroll
      for (int k = 0; k < KU; ++k) {
        if (k < KU - 1)
          load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[(k + 1) % 2], rB[(k + 1) % 2], st, c * KU + k + 1,
                                                       c * (KU / kVecWidth) + (k + 1) / kVecWidth, aBase, bBase);
        else
          load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[(k + 1) % 2], rB[(k + 1) % 2], st, cNext * KU,
                                                       cNext * (KU / kVecWidth), aBase, bBase);
        outer_product(rA[k % 2], rB[k % 2], rAcc);
      }
    }
    if (kt + 1 < kTiles) store_a<T, BM, BN, BK>(stage(kt + 1), rStage);
    cp_async_wait<Stages - 2>();
    __syncthreads();
    if (kt + 1 < kTiles) {
      load_fragment<T, BM, BN, BK, WM, WN, TM, TN>(rA[0], rB[0], stage(kt + 1), 0, 0, aBase, bBase);
      if (kt + 2 < kTiles) fetch_a(kt + 2);
    }
  }
"""


def patch(text: str, variant: str) -> str:
    orders = {"order": ORDER_NEW, "order_loop": ORDER_NEW, "order_cm": ORDER_CM, "order_i": ORDER_I}
    if variant not in ("base", "loop", *orders):
        raise SystemExit(f"unknown variant {variant}")
    if variant in orders:
        assert ORDER_OLD in text, "outer_product not found"
        text = text.replace(ORDER_OLD, orders[variant])
    if "loop" in variant:
        a, b = text.index(LOOP_START), text.index(LOOP_END)
        text = text[:a] + LOOP_NEW + text[b:]
    return text


def cli(patcher, default_header: str, doc: str) -> int:
    """The command line of a variant writer: VARIANT [RUNG_HEADER], the header edited in place."""
    if len(sys.argv) < 2:
        print(doc)
        return 2
    path = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "kernels" / default_header
    path.write_text(patcher(path.read_text(), sys.argv[1]))
    print(f"{path}: variant {sys.argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(cli(patch, "15_stream_k.cuh", __doc__))
