"""Write the synthetic fixture files of the notebook tests (deterministic; run it again to refresh).

    .venv/bin/python notebooks/tests/data/make_fixtures.py

Shaped like real sgemm_bench / sass_report / ncu_profile output, with the rows and helpers of the
tools' fixtures (tools/tests/data/make_fixtures.py): two GPUs side by side, an H200 with every
file (sizes 256..8192, an accuracy sweep over K, SASS report, ncu profile) and an H100 with fewer
sizes, no ncu profile, a row with custom leading dimensions and a row that failed. Every rung of
the registry (tools/tests/data/registry_rungs.json): both tracks and the dispatch rung. Timing rows carry today's
spread (quartiles, interval of % of cuBLAS, clock range). The timing, accuracy and ncu numbers
are made up; the SASS report is real (tools/sass_report.py on the sm_90 listing kept in
tools/tests/data; the H100 is sm_90 too). Both GPUs also have a model benchmark file
(<gpu>_model.json), its rows made by bench/model/model_bench.py's own row builders from made-up
times. Every context carries a "fixture" key so figures made from these files say so.
"""
import json
import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO / "tools" / "tests" / "data"))
sys.path.insert(0, str(REPO / "bench" / "model"))
import make_fixtures as tools_fixtures  # noqa: E402  (tools/tests/data/make_fixtures.py)
import model_bench  # noqa: E402  (bench/model/model_bench.py: the model file's rows)
from make_fixtures import accuracy, context, counters, dump, failed, ncu_profile, row, shape_name  # noqa: E402

U = 2.0**-24
SLUGS = tools_fixtures.slugs()
# Large-size share of cuBLAS (%) of each rung, the block tile edge that sets how many blocks a
# small problem has, and the error constant of its accumulation order (same order, same error).
PCT = {0: 100, 1: 1.0, 2: 12.6, 3: 18.5, 4: 41.8, 5: 61.3, 6: 70.1, 7: 77.5, 8: 87.6, 9: 87.5, 10: 95.5,
       11: 95.6, 12: 95.8, 13: 97.2, 14: 99.1, 15: 100.4, 21: 264, 22: 88.1, 23: 169.9, 30: 100.8}
TILE = {0: 128, 1: 32, 2: 32, 3: 32, 4: 64, 21: 128, 22: 128, 23: 128}  # others: 128
ERR_C = {0: 0.31, 21: 900.0, 22: 0.2, 23: 0.35}  # FFMA rungs: 0.5; split-K onwards: 0.36
GPUS = {
    "h200": dict(gpu_name="NVIDIA H200", sm_count=132, clock=1980, peak=66908, bandwidth=4270, cublas_gflops=51300,
                 sizes=[256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192], ks=[256, 1024, 4096, 16384]),
    "h100": dict(gpu_name="NVIDIA H100 80GB HBM3", sm_count=132, clock=1755, peak=59304, bandwidth=3350,
                 cublas_gflops=43600,
                 sizes=[256, 512, 1024, 2048, 4096], ks=[256, 4096]),
}


def gflops_model(g, rung, n, rng):
    """Throughput of a rung at size n: large-size rate, fewer blocks than SMs at small sizes,
    a few microseconds of launch overhead, 2% noise."""
    top = g["cublas_gflops"] * PCT[rung] / 100
    fill = min(1.0, (n / TILE.get(rung, 128)) ** 2 / (2 * g["sm_count"])) ** 0.55
    t = 2.0 * n**3 / (top * 1e9 * fill) + 4e-6
    return 2.0 * n**3 / t * 1e-9 * rng.uniform(0.98, 1.02)


def error_constant(rung):
    return ERR_C.get(rung, 0.36 if rung >= 11 else 0.5)


def bench_rows(g, rng):
    rows = []
    for n in g["sizes"]:
        cublas = gflops_model(g, 0, n, rng)
        for rung in SLUGS:
            c = counters(rung, n, n, n, cublas if rung == 0 else gflops_model(g, rung, n, rng), cublas, g["clock"])
            c["rel_err"] = float(f"{error_constant(rung) * U * math.sqrt(n) * rng.uniform(0.97, 1.03):.4g}")
            rows.append(row(shape_name(SLUGS[rung], n, n, n), c))
    return rows


