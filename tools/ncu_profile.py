#!/usr/bin/env python3
"""Nsight Compute recipe: profile one launch of a rung with the metrics the ladder's lessons use.

For each rung it runs ncu once on sgemm_bench (one launch of the kernel that carries the rung's
lesson, at --size, clocks left alone with --clock-control none), reads ncu's CSV and writes one
row per rung to our CSV: duration, SM clock, DRAM bytes, global sectors per request,
shared-memory bank conflicts and wavefronts, achieved occupancy, issue-slot use, FFMA and
instruction counts, warp stall reasons, and derived FLOPs, arithmetic intensity and GFLOP/s.
Needs pandas (the rest of the tools need only Python's standard library).

Examples:
    python3 tools/ncu_profile.py --kernel 7 --csv /tmp/rung07.csv
    python3 tools/ncu_profile.py --all --size 4096 --csv bench/results/h200_ncu.csv
    python3 tools/ncu_profile.py --kernel 7 --dry-run          # print the ncu command only
    python3 tools/ncu_profile.py --from-ncu-csv saved.csv --size 4096 --csv out.csv

The rungs and their kernels come from the registry (`sgemm_ladder.rungs()`). The ncu command for
rung N with a kernel of ours is
    ncu --csv --page raw --print-units base --print-kernel-base function --clock-control none
        --target-processes all --kernel-name-base function --kernel-name regex:^<KERNEL>$
        --launch-skip 1 --launch-count 1 --metrics <METRICS>
        sgemm_bench --kernel N --size S --repeat 1 --warmup 0 --no-check --min-time 0.01
where <KERNEL> is the function name in the registry's `kernel` text ("sgemm_12_stream_k" of
"sgemm_12_stream_k<true", whole: not sgemm_12_stream_k_shares; at S^3 the aligned instance is the
one that runs). --launch-skip 1 skips sgemm_bench's 8x8x8 preflight
launch; the launch profiled is the (warm-up) launch at size S, the same work as a timed one. The
cuBLAS rung (no kernel of ours) is filtered with regex:gemm|xmma|cutlass on bare function names,
the first 4 matching launches are profiled and the longest is kept (cuBLAS may pick another
kernel for the 8x8x8 preflight). With --all, a rung whose kernel does not run at size S (a
dispatch rung that runs another rung's kernel there) is left out with a warning. --from-ncu-csv converts a saved
`ncu --csv --page raw` output instead (launches go to rungs by kernel name; the longest launch of
each rung is kept).

ncu's CSV is read with pandas rather than through Nsight Compute's own Python module
(ncu_report): the CSV needs nothing from the Nsight Compute installation, can be saved and
converted later (--from-ncu-csv), and is what the tests feed in without a GPU.

Warp stalls use the `smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio` family:
warps stalled for that reason per cycle with an issue, the breakdown of ncu's Warp State
Statistics section (the reasons add up to about the warp cycles per issued instruction).
A metric ncu reports as n/a is left empty; a metric this ncu does not know is dropped (with a
warning) and the run retried. The METRICS table below is the one place to edit the list.

ncu is looked for in $NCU, PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*/.
"""
from __future__ import annotations

import argparse
import glob
import io
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sgemm_tools_common as common  # noqa: E402
from sgemm_tools_common import ToolError, UsageError  # noqa: E402

try:
    import pandas as pd
except ImportError:  # main() says so in one line
    pd = None

PROG = "ncu_profile"

STALL_REASONS = ["long_scoreboard", "short_scoreboard", "mio_throttle", "lg_throttle", "barrier",
                 "math_pipe_throttle", "not_selected", "selected", "wait", "dispatch_stall", "no_instruction"]

