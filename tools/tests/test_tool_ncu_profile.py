"""ncu_profile: ncu's --page raw CSV read with pandas, unit handling, our CSV, the command line
and the CLI (with a stand-in `ncu` script and the registry of conftest.py: no GPU needed)."""
import csv
import stat
import sys
from types import SimpleNamespace

import pytest

pytest.importorskip("pandas", reason="ncu_profile reads ncu's CSV with pandas")
import ncu_profile as nc  # noqa: E402
import sgemm_tools_common as common  # noqa: E402

N = 4096
FLOPS = 2.0 * N**3


def test_read_raw_csv_rung07(data_dir):
    launches = nc.read_ncu_csv((data_dir / "ncu_raw_rung07.csv").read_text())
    assert len(launches) == 1  # the program's own table and ==PROF== lines are skipped
    ln = launches.iloc[0]
    assert ln["kernel"] == "sgemm_07_bank_conflict_free"
    assert ln["grid_size"] == "(32, 32, 1)" and ln["block_size"] == "(256, 1, 1)"
    assert ln["dram_bytes_read"] == 318767104  # thousands separators read
    # The fixture was recorded before the tensor-pipe, by-address and occupancy-over-elapsed-time
    # columns joined METRICS: those read as missing.
    assert launches["tensor_hmma_active_pct"].isna().all()


def test_make_row_rung07(data_dir):
    ln = nc.read_ncu_csv((data_dir / "ncu_raw_rung07.csv").read_text()).iloc[0]
    row = nc.make_row(7, "07_bank_conflict_free", N, N, N, ln)
    assert row["duration_ns"] == 4107264
    assert row["sm_clock_mhz"] == pytest.approx(1754.02, abs=0.01)
    assert row["dram_bytes"] == 318767104 + 67305472
    assert row["global_ld_sectors_per_request"] == 16.0
    assert row["global_st_sectors_per_request"] == 16.0
    assert row["smem_ld_bank_conflicts"] == 1204 and row["smem_st_bank_conflicts"] == 0
    assert row["smem_wavefronts_per_ffma"] == pytest.approx((268436660 + 16777216) / (68719476736 / 32))
    assert row["flops"] == FLOPS
    assert row["arithmetic_intensity"] == pytest.approx(FLOPS / (318767104 + 67305472))
    assert row["achieved_gflops"] == pytest.approx(FLOPS / 4107264)  # FLOP per ns = GFLOP/s
    assert row["stall_long_scoreboard"] == 0.41 and row["stall_selected"] == 1.0
    assert row["achieved_occupancy_pct"] == 12.41
    assert row["tensor_pipe_active_pct"] is None


def test_rung00_scaled_units_na_and_longest_launch(data_dir, registry):
    launches = nc.read_ncu_csv((data_dir / "ncu_raw_rung00.csv").read_text())
    assert launches["id"].tolist() == ["0", "1", "2"]
    assert [nc.rung_of_kernel(k, registry) for k in launches["kernel"]] == [0, 0, 0]
    best = nc.pick_launch(launches)
    assert best["id"] == "2"  # 2.93 ms, not the 8x8x8 preflight
    row = nc.make_row(0, "00_cublas", N, N, N, best)
    assert row["duration_ns"] == pytest.approx(2.93e6)  # msecond
    assert row["sm_clock_mhz"] == pytest.approx(1750)  # cycle/nsecond
    assert row["dram_bytes_read"] == pytest.approx(210.34e6)  # Mbyte
    assert row["global_ld_requests"] == pytest.approx(4.19e6)  # Mrequest
    assert row["ffma_thread_insts"] == pytest.approx(68719.48e6)  # Minst
    assert row["smem_ld_insts"] is None  # n/a


