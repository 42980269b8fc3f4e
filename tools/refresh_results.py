#!/usr/bin/env python3
"""Measure again only the stale rows of a committed results file, and merge them into it.

A figure is stale when the code it measured changed after the commit that measured it
(tools/fingerprint.py). A full sweep does not fit one GPU call; the stale rungs of a file usually
do. For an sgemm_bench file (`<gpu>.json`, `<gpu>_layouts.json`, `<gpu>_unaligned.json`,
`<gpu>_workloads.json`, `<gpu>_tensor.json`) this tool

  1. finds the stale rungs (against the current sources: no build needed), or takes them from --rungs;
  2. prints the sgemm_bench command that measures them again: the file's recorded "command" (its
     shapes and options as they were) with only those rungs in --kernel (cuBLAS is measured beside
     every row in the same process by sgemm_bench itself, so it needs no row of its own);
  3. with --run, runs it (on the GPU machine, in a built tree: build/release/bench/sgemm_bench) and
     merges the new rows into the file; with --from JSON, merges the rows of a run made otherwise.

Merging replaces every row of the refreshed rungs (timing rows, accuracy rows, failed rows) in
place, and gives each new row the commit that measured it (sgemm_ladder_git, sgemm_ladder_commit,
sgemm_ladder_clean, sgemm_ladder_commit_from from the new run's context): a merged file holds rows
of several commits, and the file's context keeps the first run's. The file's "merged" list records
each merge (commit, rungs, command, date, driver, GPU). The new run must be on a GPU of the same
name as the file's. Fingerprints for the new commit are recorded afterwards, where the library is
built from that commit: `python3 tools/fingerprint.py stamp FILE`.

Time: the rows of the refreshed rungs only. h100.json's command (13 shapes at --min-time 0.1 with
9 rounds, hot graphs, and an accuracy sweep of 7 K values and 5 inputs) takes about half a minute
per rung (tools/refresh_results.py prints its estimate from the rows' own timings); rungs 16 and 17
of h100.json fit a GPU call of a few minutes, the build included.

    python3 tools/refresh_results.py bench/results/h100.json                  stale rungs and the command
    python3 tools/refresh_results.py bench/results/h100.json --rungs 16,17 --run   measure them, merge
    python3 tools/refresh_results.py bench/results/h100.json --from new.json  merge a run made otherwise
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fingerprint  # noqa: E402
import sgemm_tools_common as common  # noqa: E402

PROG = "refresh_results"
ROW_PROVENANCE = ("sgemm_ladder_git", "sgemm_ladder_commit", "sgemm_ladder_clean", "sgemm_ladder_commit_from")
MERGE_CONTEXT = ("date", "driver_version", "cuda_runtime", "cublas_version", "gpu_name", "host_name")
# Options of the recorded command that name an output (left out: the tool chooses its own).
OUTPUT_OPTIONS = {"--json", "--csv", "--out"}


class RefreshError(Exception):
    pass


def read(path: Path) -> dict:
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not (isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list) and isinstance(doc.get("context"), dict)):
        raise RefreshError(f"{path}: not sgemm_bench --json output (no context and benchmarks)")
    return doc


def rung_list(text: str) -> list[int]:
    try:
        out = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError as e:
        raise RefreshError(f"--rungs {text!r}: a comma-separated list of rung ids") from e
    if not out:
        raise RefreshError("--rungs: no rung given")
    return out


def command_for(doc: dict, rungs: list[int], bench: str) -> list[str]:
    """The file's recorded sgemm_bench command with only `rungs` in --kernel, run by `bench`, without
    its output options."""
    recorded = doc["context"].get("command")
    if not recorded:
        raise RefreshError("the file records no command (context 'command'): measure it again in full")
    words = shlex.split(recorded)
    if not words or Path(words[0]).name != "sgemm_bench":
        raise RefreshError(f"the file was written by `{words[0] if words else '?'}`, not sgemm_bench: run that again "
                           f"(its command: {recorded})")
    out, i, kernel = [bench], 1, False
    while i < len(words):
        w = words[i]
        name, eq, value = w.partition("=")
        if name in ("--kernel", "-k"):
            kernel = True
            out += ["--kernel", ",".join(map(str, rungs))]
            i += 1 if eq else 2
            continue
        if name in OUTPUT_OPTIONS:
            i += 1 if eq else 2
            continue
        out.append(w)
        i += 1
    if not kernel:
        out += ["--kernel", ",".join(map(str, rungs))]
    return out


def estimate_seconds(doc: dict, rungs: list[int]) -> float:
    """The timed launches of the rungs' rows as the file measured them (the rung's and cuBLAS's,
    cold and hot), times two for warm-up, verification and setup: a rough floor of the run's time."""
    total = 0.0
    for row in doc["benchmarks"]:
        if fingerprint.row_rung(row) not in rungs:
            continue
        samples = float(row.get("samples") or 0)
        ms = float(row.get("ms") or 0) + float(row.get("cublas_ms") or 0)
        hot_ms = float(row.get("ms_hot") or 0) + float(row.get("cublas_ms_hot") or 0)
        hot = float(row.get("hot_launches") or 0) * hot_ms
        total += (samples * ms + hot * float(row.get("rounds") or 1)) / 1e3 + 0.2  # 0.2 s per row: inputs, checks
    return 2.0 * total


def kind(row: dict) -> str:
    return "accuracy" if str(row.get("name", "")).startswith("accuracy/") else "timing"


