"""The README figures' staleness: which results files a figure is drawn from (tools/figure_stamp.py),
the stamp its PNG carries, read with the standard library, and what `tools/docs.py` does with a
stale figure (--check names it and the command that refreshes it; a plain run re-renders it, or
says what to install). The PNGs here are written with struct and zlib, so no package is needed."""
import hashlib
import json
import shutil
import struct
import zlib

import pytest

import docs
import figure_stamp


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png(path, text=None, ztext=None, itext=None):
    """A 1x1 grey PNG with the given tEXt, zTXt and iTXt chunks."""
    data = figure_stamp.PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    for key, value in (text or {}).items():
        data += chunk(b"tEXt", key.encode("latin-1") + b"\0" + value.encode("latin-1"))
    for key, value in (ztext or {}).items():
        data += chunk(b"zTXt", key.encode("latin-1") + b"\0\0" + zlib.compress(value.encode("latin-1")))
    for key, value in (itext or {}).items():
        data += chunk(b"iTXt", key.encode("latin-1") + b"\0\0\0en\0\0" + value.encode("utf-8"))
    data += chunk(b"IDAT", zlib.compress(b"\0\x80")) + chunk(b"IEND", b"")
    path.write_bytes(data)
    return path


@pytest.fixture
def results(tmp_path, data_dir):
    """A results folder: two GPUs' sgemm_bench files, one SASS report, one other suite."""
    folder = tmp_path / "results"
    folder.mkdir()
    for name in ("h100.json", "h200.json", "h200_sass.json", "h200_ncu.csv", "h200_workloads.json"):
        shutil.copy(data_dir / name, folder / name)
    return folder


def test_a_figures_inputs_are_the_results_files_its_notebook_reads(results):
    names = lambda figure: [p.name for p in figure_stamp.inputs(figure, results)]  # noqa: E731
    assert names("ladder") == ["h100.json", "h200.json"]  # not h200_workloads.json: another suite
    assert names("sass") == ["h100.json", "h200.json", "h200_sass.json"]
    assert names("roofline") == ["h100.json", "h200.json", "h200_ncu.csv"]
    (results / "a100.json").write_text("{}")  # a new GPU's file is an input as soon as it is there
    assert names("ladder") == ["a100.json", "h100.json", "h200.json"]
    manifest = figure_stamp.manifest("ladder", results)
    sha = hashlib.sha256((results / "h100.json").read_bytes()).hexdigest()
    assert f"{sha}  h100.json\n" in manifest and manifest.count("\n") == 3  # sha256sum's format


def test_line_ends_do_not_change_the_hash(results):
    before = figure_stamp.stamp("ladder", results)
    text = (results / "h100.json").read_bytes()
    (results / "h100.json").write_bytes(text.replace(b"\n", b"\r\n"))
    assert figure_stamp.stamp("ladder", results) == before


def test_png_text_reads_every_kind_of_text_chunk(tmp_path):
    path = png(tmp_path / "f.png", text={"a": "one\ntwo"}, ztext={"b": "zipped"}, itext={"c": "ünïcode"})
    assert figure_stamp.png_text(path) == {"a": "one\ntwo", "b": "zipped", "c": "ünïcode"}


def test_png_text_refuses_what_is_not_a_whole_png(tmp_path):
    good = png(tmp_path / "good.png", text={"a": "b"}).read_bytes()
    (tmp_path / "text.png").write_text("not a png")
    (tmp_path / "cut.png").write_bytes(good[:-20])
    bad = bytearray(good)
    bad[good.index(b"tEXt") + 5] ^= 0xFF  # a flipped byte in the text: its CRC fails
    (tmp_path / "crc.png").write_bytes(bytes(bad))
    for name, why in (("text.png", "no PNG signature"), ("cut.png", "cut short"), ("crc.png", "CRC")):
        with pytest.raises(figure_stamp.NotAPng, match=why):
            figure_stamp.png_text(tmp_path / name)


def test_a_figure_with_the_stamp_of_its_inputs_is_current(tmp_path, results):
    figure = png(tmp_path / "ladder.png", text=figure_stamp.stamp("ladder", results))
    assert figure_stamp.stale("ladder", figure, results) is None


def test_a_figure_without_a_stamp_or_a_file_is_stale(tmp_path, results):
    assert figure_stamp.stale("ladder", tmp_path / "ladder.png", results) == "missing"
    assert figure_stamp.stale("ladder", png(tmp_path / "ladder.png"), results) == "it records no input hash"
    (tmp_path / "sass.png").write_text("a text file")
    assert "not a PNG" in figure_stamp.stale("sass", tmp_path / "sass.png", results)


def test_a_figure_drawn_from_other_results_is_stale_and_says_which(tmp_path, results):
    figure = png(tmp_path / "sass.png", text=figure_stamp.stamp("sass", results))
    (results / "h200_sass.json").write_text((results / "h200_sass.json").read_text() + " ")
    assert figure_stamp.stale("sass", figure, results) == "changed since it was drawn: h200_sass.json"
    shutil.copy(results / "h100.json", results / "b200.json")
    (results / "h100.json").unlink()
    why = figure_stamp.stale("sass", figure, results)
    assert "not drawn from: b200.json" in why and "no longer there: h100.json" in why
    # a hash that differs with a manifest that does not say why (or none at all)
    wrong = png(tmp_path / "ladder.png", text={figure_stamp.KEY_HASH: "0" * 64})
    assert figure_stamp.stale("ladder", wrong, results) == "its input hash differs from the results'"


