"""tools/docs.py's table of the accuracy sweep's wide rows (entries u * 2^e, e in [-E, E]) and the
reader's view of them: per exponent range the worst error, where verification failed and where
a rung refused; nothing at all for result files without wide rows."""
import json
from types import SimpleNamespace

import docs
from sgemm_ladder import results


def _accuracy(slug, rung, dist, k, rel_err, verified=1, exponent=None):
    name = f"accuracy/{slug}/{dist}/1024x1024x{k}/iterations:1/manual_time"
    counters = {"rung": rung, "M": 1024, "N": 1024, "K": k, "GFLOPS": 1.0, "ms": 0.5, "rel_err": rel_err,
                "verified": verified, "checked": 1, "fp32_accurate": 1, "accuracy_sweep": 1,
                "input_normal": int(dist == "normal")}
    if exponent is not None:
        counters["input_wide_exponent"] = exponent
    return {"name": name, "run_name": name, "run_type": "iteration", **counters}


def _refused(slug, dist, k, message):
    name = f"accuracy/{slug}/{dist}/1024x1024x{k}/iterations:1/manual_time"
    return {"name": name, "run_name": name, "run_type": "iteration", "error_occurred": True,
            "error_message": message, "iterations": 0}


def _load(tmp_path, rows):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"context": {"gpu_name": "X"}, "benchmarks": rows}))
    return results.load(path)


def test_reader_gives_wide_rows_their_exponent_range(tmp_path):
    res = _load(tmp_path, [_accuracy("22_mma_3xtf32", 22, "wide40", 256, 3e-7, exponent=40),
                           _accuracy("22_mma_3xtf32", 22, "wide20", 256, 3e-7),  # a file without the counter
                           _accuracy("22_mma_3xtf32", 22, "normal", 256, 3e-7, exponent=0)])
    assert [(a.input, a.wide_exponent) for a in res.accuracy] == [("wide40", 40), ("wide20", 20), ("normal", None)]


def test_wide_table_per_exponent_range(tmp_path):
    rows = []
    for k in (256, 4096):
        rows += [_accuracy("00_cublas", 0, "uniform", k, 2e-7)]
        for e in (20, 60):
            rows.append(_accuracy("00_cublas", 0, f"wide{e}", k, 3e-7 * k / 256, exponent=e))
            bad = e == 60 and k == 4096
            rows.append(_accuracy("22_mma_3xtf32", 22, f"wide{e}", k, 5e-3 if bad else 4e-7, verified=int(not bad),
                                  exponent=e))
    rows.append(_accuracy("23_wgmma_3xtf32", 23, "wide20", 256, 4e-7, exponent=20))
    rows.append(_refused("23_wgmma_3xtf32", "wide20", 4096, "23_wgmma_3xtf32: operands outside the range it splits"))
    res = _load(tmp_path, rows)

    lines = docs.wide_table(SimpleNamespace(id=22), res)
    assert len(lines) == 1  # one block: a table must not be split by blank lines
    text = lines[0]
    assert "M x N = 1024 x 1024" in text
    assert "| E | K | worst norm-wise relative error | cuBLAS's | verified |" in text
    assert "| 20 | 256-4096 | 4.00e-07 | 4.80e-06 | yes |" in text
    assert "| 60 | 256-4096 | 5.00e-03 | 4.80e-06 | NO at K = 4096 |" in text

    refused = docs.wide_table(SimpleNamespace(id=23), res)[0]
    # cuBLAS over the K where the rung has a result: 256 only
    assert "| 20 | 256-4096 | 4.00e-07 | 3.00e-07 | refused at K = 4096 (23_wgmma_3xtf32: operands" in refused

    cublas = docs.wide_table(SimpleNamespace(id=0), res)[0]
    assert "| E | K | worst norm-wise relative error | verified |" in cublas  # no column comparing it with itself


def test_an_overflowed_row_makes_the_worst_error_infinite(tmp_path):
    # sgemm_bench leaves a non-finite rel_err out of the row: what is left says verified 0
    overflowed = _accuracy("07_bank_conflict_free", 7, "wide64", 4096, None, verified=0, exponent=64)
    del overflowed["rel_err"]
    res = _load(tmp_path, [_accuracy("07_bank_conflict_free", 7, "wide64", 256, 5e-8, exponent=64), overflowed])
    assert "| 64 | 256-4096 | Inf (Inf or NaN in C) | NO at K = 4096 |" in docs.wide_table(SimpleNamespace(id=7), res)[0]


def test_no_wide_rows_no_table(tmp_path):
    res = _load(tmp_path, [_accuracy("07_bank_conflict_free", 7, "uniform", 256, 3e-7),
                           _accuracy("07_bank_conflict_free", 7, "normal", 256, 3e-7)])
    assert docs.wide_table(SimpleNamespace(id=7), res) == []
