"""Write the synthetic fixture files of the notebook tests (deterministic; run it again to refresh).

    .venv/bin/python notebooks/tests/data/make_fixtures.py

Shaped like real sgemm_bench / sass_report / ncu_profile output: two GPUs (an H200 with every
file, an A100 with fewer sizes, no ncu CSV, one errored row and a row with custom leading
dimensions), rungs 0..10, sizes 256..8192, an accuracy sweep over K. The timing, accuracy and
ncu numbers are made up; the H200 SASS report is real (tools/sass_report.py on the sm_90 listing
kept in tools/tests/data). Every context carries a "fixture" key so figures made from these
files say so.
"""
import csv
import gzip
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
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
                 sizes=[256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192], ncu=True,
                 accuracy_ks=[256, 512, 1024, 2048, 4096, 8192, 16384]),
    "a100": dict(gpu_name="NVIDIA A100-SXM4-40GB", gpu_arch="sm_80", sm_count=108, clock=1410,
                 mem_clock=1215, l2=41943040, mem=42298834944, cublas_gflops=18900, copy_bw=None,
                 sizes=[256, 512, 1024, 2048, 4096], ncu=False, accuracy_ks=[256, 1024, 4096, 16384]),
}
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


def sig(x):
    """Six significant digits (Google Benchmark writes 17; shorter keeps the fixture small)."""
    return float(f"{x:.6g}") if isinstance(x, float) else x


def row(name, iterations, ms, counters, family):
    ms = sig(ms)
    r = {
        "name": name, "family_index": family, "per_family_instance_index": 0, "run_name": name,
        "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
        "iterations": iterations, "real_time": ms, "cpu_time": ms * 0.004, "time_unit": "ms",
    }
    r.update({k: sig(v) for k, v in sorted(counters.items())})
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
    for k in g["accuracy_ks"]:
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


def sass_reports():
    """h200: the real SASS report of every rung, made by tools/sass_report.py from the real sm_90
    cuobjdump listing the tools' tests keep (tools/tests/data/sample_all.sass.gz). a100: the
    same counts relabelled sm_80 with other register counts (made up)."""
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "all.sass"
        listing.write_bytes(gzip.decompress((REPO / "tools/tests/data/sample_all.sass.gz").read_bytes()))
        subprocess.run([sys.executable, str(REPO / "tools/sass_report.py"), "--all", "--sass-file",
                        str(listing), "--json", str(Path(tmp) / "sass.json")], check=True,
                       capture_output=True)
        h200 = json.loads((Path(tmp) / "sass.json").read_text())
    h200["lib"] = "build/release/kernels/libsgemm_ladder.so"
    a100 = json.loads(json.dumps(h200))
    a100["gpu_arch"] = "sm_80"
    for r in a100["rungs"]:
        r["registers"] = min(255, r["registers"] + 8 * (r["rung"] % 3))
        r["shared_bytes"] = max(0, r["shared_bytes"] - 1024)  # no system-reserved KiB on sm_80
    return {"h200": h200, "a100": a100}


# The columns tools/ncu_profile.py writes (same order as tools/tests/data/h200_ncu.csv).
NCU_COLUMNS = (
    "rung,slug,M,N,K,kernel,block_size,grid_size,duration_ns,sm_clock_mhz,dram_bytes_read,"
    "dram_bytes_write,global_ld_sectors,global_ld_requests,global_st_sectors,global_st_requests,"
    "smem_ld_bank_conflicts,smem_st_bank_conflicts,smem_ld_wavefronts,smem_st_wavefronts,"
    "smem_ld_insts,smem_st_insts,achieved_occupancy_pct,issue_slots_busy_pct,issue_active_pct,"
    "ffma_thread_insts,inst_executed,registers_per_thread,stall_long_scoreboard,"
    "stall_short_scoreboard,stall_mio_throttle,stall_lg_throttle,stall_barrier,"
    "stall_math_pipe_throttle,stall_not_selected,stall_selected,stall_wait,stall_dispatch_stall,"
    "stall_no_instruction,dram_bytes,global_ld_sectors_per_request,"
    "global_st_sectors_per_request,smem_wavefronts_per_ffma,flops,arithmetic_intensity,"
    "achieved_gflops").split(",")


