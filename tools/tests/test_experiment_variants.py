"""The variant writers of exp40 and exp41 still apply to the rungs their docstrings name: each
asserts the text it replaces, so a rung edited since would fail here rather than on the GPU."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "experiments"))

import exp40_variants  # noqa: E402
import exp41_variants  # noqa: E402

RUNG16 = ROOT / "kernels" / "16_ffma_order.cuh"
RUNG17 = ROOT / "kernels" / "17_slab_end.cuh"


@pytest.mark.parametrize("variant", ["noguard", "slabend", "ngse", "ku16", "skc", "skp", "ski", "ngse+skp"])
def test_exp41_variants_apply_to_rung16(variant):
    text = RUNG16.read_text()
    patched = exp41_variants.patch(text, variant)
    assert patched != text


@pytest.mark.parametrize("variant", ["expect", "loop", "spreadb", "skc", "skp", "ski"])
def test_exp41_variants_apply_to_rung17(variant):
    text = RUNG17.read_text()
    patched = exp41_variants.patch(text, variant)
    assert patched != text


def test_base_changes_nothing_and_unknown_variants_are_refused():
    text = RUNG17.read_text()
    assert exp41_variants.patch(text, "base") == text
    with pytest.raises(SystemExit):
        exp41_variants.patch(text, "nonsense")
    with pytest.raises(SystemExit):
        exp40_variants.patch(text, "nonsense")


def test_the_loop_shape_in_rung17s_terms_keeps_the_slab_end_issue():
    assert "if (kWhole) issue_b(kt + Stages);" in exp41_variants.LOOP17
    assert "outer_product<kWhole>(rA" in exp41_variants.LOOP17
