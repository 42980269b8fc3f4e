"""ncu_profile: ncu's --page raw CSV, unit handling, our CSV, the command line and the CLI
(with stand-in `ncu` and `sgemm_bench` scripts: no GPU needed)."""
import csv
import stat
import sys

import pytest

import ncu_profile as nc
import sgemm_tools_common as common

N = 4096
FLOPS = 2.0 * N**3


def test_parse_raw_csv_rung07(data_dir):
    launches = nc.parse_ncu_raw_csv((data_dir / "ncu_raw_rung07.csv").read_text())
    assert len(launches) == 1  # the program's own table and ==PROF== lines are skipped
    (ln,) = launches
    assert ln["kernel"] == "sgemm_07_bank_conflict_free"
    assert ln["grid_size"] == "(32, 32, 1)" and ln["block_size"] == "(256, 1, 1)"
    assert ln["values"]["dram__bytes_read.sum"] == ("318,767,104", "byte")
    # The fixture was recorded before the tensor-pipe, by-address and occupancy-over-elapsed-time
    # columns joined METRICS.
    newer = ("sm__pipe_tensor", "smsp__sass_l1tex", "sm__warps_active.avg.pct_of_peak_sustained_elapsed")
    assert set(m for _, m, _ in nc.METRICS if not m.startswith(newer)) <= set(ln["values"])


def test_make_row_rung07(data_dir):
    (ln,) = nc.parse_ncu_raw_csv((data_dir / "ncu_raw_rung07.csv").read_text())
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


def test_rung00_scaled_units_na_and_longest_launch(data_dir):
    launches = nc.parse_ncu_raw_csv((data_dir / "ncu_raw_rung00.csv").read_text())
    assert [ln["id"] for ln in launches] == ["0", "1", "2"]
    assert [nc.rung_of_kernel(ln["kernel"]) for ln in launches] == [0, 0, 0]
    best = nc.pick_launch(launches)
    assert best["id"] == "2"  # 2.93 ms, not the 8x8x8 preflight
    row = nc.make_row(0, "00_cublas", N, N, N, best)
    assert row["duration_ns"] == pytest.approx(2.93e6)  # msecond
    assert row["sm_clock_mhz"] == pytest.approx(1750)  # cycle/nsecond
    assert row["dram_bytes_read"] == pytest.approx(210.34e6)  # Mbyte
    assert row["global_ld_requests"] == pytest.approx(4.19e6)  # Mrequest
    assert row["ffma_thread_insts"] == pytest.approx(68719.48e6)  # Minst
    assert row["smem_ld_insts"] is None  # n/a


@pytest.mark.parametrize("value, unit, kind, expected", [
    (4107264, "nsecond", "time", 4107264), (2.93, "msecond", "time", 2.93e6), (12.5, "usecond", "time", 12.5e3),
    (0.004, "second", "time", 4e6), (1.75, "cycle/nsecond", "clock", 1750), (1.98e9, "cycle/second", "clock", 1980),
    (1755, "cycle/usecond", "clock", 1755), (1.98, "Ghz", "clock", 1980), (1.98e9, "hz", "clock", 1980),
    (210.34, "Mbyte", "bytes", 210.34e6), (5.1, "Gbyte", "bytes", 5.1e9), (12, "byte", "bytes", 12),
    (3.5, "Ksector", "count", 3500), (7, "sector", "count", 7), (2.5, "Minst", "count", 2.5e6),
    (128, "register/thread", "count", 128), (42, "", "count", 42), (71.9, "%", "pct", 71.9), (0.4, "", "ratio", 0.4),
    (None, "byte", "bytes", None),
])
def test_to_unit(value, unit, kind, expected):
    got = nc.to_unit(value, unit, kind)
    assert got == (None if expected is None else pytest.approx(expected))


def test_to_unit_rejects_unknown_time_unit():
    with pytest.raises(common.ToolError):
        nc.to_unit(1.0, "fortnight", "time")


def test_rung_of_kernel():
    assert nc.rung_of_kernel("sgemm_07_bank_conflict_free") == 7
    assert nc.rung_of_kernel("void sgemm::rung10::sgemm_10_double_buffering<128>(int)") == 10
    assert nc.rung_of_kernel("sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8") == 0
    assert nc.rung_of_kernel("ampere_sgemm_128x64_nn") == 0
    assert nc.rung_of_kernel("cutlass_80_simt_sgemm_256x128_8x4_nn_align1") == 0
    for helper in ("scale_c_kernel", "reference_kernel", "compare_kernel", "shape_inputs", "prepare_c"):
        assert nc.rung_of_kernel(helper) is None


