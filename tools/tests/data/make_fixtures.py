"""Write the synthetic fixtures of the tools' tests (deterministic; run again to refresh; needs pandas):

    python3 tools/tests/data/make_fixtures.py               # the result files below
    python3 tools/tests/data/make_fixtures.py --registry    # also registry_rungs.json, from the built library
    python3 tools/tests/data/make_fixtures.py --sass FULL   # also the SASS samples, from a full listing

  h200.json            sgemm_bench --json, today's counters, run with --repetitions 3: every row
                       three times (repetition_index 0-2) then its aggregates median, ci_lo, ci_hi;
                       rungs of both tracks at 4096^3, 8192^3 and 1024x8192x8192, a row with
                       custom leading dimensions, accuracy rows, and two rows that failed the way
                       Google Benchmark 1.8 writes them (error_occurred; skipped).
  h100.json            today's counters without repetitions (each row's interval is over its
                       rounds), a row whose clock fell and was measured again, a Google Benchmark
                       1.7 error row.
  a100.json            the counters of files written before the spread was measured (no quartiles,
                       interval, clock range, clock_ok; the peak under fp32_peak_gflops_at_max_clock).
  h200_workloads.json  the H200's workload suite (load("h200", suite="workloads")): rows named by
                       shape name, the dispatch rung's choice as each row's label.
  h200_sass.json       tools/sass_report.py --all --json on sample_all.sass.xz, registry_rungs.json.
  h200_ncu.csv         ncu_profile.py's CSV for the h200.json rungs at 4096^3; made-up numbers whose
                       trends follow the lessons (sectors/request fall at rung 2, bank conflicts at 7).
  registry_rungs.json  sgemm_ladder.rungs() of the build the SASS samples come from (--registry).
  sample.sass          (--sass) the sections of `cuobjdump -sass -res-usage` output FULL that hold
                       no rung or rungs 1-3 (and the C ABI's helper kernel), verbatim.
  sample_all.sass.xz   (--sass) all of FULL but the unaligned instances of the rungs (those whose
                       first template argument is false), without the hex encodings, every address
                       written as /*0000*/: small enough to commit.

Numbers are made up (plausible for each GPU), not measured. The other files here are real or
shaped by hand, see README.md.
"""
import json
import lzma
import re
import statistics
import sys
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
import ncu_profile  # noqa: E402
import sass_report  # noqa: E402
import sgemm_tools_common as common  # noqa: E402

REGISTRY = HERE / "registry_rungs.json"
# Rung: GFLOP/s at 4096^3 on the H200 (both tracks; 21 is the TF32 rung, not FP32-accurate).
GFLOPS = {0: 51300, 1: 500, 2: 6400, 6: 36000, 7: 39700, 10: 49000, 12: 48500, 15: 51500, 21: 135000, 23: 87000}
SLOW = (1, 2)  # measured at 4096^3 only
NAME_SUFFIX = "/iterations:1/manual_time"  # what Google Benchmark appends to every row's name


def slugs() -> dict[int, str]:
    return {r["id"]: r["slug"] for r in json.loads(REGISTRY.read_text())}


def context(gpu_name, sm_count, clock, peak, bandwidth, old=False, lanes=128, arch="sm_90", **extra):
    """The context sgemm_bench writes; `peak` is the FP32 peak it reports (its formula is C++'s)."""
    c = {"date": "2026-11-24T12:00:00+00:00", "host_name": "fixture", "executable": "build/release/bench/sgemm_bench",
         "num_cpus": 16, "mhz_per_cpu": 2000, "cpu_scaling_enabled": False, "caches": [],
         "library_build_type": "release", "gpu_name": gpu_name, "gpu_arch": arch, "sm_count": str(sm_count),
         "sm_clock_max_mhz": str(clock), "driver_version": "580.159.04", "cuda_runtime": "13.0",
         "cublas_version": "13.1.0", "copy_bandwidth_gbs": str(bandwidth), "sgemm_ladder_git": "fixture",
         "sgemm_ladder_version": "0.1.0", "fixture": "synthetic numbers (tools/tests/data/make_fixtures.py)"}
    c.update({"fp32_peak_gflops_at_max_clock": str(peak)} if old else
             {"fp32_lanes_per_sm": str(lanes), "fp32_peak_gflops": str(peak), "fp32_peak_gflops_at_max_clock": str(peak)})
    c.update(extra)
    return c


