#!/usr/bin/env python3
"""Regenerate the README figures (notebooks/figures/<notebook>.png) from the notebooks.

Every notebook is executed headless, as in CI; the cell that draws its representative figure
calls ladderplot.save_figure, which writes the PNG because SGEMM_FIGURES_DIR is set. So the
figures are exactly the notebooks' figures. The notebooks themselves are not modified.

    .venv/bin/python notebooks/render_figures.py                          # committed bench/results
    .venv/bin/python notebooks/render_figures.py --results notebooks/tests/data   # the fixtures
    .venv/bin/python notebooks/render_figures.py --only ladder scaling
    .venv/bin/python notebooks/render_figures.py --strip    # strip outputs from the committed notebooks
"""
import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ladderplot import DEFAULT_RESULTS_DIR, FIGURES_ENV, RESULTS_ENV, has_results  # noqa: E402
from ladderplot.execute import execute, notebook_paths, strip_outputs  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=DEFAULT_RESULTS_DIR,
                    help=f"results folder the notebooks read (default {DEFAULT_RESULTS_DIR})")
    ap.add_argument("--out", type=Path, default=HERE / "figures", help="where the PNGs go")
    ap.add_argument("--only", nargs="+", metavar="NOTEBOOK", help="notebook names, e.g. ladder")
    ap.add_argument("--strip", action="store_true",
                    help="only remove outputs and execution counts from the committed notebooks")
    args = ap.parse_args()

    paths = [p for p in notebook_paths() if not args.only or p.stem in args.only]
    if args.strip:
        for p in paths:
            print(f"{p.name}: {'stripped' if strip_outputs(p) else 'clean'}")
        return 0
    if not has_results(args.results):
        print(f"render_figures: no sgemm_bench results (<gpu>.json) under {args.results}; "
              f"pass --results notebooks/tests/data to render from the test fixtures",
              file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    failed = []
    for p in paths:
        t0 = time.time()
        execute(p, env={RESULTS_ENV: str(args.results.resolve()), FIGURES_ENV: str(args.out.resolve())})
        png = args.out / f"{p.stem}.png"
        if png.exists() and png.stat().st_mtime >= t0 - 1:
            print(f"{p.name}: {png} ({time.time() - t0:.1f} s)")
        else:
            failed.append(p.name)
            print(f"{p.name}: wrote no {png.name} (does a cell call lp.save_figure(fig, "
                  f"\"{p.stem}\")?)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