def accuracy_rows(g, rng):
    rows = []
    for k in g["ks"]:
        for dist, scale in (("uniform", 1.0), ("normal", 1.12)):
            for rung in SLUGS:
                r = accuracy(SLUGS[rung], rung, dist, k)
                r["rel_err"] = float(f"{error_constant(rung) * scale * U * math.sqrt(k) * rng.uniform(0.95, 1.05):.4g}")
                rows.append(r)
    return rows


def h100_extra_rows(g):
    """A row with custom leading dimensions, and one that failed (no counters)."""
    return [row(shape_name(SLUGS[0], 1000, 1000, 1000) + "/ld1004_1004_1004",
                counters(0, 1000, 1000, 1000, 30000.0, 30000.0, g["clock"])),
            failed(shape_name(SLUGS[10], 1000, 1000, 1000) + "/ld1001_1001_1001", error_occurred=True,
                   error_message="A: lda=1001 is not a multiple of 4: 10_double_buffering loads 128-bit "
                                 "vectors and needs 16-byte aligned rows")]


def ncu_rows(bench):
    """One profiled launch per rung at 4096^3 (ncu's launch a little slower than the median)."""
    n, rows = 4096, []
    for r in bench:
        if r["M"] != n:
            continue
        rung = r["rung"]
        dram = 8.7e9 if rung == 1 else 1.3e9 if rung == 2 else 0.62e9 if rung == 3 else 0.3e9 - 2e6 * min(rung, 20)
        values = {"duration_ns": r["ms"] * 1e6 * 1.05, "sm_clock_mhz": 1755.0, "dram_bytes_read": dram * 0.76,
                  "dram_bytes_write": dram * 0.24, "achieved_occupancy_pct": 98.0 if rung < 3 else 18.0,
                  "issue_active_pct": min(95.0, 12 + 80 * r["pct_cublas"] / 100), "ffma_thread_insts": float(n**3),
                  "stall_long_scoreboard": 24.0 / (1 + rung), "stall_mio_throttle": 0.3, "stall_barrier": 0.2}
        launch = {"kernel": "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3" if rung == 0
                  else f"sgemm_{SLUGS[rung]}", "block_size": "(256, 1, 1)", "grid_size": "(32, 32, 1)",
                  **{col: values.get(col) for col, _, _ in ncu_profile.METRICS}}
        rows.append(ncu_profile.make_row(rung, SLUGS[rung], n, n, n, launch))
    return rows


