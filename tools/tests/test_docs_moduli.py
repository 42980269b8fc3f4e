"""The moduli sweep of the Ozaki rungs (`<gpu>_moduli.json`, tools/moduli_sweep.py): the reader's
view of its rows (input and forced count from each row, the refused plan among the skipped rows) and
tools/docs.py's section on the rung's page: one table per input, the peers' % of cuBLAS derived from
the rung's ratios, cuBLAS SGEMM's error in each caption, the summary sentence; nothing for a rung
without Ozaki rows, and nothing on any page where the GPU has no such file."""
import json
from types import SimpleNamespace

import pytest

import docs
from sgemm_ladder import results

RUNG31 = SimpleNamespace(id=31, slug="31_ordered_units", track="tensor-core", builds_on=None, arch="sm_90a",
                         source="tensor/31_ordered_units.cuh", kernel="")


@pytest.fixture
def sweep(data_dir):
    return results.load("x100", data_dir, suite="moduli")


def test_reader_gives_each_row_its_input_and_count(sweep, data_dir):
    assert results.gpus(data_dir, "_moduli.json") == ["x100"]
    assert sweep.tag == "x100" and sweep.gpu_name == "NVIDIA X100"
    assert "moduli_sweep" in sweep.context and "GEMMul8" in sweep.context["gemmul8"]
    got = [(row.rung, row.input, row.ozaki_moduli) for row in sweep.rows]
    assert got == [(0, "uniform", None), (31, "uniform", 0), (31, "uniform", 4), (31, "uniform", 5),
                   (0, "wide20", None), (31, "wide20", 4), (31, "wide20", 5)]
    # the extra parts of the name stay in it; Google Benchmark's own parts do not
    assert sweep.rows[3].name == "rung31_ordered_units/8192x8192x8192/uniform/moduli5"
    assert (sweep.rows[3].M, sweep.rows[3].N, sweep.rows[3].K) == (8192, 8192, 8192)
    assert sweep.rows[5].pct_gemmul8 is None and sweep.rows[5].gemmul8_moduli is None  # GEMMul8 did not run
    assert sweep.rows[1].gemmul8_moduli == 7  # beside the plan: GEMMul8's own count
    # the plan refused the wide inputs: a skipped row, its name and message kept
    (name, why), = sweep.skipped
    assert name == "rung31_ordered_units/8192x8192x8192/wide20/plan" and "too far above its mean" in why


def test_other_files_rows_have_no_input_or_count(data_dir):
    row = results.load("h200", data_dir).row(7, 4096)
    assert row.input == "" and row.ozaki_moduli is None


def test_section_has_one_table_per_input_with_derived_percentages(sweep):
    lines = docs.moduli_section(RUNG31, sweep)
    text = "\n".join(lines)
    assert lines[0].startswith("Moduli sweep (`bench/results/x100_moduli.json`, commit `fixture`, 8192 x 8192 x 8192; "
                               "GEMMul8 fixture, gemmul8::gemm<float>, INT8, 7 moduli, fast mode): rung 31 at 8192^3")
    uniform = text.index("Inputs uniform (entries uniform in [-1, 1]): cuBLAS SGEMM's error 1.6e-6.")
    wide = text.index("Inputs wide20 (entries u·2^e, e an integer in [-20, 20]): cuBLAS SGEMM's error 1.9e-6.")
    assert uniform < wide
    assert text.count("| moduli | % of cuBLAS [95% interval] | error | Ozaki on cuBLAS INT8: % of cuBLAS |") == 2
    # the plan first: the method on cuBLAS's INT8 GEMM at 280 * 100 / 140 = 200.0% of cuBLAS, GEMMul8 with
    # its own 7 moduli at 280 * 100 / 112 = 250.0%
    assert "| plan | 280.0 [277.2, 282.8] | 3.5e-7 | 200.0 | 3.5e-7 | 250.0 (7 moduli) | 7.0e-7 | yes |" in text
    assert "| 5 | 340.0 [336.6, 343.4] | 1.2e-6 | 200.0 | 1.2e-6 | 272.0 | 1.5e-6 | yes |" in text
    assert text.index("| plan | 280.0") < text.index("| 4 | 400.0") < text.index("| 5 | 340.0")
    # wide: the refused plan says so, briefly, without the slug; a row without GEMMul8 reads n/a
    assert ("| plan | refused | n/a | n/a | n/a | n/a | n/a | refused: a row of A or a column of B has its largest "
            "magnitude too far above its mean") in text
    assert "| 4 | 400.0 [396.0, 404.0] | 3.0e-3 | 250.0 | 3.0e-3 | n/a | n/a | **NO** |" in text
    assert lines[-2] == ("The fewest moduli whose error is at or below cuBLAS SGEMM's, per input: uniform: 5 moduli "
                         "(error 1.2e-6), 340.0% of cuBLAS; GEMMul8 reaches it with 5 (error 1.5e-6) at 272.0%; "
                         "wide20: none of 4-5.")


