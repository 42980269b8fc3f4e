"""tools/docs.py's README parts that come from the registry (the track list, the glossary links),
the splicing of several named generated parts into one file, and the rule on ranges of rungs in
prose: a sub-range of one track is fine, a range that names a track must be that track's extent."""
from pathlib import Path
from types import SimpleNamespace

import pytest

import docs


def rung(id, track, folder, title, builds_on=None, arch="sm_80", lesson="a lesson", capstone=False):
    return SimpleNamespace(id=id, slug=f"{id:02d}_r", track=track, builds_on=builds_on, title=title, lesson=lesson,
                           fp32_accurate=True, source=f"{folder}/{id:02d}_r.cuh", arch=arch, kernel="k", tile="t",
                           capstone=capstone)


@pytest.fixture
def small_registry():
    """cuBLAS, CUDA-core rungs 1-4 (4 the capstone), tensor-core rungs 21-24 (23 and 24 Hopper-only),
    dispatch 30."""
    return ([rung(0, "baseline", "baseline", "cuBLAS", lesson="the yardstick: cuBLAS SGEMM")]
            + [rung(i, "cuda-core", "ffma", f"Lesson {i}", builds_on=i - 1 if i > 1 else None, capstone=i == 4)
               for i in range(1, 5)]
            + [rung(21, "tensor-core", "tensor", "TF32", builds_on=3),
               rung(22, "tensor-core", "tensor", "3xTF32", builds_on=21),
               rung(23, "tensor-core", "tensor", "wgmma (sm_90a)", builds_on=22, arch="sm_90a"),
               rung(24, "tensor-core", "tensor", "Split-K waves (sm_90a)", builds_on=23, arch="sm_90a"),
               rung(30, "dispatch", "dispatch", "Dispatch", lesson="a model picks the capstone's kernels")])


def errors(text, small_registry):
    return docs.range_errors(text, small_registry, "x.md")


# ---------------------------------------------------------------------------------------------
# Ranges of rungs in prose


@pytest.mark.parametrize("text", [
    "the Hopper rungs 23-24 use TMA",                              # a sub-range of one track
    "the tensor-core rungs 21-22 use mma.sync",                    # the track as an adjective: a sub-range
    "Rungs 2 to 4 keep the tile",
    "**Tensor cores (rungs 21-24, [`kernels/tensor/`](kernels/tensor/))**: ...",
    "The CUDA-core\n  track (`kernels/ffma/`, rungs 1-4) goes from a naive kernel",  # wrapped
    "the tensor-core track (`kernels/tensor/`, rungs 21 and up) starts from",
    "rungs 1-4, the CUDA-core track, are FFMA kernels",
    "That path costs the FFMA rungs 15-20% at 4096³",                # a percentage, not a range
    "# Rung 06 — 128-bit vectorized loads",                          # a dash and a word
])
def test_ranges_that_agree_with_the_registry(text, small_registry):
    assert errors(text, small_registry) == []


@pytest.mark.parametrize("text, why", [
    ("- **Tensor cores (rungs 21-23, [`kernels/tensor/`](kernels/tensor/))**: ...",
     "names the tensor-core track, which is rungs 21-24"),
    ("**Tensor cores** (rungs 21–23)", "names the tensor-core track"),
    ("The CUDA-core\n  track (`kernels/ffma/`, rungs 1-3) goes from", "names the cuda-core track, which is rungs 1-4"),
    ("the tensor-core track: rungs 21 to 23.", "names the tensor-core track"),
    ("rungs 21-23 (the tensor-core track) are", "names the tensor-core track"),
    ("in `kernels/ffma/` (rungs 2-4)", "names the cuda-core track"),
    ("the tensor-core track (`kernels/tensor/`, rungs 22 and up)", "starts at rung 21, not 22"),
    ("the direct-load rungs 2-22 pack", "spans the tracks cuda-core, tensor-core"),
    ("rungs 3-7 do", "no rung 7 in the registry"),
])
def test_ranges_that_disagree_are_reported(text, why, small_registry):
    found = errors(text, small_registry)
    assert len(found) == 1 and why in found[0], found
    assert found[0].startswith(f"x.md:{text[:text.index('rung')].count(chr(10)) + 1}: ")


