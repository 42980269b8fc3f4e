"""Write the synthetic fixture files of the notebook tests (deterministic; run it again to refresh).

    .venv/bin/python notebooks/tests/data/make_fixtures.py

The numbers are made up but shaped like real sgemm_bench / sass_report / ncu output: two GPUs
(an H200 with every file, an A100 with fewer sizes, no ncu CSV, one errored row and a row with
custom leading dimensions), rungs 0..10, sizes 256..8192, an accuracy sweep over K. Every
context carries a "fixture" key so figures made from these files say so.
"""
import csv
import json
import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
U = 2.0**-24

SLUGS = ["00_cublas", "01_naive", "02_coalesced", "03_smem_tiling", "04_blocktile_1d",
         "05_blocktile_2d", "06_vectorized", "07_bank_conflict_free", "08_autotuned",
         "09_warptiling", "10_double_buffering"]
# Large-size fraction of cuBLAS each rung reaches, and the block tile edge that sets how many
# blocks a small problem has (occupancy at small sizes).
PCT = [100, 1.2, 9.0, 12.5, 33.0, 55.0, 64.0, 70.0, 78.0, 84.0, 88.5]
TILE = [128, 32, 32, 32, 64, 128, 128, 128, 128, 128, 128]
# Accuracy: error constant of each rung (same accumulation order -> same error).
ERR_C = [0.31, 0.52, 0.52, 0.52, 0.52, 0.47, 0.47, 0.47, 0.47, 0.45, 0.45]

GPUS = {
    "h200": dict(gpu_name="NVIDIA H200", gpu_arch="sm_90", sm_count=132, clock=1980, mem_clock=3201,
                 l2=62914560, mem=150110011392, cublas_gflops=51200, copy_bw="4210",
                 sizes=[256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192], ncu=True),
    "a100": dict(gpu_name="NVIDIA A100-SXM4-40GB", gpu_arch="sm_80", sm_count=108, clock=1410,
                 mem_clock=1215, l2=41943040, mem=42298834944, cublas_gflops=18900, copy_bw=None,
                 sizes=[256, 512, 1024, 2048, 4096], ncu=False),
}
ACCURACY_KS = [256, 512, 1024, 2048, 4096, 8192, 16384]


def context(tag, g, command):
    peak = g["sm_count"] * 128 * 2 * g["clock"] * 1e-3
    c = {
        "date": "2026-11-22T10:00:00+00:00",
        "host_name": f"{tag}-node",
        "executable": "build/release/bench/sgemm_bench",
        "num_cpus": 16,
        "mhz_per_cpu": 2100,
        "cpu_scaling_enabled": False,
        "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 1},
                   {"type": "Unified", "level": 2, "size": 2097152, "num_sharing": 1}],
        "load_avg": [0.42, 0.3, 0.2],
        "library_build_type": "release",
        "gpu_name": g["gpu_name"],
        "gpu_arch": g["gpu_arch"],
        "sm_count": str(g["sm_count"]),
        "sm_clock_max_mhz": str(g["clock"]),
        "mem_clock_max_mhz": str(g["mem_clock"]),
        "l2_bytes": str(g["l2"]),
        "global_mem_bytes": str(g["mem"]),
        "driver_version": "570.124.06",
        "cuda_driver_api": "12.8",
        "cuda_runtime": "12.8",
        "cublas_version": "12.8.4",
        "fp32_peak_gflops_at_max_clock": str(int(peak)),
        "sm_clock_at_start_mhz": str(g["clock"]),
        "cublas_baseline": "cublasGemmEx_64, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_PEDANTIC_MATH: "
                           "pure FP32, TF32 never used",
        "timing": "median of launches each between its own CUDA events, queued back to back, "
                  "inputs rotated through sets larger than 2x L2",
        "input": "uniform",
        "sgemm_ladder_git": "fixture",
        "command": command,
        "fixture": "synthetic numbers for the notebook tests (notebooks/tests/data/make_fixtures.py), "
                   "not a measurement",
    }
    if g["copy_bw"]:
        c["copy_bandwidth_gbs"] = g["copy_bw"]
    return c


def gflops_model(g, rung, n, rng):
    """Throughput of a rung at size n: large-size rate, fewer blocks than SMs at small sizes,
    a few microseconds of launch overhead, 2% noise."""
    top = g["cublas_gflops"] * PCT[rung] / 100
    blocks = (n / TILE[rung]) ** 2
    fill = min(1.0, blocks / (2 * g["sm_count"])) ** 0.55
    t = 2.0 * n**3 / (top * 1e9 * fill) + 4e-6
    return 2.0 * n**3 / t * 1e-9 * rng.uniform(0.98, 1.02)


