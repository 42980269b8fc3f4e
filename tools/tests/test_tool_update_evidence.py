"""update_evidence: the text, the rewriting of the tags (and of nothing else), --check."""
import json

import pytest

import sgemm_tools_common as common
import update_evidence as ue

HEADER = """// =====================================================================================
// SGEMM Ladder — rung 07: 07_bank_conflict_free
// WHY: the previous rung's bottleneck.
// EVIDENCE: <evidence>(not yet measured)</evidence>
// PRECONDITIONS: lda, ldb, ldc multiples of 4.
// =====================================================================================
#pragma once
int x;  // <evidence> in code is not a header's business
"""


@pytest.fixture
def inputs(tmp_path, data_dir, sample_all_report):
    sass = tmp_path / "h200_sass.json"
    sass.write_text(json.dumps(sample_all_report))
    return {"results": data_dir / "h200.json", "sass": sass, "ncu": data_dir / "h200_ncu.csv"}


@pytest.fixture
def kernels(tmp_path):
    """A copy of the project's rung headers, their evidence reset to "(not yet measured)"."""
    d = tmp_path / "kernels"
    d.mkdir()
    for p in sorted(common.KERNELS_DIR.glob("[0-9][0-9]_*.cuh")):
        (d / p.name).write_text(ue.replace_evidence(p.read_text(), ue.NOT_MEASURED))
    return d


def argv(inputs, kernels, *extra):
    return ["--results", str(inputs["results"]), "--sass", str(inputs["sass"]), "--ncu", str(inputs["ncu"]),
            "--kernels-dir", str(kernels), *extra]


def outside(text):
    """The text with the evidence block cut out (what must never change)."""
    block = ue.find_block(text)
    return text if block is None else text[:block[1]] + text[block[2]:]


def test_rewrites_only_the_evidence_blocks(inputs, kernels, capsys):
    before = {p.name: p.read_text() for p in kernels.iterdir()}
    assert ue.main(argv(inputs, kernels)) == 0
    assert "updated" in capsys.readouterr().out
    for p in kernels.iterdir():
        old, new = before[p.name], p.read_text()
        if ue.find_block(old) is None:  # cuBLAS: no tags, untouched
            assert new == old
            continue
        assert new != old
        # nothing outside the tags changed: same lines before and after the block
        ob, nb = ue.find_block(old), ue.find_block(new)
        assert new[:nb[1]] == old[:ob[1]] and new[nb[2]:] == old[ob[2]:]
        block = new[nb[0]:nb[3]].split("\n")
        assert block[0].startswith("// EVIDENCE: <evidence>") and block[-1].endswith("</evidence>")
        assert all(ln.startswith("//   ") for ln in block[1:])
        assert all(len(ln) <= 100 for ln in block)
        assert "\u00a0" not in new


def test_idempotent_and_check(inputs, kernels, capsys):
    assert ue.main(argv(inputs, kernels, "--check")) == 1  # the copies still say "not yet measured"
    assert "+// EVIDENCE: <evidence>Measured on NVIDIA H200" in capsys.readouterr().out
    assert ue.main(argv(inputs, kernels)) == 0
    snapshot = {p.name: p.read_text() for p in kernels.iterdir()}
    assert ue.main(argv(inputs, kernels, "--check")) == 0
    assert ue.main(argv(inputs, kernels)) == 0
    assert "evidence up to date" in capsys.readouterr().out
    assert snapshot == {p.name: p.read_text() for p in kernels.iterdir()}


def test_rung_texts(inputs, kernels):
    assert ue.main(argv(inputs, kernels)) == 0
    text = {n: " ".join(ln[5:] if ln.startswith("//   ") else ln for ln in p.read_text().split("\n"))
            for n, p in common.rung_header_files(kernels).items()}
    t7, t10, t1 = text[7], text[10], text[1]
    assert "Measured on NVIDIA H200: 33,460 GFLOP/s = 70.8% of cuBLAS at 4096^3; 34,800 GFLOP/s = 71.2% at 8192^3." in t7
    assert "ncu vs rung 6: smem_st_bank_conflicts 2.1M -> 0, smem_ld_bank_conflicts 33.1M -> 1.2k" in t7
    assert "python3 tools/sass_report.py --diff 6 7; python3 tools/ncu_profile.py --kernel 7." in t7
    assert "SASS vs rung 9: LDGSTS 0 -> 18" in t10
    assert "stall_long_scoreboard 0.36 -> 0.07" in t10 and "stall_barrier 0.17 -> 0.04" in t10
    # rung 1 has nothing of ours before it: absolute figures, no comparison with cuBLAS
    assert "SASS: 270 instructions" in t1 and "ncu: global_ld_sectors_per_request 16.5" in t1
    assert "python3 tools/sass_report.py --kernel 1;" in t1
    assert "8192^3" not in t1  # not measured at that size


