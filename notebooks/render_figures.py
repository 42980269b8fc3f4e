#!/usr/bin/env python3
"""Regenerate the README figures (notebooks/figures/<notebook>.png) from the notebooks.

Every notebook is executed headless with nbclient, as in the tests; the cell that draws its
representative figure calls ladderplot.save_figure, which writes the PNG because
SGEMM_FIGURES_DIR is set. So the figures are exactly the notebooks' figures, drawn from every GPU
whose results are committed. The notebooks themselves are not modified.

Each PNG records the sha256 of the results files it was drawn from (tools/figure_stamp.py says
which); `python3 tools/docs.py --check` fails when that no longer matches bench/results, and
`python3 tools/docs.py` runs this script for the figures that are stale. A figure written here is
checked to carry the stamp of the folder it was drawn from.

    python3 notebooks/render_figures.py                                  # committed bench/results
    python3 notebooks/render_figures.py --stale                          # only those docs.py finds stale
    python3 notebooks/render_figures.py --results notebooks/tests/data   # the fixtures
    python3 notebooks/render_figures.py --only ladder scaling

Needs the packages of notebooks/requirements.txt (.venv/bin/python has them after tools/setup.sh).
"""
import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import nbclient
    import nbformat
    from ladderplot import DEFAULT_RESULTS_DIR, RESULTS_ENV, has_results
    from ladderplot.data import figure_stamp
    from ladderplot.plots import FIGURES_ENV
except ImportError as e:
    sys.exit(f"render_figures: needs the Python package {e.name}: pip install -r notebooks/requirements.txt "
             f"(or run it with .venv/bin/python, made by tools/setup.sh)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=DEFAULT_RESULTS_DIR,
                    help=f"results folder the notebooks read (default {DEFAULT_RESULTS_DIR})")
    ap.add_argument("--out", type=Path, default=HERE / "figures", help="where the PNGs go")
    ap.add_argument("--only", nargs="+", metavar="NOTEBOOK", help="notebook names, e.g. ladder")
    ap.add_argument("--stale", action="store_true",
                    help="only the figures whose recorded inputs differ from the results folder's")
    args = ap.parse_args()

    paths = [p for p in sorted(HERE.glob("*.ipynb")) if not args.only or p.stem in args.only]
    unknown = sorted(set(args.only or ()) - {p.stem for p in paths})
    if unknown:
        print(f"render_figures: no notebook {', '.join(unknown)} in {HERE}", file=sys.stderr)
        return 2
    if args.stale:
        paths = [p for p in paths
                 if p.stem not in figure_stamp.FIGURES or figure_stamp.stale(p.stem, args.out / f"{p.stem}.png",
                                                                              args.results)]
        if not paths:
            print("render_figures: every figure is up to date")
            return 0
    if not has_results(args.results):
        print(f"render_figures: no sgemm_bench results (<gpu>.json) under {args.results}; "
              f"pass --results notebooks/tests/data to render from the test fixtures", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.update({RESULTS_ENV: str(args.results.resolve()), FIGURES_ENV: str(args.out.resolve())})
    failed = []
    for p in paths:
        t0 = time.time()
        nbclient.execute(nbformat.read(p, as_version=4), cwd=str(p.parent), kernel_name="python3", timeout=600)
        png = args.out / f"{p.stem}.png"
        if not png.exists() or png.stat().st_mtime < t0 - 1:
            failed.append(p.name)
            print(f"{p.name}: wrote no {png.name} (does a cell call lp.save_figure(fig, \"{p.stem}\")?)",
                  file=sys.stderr)
        elif p.stem in figure_stamp.FIGURES and (why := figure_stamp.stale(p.stem, png, args.results)):
            failed.append(p.name)
            print(f"{p.name}: {png} does not match {args.results}: {why}", file=sys.stderr)
        else:
            print(f"{p.name}: {png} ({time.time() - t0:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
