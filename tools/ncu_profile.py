#!/usr/bin/env python3
"""Nsight Compute recipe: profile one launch of a rung with the metrics the ladder's lessons use.

For each rung it runs ncu once on sgemm_bench (one launch of the rung's kernel at --size, clocks
left alone with --clock-control none), reads ncu's CSV and writes one row per rung to our CSV:
duration, SM clock, DRAM bytes, global sectors per request, shared-memory bank conflicts and
wavefronts, achieved occupancy, issue-slot use, FFMA and instruction counts, warp stall reasons,
and derived FLOPs, arithmetic intensity and GFLOP/s.

Examples:
    python3 tools/ncu_profile.py --kernel 7 --csv /tmp/rung07.csv
    python3 tools/ncu_profile.py --all --size 4096 --csv bench/results/h200_ncu.csv
    python3 tools/ncu_profile.py --kernel 7 --dry-run          # print the ncu command only
    python3 tools/ncu_profile.py --from-ncu-csv saved.csv --size 4096 --csv out.csv

The ncu command for rung N (N >= 1) is
    ncu --csv --page raw --print-units base --print-kernel-base function --clock-control none
        --target-processes all --kernel-name-base function --kernel-name regex:sgemm_NN_
        --launch-skip 1 --launch-count 1 --metrics <METRICS>
        sgemm_bench --kernel N --size S --repeat 1 --warmup 0 --no-check --min-time 0.01
--launch-skip 1 skips sgemm_bench's 8x8x8 preflight launch of the kernel; the launch profiled is
the (warm-up) launch at size S, the same work as a timed one. Rung 0 is cuBLAS: its filter is
regex:gemm|xmma|cutlass, the first 4 matching launches are profiled and the longest is kept
(cuBLAS may pick another kernel for the 8x8x8 preflight). --from-ncu-csv converts a saved
`ncu --csv --page raw` output instead (rows go to rungs by kernel name; the longest launch of
each rung is kept).

Warp stalls use the `smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio` family:
warps stalled for that reason per cycle with an issue, the breakdown of ncu's Warp State
Statistics section (the reasons add up to about the warp cycles per issued instruction).
A metric ncu reports as n/a is left empty; a metric this ncu does not know is dropped (with a
warning) and the run retried. The METRICS table below is the one place to edit the list.

ncu is looked for in $NCU, PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*/.
"""
from __future__ import annotations

import argparse
import csv
import glob
import io
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sgemm_tools_common as common  # noqa: E402
from sgemm_tools_common import ToolError, UsageError  # noqa: E402

PROG = "ncu_profile"

STALL_REASONS = ["long_scoreboard", "short_scoreboard", "mio_throttle", "lg_throttle", "barrier",
                 "math_pipe_throttle", "not_selected", "selected", "wait", "dispatch_stall", "no_instruction"]