def counters(rung, m, n, k, gflops, cublas_gflops, clock, old=False, wobble=1.0):
    """One row's counters: today's, or (old) those of files from before the spread was measured."""
    ms = 2.0 * m * n * k / (gflops * wobble * 1e9) * 1e3
    cublas_ms = 2.0 * m * n * k / (cublas_gflops * 1e9) * 1e3
    pct = 100.0 * cublas_ms / ms
    c = {"rung": rung, "M": m, "N": n, "K": k, "GFLOPS": round(gflops * wobble, 1), "pct_cublas": round(pct, 3),
         "rel_err": 4.1e-07 if rung != 21 else 2.6e-04, "verified": 1, "checked": 1, "ms": round(ms, 6),
         "samples": 90, "max_abs_err": 1.1e-05, "sm_clock_mhz": clock, "fp32_accurate": int(rung != 21)}
    if rung == 21:
        c.update(pct_cublas_tf32=round(pct * 0.142, 3), cublas_tf32_rel_err=2.4e-04)
    if not old:
        c.update(pct_cublas_lo=round(pct * 0.992, 3), pct_cublas_hi=round(pct * 1.008, 3),
                 cublas_ms=round(cublas_ms, 6), ms_q1=round(ms * 0.995, 6), ms_q3=round(ms * 1.006, 6),
                 rounds=9, sm_clock_min_mhz=clock - 15, sm_clock_max_mhz=clock, clock_ok=1, remeasured=0)
    return c


def row(name, c, **extra):
    """A Google Benchmark row: name (with what Google Benchmark appends), timing fields, counters."""
    full = name + NAME_SUFFIX
    return {"name": full, "family_index": 0, "per_family_instance_index": 0, "run_name": full,
            "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 1,
            "real_time": c.get("ms", 1.0), "cpu_time": 0.001, "time_unit": "ms", **extra, **c}


def repeated(name, passes):
    """The rows of one row run len(passes) times: each pass, then median, ci_lo and ci_hi (with
    three passes the 95% interval of the median is the smallest and the largest value)."""
    out = [row(name, c, repetitions=len(passes), repetition_index=i) for i, c in enumerate(passes)]
    for agg, stat in (("median", statistics.median), ("ci_lo", min), ("ci_hi", max)):
        c = {key: stat(p[key] for p in passes) for key in passes[0]}
        r = row(name, c, repetitions=len(passes), run_type="aggregate", aggregate_name=agg, aggregate_unit="time")
        r["name"] += f"_{agg}"
        del r["repetition_index"]
        out.append(r)
    return out


def failed(name, **how):
    full = name + NAME_SUFFIX
    return {"name": full, "family_index": 0, "per_family_instance_index": 0, "run_name": full,
            "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, **how,
            "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ms"}


def accuracy(slug, rung, dist, k, old=False):
    c = {"rung": rung, "M": 1024, "N": 1024, "K": k, "GFLOPS": 1000.0, "pct_cublas": 0, "rel_err": 2.9e-07 * (k / 256) ** 0.5,
         "verified": 1, "checked": 1, "ms": 0.5, "samples": 3, "max_abs_err": 4e-06, "sm_clock_mhz": -1,
         "fp32_accurate": int(rung != 21), "accuracy_sweep": 1, "input_normal": int(dist == "normal")}
    if rung == 21:
        c.update(rel_err=2.6e-04, cublas_tf32_rel_err=2.4e-04)
    return row(f"accuracy/{slug}/{dist}/1024x1024x{k}", c)


def shape_name(slug, m, n, k):
    return f"rung{slug}/{m}x{n}x{k}"


def h200():
    names, rows = slugs(), []
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (1024, 8192, 8192)]
    for m, n, k in shapes:
        for rung, gf in GFLOPS.items():
            if (rung in SLOW and m != 4096) or (m == 1024 and rung not in (0, 7)):
                continue
            passes = [counters(rung, m, n, k, gf, GFLOPS[0], 1980, wobble=w) for w in (1.0, 0.99, 1.012)]
            rows += repeated(shape_name(names[rung], m, n, k), passes)
    rows.append(row(shape_name(names[0], 1000, 1000, 1000) + "/ld1004_1004_1004",
                    counters(0, 1000, 1000, 1000, 30000, 30000, 1980)))
    rows.append(failed(shape_name(names[10], 1000, 1000, 1000) + "/ld1001_1001_1001", error_occurred=True,
                       error_message="A: lda=1001 is not a multiple of 4: 10_double_buffering needs 16-byte aligned rows"))
    rows.append(failed(shape_name(names[23], 64, 64, 64), skipped=True, skip_message="not built for this GPU"))
    rows += [accuracy(names[r], r, d, k) for k in (256, 4096) for d in ("uniform", "normal") for r in (0, 7, 21)]
    return {"context": context("NVIDIA H200", 132, 1980, 66908, 4210, repetitions="3"), "benchmarks": rows}