def test_concatenated_outputs_and_no_output(data_dir):
    both = (data_dir / "ncu_raw_rung00.csv").read_text() + (data_dir / "ncu_raw_rung07.csv").read_text()
    assert nc.read_ncu_csv(both)["kernel"].tolist()[-1] == "sgemm_07_bank_conflict_free"
    empty = nc.read_ncu_csv("==PROF== no kernels were profiled\n")
    assert empty.empty and "duration_ns" in empty.columns


@pytest.mark.parametrize("unit, kind, scale", [
    ("nsecond", "time", 1), ("msecond", "time", 1e6), ("usecond", "time", 1e3), ("second", "time", 1e9),
    ("cycle/nsecond", "clock", 1e3), ("cycle/second", "clock", 1e-6), ("cycle/usecond", "clock", 1),
    ("Ghz", "clock", 1e3), ("hz", "clock", 1e-6), ("Mbyte", "bytes", 1e6), ("Gbyte", "bytes", 1e9),
    ("byte", "bytes", 1), ("Ksector", "count", 1e3), ("sector", "count", 1), ("Minst", "count", 1e6),
    ("register/thread", "count", 1), ("", "count", 1), ("%", "pct", 1), ("", "ratio", 1),
])
def test_unit_scale(unit, kind, scale):
    assert nc.unit_scale(unit, kind) == pytest.approx(scale)


def test_unit_scale_rejects_unknown_time_unit():
    with pytest.raises(common.ToolError):
        nc.unit_scale("fortnight", "time")


def test_rung_of_kernel_follows_the_registry(registry):
    assert nc.rung_of_kernel("sgemm_07_bank_conflict_free", registry) == 7
    assert nc.rung_of_kernel("void sgemm::rung10::sgemm_10_double_buffering<true, Config<64> >(int)", registry) == 10
    assert nc.rung_of_kernel("sgemm::(anonymous namespace)::scale_c_kernel(long)", registry) is None
    assert nc.rung_of_kernel("sgemm_12_stream_k", registry) == 12
    assert nc.rung_of_kernel("sgemm_12_stream_k_shares", registry) is None  # not the lesson's kernel
    assert nc.rung_of_kernel("void sgemm::rung12::sgemm_12_stream_k<true, Config<64> >(int)", registry) == 12
    assert nc.rung_of_kernel("void sgemm::rung12::sgemm_12_stream_k<false, Config<64> >(int)", registry) is None
    assert nc.rung_of_kernel("sgemm_23_wgmma_3xtf32", registry) == 23
    assert nc.rung_of_kernel("split_23_wgmma_3xtf32_a", registry) is None
    assert nc.rung_of_kernel("sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8", registry) == 0
    assert nc.rung_of_kernel("ampere_sgemm_128x64_nn", registry) == 0
    assert nc.rung_of_kernel("cutlass_80_simt_sgemm_256x128_8x4_nn_align1", registry) == 0
    for helper in ("scale_c_kernel", "reference_kernel", "compare_kernel", "shape_inputs", "prepare_c"):
        assert nc.rung_of_kernel(helper, registry) is None


def test_ncu_command(registry):
    by_id = {r.id: r for r in registry}
    metrics = [m for _, m, _ in nc.METRICS]
    cmd = nc.ncu_command("ncu", "bench/sgemm_bench", by_id[7], 4096, metrics)
    text = " ".join(cmd)
    assert "--clock-control none" in text and "--csv --page raw" in text and "--print-units base" in text
    assert "--kernel-name-base function --kernel-name regex:^sgemm_07_bank_conflict_free$" in text
    assert "--launch-skip 1 --launch-count 1" in text  # skip the 8x8x8 preflight launch
    assert cmd[cmd.index("--metrics") + 1] == ",".join(metrics)
    assert text.endswith("bench/sgemm_bench --kernel 7 --size 4096 --repeat 1 --warmup 0 --no-check --min-time 0.01")
    cub = " ".join(nc.ncu_command("ncu", "b", by_id[0], 2048, metrics))
    assert "--kernel-name-base function --kernel-name regex:gemm|xmma|cutlass" in cub
    assert "--launch-skip 0 --launch-count 4" in cub
    assert "--kernel 0 --size 2048" in cub
    assert "--launch-skip 3 --launch-count 2" in " ".join(nc.ncu_command("ncu", "b", by_id[5], 64, metrics, 3, 2))
    stream_k = nc.ncu_command("ncu", "b", by_id[12], 64, metrics)
    assert stream_k[stream_k.index("--kernel-name") + 1] == "regex:^sgemm_12_stream_k$"  # not ..._shares