def test_docs_check_names_the_stale_figure_and_the_command(tmp_path, results, monkeypatch, capsys):
    figures = tmp_path / "figures"
    figures.mkdir()
    for name in figure_stamp.FIGURES:
        png(figures / f"{name}.png", text=figure_stamp.stamp(name, results))
    png(figures / "scaling.png")  # drawn before the stamp existed
    monkeypatch.setattr(figure_stamp, "FIGURES_DIR", figures)
    monkeypatch.setenv("SGEMM_RESULTS_DIR", str(results))
    monkeypatch.setattr(docs, "targets", lambda: {})
    monkeypatch.setattr(docs, "prose_errors", lambda rungs: [])
    assert docs.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert err.count("stale figure") == 1
    assert "notebooks/figures/scaling.png: it records no input hash" in err
    assert "python3 tools/docs.py" in err and "render_figures.py --only scaling" in err
    png(figures / "scaling.png", text=figure_stamp.stamp("scaling", results))
    assert docs.main(["--check"]) == 0


def test_docs_says_what_to_install_when_it_cannot_draw(tmp_path, results, monkeypatch, capsys):
    monkeypatch.setattr(figure_stamp, "FIGURES_DIR", tmp_path)  # no PNG at all: every figure is stale
    monkeypatch.setenv("SGEMM_RESULTS_DIR", str(results))
    monkeypatch.setattr(docs, "targets", lambda: {})
    monkeypatch.setattr(docs, "prose_errors", lambda rungs: [])
    monkeypatch.setattr(docs, "figure_python", lambda: (None, "/usr/bin/python3 lacks matplotlib, nbclient"))
    ran = []
    monkeypatch.setattr(docs.subprocess, "run", lambda *a, **k: ran.append(a))
    assert docs.main([]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and not ran  # one line, and nothing was run
    assert "ladder" in err[0] and "lacks matplotlib, nbclient" in err[0] and "run tools/setup.sh" in err[0]


def test_docs_renders_only_the_stale_figures(tmp_path, results, monkeypatch, capsys):
    for name in figure_stamp.FIGURES:
        png(tmp_path / f"{name}.png", text=figure_stamp.stamp(name, results))
    png(tmp_path / "roofline.png")
    monkeypatch.setattr(figure_stamp, "FIGURES_DIR", tmp_path)
    monkeypatch.setenv("SGEMM_RESULTS_DIR", str(results))
    monkeypatch.setattr(docs, "targets", lambda: {})
    monkeypatch.setattr(docs, "prose_errors", lambda rungs: [])
    monkeypatch.setattr(docs, "figure_python", lambda: ("/venv/python", ""))
    ran = []

    def fake_run(cmd, **kw):  # what render_figures.py would do: draw the figure with its stamp
        ran.append(cmd)
        png(tmp_path / "roofline.png", text=figure_stamp.stamp("roofline", results))
        return docs.subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(docs.subprocess, "run", fake_run)
    assert docs.main([]) == 0
    assert len(ran) == 1 and ran[0][0] == "/venv/python" and ran[0][-2:] == ["--only", "roofline"]
    assert ran[0][ran[0].index("--results") + 1] == str(results.resolve())


def test_the_interpreter_probe_lists_what_is_missing(monkeypatch):
    import sys

    lacks = docs.missing_packages(sys.executable)
    assert isinstance(lacks, list) and set(lacks) <= set(docs.FIGURE_PACKAGES)
    assert docs.missing_packages("/no/such/python") is None


def test_a_figures_input_hash_leaves_the_fingerprints_out(tmp_path):
    """A results file's fingerprints change with every change to the library's sources
    (tools/fingerprint.py stamp); no figure draws them, so they do not make a figure stale."""
    path = tmp_path / "x100.json"
    doc = {"context": {"gpu_name": "X"}, "benchmarks": [{"rung": 1, "GFLOPS": 1.0}]}
    path.write_text(json.dumps(doc, indent=1) + "\n")
    plain = figure_stamp.file_hash(path)
    assert plain == hashlib.sha256(path.read_bytes()).hexdigest()  # sha256sum's, without fingerprints
    path.write_text(json.dumps({**doc, "fingerprints": {"abc": {"source": {"key": "1" * 16}}}}, indent=1) + "\n")
    assert figure_stamp.file_hash(path) == plain
    path.write_text(json.dumps({**doc, "fingerprints": {"abc": {"source": {"key": "2" * 16}}}}, indent=1) + "\n")
    assert figure_stamp.file_hash(path) == plain
    doc["benchmarks"][0]["GFLOPS"] = 2.0
    path.write_text(json.dumps({**doc, "fingerprints": {}}, indent=1) + "\n")
    assert figure_stamp.file_hash(path) != plain