def row(name, iterations, ms, counters, family):
    r = {
        "name": name, "family_index": family, "per_family_instance_index": 0, "run_name": name,
        "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
        "iterations": iterations, "real_time": ms, "cpu_time": ms * 0.004, "time_unit": "ms",
    }
    r.update(dict(sorted(counters.items())))
    return r


def bench_rows(tag, g, rng):
    rows, fam = [], 0
    for n in g["sizes"]:
        cublas_ms = None
        for rung, slug in enumerate(SLUGS):
            gf = gflops_model(g, rung, n, rng)
            ms = 2.0 * n**3 / (gf * 1e9) * 1e3
            if rung == 0:
                cublas_ms = ms
            iters = max(1, int(250 / ms))
            rel = ERR_C[rung] * U * math.sqrt(n) * rng.uniform(0.97, 1.03)
            rows.append(row(f"rung{slug}/{n}x{n}x{n}/min_time:0.250/manual_time", iters, ms, {
                "rung": rung, "M": n, "N": n, "K": n, "GFLOPS": gf, "pct_cublas": 100 * cublas_ms / ms,
                "rel_err": rel, "verified": 1, "checked": 1, "ms": ms, "samples": iters,
                "max_abs_err": rel * math.sqrt(n) * 0.6, "sm_clock_mhz": g["clock"] - 15 * (rung % 3),
            }, fam))
            fam += 1
    return rows, fam


def accuracy_rows(g, rng, fam, mn=1024):
    rows = []
    for k in ACCURACY_KS:
        for dist, scale in (("uniform", 1.0), ("normal", 1.12)):
            for rung, slug in enumerate(SLUGS):
                rel = ERR_C[rung] * scale * U * math.sqrt(k) * rng.uniform(0.95, 1.05)
                ms = 2.0 * mn * mn * k / (gflops_model(g, rung, mn, rng) * 1e9) * 1e3
                rows.append(row(f"accuracy/{slug}/{dist}/{mn}x{mn}x{k}/iterations:3/manual_time", 3, ms, {
                    "rung": rung, "M": mn, "N": mn, "K": k, "GFLOPS": 2.0 * mn * mn * k / ms * 1e-6,
                    "pct_cublas": 0, "rel_err": rel, "verified": 1, "checked": 0, "ms": ms, "samples": 3,
                    "max_abs_err": rel * math.sqrt(k) * 0.6, "sm_clock_mhz": 0,
                    "accuracy_sweep": 1, "input_normal": int(dist == "normal"),
                }, fam))
                fam += 1
    return rows


def extra_a100_rows(fam):
    """A row with custom leading dimensions, and one that errored (no counters)."""
    ok = row("rung00_cublas/1000x1000x1000/ld1004_1004_1004/min_time:0.250/manual_time", 2100, 0.119, {
        "rung": 0, "M": 1000, "N": 1000, "K": 1000, "GFLOPS": 16806.7, "pct_cublas": 100.0,
        "rel_err": 2.9e-07, "verified": 1, "checked": 1, "ms": 0.119, "samples": 2100,
        "max_abs_err": 5.1e-06, "sm_clock_mhz": 1410}, fam)
    bad = {
        "name": "rung10_double_buffering/1000x1000x1000/ld1001_1001_1001/min_time:0.250/manual_time",
        "family_index": fam + 1, "per_family_instance_index": 0,
        "run_name": "rung10_double_buffering/1000x1000x1000/ld1001_1001_1001/min_time:0.250/manual_time",
        "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
        "error_occurred": True,
        "error_message": "A: lda=1001 is not a multiple of 4: 10_double_buffering loads 128-bit "
                         "vectors and needs 16-byte aligned rows",
        "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ms",
    }
    return [ok, bad]


