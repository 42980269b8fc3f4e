#!/usr/bin/env python3
"""Regenerate the EVIDENCE lines of the rung headers from measured results (never typed by hand).

Every rung header (kernels/NN_slug.cuh) carries `// EVIDENCE: <evidence>...</evidence>`, possibly
over several `//   ` lines. This tool rewrites the text between the tags, and nothing else, from:

  bench/results/h200.json       sgemm_bench --json: GFLOP/s and % of cuBLAS at 4096^3 and 8192^3
  bench/results/h200_sass.json  sass_report.py --all --json: the SASS counts that changed most
                                since rung N-1, FFMA share, registers, spills
  bench/results/h200_ncu.csv    ncu_profile.py --all --csv: the ncu metrics of the rung's lesson
                                that moved most since rung N-1

and ends with the commands that show it. An input that is missing gives "(not yet measured)"
for its part; with none of them the text is just "(not yet measured)".

Examples:
    python3 tools/update_evidence.py            # rewrite the headers in place
    python3 tools/update_evidence.py --check    # exit 1 if any header is out of date (CI)
    python3 tools/update_evidence.py --print --kernel 7
    python3 tools/update_evidence.py --results r.json --sass s.json --ncu n.csv --kernels-dir kernels
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sgemm_tools_common as common  # noqa: E402
from sgemm_tools_common import ToolError, UsageError  # noqa: E402
from sass_report import counterpart  # noqa: E402  (like-for-like kernels of two rungs)

PROG = "update_evidence"
OPEN, CLOSE = "<evidence>", "</evidence>"
NOT_MEASURED = "(not yet measured)"
CONTINUATION = "//   "
NBSP = "\u00a0"  # joins words that must stay on one line while wrapping

# The ncu columns that tell each lesson (keyed by the slug without its number); the ones that
# moved most since the previous rung are quoted. Other rungs use every column of GENERIC.
RELEVANT = {
    "naive": ["global_ld_sectors_per_request", "global_st_sectors_per_request", "dram_bytes", "stall_long_scoreboard"],
    "coalesced": ["global_ld_sectors_per_request", "global_st_sectors_per_request", "dram_bytes",
                  "stall_long_scoreboard"],
    "smem_tiling": ["dram_bytes", "stall_long_scoreboard", "stall_mio_throttle", "stall_barrier",
                    "smem_ld_bank_conflicts"],
    "blocktile_1d": ["smem_wavefronts_per_ffma", "stall_mio_throttle", "issue_active_pct", "dram_bytes"],
    "blocktile_2d": ["smem_wavefronts_per_ffma", "stall_mio_throttle", "issue_active_pct", "dram_bytes"],
    "vectorized": ["smem_ld_bank_conflicts", "smem_st_bank_conflicts", "global_ld_sectors_per_request",
                   "inst_executed"],
    "bank_conflict_free": ["smem_ld_bank_conflicts", "smem_st_bank_conflicts", "stall_mio_throttle",
                           "stall_short_scoreboard"],
    "autotuned": ["achieved_occupancy_pct", "issue_active_pct", "dram_bytes", "stall_long_scoreboard"],
    "warptiling": ["smem_wavefronts_per_ffma", "stall_long_scoreboard", "stall_mio_throttle", "stall_barrier",
                   "issue_active_pct"],
    "double_buffering": ["stall_long_scoreboard", "stall_barrier", "stall_mio_throttle", "issue_active_pct"],
    "mma_tf32": ["tensor_hmma_active_pct", "issue_active_pct", "stall_mio_throttle", "stall_short_scoreboard"],
    "mma_3xtf32": ["tensor_hmma_active_pct", "issue_active_pct", "stall_math_pipe_throttle",
                   "stall_short_scoreboard"],
    "wgmma_3xtf32": ["tensor_gmma_active_pct", "tensor_hmma_active_pct", "issue_active_pct",
                     "stall_long_scoreboard", "stall_barrier"],
    "stream_k": ["occupancy_elapsed_pct", "issue_active_pct", "dram_bytes", "stall_barrier"],
    "ffma_order": ["stall_dispatch_stall", "issue_active_pct", "stall_wait", "stall_no_instruction"],
    "slab_end": ["stall_wait", "issue_active_pct", "stall_no_instruction", "stall_dispatch_stall"],
}
# Columns a rung's evidence always quotes (the metric for that lesson), ranked or not.
ALWAYS = {"warptiling": ["issue_active_pct"], "double_buffering": ["issue_active_pct"],
          "stream_k": ["occupancy_elapsed_pct"], "ffma_order": ["stall_dispatch_stall", "issue_active_pct"],
          "slab_end": ["stall_wait", "issue_active_pct"]}
GENERIC = ["dram_bytes", "global_ld_sectors_per_request", "smem_ld_bank_conflicts", "smem_st_bank_conflicts",
           "smem_wavefronts_per_ffma", "achieved_occupancy_pct", "issue_active_pct", "stall_long_scoreboard",
           "stall_mio_throttle", "stall_barrier", "stall_short_scoreboard", "stall_math_pipe_throttle"]
# Rungs whose lesson shows at other sizes than the default ones: those sizes are quoted first,
# with the previous rung's figure beside each (split K changes nothing where the grid is full).
EXTRA_SIZES = {"split_k": [1024, 1536, 3072], "stream_k": [1024, 1536, 2048, 3072]}
SASS_SKIP = {"NOP", "FFMA.reuse"}
# SASS counts a rung's evidence always quotes (FFMA.reuse is not an instruction: only the lesson
# about it quotes it).
SASS_ALWAYS = {"ffma_order": ["FFMA.reuse"]}
TOP_SASS, TOP_NCU = 4, 3


# ----------------------------------------------------------------------------------------------
# The text


def builds_on(text: str, headers: dict) -> int | None:
    """The rung named by a 'BUILDS ON: NN_slug' header line (a rung copied from one other than
    its predecessor, whose evidence compares with that one), else None."""
    m = re.search(r"^// BUILDS ON: (\d\d)_", text, re.M)
    return int(m.group(1)) if m and int(m.group(1)) in headers else None


def keep(text: str) -> str:
    """Make `text` one unbreakable word for the wrapper."""
    return text.replace(" ", NBSP)


def fmt_metric(col: str, v: float | None) -> str:
    if v is None:
        return "n/a"
    if col.endswith("_pct"):
        return f"{v:.1f}%"
    if col.startswith("stall_"):
        return f"{v:.2f}"
    if "_per_" in col:
        return f"{v:.3g}"
    return common.fmt_si(v)


def perf_sentence(rung: int, results: dict | None, sizes: list[int], extra: list[int] = (),
                  prev: int | None = None) -> str | None:
    if results is None:
        return None
    parts = []
    for n in extra:
        row = common.result_at(results, rung, n, n, n)
        before = common.result_at(results, prev, n, n, n) if prev is not None else None
        if row and before:
            parts.append(f"{n}^3 {before['pct_cublas']:.1f}% -> {row['pct_cublas']:.1f}% of cuBLAS")
    first = True
    for n in sizes:
        row = common.result_at(results, rung, n, n, n)
        if not row:
            continue
        flag = "" if row["verified"] or not row["checked"] else " (FAILED verification)"
        if first:
            parts.append(f"{row['gflops']:,.0f} GFLOP/s = {row['pct_cublas']:.1f}% of cuBLAS at {n}^3{flag}")
            first = False
        else:
            parts.append(f"{row['gflops']:,.0f} GFLOP/s = {row['pct_cublas']:.1f}% at {n}^3{flag}")
    if not parts:
        return f"GFLOP/s: {NOT_MEASURED}."
    gpu = results["context"].get("gpu_name")
    return (f"Measured on {gpu}: " if gpu else "Measured: ") + "; ".join(parts) + "."


def sass_changes(a: dict, b: dict, always: list[str] = ()) -> list[str]:
    """'CATEGORY x -> y' for the categories in `always`, then those that changed most from a to b."""
    first = [keep(f"{c} {a['counts'].get(c, 0)} -> {b['counts'].get(c, 0)}") for c in always]
    scored = []
    for i, c in enumerate(b["counts"]):
        if c in SASS_SKIP or c in always:
            continue
        x, y = a["counts"].get(c, 0), b["counts"].get(c, 0)
        if abs(y - x) < 2 or x == y:
            continue
        score = abs(y - x) / max(x, y)
        if score >= 0.1:
            scored.append((-score, -abs(y - x), i, f"{c} {x} -> {y}"))
    return first + [keep(s[3]) for s in sorted(scored)[:TOP_SASS]]


def sass_sentence(rung: int, prev: int | None, sass: dict | None, slug: str | None = None) -> str | None:
    if sass is None:
        return None
    b = sass["by_rung"].get(rung)
    if b is None:
        return f"SASS: {NOT_MEASURED}."
    a = sass["by_rung"].get(prev) if prev is not None else None
    if a is not None:
        a = counterpart(a, b)
    share = lambda e: f"{100 * e['ffma_share']:.1f}%"  # noqa: E731
    if a is None:
        top = sorted(((n, c) for c, n in b["counts"].items() if n and c not in SASS_SKIP | {"other", "branch"}),
                     key=lambda t: -t[0])[:TOP_SASS]
        mix = ", ".join(keep(f"{c} {n}") for n, c in top)
        spill = f", spills {b['local_bytes']} bytes" if b["local_bytes"] else ""
        return (f"SASS: {b['total']} instructions, {mix}; FFMA share {keep(share(b))}; "
                f"{b['registers']} registers{spill}.")
    parts = []
    changes = sass_changes(a, b, SASS_ALWAYS.get(lesson(slug), []))
    parts.append(", ".join(changes) if changes else "instruction mix unchanged")
    same = share(a) == share(b)
    parts.append(f"FFMA share {keep(share(b) + ' (unchanged)' if same else share(a) + ' -> ' + share(b))}")
    if a["registers"] != b["registers"]:
        parts.append(f"registers {keep(str(a['registers']) + ' -> ' + str(b['registers']))}")
    if a["local_bytes"] or b["local_bytes"]:
        parts.append(f"spill bytes {keep(str(a['local_bytes']) + ' -> ' + str(b['local_bytes']))}")
    if a["shared_bytes"] != b["shared_bytes"]:
        parts.append(f"static smem bytes {keep(str(a['shared_bytes']) + ' -> ' + str(b['shared_bytes']))}")
    return f"SASS vs rung {prev}: " + "; ".join(parts) + "."


def lesson(slug: str | None) -> str:
    """The slug without its rung number ("10_double_buffering" -> "double_buffering"): the key of
    RELEVANT, ALWAYS and EXTRA_SIZES."""
    return re.sub(r"^\d+_", "", slug or "")


def relevant_columns(slug: str) -> list[str]:
    return RELEVANT.get(lesson(slug), GENERIC)


def ncu_sentence(rung: int, slug: str, prev: int | None, ncu: dict | None) -> str | None:
    if ncu is None:
        return None
    b = ncu.get(rung)
    if b is None:
        return f"ncu: {NOT_MEASURED}."
    cols = [c for c in relevant_columns(slug) if b.get(c) is not None]
    a = ncu.get(prev) if prev not in (None, 0) else None  # rung 1 is not compared with cuBLAS
    if a is None:
        shown = ", ".join(keep(f"{c} {fmt_metric(c, b[c])}") for c in cols[:TOP_NCU])
        return f"ncu: {shown or NOT_MEASURED}."
    scored = []
    for i, c in enumerate(cols):
        x, y = a.get(c), b[c]
        if x is None:
            continue
        score = abs(y - x) / max(abs(x), abs(y)) if (x or y) else 0.0
        scored.append((-score, i, keep(f"{c} {fmt_metric(c, x)} -> {fmt_metric(c, y)}")))
    ranked = sorted(scored)
    always = ALWAYS.get(lesson(slug), [])
    picked = ranked[:TOP_NCU] + [s for s in ranked[TOP_NCU:] if cols[s[1]] in always]
    shown = ", ".join(s[2] for s in picked)
    return f"ncu vs rung {prev}: {shown or NOT_MEASURED}."


def tuned_records(path: Path) -> dict[int, str]:
    """Rung -> the autotuner's record line in a tuned header (`//   rung N: ... winner ...`)."""
    if not path.is_file():
        return {}
    records = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^//\s+rung (\d+): (.*winner.*)$", line)
        if m:
            records[int(m.group(1))] = m.group(2).strip()
    return records