def test_ncu_command():
    metrics = [m for _, m, _ in nc.METRICS]
    cmd = nc.ncu_command("ncu", "bench/sgemm_bench", 7, 4096, metrics)
    text = " ".join(cmd)
    assert "--clock-control none" in text and "--csv --page raw" in text and "--print-units base" in text
    assert "--kernel-name regex:sgemm_07_" in text
    assert "--launch-skip 1 --launch-count 1" in text  # skip the 8x8x8 preflight launch
    assert cmd[cmd.index("--metrics") + 1] == ",".join(metrics)
    assert text.endswith("bench/sgemm_bench --kernel 7 --size 4096 --repeat 1 --warmup 0 --no-check --min-time 0.01")
    cub = " ".join(nc.ncu_command("ncu", "b", 0, 2048, metrics))
    assert "--kernel-name regex:gemm|xmma|cutlass" in cub and "--launch-skip 0 --launch-count 4" in cub
    assert "--kernel 0 --size 2048" in cub
    assert "--launch-skip 3 --launch-count 2" in " ".join(nc.ncu_command("ncu", "b", 5, 64, metrics, 3, 2))


def test_metric_table_is_consistent():
    cols = [c for c, _, _ in nc.METRICS]
    assert len(set(cols)) == len(cols) and len(set(nc.COLUMNS)) == len(nc.COLUMNS)
    assert len({m for _, m, _ in nc.METRICS}) == len(nc.METRICS)
    for needed in ("duration_ns", "dram_bytes", "global_ld_sectors_per_request", "global_st_sectors_per_request",
                   "smem_ld_bank_conflicts", "smem_st_bank_conflicts", "smem_ld_wavefronts", "achieved_occupancy_pct",
                   "issue_active_pct", "ffma_thread_insts", "inst_executed", "stall_long_scoreboard",
                   "stall_mio_throttle", "stall_barrier", "flops", "arithmetic_intensity", "achieved_gflops"):
        assert needed in nc.COLUMNS


def test_parse_list(data_dir):
    rungs = nc.parse_list((data_dir / "sgemm_bench_list.txt").read_text())
    assert rungs[0] == "00_cublas" and rungs[10] == "10_double_buffering" and sorted(rungs) == list(range(11))
    with pytest.raises(common.ToolError):
        nc.parse_list("nothing here\n")


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
    back = common.load_ncu_csv(out)
    assert back[1]["duration_ns"] == 4107264.0 and back[1]["flops"] == FLOPS


def _script(path, body):
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def fake_tools(tmp_path, data_dir, monkeypatch):
    """A stand-in sgemm_bench (--list: rungs 0 and 7) and ncu (prints the fixture of the rung on
    its command line; rejects the metric named in $FAKE_NCU_REJECT while it is requested)."""
    bench = _script(tmp_path / "sgemm_bench", f"""import sys
assert sys.argv[1:] == ["--list"], sys.argv
lines = open({str(data_dir / "sgemm_bench_list.txt")!r}).read().splitlines()
print("\\n".join(l for l in lines if not l[:1].isdigit() or l.split()[0] in ("0", "7")))
""")
    log = tmp_path / "ncu_calls.txt"
    ncu = _script(tmp_path / "ncu", f"""import os, sys
args = sys.argv[1:]
open({str(log)!r}, "a").write(" ".join(args) + "\\n")
bad = os.environ.get("FAKE_NCU_REJECT")
if bad and bad in args[args.index("--metrics") + 1].split(","):
    print("==ERROR== Failed to find metric " + bad)
    sys.exit(1)
rung = int(args[args.index("--kernel") + 1])
sys.stdout.write(open(os.path.join({str(data_dir)!r}, "ncu_raw_rung%02d.csv" % rung)).read())
""")
    monkeypatch.setenv("NCU", str(ncu))
    monkeypatch.delenv("FAKE_NCU_REJECT", raising=False)
    return bench, log


def test_all_runs_ncu_once_per_rung(fake_tools, tmp_path):
    bench, log = fake_tools
    out, raw_dir = tmp_path / "out.csv", tmp_path / "raw"
    assert nc.main(["--all", "--bench", str(bench), "--csv", str(out), "--raw-dir", str(raw_dir)]) == 0
    calls = log.read_text().splitlines()
    assert len(calls) == 2 and "--kernel 0" in calls[0] and "--kernel 7" in calls[1]
    rows = common.load_ncu_csv(out)
    assert [r["rung"] for r in rows] == [0, 7]
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
    assert common.load_ncu_csv(out)[0]["duration_ns"] == 4107264


def test_unknown_rung_is_a_usage_error(fake_tools):
    bench, _ = fake_tools
    assert common.run_main("ncu_profile", nc.main, ["--kernel", "3", "--bench", str(bench)]) == 2


def test_missing_ncu_says_how_to_get_it(monkeypatch, capsys):
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
