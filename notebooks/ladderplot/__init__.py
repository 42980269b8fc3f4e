"""ladderplot: load the SGEMM Ladder's results and draw the notebooks' figures.

    import ladderplot as lp
    results = lp.load_results(lp.results_dir("../bench/results"))
    lp.plot_ladder(results, size=4096)

Loading:  results_dir, pick_source, load_results (-> Results: timing, accuracy, context),
          load_sass, load_ncu
Tables:   ladder_table, format_ladder_table, scaling_table, accuracy_table, context_table,
          ncu_table, sass_table, sass_resources
Roofline: ceilings, ceilings_table, roofline_points
Figures:  plot_ladder, plot_scaling, plot_accuracy, plot_roofline, plot_sass, save_figure
Live:     ladderplot.live (sgemm_bench and the C ABI through ctypes)
"""
from . import live
from .data import (BASELINE_RUNG, CONTEXT_KEYS, DEFAULT_RESULTS_DIR, REPO_ROOT, RESULTS_ENV,
                   Results, accuracy_table, context_number, context_table, format_ladder_table,
                   has_results, ladder_table, load_ncu, load_results, load_sass, make_results, ncu_table,
                   results_dir, rung_label, sass_resources, sass_table, scaling_table,
                   square_timing)
from .live import pick_source
from .plots import (FIGURES_ENV, plot_accuracy, plot_ladder, plot_roofline, plot_sass,
                    plot_scaling, rung_style, sass_categories, sass_colors,
                    save_figure)
from .roofline import (FALLBACK_BANDWIDTH_GBS, Ceilings, ceilings, ceilings_table,
                       roofline_points)

__all__ = [
    "live", "BASELINE_RUNG", "CONTEXT_KEYS", "DEFAULT_RESULTS_DIR", "REPO_ROOT", "RESULTS_ENV",
    "FIGURES_ENV", "FALLBACK_BANDWIDTH_GBS", "Results", "Ceilings", "results_dir", "pick_source",
    "has_results", "load_results", "load_sass", "load_ncu", "make_results", "rung_label", "context_number",
    "context_table", "ladder_table", "format_ladder_table", "scaling_table", "square_timing",
    "accuracy_table", "ncu_table", "sass_table", "sass_resources", "ceilings", "ceilings_table",
    "roofline_points", "rung_style", "sass_categories", "sass_colors", "plot_ladder", "plot_scaling",
    "plot_accuracy", "plot_roofline", "plot_sass", "save_figure",
]
