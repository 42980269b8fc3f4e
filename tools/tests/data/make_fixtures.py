"""Write the synthetic fixtures of the tools' tests (deterministic; run again to refresh):

    python3 tools/tests/data/make_fixtures.py

  h200.json      sgemm_bench --json output shape: context + rows rungNN_slug/SIZE^3 at 4096 and
                 8192 (8192 only for rungs >= 5), plus an accuracy row and a failed row that the
                 readers must skip. Numbers are made up (plausible for an H200), not measured.
  h200_ncu.csv   ncu_profile.py's CSV shape, rungs 0..10 at 4096^3; made-up numbers whose
                 trends follow the lessons (sectors/request fall at rung 2, bank conflicts at 7,
                 long_scoreboard and barrier stalls at 10).

The other files here are real or shaped by hand, see README.md.
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
import ncu_profile  # noqa: E402

SLUGS = ["00_cublas", "01_naive", "02_coalesced", "03_smem_tiling", "04_blocktile_1d", "05_blocktile_2d",
         "06_vectorized", "07_bank_conflict_free", "08_autotuned", "09_warptiling", "10_double_buffering"]
GFLOPS_4096 = [47250, 310, 3920, 5610, 14480, 24100, 29950, 33460, 35020, 38110, 43300]
GFLOPS_8192 = [48900, None, None, None, None, 25300, 31020, 34800, 36500, 39950, 45800]


def context():
    return {
        "date": "2026-11-21T12:00:00+00:00", "host_name": "fixture", "executable": "build/release/bench/sgemm_bench",
        "num_cpus": 16, "mhz_per_cpu": 2000, "cpu_scaling_enabled": False, "caches": [], "load_avg": [0, 0, 0],
        "library_build_type": "release", "gpu_name": "NVIDIA H200", "gpu_arch": "sm_90", "sm_count": "132",
        "sm_clock_max_mhz": "1980", "mem_clock_max_mhz": "3201", "l2_bytes": "62914560",
        "global_mem_bytes": "150110011392", "driver_version": "575.57.08", "cuda_driver_api": "12.9",
        "cuda_runtime": "13.2", "cublas_version": "13.2.1", "fp32_peak_gflops_at_max_clock": "66908",
        "sm_clock_at_start_mhz": "1980", "copy_bandwidth_gbs": "4210", "input": "uniform",
        "sgemm_ladder_git": "fixture", "command": "sgemm_bench --sizes 4096,8192 --json h200.json",
    }


def bench_row(name, rung, n, gflops, cublas_gflops):
    ms = 2.0 * n**3 / (gflops * 1e9) * 1e3
    return {"name": name, "family_index": rung, "per_family_instance_index": 0, "run_name": name,
            "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
            "iterations": 50, "real_time": ms, "cpu_time": ms * 0.01, "time_unit": "ms",
            "GFLOPS": gflops, "K": n, "M": n, "N": n, "checked": 1, "max_abs_err": 1e-5,
            "ms": ms, "pct_cublas": round(100.0 * gflops / cublas_gflops, 3), "rel_err": 4e-7,
            "rung": rung, "samples": 50, "sm_clock_mhz": 1980, "verified": 1}


def results():
    rows = []
    for n, table in ((4096, GFLOPS_4096), (8192, GFLOPS_8192)):
        for rung, (slug, gf) in enumerate(zip(SLUGS, table)):
            if gf is not None:
                rows.append(bench_row(f"rung{slug}/{n}x{n}x{n}/min_time:0.250/manual_time", rung, n, gf, table[0]))
    acc = bench_row("accuracy/07_bank_conflict_free/uniform/1024x1024x256/iterations:3/manual_time", 7, 1024, 100, 100)
    failed = {"name": "rung10_double_buffering/1000x1000x1000/ld1001_1001_1001/min_time:0.250/manual_time",
              "run_name": "rung10_double_buffering/1000x1000x1000/ld1001_1001_1001", "run_type": "iteration",
              "error_occurred": True, "error_message": "lda must be a multiple of 4", "iterations": 0,
              "real_time": 0, "cpu_time": 0, "time_unit": "ms"}
    return {"context": context(), "benchmarks": rows + [acc, failed]}


# Per rung at 4096^3: DRAM MB read, ld sectors/request, st sectors/request, smem ld/st bank
# conflicts (M), smem wavefronts per warp FFMA, occupancy %, issue %, stalls lsb/mio/barrier.
NCU = [
    (210, 16.0, 8.0, 0.005, 0.001, 0.07, 18.7, 80.2, 0.12, 0.09, 0.08),
    (8650, 16.5, 32.0, 0.0, 0.0, 0.0, 98.1, 9.1, 24.0, 0.01, 0.0),
    (1290, 2.5, 4.0, 0.0, 0.0, 0.0, 97.9, 31.0, 4.10, 0.02, 0.0),
    (720, 4.0, 4.0, 0.01, 0.0, 2.0, 66.2, 48.0, 0.91, 0.62, 0.71),
    (460, 4.0, 4.0, 0.02, 0.0, 0.53, 64.0, 61.0, 0.52, 0.41, 0.33),
    (330, 4.0, 4.0, 4.6, 0.0, 0.27, 24.8, 66.0, 0.48, 0.61, 0.24),
    (318, 16.0, 16.0, 33.1, 2.1, 0.25, 24.6, 69.0, 0.45, 0.95, 0.22),
    (318, 16.0, 16.0, 0.0012, 0.0, 0.13, 24.6, 71.9, 0.41, 0.22, 0.19),
    (300, 16.0, 16.0, 0.0012, 0.0, 0.13, 24.7, 74.0, 0.38, 0.21, 0.18),
    (296, 16.0, 16.0, 0.0009, 0.0, 0.12, 24.4, 78.5, 0.36, 0.18, 0.17),
    (290, 16.0, 16.0, 0.0, 0.0, 0.11, 16.5, 89.0, 0.07, 0.15, 0.04),
]


def ncu_rows():
    n = 4096
    rows = []
    for rung, (slug, gf, v) in enumerate(zip(SLUGS, GFLOPS_4096, NCU)):
        mb, ldr, str_, cld, cst, wpf, occ, iss, lsb, mio, bar = v
        dur = 2.0 * n**3 / (gf * 0.985)  # ns: ncu's launch runs slightly slower than the timed median
        ffma = float(n**3)
        ld_req = 8.0e6 if rung == 0 else 2.1e6 * (1 + (rung < 3) * 64)
        row = {
            "duration_ns": round(dur), "sm_clock_mhz": 1755.0,
            "dram_bytes_read": mb * 1e6, "dram_bytes_write": 67.1e6,
            "global_ld_sectors": ld_req * ldr, "global_ld_requests": ld_req,
            "global_st_sectors": 524288 * str_, "global_st_requests": 524288.0,
            "smem_ld_bank_conflicts": cld * 1e6, "smem_st_bank_conflicts": cst * 1e6,
            "smem_ld_wavefronts": wpf * ffma / 32 * 0.94 if wpf else 0.0,
            "smem_st_wavefronts": wpf * ffma / 32 * 0.06 if wpf else 0.0,
            "smem_ld_insts": None, "smem_st_insts": None,
            "achieved_occupancy_pct": occ, "issue_slots_busy_pct": iss, "issue_active_pct": iss,
            "ffma_thread_insts": ffma, "inst_executed": ffma / 32 * (100 / max(iss, 1)) * 0.9,
            "registers_per_thread": 128.0,
            "stall_long_scoreboard": lsb, "stall_short_scoreboard": 0.05, "stall_mio_throttle": mio,
            "stall_lg_throttle": 0.01, "stall_barrier": bar, "stall_math_pipe_throttle": 0.3,
            "stall_not_selected": 0.3, "stall_selected": 1.0, "stall_wait": 0.5,
            "stall_dispatch_stall": 0.01, "stall_no_instruction": 0.03,
        }
        launch = {"kernel": "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3" if rung == 0
                  else f"sgemm_{slug}", "block_size": "(256, 1, 1)", "grid_size": "(32, 32, 1)", "values": {}}
        for col, metric, kind in ncu_profile.METRICS:
            value = row[col]
            unit = {"time": "nsecond", "clock": "cycle/usecond", "bytes": "byte"}.get(kind, "")
            launch["values"][metric] = ("n/a" if value is None else repr(value), unit)
        rows.append(ncu_profile.make_row(rung, slug, n, n, n, launch))
    return rows


if __name__ == "__main__":
    (HERE / "h200.json").write_text(json.dumps(results(), indent=1) + "\n")
    ncu_profile.write_csv(ncu_rows(), HERE / "h200_ncu.csv")
    print("wrote h200.json, h200_ncu.csv")
