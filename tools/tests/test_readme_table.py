"""The README's results tables are generated from bench/results/h200.json, never typed."""
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("readme_table", ROOT / "tools" / "readme_table.py")
rt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rt)


def test_committed_readme_matches_results():
    assert rt.main(["--check"]) == 0


def test_render_and_rewrite(tmp_path):
    results = tmp_path / "r.json"
    rows = []
    for rung, slug, gf in ((0, "00_cublas", 50000.0), (1, "01_naive", 500.0)):
        for n in (4096, 8192):
            rows.append({"name": f"rung{slug}/{n}x{n}x{n}/manual_time", "run_type": "iteration", "rung": rung,
                         "M": n, "N": n, "K": n, "GFLOPS": gf, "pct_cublas": 100.0 * gf / 50000.0,
                         "rel_err": 1e-6, "verified": 1, "checked": 1, "ms": 1.0})
    rows.append({"name": "accuracy/01_naive/uniform/1x1x256", "GFLOPS": 1.0})  # not a ladder row
    results.write_text(json.dumps({"context": {"gpu_name": "Test GPU", "date": "2026-01-01T00:00"},
                                   "benchmarks": rows}))
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{rt.BEGIN}\nold\n{rt.END}\noutro\n")
    assert rt.main(["--results", str(results), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "| 1 | [01_naive](kernels/01_naive.cuh) | 500 | 1.0 | 500 | 1.0 |" in text
    assert text.startswith("intro\n") and text.endswith("outro\n")
    assert rt.main(["--results", str(results), "--readme", str(readme), "--check"]) == 0
    readme.write_text(text.replace("| 500 |", "| 501 |", 1))
    assert rt.main(["--results", str(results), "--readme", str(readme), "--check"]) == 1