def test_generated_parts_and_code_are_not_prose(small_registry):
    text = "\n".join(["Intro.", docs.BEGIN, "Rungs 21-23 run on the tensor cores (rungs 21-23, tensor cores).",
                      docs.END, *docs.markers("tracks"), "```sh", "# Tensor cores (rungs 21-23)", "```",
                      "**Tensor cores (rungs 21-22)**"])
    found = errors(text, small_registry)
    assert len(found) == 1 and found[0].startswith("x.md:10: ")  # line numbers survive the blanking


def test_the_track_list_obeys_the_rule_it_serves(small_registry):
    block = docs.tracks_block(small_registry)
    begin, end = docs.markers("tracks")
    assert errors(block.replace(begin, "").replace(end, ""), small_registry) == []


# ---------------------------------------------------------------------------------------------
# The track list and the glossary links


def test_track_list_from_the_registry(small_registry):
    block = docs.tracks_block(small_registry, width=10_000)
    begin, end = docs.markers("tracks")
    lines = block.splitlines()
    assert lines[0] == begin and lines[-1] == end
    cuda, tensor, dispatch, base = [line for line in lines if line.startswith("- ")]
    assert cuda == ("- **CUDA cores (rungs 1-4, [`kernels/ffma/`](kernels/ffma/))**: "
                    "Lesson 1 → Lesson 2 → Lesson 3 → Lesson 4 (the capstone).")
    assert tensor.startswith("- **Tensor cores (rungs 21-24, [`kernels/tensor/`](kernels/tensor/))**: "
                             "starting from rung 3 (Lesson 3): TF32 → 3xTF32 → wgmma → Split-K waves.")
    assert tensor.endswith(" Rungs 23-24 are built for sm_90a alone.")
    assert dispatch == ("- **Dispatch (rung 30, [`kernels/dispatch/`](kernels/dispatch/))**: "
                        "A model picks the capstone's kernels.")
    assert base.startswith("- **Baseline (kernel 0, [`kernels/baseline/`](kernels/baseline/))**: The yardstick")


def test_track_list_grows_with_the_registry(small_registry):
    small_registry[4].capstone = False  # the registry moves the capstone to the new rung
    small_registry.insert(5, rung(5, "cuda-core", "ffma", "Lesson 5", builds_on=4, capstone=True))
    block = docs.tracks_block(small_registry, width=10_000)
    assert "CUDA cores (rungs 1-5" in block and "Lesson 4 → Lesson 5 (the capstone)" in block
    assert docs.capstone(small_registry).id == 5


def test_the_capstone_is_the_registrys_word(small_registry):
    # Not the track's last rung by position: the rung the registry marks.
    assert docs.capstone(small_registry).id == 4
    for r in small_registry:
        r.capstone = False
    assert docs.capstone(small_registry) is None
    assert "(the capstone)" not in docs.tracks_block(small_registry, width=10_000)


def test_track_list_wraps_without_breaking_words(small_registry):
    for r in small_registry:
        r.title = "A long-winded lesson title " * 3
    for line in docs.tracks_block(small_registry).splitlines():
        assert len(line) <= 100 or " " not in line.strip()
        assert not line.rstrip().endswith("-")


TERMS = [("Wave", "wave"), ("Wave quantization", "wave-quantization"), ("Split-K", "split-k"), ("SASS", "sass")]


def test_linker_links_each_terms_first_use_once():
    link = docs.Linker(terms=TERMS)
    first = link("Split-K against wave quantization, then waves; split-K again.")
    assert first == ("[Split-K](docs/glossary.md#split-k) against "
                     "[wave quantization](docs/glossary.md#wave-quantization),"
                     " then [waves](docs/glossary.md#wave); split-K again.")
    assert link("more split-K and waves") == "more split-K and waves"  # linked already, in an earlier part


def test_linker_leaves_code_links_tables_and_earlier_links_alone():
    link = docs.Linker("The [SASS](docs/glossary.md#sass) of a rung.", terms=TERMS)
    text = "`split-k` [Split-K page](x.md) | wave | tools/sass_report.py SASS <!-- wave -->\n| wave | row |"
    assert link(text) == text.replace(" | wave | tools", " | [wave](docs/glossary.md#wave) | tools", 1)