def h100():
    names, rows = slugs(), []
    for n in (4096, 8192):
        for rung in (0, 7, 12):
            c = counters(rung, n, n, n, GFLOPS[rung] * 0.85, GFLOPS[0] * 0.85, 1755)
            if rung == 12 and n == 8192:  # its clock fell in both measurements
                c.update(sm_clock_min_mhz=1410, clock_ok=0, remeasured=1)
            rows.append(row(shape_name(names[rung], n, n, n), c))
    rows.append(failed(shape_name(names[23], 4096, 4096, 4096), error_occurred=True,
                       error_message="23_wgmma_3xtf32: not built for this GPU's architecture"))
    return {"context": context("NVIDIA H100 80GB HBM3", 132, 1755, 59304, 3350), "benchmarks": rows}


def a100():
    names, rows = slugs(), []
    for n in (4096, 8192):
        for rung in (0, 7, 21):
            rows.append(row(shape_name(names[rung], n, n, n), counters(rung, n, n, n, GFLOPS[rung] * 0.37,
                                                                       GFLOPS[0] * 0.37, 1410, old=True)))
    rows.append(failed(shape_name(names[23], 4096, 4096, 4096), error_occurred=True,
                       error_message="23_wgmma_3xtf32: not built for this GPU's architecture"))
    rows += [accuracy(names[r], r, "uniform", 256, old=True) for r in (0, 7)]
    return {"context": context("NVIDIA A100-SXM4-80GB", 108, 1410, 19491, 1650, old=True, lanes=64, arch="sm_80"), "benchmarks": rows}


# The workload suite's shapes (bench/workloads.txt): name, M, N, K, and what the dispatch rung ran.
WORKLOADS = [("decode_q_b1", 1, 4096, 4096, "gemv M<=8"), ("prefill_qkv_512", 512, 6144, 4096, "capstone"),
             ("small_k", 4096, 4096, 256, "few rows")]


def workloads():
    """`sgemm_bench --suite workloads`: rows named by shape name, the dispatch rung's choice as label."""
    names, rows = slugs(), []
    for shape, m, n, k, choice in WORKLOADS:
        for rung, gf in ((0, 30000), (15, 29000), (30, 31000)):
            label = {"label": choice} if rung == 30 else {}
            rows.append(row(f"rung{names[rung]}/{shape}", counters(rung, m, n, k, gf, 30000, 1980), **label))
    return {"context": context("NVIDIA H200", 132, 1980, 66908, 4210, suite="workloads"), "benchmarks": rows}


# Per rung at 4096^3: DRAM MB read, ld sectors/request, smem ld bank conflicts (M), occupancy %,
# issue %, stalls long scoreboard / mio / barrier.
NCU = {0: (210, 16.0, 0.005, 18.7, 80.2, 0.12, 0.09, 0.08), 1: (8650, 16.5, 0.0, 98.1, 9.1, 24.0, 0.01, 0.0),
       2: (1290, 2.5, 0.0, 97.9, 31.0, 4.10, 0.02, 0.0), 6: (318, 16.0, 33.1, 24.6, 69.0, 0.45, 0.95, 0.22),
       7: (318, 16.0, 0.0012, 24.6, 71.9, 0.41, 0.22, 0.19), 10: (290, 16.0, 0.0, 16.5, 89.0, 0.07, 0.15, 0.04),
       12: (292, 16.0, 0.0, 12.2, 83.2, 0.01, 0.0, 0.08), 15: (310, 16.0, 0.0, 12.3, 87.8, 0.01, 0.0, 0.07),
       21: (300, 16.0, 0.0, 12.4, 60.0, 0.3, 0.1, 0.1), 23: (260, 16.0, 0.0, 12.5, 55.0, 0.2, 0.1, 0.1)}