# (our column, ncu metric, kind). Kinds: time -> ns, clock -> MHz, bytes -> bytes, count, pct, ratio.
METRICS: list[tuple[str, str, str]] = [
    ("duration_ns", "gpu__time_duration.sum", "time"),
    ("sm_clock_mhz", "sm__cycles_elapsed.avg.per_second", "clock"),
    ("dram_bytes_read", "dram__bytes_read.sum", "bytes"),
    ("dram_bytes_write", "dram__bytes_write.sum", "bytes"),
    ("global_ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "count"),
    ("global_ld_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "count"),
    ("global_st_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "count"),
    ("global_st_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "count"),
    ("smem_ld_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "count"),
    ("smem_st_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "count"),
    ("smem_ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "count"),
    ("smem_st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "count"),
    # The wavefronts the instructions' addresses need (computed by SASS patching): the hardware
    # wavefronts above minus these are extra wavefronts that the layout did not cause.
    ("smem_ld_wavefronts_by_address", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "count"),
    ("smem_st_wavefronts_by_address", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "count"),
    ("smem_ld_insts", "smsp__sass_inst_executed_op_shared_ld.sum", "count"),
    ("smem_st_insts", "smsp__sass_inst_executed_op_shared_st.sum", "count"),
    ("achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", "pct"),
    # Warps resident over the whole kernel, idle SMs included: a partial last wave lowers it.
    ("occupancy_elapsed_pct", "sm__warps_active.avg.pct_of_peak_sustained_elapsed", "pct"),
    ("issue_slots_busy_pct", "sm__inst_issued.avg.pct_of_peak_sustained_active", "pct"),
    ("issue_active_pct", "smsp__issue_active.avg.pct_of_peak_sustained_active", "pct"),
    ("ffma_thread_insts", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "count"),
    # Tensor-core rungs: mma.sync runs on the HMMA pipe, wgmma on the GMMA pipe (sm_90).
    ("tensor_hmma_active_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "pct"),
    ("tensor_gmma_active_pct", "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active", "pct"),
    ("inst_executed", "smsp__inst_executed.sum", "count"),
    ("registers_per_thread", "launch__registers_per_thread", "count"),
] + [(f"stall_{r}", f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio", "ratio")
     for r in STALL_REASONS]

DERIVED = ["dram_bytes", "global_ld_sectors_per_request", "global_st_sectors_per_request",
           "smem_wavefronts_per_ffma", "flops", "arithmetic_intensity", "achieved_gflops"]
ID_COLUMNS = ["rung", "slug", "M", "N", "K", "kernel", "block_size", "grid_size"]
COLUMNS = ID_COLUMNS + [c for c, _, _ in METRICS] + DERIVED

CUBLAS_FILTER = "gemm|xmma|cutlass"
NCU_HINT = ("install the CUDA Toolkit (ncu is in its bin/) or Nsight Compute "
            "(https://developer.nvidia.com/nsight-compute), or point $NCU at the binary")
PERM_HINT = ("ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM): run as root "
             "or load the driver with NVreg_RestrictProfilingToAdminUsers=0")


# ----------------------------------------------------------------------------------------------
# Units

_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_TIME_NS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
            "second": 1e9, "s": 1e9}
_PER_TIME_HZ = {"second": 1.0, "s": 1.0, "msecond": 1e3, "ms": 1e3, "usecond": 1e6, "us": 1e6,
                "nsecond": 1e9, "ns": 1e9}


def to_unit(value: float | None, unit: str, kind: str) -> float | None:
    """Convert one ncu value in `unit` to our unit for `kind` (ns, MHz, bytes, plain numbers)."""
    if value is None:
        return None
    unit = (unit or "").strip()
    if kind == "time":
        if unit in _TIME_NS:
            return value * _TIME_NS[unit]
        raise ToolError(f"unexpected time unit '{unit}'")
    if kind == "clock":
        m = re.fullmatch(r"(?:([KMGT]?)cycle)/(\w+)", unit)
        if m and m.group(2) in _PER_TIME_HZ:
            return value * _PREFIX[m.group(1)] * _PER_TIME_HZ[m.group(2)] / 1e6
        m = re.fullmatch(r"([KMGT]?)hz", unit, re.IGNORECASE)
        if m:
            return value * _PREFIX[m.group(1).upper()] / 1e6
        raise ToolError(f"unexpected clock unit '{unit}'")
    if kind in ("pct", "ratio"):
        return value
    m = re.fullmatch(r"([KMGTP]?)([a-z/_]+)", unit)  # byte, Kbyte, sector, Msector, inst, ...
    if m and m.group(2) not in ("second",):
        return value * _PREFIX[m.group(1)]
    return value


# ----------------------------------------------------------------------------------------------
# ncu's CSV (--page raw: a header row of metric names, a row of units, one row per launch)


def parse_ncu_raw_csv(text: str) -> list[dict]:
    """Launches in `ncu --csv --page raw` output: [{'id','kernel','block_size','grid_size',
    'values': {metric: (text, unit)}}]. Lines before the header (the profiled program's own
    output, ==PROF== lines) and lines that are not CSV rows are skipped."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    fixed = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
             "Block Size", "Grid Size", "Device", "CC"}
    header: list[str] | None = None
    units: list[str] = []
    launches = []
    for row in csv.reader(io.StringIO("\n".join(lines))):
        if row and row[0] == "ID":  # a header (several when outputs were concatenated)
            header, units = row, [""] * len(row)
            continue
        if header is None or len(row) != len(header):
            continue
        if row[0] == "":  # the units row under the header
            units = row
            continue
        cells = dict(zip(header, row))
        launches.append({
            "id": cells.get("ID", ""),
            "kernel": cells.get("Kernel Name", ""),
            "block_size": cells.get("Block Size", ""),
            "grid_size": cells.get("Grid Size", ""),
            "values": {h: (v, u) for h, v, u in zip(header, row, units) if h not in fixed},
        })
    return launches


def rung_of_kernel(kernel: str) -> int | None:
    """Rung of a profiled kernel: sgemm_NN_ -> N, a cuBLAS GEMM kernel -> 0, anything else None."""
    n = common.rung_of_name(kernel)
    if n is not None:
        return n
    return 0 if re.search(CUBLAS_FILTER, kernel) else None


def launch_metrics(launch: dict) -> dict[str, float | None]:
    """Our metric columns of one launch (None where ncu gave n/a or lacks the metric)."""
    out = {}
    for col, metric, kind in METRICS:
        text, unit = launch["values"].get(metric, (None, ""))
        out[col] = to_unit(common.parse_number(text), unit, kind)
    return out


def pick_launch(launches: list[dict]) -> dict | None:
    """The launch to report among several of one rung: the longest (the full-size one)."""
    if not launches:
        return None
    return max(launches, key=lambda ln: launch_metrics(ln)["duration_ns"] or 0.0)


def _ratio(a, b):
    return a / b if a is not None and b else None


def make_row(rung: int, slug: str, m: int, n: int, k: int, launch: dict) -> dict:
    """One row of our CSV: ids, the METRICS columns, the DERIVED columns."""
    v = launch_metrics(launch)
    row = {"rung": rung, "slug": slug, "M": m, "N": n, "K": k, "kernel": launch["kernel"],
           "block_size": launch["block_size"], "grid_size": launch["grid_size"], **v}
    rd, wr = v["dram_bytes_read"], v["dram_bytes_write"]
    row["dram_bytes"] = None if rd is None and wr is None else (rd or 0.0) + (wr or 0.0)
    row["global_ld_sectors_per_request"] = _ratio(v["global_ld_sectors"], v["global_ld_requests"])
    row["global_st_sectors_per_request"] = _ratio(v["global_st_sectors"], v["global_st_requests"])
    wave = None if v["smem_ld_wavefronts"] is None else v["smem_ld_wavefronts"] + (v["smem_st_wavefronts"] or 0.0)
    ffma_warp = v["ffma_thread_insts"] / 32 if v["ffma_thread_insts"] else None
    row["smem_wavefronts_per_ffma"] = _ratio(wave, ffma_warp)
    row["flops"] = 2.0 * m * n * k
    row["arithmetic_intensity"] = _ratio(row["flops"], row["dram_bytes"])
    row["achieved_gflops"] = _ratio(row["flops"], v["duration_ns"])  # FLOP per ns = GFLOP/s
    return row


def format_value(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        r = round(v)
        if abs(v) >= 1 and abs(v - r) <= 1e-9 * abs(v) and abs(v) < 1e18:
            return str(int(r))  # counts scaled from Msector & co. come back as integers
        return f"{v:.6g}"
    return str(v)


def write_csv(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([format_value(r.get(c)) for c in COLUMNS])


def format_summary(rows: list[dict]) -> str:
    head = ["rung", "kernel", "ms", "GFLOP/s", "FLOP/B", "ld sec/req", "bank confl", "occup %",
            "issue %", "stall lsb", "stall mio", "stall bar"]
    out = []
    for r in rows:
        ms = r["duration_ns"] / 1e6 if r["duration_ns"] else None
        conflicts = None
        if r["smem_ld_bank_conflicts"] is not None or r["smem_st_bank_conflicts"] is not None:
            conflicts = (r["smem_ld_bank_conflicts"] or 0) + (r["smem_st_bank_conflicts"] or 0)
        out.append([str(r["rung"]), r["kernel"][:40], common.fmt_si(ms), common.fmt_si(r["achieved_gflops"]),
                    common.fmt_si(r["arithmetic_intensity"]), common.fmt_si(r["global_ld_sectors_per_request"]),
                    common.fmt_si(conflicts), common.fmt_si(r["achieved_occupancy_pct"]),
                    common.fmt_si(r["issue_active_pct"]), common.fmt_si(r["stall_long_scoreboard"]),
                    common.fmt_si(r["stall_mio_throttle"]), common.fmt_si(r["stall_barrier"])])
    widths = [max(len(x) for x in col) for col in zip(head, *out)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i < 2 else c.rjust(w)  # noqa: E731
                                  for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([fmt(head)] + [fmt(r) for r in out])


# ----------------------------------------------------------------------------------------------
# Running sgemm_bench and ncu


def list_rungs(bench: Path) -> dict[int, str]:
    """Rung id -> slug, from `sgemm_bench --list` (needs no GPU)."""
    common.require_file(bench, "sgemm_bench", common.BUILD_HINT)
    try:
        proc = subprocess.run([str(bench), "--list"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        raise ToolError(f"could not run {bench} --list: {e}") from e
    if proc.returncode != 0:
        raise ToolError(f"{bench} --list failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return parse_list(proc.stdout)


def parse_list(text: str) -> dict[int, str]:
    rungs = {}
    for line in text.splitlines():
        m = re.match(r"^(\d+)\s+(\S+)", line)
        if m:
            rungs[int(m.group(1))] = m.group(2)
    if not rungs:
        raise ToolError("sgemm_bench --list printed no rungs")
    return rungs


def find_ncu() -> Path | None:
    extra = ["/usr/local/cuda/bin"] + sorted(glob.glob("/opt/nvidia/nsight-compute/*"), reverse=True)
    return common.find_executable("ncu", "NCU", extra)


def kernel_filter(rung: int) -> str:
    return f"regex:{CUBLAS_FILTER}" if rung == 0 else f"regex:sgemm_{rung:02d}_"


def ncu_command(ncu: Path | str, bench: Path | str, rung: int, size: int, metrics: list[str],
                launch_skip: int | None = None, launch_count: int | None = None) -> list[str]:
    """The ncu command line that profiles rung `rung` at size^3 (see the module docstring)."""
    skip = launch_skip if launch_skip is not None else (0 if rung == 0 else 1)
    count = launch_count if launch_count is not None else (4 if rung == 0 else 1)
    return [str(ncu), "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "function",
            "--clock-control", "none", "--target-processes", "all",
            "--kernel-name-base", "function", "--kernel-name", kernel_filter(rung),
            "--launch-skip", str(skip), "--launch-count", str(count),
            "--metrics", ",".join(metrics),
            str(bench), "--kernel", str(rung), "--size", str(size), "--repeat", "1", "--warmup", "0",
            "--no-check", "--min-time", "0.01"]


def unknown_metrics(output: str, metrics: list[str]) -> list[str]:
    """Requested metrics that ncu's error lines complain about."""
    errors = "\n".join(ln for ln in output.splitlines() if "error" in ln.lower())
    return [m for m in metrics if m in errors]


def profile_rung(ncu: Path, bench: Path, rung: int, size: int, args) -> tuple[list[dict], str]:
    """Run ncu for one rung; returns (launches of that rung, ncu's stdout)."""
    metrics = [m for _, m, _ in METRICS]
    for _attempt in range(3):
        cmd = ncu_command(ncu, bench, rung, size, metrics, args.launch_skip, args.launch_count)
        print(f"{PROG}: rung {rung}: {' '.join(cmd)}", file=sys.stderr)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired as e:
            raise ToolError(f"ncu on rung {rung} ran past {args.timeout} s") from e
        except OSError as e:
            raise ToolError(f"could not run {ncu}: {e}") from e
        output = proc.stdout + "\n" + proc.stderr
        launches = [ln for ln in parse_ncu_raw_csv(proc.stdout) if rung_of_kernel(ln["kernel"]) == rung]
        if launches:
            return launches, proc.stdout
        bad = unknown_metrics(output, metrics)
        if bad and len(bad) < len(metrics):
            print(f"{PROG}: this ncu does not collect {', '.join(bad)}; retrying without", file=sys.stderr)
            metrics = [m for m in metrics if m not in bad]
            continue
        tail = "\n".join(output.strip().splitlines()[-15:])
        hint = f"\n{PERM_HINT}" if "ERR_NVGPUCTRPERM" in output else ""
        raise ToolError(f"ncu profiled no launch of rung {rung} (exit {proc.returncode}):\n{tail}{hint}")
    raise ToolError(f"ncu kept rejecting metrics for rung {rung}")


# ----------------------------------------------------------------------------------------------
# Command line


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="ncu_profile.py", description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 ok, 1 tool failure (ncu or sgemm_bench missing or failing), 2 usage error.\n"
               "Columns of the CSV: " + ", ".join(COLUMNS),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--kernel", type=int, metavar="N", help="profile rung N (0 = cuBLAS)")
    what.add_argument("--all", action="store_true", help="profile every rung that `sgemm_bench --list` lists")
    what.add_argument("--from-ncu-csv", type=Path, metavar="FILE",
                      help="convert saved `ncu --csv --page raw` output instead of running ncu")
    p.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    p.add_argument("--bench", type=Path, default=common.DEFAULT_BENCH,
                   help="sgemm_bench to run (default: build/release/bench/sgemm_bench)")
    p.add_argument("--csv", type=Path, metavar="OUT", help="write the rows to this CSV file")
    p.add_argument("--raw-dir", type=Path, metavar="DIR", help="also keep ncu's own CSV output, one file per rung")
    p.add_argument("--launch-skip", type=int, help="override ncu --launch-skip (default: 1, rung 0: 0)")
    p.add_argument("--launch-count", type=int, help="override ncu --launch-count (default: 1, rung 0: 4)")
    p.add_argument("--timeout", type=float, default=900, help="seconds allowed per ncu run (default 900)")
    p.add_argument("--dry-run", action="store_true", help="print the ncu command(s) and exit")
    args = p.parse_args(argv)
    if args.size <= 0:
        p.error("--size must be > 0")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    m = n = k = args.size
    rows = []
    if args.from_ncu_csv:
        if not args.from_ncu_csv.is_file():
            raise UsageError(f"--from-ncu-csv {args.from_ncu_csv}: no such file")
        by_rung: dict[int, list[dict]] = {}
        for ln in parse_ncu_raw_csv(args.from_ncu_csv.read_text(errors="replace")):
            r = rung_of_kernel(ln["kernel"])
            if r is not None:
                by_rung.setdefault(r, []).append(ln)
        if not by_rung:
            raise ToolError(f"{args.from_ncu_csv}: no ladder or cuBLAS GEMM launches in it")
        for r in sorted(by_rung):
            launch = pick_launch(by_rung[r])
            slug = common.slug_of_name(launch["kernel"]) or ("00_cublas" if r == 0 else "")
            rows.append(make_row(r, slug, m, n, k, launch))
    else:
        if args.dry_run:
            rungs = {args.kernel: ""} if args.kernel is not None else list_rungs(args.bench)
            for r in sorted(rungs):
                print(" ".join(ncu_command("ncu", args.bench, r, args.size, [x for _, x, _ in METRICS],
                                           args.launch_skip, args.launch_count)))
            return common.EXIT_OK
        ncu = find_ncu()
        if ncu is None:
            raise ToolError(f"ncu (Nsight Compute) not found: {NCU_HINT}")
        rungs = list_rungs(args.bench)
        if args.kernel is not None:
            if args.kernel not in rungs:
                raise UsageError(f"unknown rung {args.kernel}; rungs: {', '.join(map(str, sorted(rungs)))}")
            rungs = {args.kernel: rungs[args.kernel]}
        for r, slug in sorted(rungs.items()):
            launches, raw = profile_rung(ncu, args.bench, r, args.size, args)
            if args.raw_dir:
                args.raw_dir.mkdir(parents=True, exist_ok=True)
                (args.raw_dir / f"rung{r:02d}_ncu_raw.csv").write_text(raw)
            rows.append(make_row(r, slug, m, n, k, pick_launch(launches)))
    print(format_summary(rows))
    if args.csv:
        write_csv(rows, args.csv)
        print(f"wrote {args.csv}", file=sys.stderr)
    return common.EXIT_OK


if __name__ == "__main__":
    sys.exit(common.run_main(PROG, main))
