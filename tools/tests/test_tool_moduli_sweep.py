"""moduli_sweep: the sgemm_bench commands it runs and how it merges their rows into one file."""
from pathlib import Path

import pytest

import moduli_sweep as ms
import sgemm_tools_common as common


def doc(rows, **context):
    return {"context": {"sgemm_ladder_git": "abc1234", "input": "x", **context}, "benchmarks": rows}


def row(name, **counters):
    return {"name": name + "/iterations:1/manual_time", "run_name": name + "/iterations:1/manual_time", **counters}


def test_commands_force_the_count_and_match_gemmul8_to_it(tmp_path):
    args = ms.argparse.Namespace(kernel=31, size=4096, min_time=0.05, rounds=7, gemmul8=True, gemmul8_mode="fast")
    plan = ms.bench_command(Path("b"), args, ["--input", "uniform"], ms.PLAN, tmp_path / "o.json")
    assert plan[plan.index("--kernel") + 1] == "31" and plan[plan.index("--moduli") + 1] == "0"
    assert plan[plan.index("--gemmul8") + 1] == str(ms.PLAN_PEER_MODULI)
    five = ms.bench_command(Path("b"), args, ["--input", "wide", "--wide-exponent", "8"], 5, tmp_path / "o.json")
    assert five[five.index("--moduli") + 1] == "5" and five[five.index("--gemmul8") + 1] == "5"
    assert "--gemmul8-mode" not in five, "fast mode is sgemm_bench's default"
    args.gemmul8_mode = "accurate"
    acc = ms.bench_command(Path("b"), args, [], 5, tmp_path / "o.json")
    assert acc[acc.index("--gemmul8-mode") + 1] == "accurate"
    args.gemmul8 = False
    assert "--gemmul8" not in ms.bench_command(Path("b"), args, [], 5, tmp_path / "o.json")
    assert [label for label, _ in ms.inputs([12, 4, 4])] == ["uniform", "wide4", "wide12"]


def test_merge_names_each_row_after_its_input_and_count():
    runs = [("uniform", 0, doc([row("rung00_cublas/64x64x64", rung=0), row("rung31_ordered_units/64x64x64", rung=31)],
                               ozaki_moduli="forced")),
            ("wide4", 5, doc([row("rung31_ordered_units/64x64x64", rung=31, ozaki_moduli=5)]))]
    merged = ms.merge(runs, "what", "tools/moduli_sweep.py --size 64")
    names = [r["name"] for r in merged["benchmarks"]]
    assert names == ["rung00_cublas/64x64x64/uniform/iterations:1/manual_time",
                     "rung31_ordered_units/64x64x64/uniform/plan/iterations:1/manual_time",
                     "rung31_ordered_units/64x64x64/wide4/moduli5/iterations:1/manual_time"]
    assert [r["input"] for r in merged["benchmarks"]] == ["uniform", "uniform", "wide4"]
    ctx = merged["context"]
    assert ctx["moduli_sweep"] == "what" and ctx["command"].startswith("tools/moduli_sweep.py")
    assert "ozaki_moduli" not in ctx and ctx["sgemm_ladder_git"] == "abc1234"
    with pytest.raises(common.ToolError):
        ms.merge([], "what", "cmd")
    with pytest.raises(common.ToolError):
        ms.renamed("accuracy/31/x", "uniform", 5)


def test_a_refused_plan_is_a_result_other_failures_are_not():
    refused = {"name": "rung31/plan", "error_occurred": True,
               "error_message": "a row of A or a column of B has its largest magnitude too far above its mean"}
    other = {"name": "rung31/moduli4", "error_occurred": True, "error_message": "out of memory"}
    wrong = {"name": "rung31/moduli5", "verified": 0, "checked": 1}
    assert ms.failed_rows(doc([refused])) == []
    assert len(ms.failed_rows(doc([refused, other, wrong]))) == 2


def test_bad_lists_are_usage_errors():
    assert ms.parse_list("4,5, 8", 1, 8, "--moduli") == [4, 5, 8]
    for bad in ("", "0", "9", "a"):
        with pytest.raises(common.UsageError):
            ms.parse_list(bad, 1, 8, "--moduli")