def test_kernel_filter_is_a_regular_expression_of_the_text():
    assert nc.kernel_filter(SimpleNamespace(kernel="sgemm_99_a.b<true"))[-1] == r"regex:^sgemm_99_a\.b$"


def test_metric_table_is_consistent():
    cols = [c for c, _, _ in nc.METRICS]
    assert len(set(cols)) == len(cols) and len(set(nc.COLUMNS)) == len(nc.COLUMNS)
    assert len({m for _, m, _ in nc.METRICS}) == len(nc.METRICS)
    for needed in ("duration_ns", "dram_bytes", "global_ld_sectors_per_request", "global_st_sectors_per_request",
                   "smem_ld_bank_conflicts", "smem_st_bank_conflicts", "smem_ld_wavefronts", "achieved_occupancy_pct",
                   "issue_active_pct", "ffma_thread_insts", "inst_executed", "stall_long_scoreboard",
                   "stall_mio_throttle", "stall_barrier", "flops", "arithmetic_intensity", "achieved_gflops"):
        assert needed in nc.COLUMNS


def test_from_ncu_csv_writes_our_csv(data_dir, tmp_path, capsys):
    raw = tmp_path / "both.csv"
    raw.write_text((data_dir / "ncu_raw_rung00.csv").read_text() + (data_dir / "ncu_raw_rung07.csv").read_text())
    out = tmp_path / "ncu.csv"
    assert nc.main(["--from-ncu-csv", str(raw), "--csv", str(out)]) == 0
    assert "sgemm_07_bank_conflict_free" in capsys.readouterr().out
    with open(out) as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == nc.COLUMNS
        rows = list(reader)
    assert [r["rung"] for r in rows] == ["0", "7"]
    assert rows[1]["slug"] == "07_bank_conflict_free" and rows[0]["slug"] == "00_cublas"
    assert rows[0]["smem_ld_insts"] == ""  # n/a stays empty
    assert rows[0]["global_ld_requests"] == "4190000"  # scaled counts written as integers
    back = common.results.load_ncu(out)
    assert back[7]["duration_ns"] == 4107264.0 and back[7]["flops"] == FLOPS


def test_from_ncu_csv_without_ladder_kernels(tmp_path):
    raw = tmp_path / "other.csv"
    raw.write_text('"ID","Kernel Name","gpu__time_duration.sum"\n"","","nsecond"\n"0","scale_c_kernel","100"\n')
    assert common.run_main("ncu_profile", nc.main, ["--from-ncu-csv", str(raw)]) == 1


def _script(path, body):
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def fake_tools(tmp_path, data_dir, monkeypatch, registry):
    """A stand-in sgemm_bench (any file: ncu runs it), ncu (prints the fixture of the rung on its
    command line, nothing for a rung without one; rejects the metric named in $FAKE_NCU_REJECT
    while it is requested) and a registry of rungs 0, 7 and 30."""
    bench = _script(tmp_path / "sgemm_bench", "raise SystemExit('ncu runs sgemm_bench, not the tool')\n")
    log = tmp_path / "ncu_calls.txt"
    ncu = _script(tmp_path / "ncu", f"""import os, sys
args = sys.argv[1:]
open({str(log)!r}, "a").write(" ".join(args) + "\\n")
bad = os.environ.get("FAKE_NCU_REJECT")
if bad and bad in args[args.index("--metrics") + 1].split(","):
    print("==ERROR== Failed to find metric " + bad)
    sys.exit(1)
rung = int(args[args.index("--kernel") + 1])
fixture = os.path.join({str(data_dir)!r}, "ncu_raw_rung%02d.csv" % rung)
print("==PROF== Disconnected" if not os.path.exists(fixture) else open(fixture).read())
""")
    monkeypatch.setenv("NCU", str(ncu))
    monkeypatch.delenv("FAKE_NCU_REJECT", raising=False)
    rungs = [r for r in registry if r.id in (0, 7, 30)]
    monkeypatch.setattr(common.sgemm_ladder, "rungs", lambda: rungs)
    return bench, log