def test_linker_needs_whole_words():
    assert docs.Linker(terms=[("Tile", "tile")])("tiling, then tiles") == "tiling, then [tiles](docs/glossary.md#tile)"


def test_glossary_terms_are_its_headings(tmp_path):
    (tmp_path / "g.md").write_text("# Glossary\n\n## Slab\n\ntext\n\n## Wave quantization\n\n### Not a term\n")
    assert docs._glossary_terms(tmp_path / "g.md") == (("Wave quantization", "wave-quantization"), ("Slab", "slab"))
    assert docs.anchor("Cold and hot timing") == "cold-and-hot-timing" and docs.anchor("Split-K") == "split-k"


def test_the_committed_glossary_has_the_terms_the_readme_needs():
    terms = {term.lower() for term, _ in docs._glossary_terms()}
    assert {"slab", "wave", "wave quantization", "sass", "stream-k", "split-k", "residue", "modulus",
            "capstone", "tile"} <= terms


# ---------------------------------------------------------------------------------------------
# Several generated parts in one file


def test_splice_replaces_the_named_part_only():
    t_begin, t_end = docs.markers("tracks")
    text = f"a\n{docs.BEGIN}\nold table\n{docs.END}\nb\n{t_begin}\nold tracks\n{t_end}\nc\n"
    text = docs.splice(text, f"{docs.BEGIN}\nnew table\n{docs.END}", Path("README.md"))
    text = docs.splice(text, f"{t_begin}\nnew tracks\n{t_end}", Path("README.md"), "tracks")
    assert text == f"a\n{docs.BEGIN}\nnew table\n{docs.END}\nb\n{t_begin}\nnew tracks\n{t_end}\nc\n"


@pytest.mark.parametrize("text, why", [
    ("no markers", "found 0 and 0"),
    (f"{docs.BEGIN}\n{docs.END}\n{docs.BEGIN}\n{docs.END}", "found 2 and 2"),
    (f"{docs.END}\n{docs.BEGIN}", "comes before"),
])
def test_splice_refuses_markers_it_cannot_trust(text, why):
    with pytest.raises(docs.StaleError, match=why):
        docs.splice(text, "x", Path("README.md"))


def test_readme_parts_link_in_reading_order(small_registry, monkeypatch):
    monkeypatch.setattr(docs, "_glossary_terms", lambda path=None: (("Capstone", "capstone"),))
    t_begin, t_end = docs.markers("tracks")
    readme = f"Intro.\n\n{docs.BEGIN}\n{docs.END}\n\n## The tracks\n\n{t_begin}\n{t_end}\n\nAfter.\n"
    text = docs.readme_text(readme, small_registry, {})
    assert text.count("](docs/glossary.md#capstone)") == 1
    assert "(the [capstone](docs/glossary.md#capstone))" in text  # no GPU results: the track list is first
    again = docs.readme_text(text, small_registry, {})
    assert again == text  # a second run changes nothing
    by_hand = readme.replace("Intro.", "The [capstone](docs/glossary.md#capstone).")
    linked = docs.readme_text(by_hand, small_registry, {})
    assert linked.count("](docs/glossary.md#capstone)") == 1  # linked by hand before: not again


def test_a_track_that_goes_on_past_another_tracks_rung(small_registry):
    """The tensor-core track may go on past the dispatch rung's id (rung 31 after 30): prose names
    it as its runs, and a range across the dispatch rung is refused."""
    rungs = small_registry + [rung(31, "tensor-core", "tensor", "Ordered units (sm_90a)", builds_on=24,
                                   arch="sm_90a")]
    assert docs.track_runs(rungs)["tensor-core"] == [(21, 24), (31, 31)]
    assert docs.runs_text(docs.track_runs(rungs)["tensor-core"]) == "21-24 and 31"
    assert docs.range_errors("**Tensor cores (rungs 21-24 and 31, `kernels/tensor/`)**", rungs, "x.md") == []
    assert any("spans the tracks" in e for e in docs.range_errors("rungs 24-31 are INT8", rungs, "x.md"))
    assert any("which is rungs 21-24 and 31" in e
               for e in docs.range_errors("**Tensor cores (rungs 21-23)**", rungs, "x.md"))