def sass(tag, g):
    rungs = []
    for rung, slug in enumerate(SLUGS[1:], start=1):
        wide = rung >= 6
        counts = {
            "FFMA": [0, 16, 16, 64, 256, 512, 512, 512, 1024, 1024, 1024][rung],
            "LDG.E": [0, 32, 32, 2, 4, 8, 0, 0, 0, 0, 0][rung],
            "LDG.E.128": [0, 0, 0, 0, 0, 0, 4, 4, 8, 8, 0][rung],
            "LDGSTS": [0] * 10 + [16],
            "LDS": [0, 0, 0, 64, 72, 128, 0, 0, 0, 0, 0][rung],
            "LDS.128": [0, 0, 0, 0, 0, 0, 32, 32, 64, 64, 64][rung],
            "STS": [0, 0, 0, 2, 4, 8, 4, 4, 8, 4, 0][rung],
            "STS.128": [0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 0][rung],
            "BAR": [0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 3][rung],
            "BRA": [0, 6, 6, 4, 4, 4, 4, 4, 4, 4, 6][rung],
            "IMAD": [0, 40, 38, 24, 30, 60, 40, 44, 70, 60, 80][rung],
            "other": [0, 60, 58, 40, 50, 90, 80, 86, 120, 110, 150][rung],
        }
        if isinstance(counts["LDGSTS"], list):
            counts["LDGSTS"] = counts["LDGSTS"][rung]
        if g["gpu_arch"] == "sm_80":
            counts["IMAD"] += 6
        counts = {k: v for k, v in counts.items() if v}
        total = sum(counts.values())
        regs = [0, 32, 32, 38, 64, 110, 118, 122, 168, 128, 167][rung]
        smem = [0, 0, 0, 8192, 8192, 16384, 16384, 16384, 32768, 16384, 49152][rung]
        rungs.append({
            "rung": rung, "slug": slug, "function": f"sgemm_{slug}<...>", "registers": regs,
            "shared_bytes": smem, "local_bytes": 0, "stack_bytes": 0, "counts": counts,
            "total": total, "ffma_share": counts.get("FFMA", 0) / total,
        })
    return {"tool": "sass_report", "gpu_arch": g["gpu_arch"], "rungs": rungs}


def ncu_rows(g, bench):
    """One profiled launch per rung at 4096^3 (ncu locks clocks to base: a little slower)."""
    n = 4096
    flops = 2 * n**3
    dram = [0.21e9, 7.9e9, 1.35e9, 0.62e9, 0.31e9, 0.24e9, 0.22e9, 0.22e9, 0.21e9, 0.21e9, 0.21e9]
    conflicts = [0, 0, 0, 4.2e6, 3.1e7, 6.7e7, 1.3e8, 0, 0, 0, 0]
    occupancy = [25.1, 98.2, 97.9, 66.0, 65.3, 24.8, 24.9, 24.9, 12.4, 24.8, 24.6]
    long_sb = [2.1, 41.0, 38.5, 11.2, 9.7, 6.1, 5.0, 4.8, 4.4, 4.1, 1.9]
    rows = []
    for r in bench:
        if r["M"] != n or r.get("accuracy_sweep"):
            continue
        rung = r["rung"]
        dur = r["ms"] * 1e6 * 1.08
        rows.append({
            "rung": rung, "slug": SLUGS[rung], "M": n, "N": n, "K": n,
            "kernel": "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1"
                      if rung == 0 else f"sgemm_{SLUGS[rung]}",
            "duration_ns": round(dur), "dram_bytes_read": round(dram[rung] * 0.75),
            "dram_bytes_write": round(dram[rung] * 0.25), "flops": flops,
            "arithmetic_intensity": round(flops / dram[rung], 2),
            "achieved_gflops": round(flops / dur, 1),
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": int(conflicts[rung]),
            "sm__warps_active.avg.pct_of_peak_sustained_active": occupancy[rung],
            "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": long_sb[rung],
        })
    return rows


def main():
    rng = random.Random(20261122)
    for tag, g in GPUS.items():
        sizes = ",".join(map(str, g["sizes"]))
        command = (f"sgemm_bench --sizes {sizes} --min-time 0.25 --accuracy-sweep "
                   f"--json bench/results/{tag}.json")
        rows, fam = bench_rows(tag, g, rng)
        acc = accuracy_rows(g, rng, fam)
        extra = extra_a100_rows(fam + len(acc)) if tag == "a100" else []
        doc = {"context": context(tag, g, command), "benchmarks": rows + extra + acc}
        (HERE / f"{tag}.json").write_text(json.dumps(doc, indent=2) + "\n")
        (HERE / f"{tag}_sass.json").write_text(json.dumps(sass(tag, g), indent=2) + "\n")
        if g["ncu"]:
            nrows = ncu_rows(g, [r for r in rows])
            with open(HERE / f"{tag}_ncu.csv", "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(nrows[0]))
                w.writeheader()
                w.writerows(nrows)


if __name__ == "__main__":
    main()