def merge(doc: dict, new: dict, rungs: list[int]) -> dict:
    """`doc` with every row of `rungs` replaced by `new`'s rows of those rungs, each new row stamped
    with the commit of `new`'s run (see the module docstring)."""
    old_gpu, new_gpu = doc["context"].get("gpu_name"), new["context"].get("gpu_name")
    if old_gpu and new_gpu and old_gpu != new_gpu:
        raise RefreshError(f"the new run is on {new_gpu}, the file's on {old_gpu}: not merged")
    ctx = new["context"]
    stamp = {k: str(ctx.get(k, "unknown")) for k in ROW_PROVENANCE}
    fresh: dict[tuple[int, str], list[dict]] = {}
    for row in new["benchmarks"]:
        rung = fingerprint.row_rung(row)
        if rung in rungs:
            fresh.setdefault((rung, kind(row)), []).append({**row, **stamp})
    missing = sorted(set(rungs) - {r for r, _ in fresh})
    if missing:
        raise RefreshError(f"the new run has no rows of rung(s) {', '.join(map(str, missing))}: not merged")
    rows, placed = [], set()
    for row in doc["benchmarks"]:
        key = (fingerprint.row_rung(row), kind(row))
        if key[0] not in rungs:
            rows.append(row)
        elif key not in placed and key in fresh:
            rows += fresh[key]
            placed.add(key)
    for key, new_rows in fresh.items():  # a kind of row the file did not hold for the rung
        if key not in placed:
            rows += new_rows
    out = dict(doc)
    out["benchmarks"] = rows
    out["merged"] = list(doc.get("merged", [])) + [{
        "commit": stamp["sgemm_ladder_git"], "clean": stamp["sgemm_ladder_clean"], "rungs": rungs,
        "command": ctx.get("command", ""), **{k: ctx[k] for k in MERGE_CONTEXT if k in ctx},
        "merged_by": "tools/refresh_results.py"}]
    return out


def stale_rungs(path: Path) -> tuple[list[int], dict]:
    stale = fingerprint.stale(path, fingerprint.Sources.of(fingerprint.REPO))
    return sorted(stale), stale


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="refresh_results.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", type=Path, help="a committed sgemm_bench results file (bench/results/h100.json)")
    ap.add_argument("--rungs", help="measure these rungs (comma-separated ids) instead of the stale ones")
    ap.add_argument("--run", action="store_true", help="run the command and merge its rows into FILE")
    ap.add_argument("--from", dest="from_json", type=Path, metavar="JSON",
                    help="merge the rows of this sgemm_bench --json output instead of running")
    ap.add_argument("--bench", default=str(common.DEFAULT_BENCH),
                    help="sgemm_bench (default: build/release/bench/sgemm_bench)")
    ap.add_argument("--keep", type=Path, metavar="JSON", help="also keep the new run's own output here")
    args = ap.parse_args(argv)
    try:
        doc = read(args.file)
        if args.rungs:
            rungs, why = rung_list(args.rungs), {}
        else:
            try:
                rungs, why = stale_rungs(args.file)
            except fingerprint.FingerprintError as e:
                raise RefreshError(f"cannot tell the stale rungs here ({e}): pass --rungs") from e
            for s in sorted(why.values(), key=lambda s: s.rung):
                print(f"{PROG}: rung {s.rung} (measured at {s.commit}): {s.why}")
        if not rungs:
            print(f"{PROG}: {args.file}: nothing stale")
            return 0
        bench = args.bench
        command = command_for(doc, rungs, bench)
        print(f"{PROG}: {len(rungs)} rung(s) to measure again: {','.join(map(str, rungs))}; expect at least "
              f"{estimate_seconds(doc, rungs):.0f} s (the rows' timed launches as the file measured them, doubled)")
        print(shlex.join([common.repo_path(bench)] + command[1:] + ["--json", "OUT.json"]))
        if not args.run and args.from_json is None:
            print(f"{PROG}: on the GPU machine: python3 tools/refresh_results.py {args.file} --rungs "
                  f"{','.join(map(str, rungs))} --run")
            return 0
        if args.from_json is not None:
            new = read(args.from_json)
        else:
            if not Path(bench).is_file():
                raise RefreshError(f"no sgemm_bench at {bench} ({common.BUILD_HINT})")
            with tempfile.TemporaryDirectory(prefix="refresh_") as tmp:
                out = Path(tmp) / "new.json"
                print(f"{PROG}: running ...", flush=True)
                t0 = datetime.datetime.now()
                rc = subprocess.run(command + ["--json", str(out)]).returncode
                took = (datetime.datetime.now() - t0).total_seconds()
                if not out.is_file():
                    raise RefreshError(f"sgemm_bench wrote no results (exit {rc}); nothing merged")
                if rc != 0:
                    print(f"{PROG}: sgemm_bench exited {rc}; its rows (failed ones included) are merged as they are",
                          file=sys.stderr)
                print(f"{PROG}: measured in {took:.0f} s")
                new = read(out)
                if args.keep:
                    args.keep.write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
        merged = merge(doc, new, rungs)
        args.file.write_text(json.dumps(merged, indent=1) + "\n", encoding="utf-8")
        commit, clean = new["context"].get("sgemm_ladder_git", "unknown"), new["context"].get("sgemm_ladder_clean", "unknown")
        print(f"{PROG}: merged rung(s) {','.join(map(str, rungs))} into {args.file}, measured at {commit} (clean: {clean}); "
              f"record their fingerprints where that commit is built: python3 tools/fingerprint.py stamp {args.file}")
        if clean != "true":
            print(f"{PROG}: warning: the tree was not known clean ({clean}): these rows stay stale", file=sys.stderr)
        return 0
    except (RefreshError, fingerprint.FingerprintError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
