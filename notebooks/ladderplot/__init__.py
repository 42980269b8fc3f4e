"""ladderplot: the SGEMM Ladder's results as pandas tables and matplotlib figures for the notebooks.

    import ladderplot as lp
    results = lp.load_results(lp.results_dir("../bench/results"))
    lp.plot_ladder(results, size=4096)

The files are read by the project's one reader, `sgemm_ladder.results`; the roofline is
tools/roofline.py's. This package only makes tables and figures of them.

Loading:  results_dir, pick_source, load_results (-> Results: timing, accuracy, context, by_gpu),
          frames, load_sass, load_ncu, has_results
Tables:   ladder_table, format_ladder_table, scaling_table, accuracy_table, context_table,
          ncu_table, sass_table, sass_resources, square_timing
Roofline: roofline_points, ceilings, ceilings_table (computed by tools/roofline.py)
Figures:  plot_ladder, plot_scaling, plot_accuracy, plot_roofline, plot_sass, save_figure
Model:    load_model_results, pick_model_source, model_table, model_projection_table,
          model_overhead_table, model_accuracy_table, plot_model (bench/model/model_bench.py's files)
Live:     ladderplot.live (sgemm_bench and the tools; every rung through sgemm_ladder.mm)
"""
from . import live
from .data import (BASELINE_RUNG, CONTEXT_KEYS, DEFAULT_RESULTS_DIR, REPO_ROOT, RESULTS_ENV, Results,
                   accuracy_table, ceilings, ceilings_table, context_table, format_ladder_table, frames,
                   has_results, ladder_table, load_ncu, load_results, load_sass, ncu_table, results_dir,
                   roofline_points, rung_label, sass_resources, sass_table, scaling_table, square_timing)
from .live import pick_source
from .model import (load_model_results, model_accuracy_table, model_overhead_table, model_projection_table,
                    model_table, pick_model_source, plot_model)
from .plots import (FIGURES_ENV, plot_accuracy, plot_ladder, plot_roofline, plot_sass, plot_scaling, rung_style,
                    sass_categories, sass_colors, save_figure)

__all__ = [
    "live", "BASELINE_RUNG", "CONTEXT_KEYS", "DEFAULT_RESULTS_DIR", "REPO_ROOT", "RESULTS_ENV", "FIGURES_ENV",
    "Results", "results_dir", "pick_source", "has_results", "load_results", "frames", "load_sass", "load_ncu",
    "rung_label", "context_table", "ladder_table", "format_ladder_table", "scaling_table", "square_timing",
    "accuracy_table", "ncu_table", "sass_table", "sass_resources", "ceilings", "ceilings_table",
    "roofline_points", "rung_style", "sass_categories", "sass_colors", "plot_ladder", "plot_scaling",
    "plot_accuracy", "plot_roofline", "plot_sass", "save_figure", "load_model_results", "pick_model_source",
    "model_table", "model_projection_table", "model_overhead_table", "model_accuracy_table", "plot_model",
]
