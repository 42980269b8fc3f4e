#!/usr/bin/env python3
"""The Ozaki rungs' accuracy against their speed, over the number of moduli and the inputs' range.

For each input (uniform, then the wide inputs u * 2^e, e an integer in [-E, E]) and each number of
moduli (the rung's own plan, then every forced count of --moduli), it runs sgemm_bench once: the
rung at one size with cuBLAS SGEMM, the same method on cuBLAS's INT8 GEMM and, given a build with
GEMMul8 (-DSGEMM_GEMMUL8_SOURCE), GEMMul8 with the same number of moduli (7 beside the plan), all
interleaved on the same inputs and verified against FP64. Every run also times cuBLAS's own row (its
noise floor; sgemm_bench always does), named after the input alone: the reader takes a file's rows of
one name as passes of one row, and the page reads cuBLAS's error from them. The runs' rows are merged
into one results file, each row named after its input and count:

    rung31_ordered_units/8192x8192x8192/wide12/moduli5     (forced: sgemm_bench --moduli 5)
    rung31_ordered_units/8192x8192x8192/wide12/plan        (the rung's plan, or its refusal)
    rung00_cublas/8192x8192x8192/wide12

with a top-level "input" on every row; the context is the first run's, with "moduli_sweep" (what
was swept) and "command" (this tool's command line). tools/docs.py turns the file into a table on
the rung's page. A plan that refuses the inputs (too wide for eight moduli to keep FP32's accuracy)
leaves a row with its error message: that is a result, not a failure. Any other failed row, or a
failed verification, makes the tool exit 1 once every run is done.

    python3 tools/moduli_sweep.py --json bench/results/h100_moduli.json
    python3 tools/moduli_sweep.py --kernel 31 --size 4096 --moduli 4,6,8 --exponents 8 --json /tmp/m.json
    python3 tools/moduli_sweep.py --dry-run     # print the sgemm_bench commands only

Standard library only.
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sgemm_tools_common as common  # noqa: E402
from sgemm_tools_common import ToolError, UsageError  # noqa: E402

PLAN = 0                   # --moduli 0: each call's own plan
PLAN_PEER_MODULI = 7       # GEMMul8 beside the plan: the count its authors use for FP32
DEFAULT_MODULI = "4,5,6,7,8"
DEFAULT_EXPONENTS = "4,12,20"  # at K = 8192: the plan takes 8 moduli for the first two, refuses the last


def parse_list(text: str, lo: int, hi: int, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what}: {text!r} is not a comma-separated list of integers") from None
    if not values or any(not lo <= v <= hi for v in values):
        raise UsageError(f"{what}: every value must be in {lo}..{hi} (got {text!r})")
    return values


def inputs(exponents: list[int]) -> list[tuple[str, list[str]]]:
    """(label, sgemm_bench's options) of each input: uniform first, then wide by increasing E."""
    return [("uniform", ["--input", "uniform"])] + [
        (f"wide{e}", ["--input", "wide", "--wide-exponent", str(e)]) for e in sorted(set(exponents))]


def bench_command(bench: Path, args, input_options: list[str], moduli: int, out: Path) -> list[str]:
    cmd = [str(bench), "--kernel", str(args.kernel), "--sizes", str(args.size), "--moduli", str(moduli),
           *input_options, "--min-time", str(args.min_time), "--rounds", str(args.rounds), "--no-hot",
           "--json", str(out)]
    if args.gemmul8:
        cmd += ["--gemmul8", str(moduli if moduli != PLAN else PLAN_PEER_MODULI)]
        if args.gemmul8_mode != "fast":
            cmd += ["--gemmul8-mode", args.gemmul8_mode]
    return cmd


_SHAPE_PART = re.compile(r"^(rung\d+_\w+?/\d+x\d+x\d+)(/.*)?$")


def renamed(name: str, label: str, moduli: int | None) -> str:
    """The row's name with its input and count after the shape (Google Benchmark's suffix kept)."""
    m = _SHAPE_PART.match(name)
    if not m:
        raise ToolError(f"unexpected row name {name!r} (expected rungNN_slug/MxNxK...)")
    tag = f"/{label}" + ("" if moduli is None else "/plan" if moduli == PLAN else f"/moduli{moduli}")
    return m[1] + tag + (m[2] or "")


def merge(runs: list[tuple[str, int, dict]], description: str, command: str) -> dict:
    """One results document from the runs' documents: (input label, moduli, document) each."""
    if not runs:
        raise ToolError("no runs to merge")
    context = dict(runs[0][2].get("context", {}))
    context.pop("ozaki_moduli", None)  # per row here (the ozaki_moduli counter), not per file
    context["input"] = "per row (the row's \"input\")"
    context["moduli_sweep"] = description
    context["command"] = command
    rows = []
    for label, moduli, doc in runs:
        for row in doc.get("benchmarks", []):
            row = dict(row)
            ozaki = not str(row.get("name", "")).startswith("rung00_")  # cuBLAS's own row has no count
            for key in ("name", "run_name"):
                if key in row:
                    row[key] = renamed(str(row[key]), label, moduli if ozaki else None)
            row["input"] = label
            rows.append(row)
    return {"context": context, "benchmarks": rows}


def failed_rows(doc: dict) -> list[str]:
    """Rows that failed for another reason than a rung refusing its inputs' range."""
    out = []
    for row in doc.get("benchmarks", []):
        if row.get("error_occurred") and "largest magnitude too far above" not in str(row.get("error_message", "")):
            out.append(f"{row.get('name')}: {row.get('error_message')}")
        elif row.get("verified") == 0 and row.get("checked", 1):
            out.append(f"{row.get('name')}: not verified against FP64")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="moduli_sweep.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", type=int, default=31, help="the Ozaki rung (default 31: instances for 4-8 moduli)")
    ap.add_argument("--size", type=int, default=8192, help="M = N = K (default 8192)")
    ap.add_argument("--moduli", default=DEFAULT_MODULI, help=f"forced counts, 1-8 (default {DEFAULT_MODULI})")
    ap.add_argument("--exponents", default=DEFAULT_EXPONENTS,
                    help=f"E of the wide inputs besides uniform ones (default {DEFAULT_EXPONENTS})")
    ap.add_argument("--gemmul8", action=argparse.BooleanOptionalAction, default=True,
                    help="time GEMMul8 beside the rung (needs a sgemm_bench built with it; default on)")
    ap.add_argument("--gemmul8-mode", choices=["fast", "accurate"], default="fast",
                    help="GEMMul8's mode (sgemm_bench --gemmul8-mode; default fast)")
    ap.add_argument("--min-time", type=float, default=0.05, help="sgemm_bench --min-time (default 0.05)")
    ap.add_argument("--rounds", type=int, default=7, help="sgemm_bench --rounds (default 7)")
    ap.add_argument("--bench", type=Path, default=common.DEFAULT_BENCH, help="the sgemm_bench to run")
    ap.add_argument("--json", type=Path, help="the merged results file")
    ap.add_argument("--dry-run", action="store_true", help="print the sgemm_bench commands and stop")
    args = ap.parse_args(argv)
    counts = [PLAN] + parse_list(args.moduli, 1, 8, "--moduli")
    exponents = parse_list(args.exponents, 0, 60, "--exponents") if args.exponents else []
    if not args.dry_run and not args.json:
        raise UsageError("--json FILE is required (or --dry-run)")
    if not args.dry_run:
        common.require_file(args.bench, "sgemm_bench", common.BUILD_HINT)
    runs, problems = [], []
    with tempfile.TemporaryDirectory(prefix="moduli_sweep_") as tmp:
        for label, options in inputs(exponents):
            for moduli in counts:
                out = Path(tmp) / f"{label}_{moduli}.json"
                cmd = bench_command(args.bench, args, options, moduli, out)
                print("$ " + shlex.join(cmd), flush=True)
                if args.dry_run:
                    continue
                done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                print(done.stdout, end="", flush=True)
                if not out.is_file():
                    raise ToolError(f"sgemm_bench wrote no results (exit code {done.returncode})")
                doc = json.loads(out.read_text(encoding="utf-8"))
                problems += failed_rows(doc)
                runs.append((label, moduli, doc))
    if args.dry_run:
        return common.EXIT_OK
    description = (f"rung {args.kernel} at {args.size}^3: the plan, then {args.moduli} moduli forced (--moduli), "
                   f"on uniform inputs and wide ones with E = {args.exponents or 'none'}; "
                   + ("GEMMul8 with the same number of moduli (7 beside the plan)" if args.gemmul8 else "no GEMMul8"))
    command = "tools/moduli_sweep.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(merge(runs, description, command), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.json} ({sum(len(d.get('benchmarks', [])) for _, _, d in runs)} rows)")
    for p in problems:
        print(f"moduli_sweep.py: failed: {p}", file=sys.stderr)
    return common.EXIT_FAILURE if problems else common.EXIT_OK


if __name__ == "__main__":
    sys.exit(common.run_main("moduli_sweep.py", main))