def test_all_runs_ncu_once_per_rung(fake_tools, tmp_path):
    bench, log = fake_tools
    out, raw_dir = tmp_path / "out.csv", tmp_path / "raw"
    assert nc.main(["--all", "--bench", str(bench), "--csv", str(out), "--raw-dir", str(raw_dir)]) == 0
    calls = log.read_text().splitlines()
    assert len(calls) == 3 and "--kernel 0" in calls[0] and "--kernel 7" in calls[1] and "--kernel 30" in calls[2]
    rows = common.results.load_ncu(out)
    assert sorted(rows) == [0, 7]
    assert rows[0]["duration_ns"] == pytest.approx(2.93e6)
    assert sorted(p.name for p in raw_dir.iterdir()) == ["rung00_ncu_raw.csv", "rung07_ncu_raw.csv"]


def test_unknown_metric_is_dropped_and_retried(fake_tools, tmp_path, monkeypatch, capsys):
    bench, log = fake_tools
    monkeypatch.setenv("FAKE_NCU_REJECT", "smsp__sass_inst_executed_op_shared_ld.sum")
    out = tmp_path / "out.csv"
    assert nc.main(["--kernel", "7", "--bench", str(bench), "--csv", str(out)]) == 0
    assert len(log.read_text().splitlines()) == 2
    assert "smsp__sass_inst_executed_op_shared_ld.sum" in capsys.readouterr().err
    assert "smsp__sass_inst_executed_op_shared_ld.sum" not in log.read_text().splitlines()[1]
    assert common.results.load_ncu(out)[7]["duration_ns"] == 4107264


def test_a_rung_whose_kernel_does_not_run_is_left_out_of_all_but_not_of_kernel(fake_tools, tmp_path, capsys):
    bench, _ = fake_tools
    assert nc.main(["--all", "--bench", str(bench), "--csv", str(tmp_path / "out.csv")]) == 0
    assert "rung 30 left out: no launch of `sgemm_30_gemv<` at 4096^3" in capsys.readouterr().err
    assert common.run_main("ncu_profile", nc.main, ["--kernel", "30", "--bench", str(bench)]) == 1
    assert "ncu profiled no launch of rung 30" in capsys.readouterr().err


def test_unknown_rung_is_a_usage_error(fake_tools):
    bench, _ = fake_tools
    assert common.run_main("ncu_profile", nc.main, ["--kernel", "3", "--bench", str(bench)]) == 2


def test_missing_ncu_says_how_to_get_it(monkeypatch, capsys):
    """Needs no sgemm_bench: ncu is looked for first."""
    monkeypatch.setenv("NCU", "/nonexistent/ncu")
    assert common.run_main("ncu_profile", nc.main, ["--kernel", "7"]) == 1
    err = capsys.readouterr().err
    assert "Nsight Compute" in err and "CUDA Toolkit" in err


def test_dry_run_prints_the_command(capsys):
    assert nc.main(["--kernel", "7", "--size", "1024", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ncu --csv") and "--kernel 7 --size 1024" in out


def test_bad_size_is_a_usage_error():
    with pytest.raises(SystemExit) as e:
        nc.main(["--kernel", "7", "--size", "0"])
    assert e.value.code == 2


def test_without_pandas_the_tool_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(nc, "pd", None)
    assert common.run_main("ncu_profile", nc.main, ["--kernel", "7", "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs the Python package pandas" in err
