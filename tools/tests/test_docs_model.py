"""tools/docs.py's model page (docs/model.md): the tables of bench/model/model_bench.py's results of
every GPU, from the notebook tests' fixture files, and the note that stands in when there are none."""
from pathlib import Path

import docs
from sgemm_ladder import results

FIXTURES = Path(__file__).resolve().parents[2] / "notebooks" / "tests" / "data"


def test_no_results_says_how_to_get_them():
    block = docs.model_block({})
    assert block.startswith(docs.BEGIN) and block.endswith(docs.END)
    assert "No model results are committed yet" in block and "bench/model/model_bench.py" in block


def test_each_gpu_gets_its_rows_projections_overhead_and_accuracy():
    models = {tag: results.load_model(tag, FIXTURES) for tag in results.model_gpus(FIXTURES)}
    assert sorted(models) == ["h100", "h200"]
    block = docs.model_block(models)
    assert block.index("### NVIDIA H100") < block.index("### NVIDIA H200")  # by tag
    prefill = models["h100"].phase("prefill")
    assert f"| model/prefill | 4×512 | {prefill['ms']:,.3f} |" in block
    assert f"{prefill['pct_torch']:.1f} [{prefill['pct_torch_lo']:.1f}, {prefill['pct_torch_hi']:.1f}]" in block
    assert "| model/decode | 8×1, cache 512 |" in block
    assert "| train | down_proj | dYᵀ·X | tn | 2048×5632×2048 |" in block  # dW (out x in) over the tokens
    assert "| 8×2048×2048 | 14.1 | 9.2 | 4.9 | 7.8 |" in block
    assert "| accuracy/grads | 8.40e-06 | 9.00e-06 |" in block