def model_fixture(tag, g, rng):
    """<gpu>_model.json: the three model rows, every projection's products, the overhead and the
    accuracy rows, from made-up times (the ladder a little ahead in prefill and train, behind in
    decode)."""
    def timed(ms, pct):
        ladder = [ms * rng.uniform(0.98, 1.02) for _ in range(9)]
        return model_bench.Timed(ladder, [t * pct / 100 * rng.uniform(0.99, 1.01) for t in ladder])

    speed = g["cublas_gflops"] / 51300
    steps = {"prefill": 32.0 / speed, "decode": 2.4, "train": 110.0 / speed}
    phases = [model_bench.phase_row("prefill", timed(steps["prefill"], 103), 4, 512),
              model_bench.phase_row("decode", timed(steps["decode"], 97), 8, 1, cache=512),
              model_bench.phase_row("train", timed(steps["train"], 102), 4, 512)]
    tokens = {"prefill": 2048, "decode": 8, "train": 2048}
    shapes = {"q_proj": (2048, 2048, 4), "k_proj": (2048, 2048, 4), "v_proj": (2048, 2048, 4),
              "o_proj": (2048, 2048, 4), "gate_proj": (5632, 2048, 4), "up_proj": (5632, 2048, 4),
              "down_proj": (2048, 5632, 4), "lm_head": (32000, 2048, 1)}
    projections = []
    for phase, m in tokens.items():
        for name, (n, k, calls) in shapes.items():
            products = {"forward": (m, n, k)}
            if phase == "train":
                products.update(backward_input=(m, k, n), backward_weight=(n, k, m))
            for pass_, (pm, pn, pk) in products.items():
                rate = g["cublas_gflops"] * (0.9 if pm > 64 else 0.08)
                ms = 2.0 * pm * pn * pk / (rate * 1e6) + 0.004
                projections.append(model_bench.projection_row(phase, name, pass_, pm, pn, pk, calls,
                                                              timed(ms, 101 if pm > 64 else 95), steps[phase],
                                                              steps[phase] * 1.01, g["peak"], g["bandwidth"]))
    overhead = [model_bench.overhead_row(m, n, k, {"eager_us": e, "graph_us": gr, "host_us": h},
                                         {"eager_us": te, "graph_us": gr, "host_us": th})
                for (m, n, k), e, gr, h, te, th in (((8, 2048, 2048), 14.1, 9.2, 7.8, 13.9, 7.5),
                                                    ((2048, 2048, 2048), 520.0, 519.0, 7.7, 525.0, 7.4))]
    accuracy = [{"name": "accuracy/logits", "rel_err": 2.1e-6, "torch_rel_err": 2.3e-6},
                {"name": "accuracy/grads", "rel_err": 8.4e-6, "torch_rel_err": 9.0e-6,
                 "worst_parameter": "model.embed_tokens.weight", "torch_worst_parameter": "model.embed_tokens.weight"}]
    context = {"gpu_name": g["gpu_name"], "gpu": tag, "sm_count": g["sm_count"], "torch_version": "2.11.0+cu130",
               "transformers_version": "5.17.0", "operators": "c++", "rung": "auto", "rung_slug": SLUGS[30],
               "sgemm_ladder_git": "fixture", "fp32_peak_gflops": g["peak"], "dram_peak_gbps": g["bandwidth"],
               "model": {"layers": 4, "hidden": 2048, "intermediate": 5632, "heads": 16, "kv_heads": 16,
                         "vocab": 32000, "parameters": 336_338_944},
               "fixture": "synthetic numbers for the notebook tests (notebooks/tests/data/make_fixtures.py), "
                          "not a measurement"}
    return model_bench.document(context, phases, projections, overhead, accuracy)


def model_dump(doc):
    """The model file with one row per line (numbers to 6 significant digits) to keep it small."""
    def short(row):
        return json.dumps({k: float(f"{v:.6g}") if isinstance(v, float) else v for k, v in row.items()})

    parts = [f'  "{key}": [\n    ' + ",\n    ".join(short(r) for r in doc[key]) + "\n  ]"
             for key in ("benchmarks", "projections", "overhead", "accuracy")]
    context = json.dumps(doc["context"], indent=2).replace("\n", "\n  ")
    return '{\n  "context": ' + context + ",\n" + ",\n".join(parts) + "\n}\n"


def main():
    rng = random.Random(20261124)
    sass = tools_fixtures.sass_report_json()
    for tag, g in GPUS.items():
        sizes = ",".join(map(str, g["sizes"]))
        command = f"sgemm_bench --sizes {sizes} --accuracy-sweep --json bench/results/{tag}.json"
        ctx = context(g["gpu_name"], g["sm_count"], g["clock"], g["peak"], g["bandwidth"], command=command,
                      fixture="synthetic numbers for the notebook tests (notebooks/tests/data/make_fixtures.py), "
                              "not a measurement")
        timing = bench_rows(g, rng)
        extra = h100_extra_rows(g) if tag == "h100" else []
        (HERE / f"{tag}.json").write_text(dump({"context": ctx, "benchmarks": timing + extra + accuracy_rows(g, rng)}))
        (HERE / f"{tag}_sass.json").write_text(sass)
        if tag == "h200":
            ncu_profile.write_csv(ncu_rows(timing), HERE / f"{tag}_ncu.csv")
        (HERE / f"{tag}_model.json").write_text(model_dump(model_fixture(tag, g, random.Random(f"{tag}-model"))))


if __name__ == "__main__":
    main()