def evidence_text(rung: int, slug: str, prev: int | None, results: dict | None, sass: dict | None,
                  ncu: dict | None, sizes: list[int], tuned: str | None = None,
                  tuned_source: str = "kernels/tuned/sm_90.cuh") -> str:
    """The text between the tags for one rung (one paragraph, words joined by NBSP stay together)."""
    if results is None and sass is None and ncu is None:
        return NOT_MEASURED
    extra = EXTRA_SIZES.get(lesson(slug), [])
    sentences = [perf_sentence(rung, results, sizes, extra, prev) or f"GFLOP/s: {NOT_MEASURED}.",
                 sass_sentence(rung, prev, sass, slug) or f"SASS: {NOT_MEASURED}.",
                 ncu_sentence(rung, slug, prev, ncu) or f"ncu: {NOT_MEASURED}."]
    sass_cmd = f"python3 tools/sass_report.py --diff {prev} {rung}" if prev else \
        f"python3 tools/sass_report.py --kernel {rung}"
    if tuned:
        sentences.append(f"Autotuned ({keep(tuned_source)}): {tuned}.")
    sentences.append(f"Shown by: {keep(sass_cmd)}; {keep(f'python3 tools/ncu_profile.py --kernel {rung}')}.")
    return " ".join(sentences)


