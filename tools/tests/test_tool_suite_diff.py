"""suite_diff: two runs of a workload suite side by side (means, counts below a bound, moved shapes)."""
import json
import math

import pytest

import sgemm_tools_common as common
import suite_diff as sd
from sgemm_ladder import results


def edited(data_dir, tmp_path, name, edit):
    """A copy of the fixture suite (data/h200_workloads.json) with `edit(row)` applied to rung 30's rows."""
    doc = json.loads((data_dir / "h200_workloads.json").read_text())
    for row in doc["benchmarks"]:
        if row["name"].startswith("rung30_"):
            edit(row)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_means_counts_and_moves(data_dir, tmp_path):
    def before(row):
        row["pct_cublas"], row["pct_cublas_hot"] = 80.0, 100.0

    def after(row):
        small = row["M"] == 1
        row["pct_cublas"], row["pct_cublas_hot"] = (80.0, 100.0) if small else (125.0, 102.0)
        if row["name"].split("/")[1] == "small_k":
            row["label"] = "short_k"

    old = results.load(edited(data_dir, tmp_path, "old.json", before), custom_ld=True)
    new = results.load(edited(data_dir, tmp_path, "new.json", after), custom_ld=True)
    s, t = old.suite_summary(30, 256, 90), new.suite_summary(30, 256, 90)
    assert s.shapes == t.shapes == 3 and s.verified
    assert s.cold == pytest.approx(80.0) and len(s.cold_below) == 3 and s.hot_below == []
    assert t.cold == pytest.approx(math.exp((math.log(80) + 2 * math.log(125)) / 3))
    assert t.cold_below == ["decode_q_b1"] and t.lowest_cold == ("decode_q_b1", 80.0)
    assert t.one_row == ["decode_q_b1"] and t.lowest_hot[1] == pytest.approx(100.0)
    # every fixture shape has a dimension past 256; past 4096 only 512 x 6144 x 4096; past 8192 none
    assert t.cold_not_tiny == pytest.approx(t.cold)
    assert new.suite_summary(30, 4096, 90).cold_not_tiny == pytest.approx(125.0)
    assert new.suite_summary(30, 8192, 90).cold_not_tiny is None
    moved = {name: (a.label, b.label) for name, a, b in sd.changes(old.by_name(30), new.by_name(30), 4.0)}
    assert set(moved) == {"prefill_qkv_512", "small_k"}  # decode_q_b1 stayed; the others moved 45 points
    assert moved["small_k"] == ("few rows", "short_k")
    # a hot move alone counts too, and so does a kernel change alone
    assert sd.changes(old.by_name(30), new.by_name(30), 50.0) == [
        ("small_k", old.by_name(30)["small_k"], new.by_name(30)["small_k"])]
    text = sd.report(old, new)
    assert "below 90% cold (new, 1): decode_q_b1 80.0" in text
    assert "kernel changed, or % of cuBLAS moved by more than 4 points (2):" in text
    assert "M = 1, hot (new)" in text and "GPUs differ" not in text


def test_a_run_without_hot_rows(data_dir, tmp_path):
    def cold_only(row):
        row.pop("pct_cublas_hot", None)

    old = results.load(edited(data_dir, tmp_path, "cold.json", cold_only), custom_ld=True)
    s = old.suite_summary(30)
    assert s.hot is None and s.hot_below is None and s.lowest_hot is None and s.cold is not None
    line = next(x for x in sd.report(old, old).splitlines() if x.startswith("old "))
    assert line.split()[5:8] == ["-", "-", "-"]  # hot, hot not tiny, hot below


def test_shapes_in_one_run_only_and_other_gpus(data_dir, tmp_path):
    doc = json.loads((data_dir / "h200_workloads.json").read_text())
    doc["benchmarks"] = [r for r in doc["benchmarks"] if "small_k" not in r["name"]]
    doc["context"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
    path = tmp_path / "fewer.json"
    path.write_text(json.dumps(doc))
    old, new = results.load(data_dir / "h200_workloads.json"), results.load(path)
    gone = [(n, a is None, b is None) for n, a, b in sd.changes(old.by_name(30), new.by_name(30), 4.0)]
    assert gone == [("small_k", False, True)]
    text = sd.report(old, new)
    assert "(absent)" in text and "the GPUs differ" in text


def test_command_line(data_dir, tmp_path, capsys):
    fixture = str(data_dir / "h200_workloads.json")
    assert common.run_main(sd.PROG, sd.main, [fixture, fixture]) == common.EXIT_OK
    out = capsys.readouterr().out
    assert "more than 4 points (0):" in out and "rung 30, geometric mean" in out
    assert common.run_main(sd.PROG, sd.main, [fixture, str(tmp_path / "missing.json")]) == common.EXIT_USAGE
    assert "no such file" in capsys.readouterr().err
    assert common.run_main(sd.PROG, sd.main, [fixture, fixture, "--rung", "29"]) != common.EXIT_OK
    assert "no rows of rung 29" in capsys.readouterr().err
    not_results = tmp_path / "x.json"
    not_results.write_text("{}")
    assert common.run_main(sd.PROG, sd.main, [fixture, str(not_results)]) == common.EXIT_USAGE