def test_missing_cells_and_input_order(sweep, data_dir, tmp_path):
    # a file without the uniform moduli4 row nor cuBLAS's uniform row, and wide8 (a copy of wide20's rows
    # but the plan, every error 1e-6) after wide20 in file order
    doc = json.loads((data_dir / "x100_moduli.json").read_text())
    gone = ("rung31_ordered_units/8192x8192x8192/uniform/moduli4/", "rung00_cublas/8192x8192x8192/uniform/")
    rows = [b for b in doc["benchmarks"] if not b["name"].startswith(gone)]
    for b in [b for b in rows if "/wide20" in b["name"] and "/plan/" not in b["name"]]:
        rows.append({**{k: v.replace("wide20", "wide8") if isinstance(v, str) else v for k, v in b.items()},
                     "rel_err": 1.0e-06})
    doc["benchmarks"] = rows
    (tmp_path / "x100_moduli.json").write_text(json.dumps(doc))
    text = "\n".join(docs.moduli_section(RUNG31, results.load("x100", tmp_path, suite="moduli")))
    assert text.index("Inputs uniform") < text.index("Inputs wide8 (") < text.index("Inputs wide20 (")
    assert "| 4 | not in the file | n/a | n/a | n/a | n/a | n/a | n/a |" in text
    assert "Inputs uniform (entries uniform in [-1, 1]): cuBLAS SGEMM's error n/a." in text
    assert "Inputs wide8 (entries u·2^e, e an integer in [-8, 8]): cuBLAS SGEMM's error 1.0e-6." in text
    assert "| plan | not in the file |" in text  # wide8 has no plan row, refused or not
    # at or below: an error equal to cuBLAS's is enough; GEMMul8 did not run beside that row
    assert ("per input: uniform: n/a (no cuBLAS row); wide8: 4 moduli (error 1.0e-6), 400.0% of cuBLAS; "
            "GEMMul8 with none of 4-5; wide20: none of 4-5.") in text
    assert docs.e2(1.94e-06) == "1.9e-6" and docs.e2(None) == "n/a"


def test_a_rung_without_ozaki_rows_gets_no_section(sweep):
    assert docs.moduli_section(SimpleNamespace(id=25), sweep) == []
    assert docs.moduli_section(SimpleNamespace(id=0), sweep) == []  # cuBLAS's own rows carry no count


def test_page_shows_the_sweep_only_for_a_gpu_with_the_file(data_dir, monkeypatch):
    monkeypatch.setenv(results.RESULTS_ENV, str(data_dir))
    cublas = SimpleNamespace(id=0, slug="00_cublas", track="baseline", builds_on=None, arch="", source="", kernel="")
    by_id = {0: cublas, 31: RUNG31}
    h100 = results.load("h100", data_dir)
    page = docs.page_block(RUNG31, by_id, {"x100": h100})  # the moduli file is x100's
    assert "Moduli sweep (`bench/results/x100_moduli.json`" in page and page.endswith(docs.END)
    assert "Moduli sweep" not in docs.page_block(RUNG31, by_id, {"h100": h100})
    assert "Moduli sweep" not in docs.page_block(cublas, by_id, {"x100": h100})


def test_fit_line_splits_a_call_into_per_modulus_and_fixed_time():
    g = (64, 64, 64, "uniform")
    cells = {g + (n,): SimpleNamespace(ms=0.5 + 0.25 * n) for n in (4, 5, 6, 8)}
    cells[g + (0,)] = SimpleNamespace(ms=2.25)  # the plan: 7 moduli
    cells[(64, 64, 64, "wide4", 4)] = SimpleNamespace(ms=9.0)  # other inputs stay out of the fit
    line = " ".join(docs.moduli_fit_line(cells, [g, (64, 64, 64, "wide4")]))
    assert "0.250 ms per modulus plus 0.500 ms" in line and "22% of the plan's 2.250 ms" in line
    assert "by more than 0.0%" in line
    del cells[g + (8,)], cells[g + (6,)]
    assert docs.moduli_fit_line(cells, [g]) == []  # two counts make no line worth printing