# ----------------------------------------------------------------------------------------------
# The header


def find_block(text: str) -> tuple[int, int, int, int] | None:
    """(start of the line with <evidence>, index of <evidence>, index after </evidence>, end of
    that line) or None when the file has no evidence tags."""
    i = text.find(OPEN)
    if i < 0:
        return None
    j = text.find(CLOSE, i)
    if j < 0:
        raise ToolError(f"{OPEN} without {CLOSE}")
    line_start = text.rfind("\n", 0, i) + 1
    end = j + len(CLOSE)
    line_end = text.find("\n", end)
    return line_start, i, end, len(text) if line_end < 0 else line_end


def render(prefix: str, body: str, suffix: str, width: int) -> str:
    """The lines from `prefix<evidence>body</evidence>suffix`, wrapped at `width` columns."""
    lines = textwrap.wrap(OPEN + body + CLOSE, width=width, initial_indent=prefix,
                          subsequent_indent=CONTINUATION, break_long_words=False, break_on_hyphens=False)
    lines[-1] += suffix
    return "\n".join(lines).replace(NBSP, " ")


def replace_evidence(text: str, body: str, width: int = 100) -> str:
    """`text` with the evidence block rewritten to hold `body`; unchanged when it has no tags."""
    block = find_block(text)
    if block is None:
        return text
    line_start, i, end, line_end = block
    return text[:line_start] + render(text[line_start:i], body, text[end:line_end], width) + text[line_end:]


