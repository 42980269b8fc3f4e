#!/usr/bin/env python3
"""Regenerate the results tables of README.md from a committed results file.

The README's tables are never typed: they sit between marker comments and this tool rewrites
them from bench/results/<gpu>.json (written by `sgemm_bench --json`).

    python3 tools/readme_table.py                       # rewrite README.md from bench/results/h200.json
    python3 tools/readme_table.py --check               # exit 1 if README.md is out of date
    python3 tools/readme_table.py --results other.json --readme README.md
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- ladder-table:begin -->", "<!-- ladder-table:end -->"


# The square sizes of the "geometric mean over sizes" column (issue 5's yardstick: sizes that
# leave SMs idle and sizes that fill the chip).
GEOMEAN_SIZES = (1024, 1536, 2048, 3072, 4096, 6144, 8192)


def load_rows(path: Path) -> tuple[dict, list[dict], list[dict]]:
    """The context, the timed rows and the accuracy-sweep rows of a results file."""
    data = json.loads(path.read_text())
    rows = []
    for b in data.get("benchmarks", []):
        name = b.get("name", "")
        if not name.startswith("rung") or "GFLOPS" not in b or b.get("run_type") == "aggregate":
            continue
        slug = name.split("/")[0][len("rung"):]
        rows.append({"slug": slug, "rung": int(b["rung"]), "M": int(b["M"]), "N": int(b["N"]), "K": int(b["K"]),
                     "gflops": b["GFLOPS"], "pct": b["pct_cublas"], "rel_err": b["rel_err"],
                     "verified": int(b["verified"]), "checked": int(b.get("checked", 1)), "ms": b.get("ms", 0.0),
                     "fp32_accurate": int(b.get("fp32_accurate", 1)), "pct_tf32": b.get("pct_cublas_tf32")})
    return data.get("context", {}), rows, accuracy_rows(data)


def accuracy_rows(data: dict) -> list[dict]:
    """Rows of the accuracy sweep: accuracy/<slug>/<input>/MxNxK."""
    out = []
    for b in data.get("benchmarks", []):
        parts = b.get("name", "").split("/")
        if len(parts) < 4 or parts[0] != "accuracy" or "rel_err" not in b or b.get("run_type") == "aggregate":
            continue
        out.append({"slug": parts[1], "rung": int(b["rung"]), "input": parts[2], "K": int(b["K"]),
                    "mn": int(b["M"]), "rel_err": b["rel_err"], "verified": int(b["verified"])})
    return out


def fmt_err(v: float) -> str:
    return "-" if v == 0 or math.isnan(v) else f"{v:.1e}"


def geomean_pct(by: dict, rung: int) -> float | None:
    pcts = [by[(rung, s, s, s)]["pct"] for s in GEOMEAN_SIZES if (rung, s, s, s) in by]
    if len(pcts) != len(GEOMEAN_SIZES) or min(pcts) <= 0:
        return None
    return math.exp(sum(math.log(p) for p in pcts) / len(pcts))


def render(context: dict, rows: list[dict], results_name: str, accuracy: list[dict] | None = None) -> str:
    by = {(r["rung"], r["M"], r["N"], r["K"]): r for r in rows}
    rungs = sorted({(r["rung"], r["slug"]) for r in rows})
    squares = sorted({r["M"] for r in rows if r["M"] == r["N"] == r["K"]})
    headline = [s for s in (4096, 8192) if s in squares]
    out = []
    out.append(f"Measured on **{context.get('gpu_name', '?')}** ({context.get('gpu_arch', '?')}, "
               f"{context.get('sm_count', '?')} SMs, max SM clock {context.get('sm_clock_max_mhz', '?')} MHz), "
               f"driver {context.get('driver_version', '?')}, CUDA {context.get('cuda_runtime', '?')}, "
               f"cuBLAS {context.get('cublas_version', '?')}, {context.get('date', '')[:10]}; "
               f"from `{results_name}` (regenerate: `python3 tools/readme_table.py`). "
               f"% cuBLAS is against cuBLAS measured in the same run on the same inputs.")
    out.append("")
    head = "| rung | kernel |"
    sep = "|---:|---|"
    for s in headline:
        head += f" {s}³ GFLOP/s | % cuBLAS |"
        sep += "---:|---:|"
    with_geomean = any(geomean_pct(by, rung) is not None for rung, _ in rungs)
    if with_geomean:
        head += " geomean % cuBLAS, 1024³-8192³ |"
        sep += "---:|"
    head += " rel. error | verified |"
    sep += "---:|:---:|"
    out += [head, sep]
    notes = []
    for rung, slug in rungs:
        line = f"| {rung} | [{slug}](kernels/{slug}.cuh) |"
        last = None
        for s in headline:
            r = by.get((rung, s, s, s))
            line += f" {r['gflops']:,.0f} | {r['pct']:.1f} |" if r else " - | - |"
            last = r or last
        if with_geomean:
            g = geomean_pct(by, rung)
            line += f" {g:.1f} |" if g is not None else " - |"
        if last:
            line += f" {fmt_err(last['rel_err'])} | {'yes' if last['verified'] else ('NO' if last['checked'] else '-')} |"
            if not last["fp32_accurate"]:
                tf = [f"{by[(rung, s, s, s)]['pct_tf32']:.1f}% at {s}³" for s in headline
                      if (rung, s, s, s) in by and by[(rung, s, s, s)].get("pct_tf32") is not None]
                notes.append(f"Rung {rung} ({slug}) is **not FP32-accurate** (TF32 operands); against cuBLAS's own "
                             f"TF32 GEMM in the same run it reaches " + (", ".join(tf) or "(not measured)") + ".")
        else:
            line += " - | - |"
        out.append(line)
    if notes:
        out += [""] + notes
    if len(squares) > 1:
        out += ["", "GFLOP/s over square sizes (M = N = K):", ""]
        out.append("| rung | " + " | ".join(str(s) for s in squares) + " |")
        out.append("|---:|" + "---:|" * len(squares))
        for rung, slug in rungs:
            cells = []
            for s in squares:
                r = by.get((rung, s, s, s))
                cells.append(f"{r['gflops']:,.0f}" if r else "-")
            out.append(f"| {rung} {slug} | " + " | ".join(cells) + " |")
    others = sorted({(r["M"], r["N"], r["K"]) for r in rows if not r["M"] == r["N"] == r["K"]})
    if others:
        out += ["", "Non-square shapes, GFLOP/s (% cuBLAS):", ""]
        out.append("| rung | " + " | ".join(f"{m}x{n}x{k}" for m, n, k in others) + " |")
        out.append("|---:|" + "---:|" * len(others))
        for rung, slug in rungs:
            cells = []
            for shp in others:
                r = by.get((rung, *shp))
                cells.append(f"{r['gflops']:,.0f} ({r['pct']:.0f}%)" if r else "-")
            out.append(f"| {rung} {slug} | " + " | ".join(cells) + " |")
    if accuracy:
        ks = sorted({a["K"] for a in accuracy})
        acc = {(a["rung"], a["input"], a["K"]): a for a in accuracy}
        slugs = sorted({(a["rung"], a["slug"]) for a in accuracy})
        inputs = sorted({a["input"] for a in accuracy})
        out += ["", "Accuracy sweep: norm-wise relative error against FP64 (M = N = "
                    f"{accuracy[0].get('mn', 1024)}), and in brackets its ratio to cuBLAS SGEMM's on the same "
                    "inputs; consecutive rungs with identical errors share a row:", ""]
        out.append("| rungs | input | " + " | ".join(f"K={k}" for k in ks) + " |")
        out.append("|---|---|" + "---:|" * len(ks))
        errs = lambda rung: tuple(f"{acc[(rung, i, k)]['rel_err']:.2e}" if (rung, i, k) in acc else None  # noqa: E731
                                  for i in inputs for k in ks)  # equal as printed
        groups: list[list[tuple[int, str]]] = []
        for rung, slug in slugs:
            if groups and groups[-1][0][0] != 0 and errs(groups[-1][-1][0]) == errs(rung):
                groups[-1].append((rung, slug))
            else:
                groups.append([(rung, slug)])
        for g in groups:
            rung = g[0][0]
            label = f"{g[0][0]} {g[0][1]}" if len(g) == 1 else f"{g[0][0]}-{g[-1][0]} ({g[0][1]} ... {g[-1][1]})"
            for inp in inputs:
                cells = []
                for k in ks:
                    a, base = acc.get((rung, inp, k)), acc.get((0, inp, k))
                    if not a:
                        cells.append("-")
                    elif rung == 0 or not base or base["rel_err"] <= 0:
                        cells.append(f"{a['rel_err']:.2e}")
                    else:
                        cells.append(f"{a['rel_err']:.2e} ({a['rel_err'] / base['rel_err']:.2f}x)")
                out.append(f"| {label} | {inp} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def rewrite(readme: str, table: str) -> str:
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(readme):
        raise SystemExit(f"readme_table: no {BEGIN} ... {END} markers in the README")
    return pattern.sub(lambda _: f"{BEGIN}\n{table}\n{END}", readme)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=ROOT / "bench/results/h200.json")
    ap.add_argument("--readme", type=Path, default=ROOT / "README.md")
    ap.add_argument("--check", action="store_true", help="exit 1 when the README is out of date")
    args = ap.parse_args(argv)
    if not args.results.exists():
        print(f"readme_table: {args.results} does not exist (run sgemm_bench --json on a GPU first)", file=sys.stderr)
        return 1
    context, rows, accuracy = load_rows(args.results)
    try:
        name = str(args.results.resolve().relative_to(ROOT))
    except ValueError:
        name = args.results.name
    table = render(context, rows, name, accuracy)
    old = args.readme.read_text()
    new = rewrite(old, table)
    if args.check:
        if new != old:
            print("readme_table: README.md tables differ from the results file; run python3 tools/readme_table.py",
                  file=sys.stderr)
            return 1
        return 0
    args.readme.write_text(new)
    print(f"readme_table: updated {args.readme} from {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