def ncu_rows():
    n, names, rows = 4096, slugs(), []
    for rung, (mb, ldr, cld, occ, iss, lsb, mio, bar) in NCU.items():
        ld_req = 2.1e6 * (1 + (rung in SLOW) * 64)
        values = {"duration_ns": round(2.0 * n**3 / (GFLOPS[rung] * 0.985)), "sm_clock_mhz": 1755.0,
                  "dram_bytes_read": mb * 1e6, "dram_bytes_write": 67.1e6, "global_ld_sectors": ld_req * ldr,
                  "global_ld_requests": ld_req, "global_st_sectors": 524288 * 16.0, "global_st_requests": 524288.0,
                  "smem_ld_bank_conflicts": cld * 1e6, "smem_st_bank_conflicts": 0.0,
                  "smem_ld_wavefronts": 0.13 * n**3 / 32, "smem_st_wavefronts": 0.01 * n**3 / 32,
                  "achieved_occupancy_pct": occ, "issue_slots_busy_pct": iss, "issue_active_pct": iss,
                  "ffma_thread_insts": float(n**3), "inst_executed": n**3 / 32 * 1.4, "registers_per_thread": 128.0,
                  "stall_long_scoreboard": lsb, "stall_mio_throttle": mio, "stall_barrier": bar}
        launch = {"kernel": "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3" if rung == 0
                  else f"sgemm_{names[rung]}", "block_size": "(256, 1, 1)", "grid_size": "(32, 32, 1)",
                  **{col: values.get(col) for col, _, _ in ncu_profile.METRICS}}
        rows.append(ncu_profile.make_row(rung, names[rung], n, n, n, launch))
    return rows


def sass_report_json():
    rungs = [SimpleNamespace(**r) for r in json.loads(REGISTRY.read_text())]
    with common.open_text(HERE / "sample_all.sass.xz") as f:
        doc = sass_report.build_report(f, "build/release/kernels/libsgemm_ladder.so", "13.0.88", rungs)
    return json.dumps(doc, indent=1) + "\n"


def dump(doc):
    """Google Benchmark's layout, one row per line to keep the file small."""
    rows = ",\n    ".join(json.dumps(r) for r in doc["benchmarks"])
    return ('{\n  "context": ' + json.dumps(doc["context"], indent=2).replace("\n", "\n  ") +
            ',\n  "benchmarks": [\n    ' + rows + "\n  ]\n}\n")


def sass_samples(listing: Path) -> None:
    """sample.sass and sample_all.sass.xz from a full `cuobjdump -sass -res-usage` listing."""
    text = listing.read_text()
    sections = re.split(r"(?m)^(?=Fatbin )", text)
    small = [s for s in sections
             if all(sass_report.rung_of_function(f) in (None, 1, 2, 3) for f in re.findall(r"Function : (\S+)", s))]
    (HERE / "sample.sass").write_text("".join(small))
    kept, skipping = [], False
    lines = iter(text.splitlines())
    for line in lines:
        if m := re.match(r"\s*Function (\S+?):\s*$", line):  # a resource-usage entry: its line and the next
            if re.search(r"ILb0E", m.group(1)):  # mangled `<false, ...>`: the unaligned instance
                next(lines, None)
                continue
        if m := re.match(r"\s*Function : (\S+)", line):
            skipping = "ILb0E" in m.group(1)
        if not skipping:
            kept.append(line)
        elif line.strip().startswith("....."):  # the end of a function's code
            skipping = False
    small_all = "\n".join(ln for ln in kept if not re.fullmatch(r" +/\* 0x[0-9a-f]+ \*/ *", ln)) + "\n"
    small_all = re.sub(r"(?m) */\* 0x[0-9a-f]+ \*/ *$", "", small_all)
    small_all = re.sub(r"(?m)^( *)/\*[0-9a-f]{4,}\*/", r"\1/*0000*/", small_all)
    (HERE / "sample_all.sass.xz").write_bytes(lzma.compress(small_all.encode(), preset=9 | lzma.PRESET_EXTREME))


def write_registry():
    """registry_rungs.json from the registry of the built library, through the sgemm_ladder package."""
    fields = ("id", "slug", "track", "builds_on", "title", "lesson", "fp32_accurate", "source", "arch",
              "kernel", "tile", "capstone")
    rungs = [{f: getattr(r, f) for f in fields} for r in common.registry()]
    REGISTRY.write_text(json.dumps(rungs, indent=1) + "\n")


if __name__ == "__main__":
    if "--registry" in sys.argv:
        write_registry()
    if "--sass" in sys.argv:
        sass_samples(Path(sys.argv[sys.argv.index("--sass") + 1]))
    for name, doc in (("h200", h200()), ("h100", h100()), ("a100", a100()), ("h200_workloads", workloads())):
        (HERE / f"{name}.json").write_text(dump(doc))
    (HERE / "h200_sass.json").write_text(sass_report_json())
    ncu_profile.write_csv(ncu_rows(), HERE / "h200_ncu.csv")
    print("wrote h200.json, h100.json, a100.json, h200_workloads.json, h200_sass.json, h200_ncu.csv")
