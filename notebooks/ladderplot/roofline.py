"""A small roofline: ceilings from the results' GPU context, points from Nsight Compute rows.

Ceilings (DESIGN.md, "Measuring"):
- FP32 SIMT peak = SMs x FP32 lanes (128; 64 on sm_80 and older) x 2 FLOP x max SM clock
  (context: sm_count, sm_clock_max_mhz, gpu_arch).
- Memory: the copy bandwidth measured by sgemm_bench (context: copy_bandwidth_gbs). Without it,
  ``fallback_bandwidth_gbs`` is used and labelled "not measured".

Points: arithmetic intensity = FLOPs / DRAM bytes from the ncu row; throughput from the
sgemm_bench row of the same GPU, rung and shape when there is one (clocks as benchmarked),
else the ncu kernel duration (ncu locks clocks to base, so a little lower).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .data import Results, context_number

# FP32 FFMA lanes per SM: 128 on sm_86 and later (Hopper included), 64 on Volta, Turing and A100.
FP32_LANES_PER_SM = {"sm_60": 64, "sm_70": 64, "sm_72": 64, "sm_75": 64, "sm_80": 64}
FP32_LANES_DEFAULT = 128
# H200 copy bandwidth measured for DESIGN.md (about 4.2 TB/s); only a placeholder for result
# files that do not carry copy_bandwidth_gbs, and always labelled "not measured".
FALLBACK_BANDWIDTH_GBS = 4200.0


@dataclass
class Ceilings:
    peak_gflops: float | None        # FP32 FFMA peak at the max SM clock
    bandwidth_gbs: float             # DRAM (copy) bandwidth
    bandwidth_measured: bool
    sm_count: int | None = None
    clock_mhz: float | None = None
    lanes: int = FP32_LANES_DEFAULT

    @property
    def ridge(self) -> float | None:
        """Arithmetic intensity (FLOP/byte) where the two ceilings meet."""
        return self.peak_gflops / self.bandwidth_gbs if self.peak_gflops else None

    def attainable(self, intensity) -> np.ndarray:
        """min(peak, bandwidth x intensity) in GFLOP/s."""
        roof = self.bandwidth_gbs * np.asarray(intensity, dtype=float)
        return np.minimum(roof, self.peak_gflops) if self.peak_gflops else roof

    def peak_text(self) -> str:
        return (f"FP32 peak {self.peak_gflops / 1e3:.1f} TFLOP/s "
                f"({self.sm_count} SMs × {self.lanes} × 2 × {self.clock_mhz:.0f} MHz)")

    def bandwidth_text(self) -> str:
        how = "measured copy" if self.bandwidth_measured else "not measured: fallback value"
        return f"DRAM {self.bandwidth_gbs / 1e3:.2f} TB/s ({how})"


def ceilings(context, fallback_bandwidth_gbs: float = FALLBACK_BANDWIDTH_GBS) -> Ceilings:
    """The ceilings of one GPU from its context (a row of ``Results.context`` or a dict)."""
    sms = context_number(context, "sm_count")
    clock = context_number(context, "sm_clock_max_mhz")
    lanes = FP32_LANES_PER_SM.get(str(context.get("gpu_arch", "")), FP32_LANES_DEFAULT)
    peak = sms * lanes * 2 * clock * 1e-3 if sms and clock else \
        context_number(context, "fp32_peak_gflops_at_max_clock")
    bw = context_number(context, "copy_bandwidth_gbs")
    return Ceilings(peak_gflops=peak, bandwidth_gbs=bw if bw else float(fallback_bandwidth_gbs),
                    bandwidth_measured=bool(bw), sm_count=int(sms) if sms else None,
                    clock_mhz=clock, lanes=lanes)


def roofline_points(ncu: pd.DataFrame, results: Results | None = None) -> pd.DataFrame:
    """One point per ncu row: gpu, rung, label, M, N, K, flops, dram_bytes, intensity
    (FLOP/byte), gflops, gflops_source ("sgemm_bench" or "ncu")."""
    need = {"gpu", "rung", "flops", "dram_bytes"}
    if ncu.empty or not need <= set(ncu.columns):
        return pd.DataFrame(columns=["gpu", "rung", "label", "M", "N", "K", "flops", "dram_bytes",
                                     "intensity", "gflops", "gflops_source"])
    pts = ncu.copy()
    if "label" not in pts:
        pts["label"] = pts["rung"].map(lambda r: f"{int(r):02d}")
    pts["intensity"] = pts["flops"] / pts["dram_bytes"]
    pts["gflops"] = pts["flops"] / pts["duration_ns"] if "duration_ns" in pts else np.nan
    pts["gflops_source"] = "ncu"
    if results is not None and {"M", "N", "K"} <= set(pts.columns):
        bench = results.timing[~results.timing["custom_ld"]]
        bench = bench.set_index(["gpu", "rung", "M", "N", "K"])["GFLOPS"]
        bench = bench[~bench.index.duplicated()]
        keys = list(zip(pts["gpu"], pts["rung"], pts["M"], pts["N"], pts["K"]))
        measured = bench.reindex(keys).to_numpy()
        have = ~np.isnan(measured)
        pts.loc[have, "gflops"] = measured[have]
        pts.loc[have, "gflops_source"] = "sgemm_bench"
    cols = ["gpu", "rung", "label", "M", "N", "K", "flops", "dram_bytes", "intensity", "gflops",
            "gflops_source"]
    return pts[[c for c in cols if c in pts]].reset_index(drop=True)


def ceilings_table(results: Results, fallback_bandwidth_gbs: float = FALLBACK_BANDWIDTH_GBS):
    """The ceilings of every GPU: peak GFLOP/s, bandwidth GB/s (and whether measured), ridge."""
    rows = {}
    for gpu in results.gpus:
        c = ceilings(results.context.loc[gpu], fallback_bandwidth_gbs)
        rows[gpu] = {"FP32 peak (GFLOP/s)": c.peak_gflops, "FP32 lanes / SM": c.lanes,
                     "max SM clock (MHz)": c.clock_mhz, "DRAM bandwidth (GB/s)": c.bandwidth_gbs,
                     "bandwidth measured": c.bandwidth_measured, "ridge (FLOP/byte)": c.ridge}
    return pd.DataFrame.from_dict(rows, orient="index")