# (our column, ncu metric, kind). Kinds: time -> ns, clock -> MHz, bytes -> bytes, count, pct, ratio.
METRICS: list[tuple[str, str, str]] = [
    ("duration_ns", "gpu__time_duration.sum", "time"),
    ("sm_clock_mhz", "sm__cycles_elapsed.avg.per_second", "clock"),
    ("dram_bytes_read", "dram__bytes_read.sum", "bytes"),
    ("dram_bytes_write", "dram__bytes_write.sum", "bytes"),
    # Where the loads were served: L2's hit rate, and how busy L2 and DRAM were over the kernel.
    ("l2_hit_rate_pct", "lts__t_sector_hit_rate.pct", "pct"),
    ("l2_throughput_pct", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed", "pct"),
    ("dram_throughput_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "pct"),
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
    # Tensor-core rungs: mma.sync runs on the HMMA pipe; the whole tensor pipe counts wgmma too
    # (ncu 2025 on sm_90 offers no GMMA-only cycles metric: sm__pipe_tensor_op_gmma_cycles_active
    # read n/a).
    ("tensor_hmma_active_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "pct"),
    ("tensor_pipe_active_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "pct"),
    ("inst_executed", "smsp__inst_executed.sum", "count"),
    ("registers_per_thread", "launch__registers_per_thread", "count"),
] + [(f"stall_{r}", f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio", "ratio")
     for r in STALL_REASONS]

DERIVED = ["dram_bytes", "global_ld_sectors_per_request", "global_st_sectors_per_request",
           "smem_wavefronts_per_ffma", "flops", "arithmetic_intensity", "achieved_gflops"]
ID_COLUMNS = ["rung", "slug", "M", "N", "K", "kernel", "block_size", "grid_size"]
# The code measured, per row: the commit of sgemm_bench's source tree and whether it was clean
# (sgemm_tools_common.provenance; "unknown" for --from-ncu-csv). tools/fingerprint.py stamp adds a
# "fingerprint" column.
PROVENANCE = ["sgemm_ladder_git", "sgemm_ladder_clean"]
COLUMNS = ID_COLUMNS + [c for c, _, _ in METRICS] + DERIVED + PROVENANCE

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


def unit_scale(unit: str, kind: str) -> float:
    """The factor that turns a value in ncu's `unit` into ours for `kind` (ns, MHz, bytes, plain
    numbers). With --print-units base ncu does not scale units, but saved outputs may be; written
    by hand because the units are ncu's own text ("Mbyte", "cycle/nsecond"), which no unit library
    knows."""
    unit = (unit or "").strip()
    if kind == "time":
        if unit in _TIME_NS:
            return _TIME_NS[unit]
        raise ToolError(f"unexpected time unit '{unit}'")
    if kind == "clock":
        m = re.fullmatch(r"(?:([KMGT]?)cycle)/(\w+)", unit)
        if m and m.group(2) in _PER_TIME_HZ:
            return _PREFIX[m.group(1)] * _PER_TIME_HZ[m.group(2)] / 1e6
        m = re.fullmatch(r"([KMGT]?)hz", unit, re.IGNORECASE)
        if m:
            return _PREFIX[m.group(1).upper()] / 1e6
        raise ToolError(f"unexpected clock unit '{unit}'")
    m = re.fullmatch(r"([KMGTP]?)([a-z/_]+)", unit)  # byte, Kbyte, sector, Msector, inst, ...
    if kind not in ("pct", "ratio") and m and m.group(2) != "second":
        return _PREFIX[m.group(1)]
    return 1.0


# ----------------------------------------------------------------------------------------------
# ncu's CSV (--page raw: a header row of metric names, a row of units, one row per launch)

LAUNCH_COLUMNS = {"ID": "id", "Kernel Name": "kernel", "Block Size": "block_size", "Grid Size": "grid_size"}


def read_ncu_csv(text: str) -> pd.DataFrame:
    """The launches in `ncu --csv --page raw` output: one row per launch, columns id, kernel,
    block_size, grid_size and our METRICS columns in our units (NaN where ncu printed n/a or does
    not have the metric). Lines that are not CSV rows (the profiled program's own output, ==PROF==
    lines) are dropped; outputs concatenated one after the other are read one by one."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    starts = [i for i, ln in enumerate(lines) if ln.startswith('"ID",')] + [len(lines)]
    frames = [_launches(pd.read_csv(io.StringIO("\n".join(lines[a:b])), header=[0, 1], dtype=str,
                                    keep_default_na=False))
              for a, b in zip(starts, starts[1:])]
    return pd.concat(frames, ignore_index=True) if frames else _launches(pd.DataFrame())


def _launches(raw: pd.DataFrame) -> pd.DataFrame:
    """One ncu table (columns: (name, unit) pairs) in our columns and units."""
    cell = {name: raw[(name, unit)] for name, unit in raw.columns}
    units = {name: "" if unit.startswith("Unnamed:") else unit for name, unit in raw.columns}  # pandas' name for ""
    empty = pd.Series("", index=raw.index, dtype=str)
    out = pd.DataFrame({ours: cell.get(theirs, empty) for theirs, ours in LAUNCH_COLUMNS.items()})
    for col, metric, kind in METRICS:
        values = pd.to_numeric(cell.get(metric, empty).str.replace(",", ""), errors="coerce")
        out[col] = values * unit_scale(units[metric], kind) if metric in units else values
    return out


def rung_of_kernel(kernel: str, rungs: list) -> int | None:
    """The registry rung a profiled kernel belongs to: the rung whose `kernel` text its name
    shows, the cuBLAS rung (no kernel of ours) for a cuBLAS GEMM kernel, else None (a rung's
    other kernels too, such as sgemm_12_stream_k_shares or the unaligned instance: not the kernel
    of the lesson)."""
    for r in rungs:
        if common.kernel_matches(kernel, r.kernel):
            return r.id
    if any(r.kernel and r.kernel.split("<", 1)[0] in kernel for r in rungs) or "sgemm::" in kernel:
        return None  # one of ours: not cuBLAS
    if re.search(CUBLAS_FILTER, kernel):
        return next((r.id for r in rungs if not r.kernel), None)
    return None


def pick_launch(launches: pd.DataFrame) -> pd.Series:
    """The launch to report among several of one rung: the longest (the full-size one)."""
    return launches.loc[launches["duration_ns"].fillna(0).idxmax()]


def _value(x) -> float | None:
    return None if x is None or pd.isna(x) else float(x)


def _ratio(a, b):
    return a / b if a is not None and b else None


def make_row(rung: int, slug: str, m: int, n: int, k: int, launch) -> dict:
    """One row of our CSV from one launch (a row of read_ncu_csv): ids, the METRICS columns, the
    DERIVED columns; None where a value is missing."""
    v = {col: _value(launch[col]) for col, _, _ in METRICS}
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
    """Our CSV (read back by sgemm_ladder.results.load_ncu): COLUMNS, integers without decimals,
    other numbers to 6 significant digits, empty cells for missing values."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pd.DataFrame([{c: format_value(r.get(c)) for c in COLUMNS} for r in rows], columns=COLUMNS)
    table.to_csv(path, index=False, lineterminator="\n")


def format_summary(rows: list[dict]) -> str:
    head = ["rung", "kernel", "ms", "GFLOP/s", "FLOP/B", "ld sec/req", "bank confl", "occup %",
            "issue %", "stall lsb", "stall mio", "stall bar"]
    out = []
    for r in rows:
        ms = r["duration_ns"] / 1e6 if r["duration_ns"] else None
        conflicts = None
        if r["smem_ld_bank_conflicts"] is not None or r["smem_st_bank_conflicts"] is not None:
            conflicts = (r["smem_ld_bank_conflicts"] or 0) + (r["smem_st_bank_conflicts"] or 0)
        out.append([str(r["rung"]), r["kernel"][:40]] + [common.fmt_si(x) for x in (
            ms, r["achieved_gflops"], r["arithmetic_intensity"], r["global_ld_sectors_per_request"], conflicts,
            r["achieved_occupancy_pct"], r["issue_active_pct"], r["stall_long_scoreboard"],
            r["stall_mio_throttle"], r["stall_barrier"])])
    return common.format_table(head, out, left=2, rule=False)


# ----------------------------------------------------------------------------------------------
# Running sgemm_bench and ncu


def find_ncu() -> Path | None:
    extra = ["/usr/local/cuda/bin"] + sorted(glob.glob("/opt/nvidia/nsight-compute/*"), reverse=True)
    return common.find_executable("ncu", "NCU", extra)


def kernel_filter(rung) -> list[str]:
    """ncu's options that pick a registry rung's launches: the bare function name of its `kernel`
    text, whole ("sgemm_12_stream_k<true" -> ^sgemm_12_stream_k$: not sgemm_12_stream_k_shares, nor
    a pre-pass kernel). The template arguments are left to the size: at size^3 with aligned rows
    only the aligned instance runs. (Matching "<true" in ncu's demangled names profiled nothing: the
    8x8x8 preflight then did not count as a skipped launch, or the names print differently.) For
    the cuBLAS rung, cuBLAS's GEMM kernels among the bare function names (ours are in namespace
    sgemm: "gemm" would match)."""
    if not rung.kernel:
        return ["--kernel-name-base", "function", "--kernel-name", f"regex:{CUBLAS_FILTER}"]
    stem = rung.kernel.split("<", 1)[0]
    return ["--kernel-name-base", "function", "--kernel-name", f"regex:^{re.escape(stem)}$"]


def ncu_command(ncu: Path | str, bench: Path | str, rung, size: int, metrics: list[str],
                launch_skip: int | None = None, launch_count: int | None = None) -> list[str]:
    """The ncu command line that profiles registry rung `rung` at size^3 (see the module docstring)."""
    skip = launch_skip if launch_skip is not None else (1 if rung.kernel else 0)
    count = launch_count if launch_count is not None else (1 if rung.kernel else 4)
    return [str(ncu), "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "function",
            "--clock-control", "none", "--target-processes", "all", *kernel_filter(rung),
            "--launch-skip", str(skip), "--launch-count", str(count),
            "--metrics", ",".join(metrics),
            str(bench), "--kernel", str(rung.id), "--size", str(size), "--repeat", "1", "--warmup", "0",
            "--no-check", "--min-time", "0.01"]


def unknown_metrics(output: str, metrics: list[str]) -> list[str]:
    """Requested metrics that ncu's error lines complain about."""
    errors = "\n".join(ln for ln in output.splitlines() if "error" in ln.lower())
    return [m for m in metrics if m in errors]


class NoLaunch(ToolError):
    """ncu ran but profiled no launch of the rung's kernel."""


def profile_rung(ncu: Path, bench: Path, rung, rungs: list, size: int, args) -> tuple[pd.DataFrame, str]:
    """Run ncu for one registry rung; returns (launches of that rung, ncu's stdout)."""
    metrics = [m for _, m, _ in METRICS]
    for _attempt in range(3):
        cmd = ncu_command(ncu, bench, rung, size, metrics, args.launch_skip, args.launch_count)
        print(f"{PROG}: rung {rung.id}: {' '.join(cmd)}", file=sys.stderr)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired as e:
            raise ToolError(f"ncu on rung {rung.id} ran past {args.timeout} s") from e
        except OSError as e:
            raise ToolError(f"could not run {ncu}: {e}") from e
        output = proc.stdout + "\n" + proc.stderr
        launches = read_ncu_csv(proc.stdout)
        launches = launches[[rung_of_kernel(k, rungs) == rung.id for k in launches["kernel"]]]
        if not launches.empty:
            return launches, proc.stdout
        bad = unknown_metrics(output, metrics)
        if bad and len(bad) < len(metrics):
            print(f"{PROG}: this ncu does not collect {', '.join(bad)}; retrying without", file=sys.stderr)
            metrics = [m for m in metrics if m not in bad]
            continue
        tail = "\n".join(output.strip().splitlines()[-15:])
        hint = f"\n{PERM_HINT}" if "ERR_NVGPUCTRPERM" in output else ""
        raise NoLaunch(f"ncu profiled no launch of rung {rung.id} (exit {proc.returncode}):\n{tail}{hint}")
    raise ToolError(f"ncu kept rejecting metrics for rung {rung.id}")


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
    what.add_argument("--all", action="store_true", help="profile every rung of the registry")
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
    if pd is None:
        raise common.missing_package("pandas")
    rungs = common.registry()
    by_id = {r.id: r for r in rungs}
    if args.kernel is not None and args.kernel not in by_id:
        raise UsageError(f"unknown rung {args.kernel}; rungs: {', '.join(map(str, sorted(by_id)))}")
    chosen = [by_id[args.kernel]] if args.kernel is not None else rungs
    m = n = k = args.size
    rows = []
    made = common.UNKNOWN_PROVENANCE if args.from_ncu_csv else common.provenance(args.bench)
    if args.from_ncu_csv:
        if not args.from_ncu_csv.is_file():
            raise UsageError(f"--from-ncu-csv {args.from_ncu_csv}: no such file")
        launches = read_ncu_csv(args.from_ncu_csv.read_text(errors="replace"))
        launches["rung"] = [rung_of_kernel(name, rungs) for name in launches["kernel"]]
        if launches["rung"].isna().all():
            raise ToolError(f"{args.from_ncu_csv}: no launches of the registry's kernels or of cuBLAS in it")
        for r, group in launches.dropna(subset=["rung"]).groupby("rung"):
            rows.append(make_row(int(r), by_id[int(r)].slug, m, n, k, pick_launch(group)))
    elif args.dry_run:
        for r in chosen:
            print(" ".join(ncu_command("ncu", args.bench, r, args.size, [x for _, x, _ in METRICS],
                                       args.launch_skip, args.launch_count)))
        return common.EXIT_OK
    else:
        ncu = find_ncu()
        if ncu is None:
            raise ToolError(f"ncu (Nsight Compute) not found: {NCU_HINT}")
        common.require_file(args.bench, "sgemm_bench", common.BUILD_HINT)
        for r in chosen:
            try:
                launches, raw = profile_rung(ncu, args.bench, r, rungs, args.size, args)
            except NoLaunch as e:
                if args.kernel is not None or "ERR_NVGPUCTRPERM" in str(e):
                    raise
                print(f"{PROG}: rung {r.id} left out: no launch of `{r.kernel}` at {args.size}^3", file=sys.stderr)
                continue
            if args.raw_dir:
                args.raw_dir.mkdir(parents=True, exist_ok=True)
                (args.raw_dir / f"rung{r.id:02d}_ncu_raw.csv").write_text(raw)
            rows.append(make_row(r.id, r.slug, m, n, k, pick_launch(launches)))
        if not rows:
            raise ToolError(f"ncu profiled no launch of any rung at {args.size}^3")
    for row in rows:
        row.update({key: made[key] for key in PROVENANCE})
    print(format_summary(rows))
    if args.csv:
        write_csv(rows, args.csv)
        print(f"wrote {args.csv}", file=sys.stderr)
    return common.EXIT_OK


if __name__ == "__main__":
    sys.exit(common.run_main(PROG, main))