def ncu_rows(bench, sass):
    """One profiled launch per rung at 4096^3 (ncu locks the SM clock to base: slower)."""
    n = 4096
    flops = 2 * n**3
    regs = {r["rung"]: r["registers"] for r in sass["rungs"]}
    dram = [0.277e9, 8.72e9, 1.35e9, 0.62e9, 0.31e9, 0.24e9, 0.22e9, 0.22e9, 0.21e9, 0.21e9, 0.21e9]
    conflicts = [5e3, 0, 0, 4.2e6, 3.1e7, 6.7e7, 1.3e8, 0, 0, 0, 0]
    occupancy = [18.7, 98.1, 97.9, 66.0, 65.3, 24.8, 24.9, 24.9, 12.4, 24.8, 18.6]
    long_sb = [0.12, 24.0, 19.5, 3.2, 2.7, 1.1, 0.9, 0.8, 0.7, 0.6, 0.2]
    mio = [0.09, 0.01, 0.02, 6.1, 4.4, 2.2, 1.8, 0.4, 0.4, 0.3, 0.3]
    ld_per_req = [16, 16.5, 4.1, 4.0, 4.0, 4.0, 16, 16, 16, 16, 16]
    rows = []
    for r in bench:
        if r["M"] != n:
            continue
        rung = r["rung"]
        dur = r["ms"] * 1e6 * 1980 / 1755
        wavefronts = 0 if rung < 3 else flops / 2 * 8 / 32 / [1, 1, 1, 32, 64, 128, 256, 256, 256, 256, 256][rung]
        rows.append({
            "rung": rung, "slug": SLUGS[rung], "M": n, "N": n, "K": n,
            "kernel": "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3"
                      if rung == 0 else f"sgemm_{SLUGS[rung]}",
            "block_size": "(256, 1, 1)", "grid_size": "(32, 32, 1)", "duration_ns": round(dur),
            "sm_clock_mhz": 1755, "dram_bytes_read": round(dram[rung] * 0.76),
            "dram_bytes_write": round(dram[rung] * 0.24), "global_ld_sectors": round(dram[rung] / 8),
            "global_ld_requests": round(dram[rung] / 8 / ld_per_req[rung]),
            "global_st_sectors": 4194304, "global_st_requests": 524288 if rung != 1 else 16777216,
            "smem_ld_bank_conflicts": int(conflicts[rung]), "smem_st_bank_conflicts": 0,
            "smem_ld_wavefronts": round(wavefronts), "smem_st_wavefronts": round(wavefronts / 16),
            "smem_ld_insts": "", "smem_st_insts": "", "achieved_occupancy_pct": occupancy[rung],
            "issue_slots_busy_pct": round(min(95.0, 12 + 80 * r["pct_cublas"] / 100), 1),
            "issue_active_pct": round(min(95.0, 12 + 80 * r["pct_cublas"] / 100), 1),
            "ffma_thread_insts": n**3, "inst_executed": round(n**3 / 32 * (1.3 + 6 / (1 + rung))),
            "registers_per_thread": regs.get(rung, 128), "stall_long_scoreboard": long_sb[rung],
            "stall_short_scoreboard": 0.05, "stall_mio_throttle": mio[rung], "stall_lg_throttle": 0.01,
            "stall_barrier": 0 if rung < 3 else 0.3, "stall_math_pipe_throttle": 0.3,
            "stall_not_selected": 0.3, "stall_selected": 1, "stall_wait": 0.5,
            "stall_dispatch_stall": 0.01, "stall_no_instruction": 0.03,
            "dram_bytes": round(dram[rung]), "global_ld_sectors_per_request": ld_per_req[rung],
            "global_st_sectors_per_request": 8, "smem_wavefronts_per_ffma": round(wavefronts * 32 / n**3, 3),
            "flops": flops, "arithmetic_intensity": round(flops / dram[rung], 2),
            "achieved_gflops": round(flops / dur, 1),
        })
    return rows


def dump(doc):
    """Google Benchmark's layout, one benchmark row per line to keep the fixture small."""
    rows = ",\n    ".join(json.dumps(r) for r in doc["benchmarks"])
    return ('{\n  "context": ' + json.dumps(doc["context"], indent=2).replace("\n", "\n  ") +
            ',\n  "benchmarks": [\n    ' + rows + "\n  ]\n}\n")


def main():
    rng = random.Random(20261122)
    sass = sass_reports()
    for tag, g in GPUS.items():
        sizes = ",".join(map(str, g["sizes"]))
        command = (f"sgemm_bench --sizes {sizes} --min-time 0.25 --accuracy-sweep "
                   f"--json bench/results/{tag}.json")
        rows, fam = bench_rows(tag, g, rng)
        acc = accuracy_rows(g, rng, fam)
        extra = extra_a100_rows(fam + len(acc)) if tag == "a100" else []
        doc = {"context": context(tag, g, command), "benchmarks": rows + extra + acc}
        (HERE / f"{tag}.json").write_text(dump(doc))
        (HERE / f"{tag}_sass.json").write_text(json.dumps(sass[tag], indent=1) + "\n")
        if g["ncu"]:
            nrows = ncu_rows(rows, sass[tag])
            with open(HERE / f"{tag}_ncu.csv", "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=NCU_COLUMNS)
                w.writeheader()
                w.writerows(nrows)


if __name__ == "__main__":
    main()
