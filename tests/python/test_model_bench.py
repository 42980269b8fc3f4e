"""CPU tests of the model benchmark (bench/model/model_bench.py): its statistics, its rows, the
results file and its reader (sgemm_ladder.results.load_model), its arguments and its refusals.
The measuring itself needs a GPU and transformers (run it: docs/model.md)."""
import json
import sys
from pathlib import Path

import pytest

from sgemm_ladder import results

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "model"))
import model_bench as mb  # noqa: E402


@pytest.mark.parametrize("n, k", [(6, 1), (7, 1), (9, 2), (12, 3), (20, 6)])
def test_median_interval_is_sgemm_benchs(n, k):
    """The k-th smallest and largest of n values (docs/measuring.md: R = 9 gives the 2nd and 8th)."""
    values = [float(v) for v in range(n, 0, -1)]
    assert mb.median_interval(values) == (float(k), float(n + 1 - k))


def test_median_and_quartiles():
    assert mb.median([3.0, 1.0, 2.0]) == 2.0 and mb.median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert mb.quantile([1.0, 2.0, 3.0, 4.0, 5.0], 0.25) == 2.0


@pytest.mark.parametrize("name, tag", [("NVIDIA H100 80GB HBM3", "h100"), ("NVIDIA H200", "h200"),
                                       ("NVIDIA A100-SXM4-80GB", "a100"), ("Some GPU", "some-gpu")])
def test_gpu_tag(name, tag):
    assert mb.gpu_tag(name) == tag
    assert results._TAG.fullmatch(tag)


def synthetic() -> dict:
    """A results document from made-up measurements, through the benchmark's own row builders."""
    faster, slower = mb.Timed([1.0] * 9, [1.2] * 9), mb.Timed([2.0] * 9, [1.8] * 9)
    phases = [mb.phase_row("prefill", faster, 4, 512), mb.phase_row("decode", slower, 8, 1, cache=512),
              mb.phase_row("train", faster, 4, 512)]
    projections = [mb.projection_row("prefill", "q_proj", "forward", 2048, 2048, 2048, 4, faster, 10.0, 12.0,
                                     66908.0, 3352.0),
                   mb.projection_row("train", "down_proj", "backward_weight", 2048, 5632, 2048, 4, slower, 30.0,
                                     28.0, None, None)]
    overhead = [mb.overhead_row(8, 2048, 2048, {"eager_us": 12.0, "graph_us": 9.0, "host_us": 6.0},
                                {"eager_us": 11.0, "graph_us": 9.0, "host_us": 5.0})]
    accuracy = [{"name": "accuracy/logits", "rel_err": 1e-6, "torch_rel_err": 1.1e-6}]
    return mb.document({"gpu_name": "NVIDIA H100 80GB HBM3", "gpu": "h100"}, phases, projections, overhead, accuracy)


def test_rows_carry_pct_torch_and_its_interval():
    doc = synthetic()
    prefill, decode, _ = doc["benchmarks"]
    assert [r["name"] for r in doc["benchmarks"]] == ["model/prefill", "model/decode", "model/train"]
    assert prefill["pct_torch"] == pytest.approx(120.0) and prefill["pct_torch_lo"] == pytest.approx(120.0)
    assert decode["pct_torch"] == pytest.approx(90.0) and decode["cache"] == 512 and decode["batch"] == 8
    assert prefill["tokens_per_s"] == pytest.approx(4 * 512 / 1e-3)
    q, down = doc["projections"]
    assert (q["layout"], q["share"], q["intensity"]) == ("nt", pytest.approx(0.4), pytest.approx(2048 / 6))
    assert q["pct_peak"] == pytest.approx(100 * q["gflops"] / 66908.0) and down["pct_peak"] is None
    assert down["layout"] == "tn" and down["M"] == 2048
    assert doc["overhead"][0]["overhead_us"] == pytest.approx(3.0)


def test_results_file_round_trip(tmp_path):
    path = tmp_path / "h100_model.json"
    path.write_text(json.dumps(synthetic()))
    assert results.model_gpus(tmp_path) == ["h100"]
    assert results.gpus(tmp_path) == []  # not an sgemm_bench file: the ladder's tools leave it alone
    r = results.load_model("h100", tmp_path)
    assert r.tag == "h100" and r.gpu_name.startswith("NVIDIA H100")
    assert r.phase("decode")["pct_torch"] == pytest.approx(90.0) and r.phase("nothing") is None
    assert len(r.projections) == 2 and r.overhead[0]["torch_overhead_us"] == pytest.approx(2.0)
    bad = tmp_path / "h200_model.json"
    bad.write_text("{}")
    with pytest.raises(ValueError, match="not bench/model/model_bench.py output"):
        results.load_model("h200", tmp_path)


@pytest.mark.parametrize("argv, message", [
    (["--prefill", "4y512"], "--prefill must be BATCHxTOKENS"),
    (["--parts", "prefill,nothing"], "--parts: unknown nothing"),
    (["--hidden", "100", "--heads", "16"], "must divide by --heads"),
    (["--rounds", "0"], "--rounds must be at least 1"),
])
def test_bad_arguments_exit_2(argv, message, capsys):
    assert mb.main(argv) == mb.EXIT_USAGE
    assert message in capsys.readouterr().err


def test_without_transformers_it_says_so(monkeypatch, capsys):
    pytest.importorskip("torch", reason="PyTorch is not installed")
    monkeypatch.setitem(sys.modules, "transformers", None)  # import transformers raises ImportError
    assert mb.main(["--quick"]) == mb.EXIT_ENVIRONMENT
    assert "transformers is not installed" in capsys.readouterr().err


def test_quick_settings():
    s = mb.parse(["--quick"])
    assert (s.layers, s.hidden, s.rounds) == (2, 256, 6) and s.parts == mb.Settings.parts
