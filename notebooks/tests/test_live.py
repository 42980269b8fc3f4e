"""The live paths without a GPU: sgemm_bench and the tools run through stand-in executables, and
torch_ladder's rows; torch_ladder itself on a GPU machine with PyTorch and the package."""
import json
import statistics
import textwrap

import pytest

pytest.importorskip("pandas", reason="the notebooks' tables are pandas DataFrames")
pytest.importorskip("matplotlib", reason="ladderplot draws with matplotlib")
import ladderplot as lp  # noqa: E402
from ladderplot import live  # noqa: E402


def test_live_row_is_a_reader_row():
    times = [1.0, 1.2, 0.9, 1.1, 1.05]
    row = live.live_row(7, "07_bank_conflict_free", 1024, times, cublas_ms=0.8, rel_err=2e-7, verified=True)
    assert row.ms == statistics.median(times) and row.ms_q1 < row.ms < row.ms_q3
    assert row.gflops == pytest.approx(2 * 1024**3 / row.ms * 1e-6)
    assert row.pct == pytest.approx(80.0 / row.ms) and row.verdict is None  # no interval from one round
    assert row.samples == 5 and row.rung == 7 and row.M == row.N == row.K == 1024


def test_gamma():
    assert live.gamma(1) == pytest.approx(2.0**-24 / (1 - 2.0**-24))
    assert live.gamma(2**24) == float("inf")


def test_torch_ladder_on_a_gpu():
    torch = pytest.importorskip("torch")
    sgemm_ladder = pytest.importorskip("sgemm_ladder")
    if not torch.cuda.is_available() or not hasattr(sgemm_ladder, "mm"):
        pytest.skip("needs PyTorch with CUDA and the sgemm_ladder package with its library")
    r = live.torch_ladder(size=256, repeats=3, warmup=1)
    t = lp.ladder_table(r, 256)
    assert t["verified"].all() and t.loc[("live", 0), "% cuBLAS"] == pytest.approx(100)
    assert sorted(t.index.get_level_values("rung")) == sorted(x.id for x in sgemm_ladder.rungs())


@pytest.fixture
def fake_bench(tmp_path, data_dir, monkeypatch):
    script = tmp_path / "sgemm_bench"
    script.write_text(textwrap.dedent("""\
        #!/bin/sh
        out=""; prev=""
        for a in "$@"; do [ "$prev" = "--json" ] && out="$a"; prev="$a"; done
        echo "$@" > "$(dirname "$0")/args.txt"
        cp "$FAKE_FIXTURE" "$out"
        echo "fake table"
        echo "fake complaint" >&2
        exit ${FAKE_RC:-0}
        """))
    script.chmod(0o755)
    monkeypatch.setenv("FAKE_FIXTURE", str(data_dir / "h200.json"))
    return script


def test_run_sgemm_bench_writes_a_results_folder(fake_bench, tmp_path, capsys):
    out = live.run_sgemm_bench(["--size", 4096], out_dir=tmp_path / "out", bench=fake_bench)
    args = (tmp_path / "args.txt").read_text().split()
    assert args == ["--size", "4096", "--json", str(tmp_path / "out" / "live.json")]
    assert "fake table" in capsys.readouterr().out
    r = lp.load_results(out)
    assert r.gpus == ["live"] and r.gpu_name("live") == "NVIDIA H200"


def test_run_sgemm_bench_exit_codes(fake_bench, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_RC", "1")
    with pytest.warns(UserWarning, match="failed verification"):
        live.run_sgemm_bench([], out_dir=tmp_path / "a", bench=fake_bench)
    monkeypatch.setenv("FAKE_RC", "3")
    with pytest.raises(RuntimeError, match="exited with 3:\nfake complaint"):
        live.run_sgemm_bench([], out_dir=tmp_path / "b", bench=fake_bench)
    with pytest.raises(FileNotFoundError, match="cmake --workflow --preset release"):
        live.run_sgemm_bench([], bench=tmp_path / "missing")


def test_pick_source(fake_bench, data_dir, monkeypatch):
    folder, gpus = lp.pick_source(lp.DEFAULT_RESULTS_DIR, ["h200"])
    assert folder == lp.REPO_ROOT / "bench" / "results" and gpus == ["h200"]
    monkeypatch.setenv(lp.RESULTS_ENV, str(data_dir))
    assert lp.pick_source("../bench/results", None) == (data_dir, None)
    monkeypatch.setenv(live.BENCH_ENV, str(fake_bench))
    folder, gpus = lp.pick_source("ignored", ["h200"], live=True, bench=["--size", 64])
    assert gpus is None and json.loads((folder / "live.json").read_text())["benchmarks"]
    assert lp.load_results(folder).gpus == ["live"]  # the live folder, whatever SGEMM_RESULTS_DIR says


def test_pick_source_runs_the_tools_with_this_python(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(live, "_run", lambda cmd, what, ok=(0,): calls.append(cmd))
    folder, _ = lp.pick_source("ignored", live=True, sass=True, ncu=True)
    assert [c[1].rsplit("/", 1)[-1] for c in calls] == ["sass_report.py", "ncu_profile.py"]
    assert calls[0][2:] == ["--all", "--json", str(folder / "live_sass.json")]
    assert calls[1][2:] == ["--all", "--csv", str(folder / "live_ncu.csv")]