# ----------------------------------------------------------------------------------------------
# Command line


def load_inputs(args) -> tuple[dict | None, dict | None, dict | None]:
    def pick(path: Path | None, default: Path, opt: str) -> Path | None:
        if path is None:
            return default if default.is_file() else None
        if not path.is_file():
            raise UsageError(f"{opt} {path}: no such file")
        return path

    results_p = pick(args.results, common.DEFAULT_RESULTS, "--results")
    sass_p = pick(args.sass, common.DEFAULT_SASS_JSON, "--sass")
    ncu_p = pick(args.ncu, common.DEFAULT_NCU_CSV, "--ncu")
    results = common.load_results(results_p) if results_p else None
    sass = common.load_sass_json(sass_p) if sass_p else None
    ncu = {r["rung"]: r for r in common.load_ncu_csv(ncu_p)} if ncu_p else None
    return results, sass, ncu


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="update_evidence.py", description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 ok (or up to date), 1 failure or (--check) a header out of date, 2 usage error.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", type=Path, help="sgemm_bench JSON (default: bench/results/h200.json if present)")
    p.add_argument("--sass", type=Path, help="sass_report JSON (default: bench/results/h200_sass.json if present)")
    p.add_argument("--ncu", type=Path, help="ncu_profile CSV (default: bench/results/h200_ncu.csv if present)")
    p.add_argument("--kernels-dir", type=Path, default=common.KERNELS_DIR, help="folder of the rung headers")
    p.add_argument("--tuned", type=Path, default=None,
                   help="tuned header whose winner/runner-up records go into the tuned rungs' evidence "
                        "(default: <kernels-dir>/tuned/sm_90.cuh)")
    p.add_argument("--kernel", type=int, metavar="N", help="only rung N")
    p.add_argument("--sizes", default="4096,8192", help="square sizes quoted from the results (default 4096,8192)")
    p.add_argument("--width", type=int, default=100, help="wrap the comment lines at this column (default 100)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if a header would change")
    mode.add_argument("--print", action="store_true", help="print each rung's evidence text; change nothing")
    args = p.parse_args(argv)
    try:
        args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        p.error(f"--sizes '{args.sizes}' is not a comma-separated list of integers")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    headers = common.rung_header_files(args.kernels_dir)
    if not headers:
        raise UsageError(f"no rung headers (NN_*.cuh) in {args.kernels_dir}")
    if args.kernel is not None and args.kernel not in headers:
        raise UsageError(f"no header for rung {args.kernel} in {args.kernels_dir}")
    results, sass, ncu = load_inputs(args)
    tuned_path = args.tuned or args.kernels_dir / "tuned" / "sm_90.cuh"
    tuned = tuned_records(tuned_path)
    try:  # the header as the evidence names it: relative to the repository when inside it
        tuned_source = str(tuned_path.resolve().relative_to(common.REPO_ROOT))
    except ValueError:
        tuned_source = str(tuned_path)
    stale = []
    for rung, path in sorted(headers.items()):
        if args.kernel is not None and rung != args.kernel:
            continue
        with open(path, encoding="utf-8", newline="") as f:
            old = f.read()
        try:
            if find_block(old) is None:
                continue  # e.g. cuBLAS: nothing of ours to measure
        except ToolError as e:
            raise ToolError(f"{path}: {e}") from e
        prev = builds_on(old, headers) or max((r for r in headers if r < rung), default=None)
        slug = path.stem
        body = evidence_text(rung, slug, prev, results, sass, ncu, args.sizes, tuned.get(rung), tuned_source)
        new = replace_evidence(old, body, args.width)
        if args.print:
            print(f"rung {rung} ({path.name}):\n  {body.replace(NBSP, ' ')}")
            continue
        if new == old:
            continue
        stale.append(path)
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                       str(path), str(path) + " (regenerated)"))
        else:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(new)
            print(f"updated {path}")
    if args.check and stale:
        print(f"{PROG}: {len(stale)} header(s) out of date; run python3 tools/update_evidence.py", file=sys.stderr)
        return common.EXIT_FAILURE
    if not args.print and not stale:
        print("evidence up to date")
    return common.EXIT_OK


if __name__ == "__main__":
    sys.exit(common.run_main(PROG, main))