def test_missing_inputs_degrade(inputs, kernels, monkeypatch, tmp_path):
    for name in ("DEFAULT_RESULTS", "DEFAULT_SASS_JSON", "DEFAULT_NCU_CSV"):
        monkeypatch.setattr(common, name, tmp_path / "absent" / name)
    before = {p.name: p.read_text() for p in kernels.iterdir()}
    assert ue.main(["--kernels-dir", str(kernels), "--check"]) == 0  # nothing measured: "(not yet measured)"
    assert ue.main(["--kernels-dir", str(kernels), "--sass", str(inputs["sass"])]) == 0
    t7 = (kernels / "07_bank_conflict_free.cuh").read_text()
    assert "<evidence>GFLOP/s: (not yet measured). SASS vs rung 6:" in t7.replace("\n//   ", " ")
    assert "ncu: (not yet measured)." in t7.replace("\n//   ", " ")
    assert outside(t7) == outside(before["07_bank_conflict_free.cuh"])


def test_evidence_text_without_anything():
    assert ue.evidence_text(7, "07_bank_conflict_free", 6, None, None, None, [4096]) == ue.NOT_MEASURED


def test_replace_multiline_block_keeps_the_rest():
    old = HEADER.replace("<evidence>(not yet measured)</evidence>",
                         "<evidence>an older text\n//   over two lines</evidence>")
    new = ue.replace_evidence(old, "fresh text", 100)
    assert new == HEADER.replace("(not yet measured)", "fresh text")
    assert ue.replace_evidence("no tags here\n", "x") == "no tags here\n"


def test_wrapping_keeps_commands_whole():
    body = " ".join(["word"] * 40) + " Shown by: " + ue.keep("python3 tools/sass_report.py --diff 6 7") + "."
    out = ue.replace_evidence(HEADER, body, 60)
    lines = out.split("\n")
    assert any("python3 tools/sass_report.py --diff 6 7" in ln for ln in lines)  # not split over lines
    assert all(len(ln) <= 60 for ln in lines if "word" in ln)


def test_unclosed_tag_is_an_error(kernels, monkeypatch, tmp_path, capsys):
    for name in ("DEFAULT_RESULTS", "DEFAULT_SASS_JSON", "DEFAULT_NCU_CSV"):
        monkeypatch.setattr(common, name, tmp_path / "absent" / name)
    p = kernels / "07_bank_conflict_free.cuh"
    p.write_text(p.read_text().replace("</evidence>", ""))
    assert common.run_main("update_evidence", ue.main, ["--kernels-dir", str(kernels)]) == 1
    assert "without </evidence>" in capsys.readouterr().err


def test_print_and_single_kernel(inputs, kernels, capsys):
    before = {p.name: p.read_text() for p in kernels.iterdir()}
    assert ue.main(argv(inputs, kernels, "--print", "--kernel", "7")) == 0
    out = capsys.readouterr().out
    assert out.startswith("rung 7 (07_bank_conflict_free.cuh):") and "rung 6 (" not in out
    assert before == {p.name: p.read_text() for p in kernels.iterdir()}
    assert ue.main(argv(inputs, kernels, "--kernel", "7")) == 0
    changed = [p.name for p in kernels.iterdir() if p.read_text() != before[p.name]]
    assert changed == ["07_bank_conflict_free.cuh"]


def test_usage_errors(inputs, kernels, tmp_path):
    run = lambda *a: common.run_main("update_evidence", ue.main, list(a))  # noqa: E731
    assert run("--kernels-dir", str(tmp_path / "nothing")) == 2
    assert run("--kernels-dir", str(kernels), "--kernel", "42") == 2
    assert run("--kernels-dir", str(kernels), "--results", str(tmp_path / "missing.json")) == 2
    with pytest.raises(SystemExit) as e:
        ue.main(["--sizes", "big"])
    assert e.value.code == 2


def test_tuned_records_feed_the_tuned_rungs_evidence(tmp_path):
    hdr = tmp_path / "sm_90.cuh"
    hdr.write_text("// Tile parameters written by tools/autotune (X).\n"
                   "//   rung 9: 10 candidates, 4 valid, 4 compiled, 3 verified; winner A at 5 GFLOP/s, runner-up B at "
                   "4 GFLOP/s (winner +25.0%)\n#pragma once\n", encoding="utf-8")
    records = ue.tuned_records(hdr)
    assert list(records) == [9] and records[9].endswith("(winner +25.0%)")
    assert ue.tuned_records(tmp_path / "missing.cuh") == {}
    results = {"rows": []}
    text = ue.evidence_text(9, "09_warptiling", 8, results, None, None, [4096], records[9])
    assert "winner A at 5 GFLOP/s" in text and text.index("Autotuned") < text.index("Shown by")
    assert "Autotuned" not in ue.evidence_text(10, "10_double_buffering", 9, results, None, None, [4096])
