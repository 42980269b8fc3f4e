"""Every figure tied to its code: the commit a results file records (tools/tree_stamp.py, also on a
copy of the tree without its history), the fingerprints of the code each rung's figures measured
(tools/fingerprint.py), the marks tools/docs.py prints on stale figures, and the merge of the stale
rows measured again (tools/refresh_results.py). All on synthetic files: no library, no GPU."""
import json
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

import docs
import fingerprint
import refresh_results
import tree_stamp
from sgemm_ladder import results

TOOLCHAIN = {"cxx": "GCC: 12.2.0", "cuda": "V13.0.88", "build_type": "Release"}
FRONT = {"api": "a" * 16, "packed": "b" * 16, "general": "c" * 16}


def fp(rungs: dict, front: dict = FRONT, toolchain: dict = TOOLCHAIN) -> fingerprint.Fingerprints:
    """The current build's fingerprints, made up: rung -> (sass, host)."""
    return fingerprint.Fingerprints(Path("lib.so"), dict(toolchain),
                                    {r: {"sass": s, "host": h} for r, (s, h) in rungs.items()}, dict(front))


BUILD = {0: ("0" * 16, "1" * 16), 16: ("16" * 8, "61" * 8), 17: ("17" * 8, "71" * 8)}


def row(rung: int, slug: str, n: int, gflops: float, pct: float, layout: str = "nn", **extra) -> dict:
    name = f"rung{slug}/{n}x{n}x{n}" + ("" if layout == "nn" else f"/{layout}") + "/iterations:1/manual_time"
    return {"name": name, "run_name": name, "run_type": "iteration", "rung": rung, "M": n, "N": n, "K": n,
            "lda": n, "ldb": n, "ldc": n, "layout": layout, "GFLOPS": gflops, "ms": 2 * n ** 3 / gflops * 1e-6,
            "pct_cublas": pct, "pct_cublas_lo": pct - 0.1, "pct_cublas_hi": pct + 0.1, "verified": 1, "checked": 1,
            "fp32_accurate": 1, "samples": 100, "cublas_ms": 1.0, **extra}


def sweep(path: Path, commit: str = "aaaa1111", record: dict | None = None, clean: str = "true",
          rows: list | None = None) -> Path:
    """An sgemm_bench file of rungs 0, 16 and 17 at 4096^3 measured at `commit`, with `record` (the
    fingerprints of that commit: the build's, by default) unless None."""
    doc = {"context": {"gpu_name": "NVIDIA X100", "sgemm_ladder_git": commit, "sgemm_ladder_clean": clean,
                       "command": "sgemm_bench --kernel 0,16,17 --sizes 4096 --min-time 0.1 --rounds 9"},
           "benchmarks": rows if rows is not None else [
               row(0, "00_cublas", 4096, 51000.0, 100.0), row(16, "16_last_wave_cut", 4096, 51798.0, 100.4),
               row(17, "17_any_layout", 4096, 52455.0, 101.5)]}
    if record is not None:
        doc["fingerprints"] = {commit: record}
    path.write_text(json.dumps(doc, indent=1))
    return path


def record_of(now: fingerprint.Fingerprints, commit: str = "aaaa1111" * 5) -> dict:
    return now.record(commit)


# ----------------------------------------------------------------------------------------------
# Which figures are stale


def test_a_file_fingerprinted_by_the_same_code_is_current(tmp_path):
    now = fp(BUILD)
    path = sweep(tmp_path / "x100.json", record=record_of(now))
    assert fingerprint.stale(path, now) == {}


def test_a_rung_whose_kernels_or_host_code_changed_is_stale_and_only_it(tmp_path):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    changed = {**BUILD, 17: ("feed" * 4, BUILD[17][1]), 16: (BUILD[16][0], "beef" * 4)}
    out = fingerprint.stale(path, fp(changed))
    assert sorted(out) == [16, 17]
    assert out[17].why == "changed since: its kernels" and out[17].commit == "aaaa1111"
    assert out[16].why == "changed since: its host code"


def test_the_front_door_is_part_of_every_rungs_fingerprint(tmp_path):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    out = fingerprint.stale(path, fp(BUILD, front=dict(FRONT, api="d" * 16)))
    assert sorted(out) == [0, 16, 17] and "the front door (sgemm::run)" in out[0].why


def test_a_path_of_the_front_door_matters_only_to_rows_that_take_it(tmp_path):
    rows = [row(16, "16_last_wave_cut", 4096, 51798.0, 100.4),
            row(17, "17_any_layout", 4096, 45966.0, 90.2, layout="nt"),  # the general entry
            row(0, "00_cublas", 4096, 51000.0, 100.0, lda=4097, ldb=4097, ldc=4097)]  # unaligned: may be packed
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)), rows=rows)
    assert sorted(fingerprint.stale(path, fp(BUILD, front=dict(FRONT, general="d" * 16)))) == [17]
    assert sorted(fingerprint.stale(path, fp(BUILD, front=dict(FRONT, packed="d" * 16)))) == [0]


@pytest.mark.parametrize("kwargs, why", [
    ({"record": None}, "no fingerprint recorded"),
    ({"commit": "aaaa1111-dirty"}, "measured on a tree with uncommitted changes"),
    ({"clean": "false"}, "measured on a tree with uncommitted changes"),
    ({"commit": ""}, "the file records no commit"),
    ({"commit": "unknown-dirty"}, "the file records no commit"),
])
def test_what_cannot_be_shown_unchanged_is_stale(tmp_path, kwargs, why):
    now = fp(BUILD)
    args = {"record": record_of(now), **kwargs}
    path = sweep(tmp_path / "x100.json", **args)
    out = fingerprint.stale(path, now)
    assert sorted(out) == [0, 16, 17] and {s.why for s in out.values()} == {why}


def test_fingerprints_of_another_toolchain_compare_as_stale(tmp_path):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD, toolchain=dict(TOOLCHAIN, cxx="GCC: 14.1"))))
    out = fingerprint.stale(path, fp(BUILD))
    assert "another toolchain" in out[17].why and "GCC: 14.1" in out[17].why


def test_rows_merged_from_another_run_go_by_their_own_commit(tmp_path):
    now = fp(BUILD)
    rows = [row(16, "16_last_wave_cut", 4096, 51798.0, 100.4),
            row(17, "17_any_layout", 4096, 52600.0, 101.9, sgemm_ladder_git="bbbb2222", sgemm_ladder_clean="true")]
    path = sweep(tmp_path / "x100.json", rows=rows)  # the file's own commit has no record
    doc = json.loads(path.read_text())
    doc["fingerprints"] = {"bbbb2222": record_of(now, "bbbb2222" * 5)}
    path.write_text(json.dumps(doc))
    out = fingerprint.stale(path, now)
    assert list(out) == [16] and out[16].why == "no fingerprint recorded"
    assert results.load(path).commit_of(17) == "bbbb2222" and results.load(path).commit_of(16) == "aaaa1111"


def test_the_sass_report_depends_on_the_kernels_alone(tmp_path):
    path = tmp_path / "x100_sass.json"
    now = fp(BUILD)
    path.write_text(json.dumps({"tool": "sass_report", "sgemm_ladder_git": "aaaa1111", "sgemm_ladder_clean": "true",
                                "rungs": [{"rung": 17, "counts": {}}], "fingerprints": {"aaaa1111": record_of(now)}}))
    assert fingerprint.stale(path, fp({**BUILD, 17: (BUILD[17][0], "beef" * 4)})) == {}
    assert list(fingerprint.stale(path, fp({**BUILD, 17: ("feed" * 4, BUILD[17][1])}))) == [17]


def ncu_profile(path: Path, fingerprint16: str) -> Path:
    """An ncu_profile CSV of rungs 17 (with the build's fingerprint) and 16 (with `fingerprint16`)."""
    cur = fp(BUILD).of(17)
    path.write_text("rung,slug,M,sgemm_ladder_git,sgemm_ladder_clean,fingerprint\n"
                    f"17,17_any_layout,4096,aaaa1111,true,{cur['sass']}:{cur['host']}:{cur['api']}\n"
                    f"16,16_last_wave_cut,4096,aaaa1111,true,{fingerprint16}\n")
    return path


def test_an_ncu_profile_keeps_commit_and_fingerprint_per_row(tmp_path):
    now = fp(BUILD)
    path = ncu_profile(tmp_path / "x100_ncu.csv", "")
    out = fingerprint.stale(path, now)
    assert list(out) == [16] and out[16].why == "no fingerprint recorded"
    assert results.load_ncu(path)[17]["sgemm_ladder_git"] == "aaaa1111"  # a text column, not a number


# ----------------------------------------------------------------------------------------------
# The sources: what staleness is told against, the same in every checkout and on every machine


def test_the_sources_key_leaves_comments_and_indentation_out_and_nothing_else(tmp_path):
    (tmp_path / "kernels").mkdir()
    (tmp_path / "CMakeLists.txt").write_text("project(x)\n")
    cuh = tmp_path / "kernels" / "a.cuh"
    cuh.write_text('// a rung\nint a = 1; /* one\nor two */\nconst char* s = "// not a comment";\n')
    key = fingerprint.source_key(tmp_path)
    cuh.write_text('// the rung, said otherwise\n    int a = 1;   /* three\nfour */\nconst char* s = "// not a comment";\n')
    assert fingerprint.source_key(tmp_path) == key  # comments and indentation: the same code
    for code in ('// a rung\nint a = 2; /* one\nor two */\nconst char* s = "// not a comment";\n',
                 '// a rung\nint a = 1; /* one or two */\nconst char* s = "// not a comment";\n',  # a line moved
                 '// a rung\nint a = 1; /* one\nor two */\nconst char* s = "// not a comment!";\n'):
        cuh.write_text(code)
        assert fingerprint.source_key(tmp_path) != key, code
    cuh.write_text('// a rung\nint a = 1; /* one\nor two */\nconst char* s = "// not a comment";\n')
    assert fingerprint.source_key(tmp_path) == key
    (tmp_path / "CMakeLists.txt").write_text("project(x) # a flag changed\n")  # not C: every byte counts
    assert fingerprint.source_key(tmp_path) != key


def test_uncommented_keeps_literals_whole_and_every_line():
    text = 'a = "/* x */"; // y\nb = \'/\'; /* z\n z */ c;\n'
    assert fingerprint.uncommented(text) == 'a = "/* x */";\nb = \'/\';\nc;\n'


def sources(key: str = "5" * 16) -> fingerprint.Sources:
    return fingerprint.Sources(key)


def test_the_sources_tell_what_stamp_compared_with_their_build(tmp_path):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    assert {s.why for s in fingerprint.stale(path, sources()).values()} == {
        "not compared with a build of the current sources (they changed after `python3 tools/fingerprint.py "
        "stamp` last ran on this file)"}
    changed = fp({**BUILD, 17: ("feed" * 4, BUILD[17][1])})  # the build of the current sources: rung 17's kernels moved
    done, refused, seen = fingerprint.stamp_file(path, changed, tmp_path, sources())
    assert done == [] and seen == ["aaaa1111"]  # not a checkout: nothing stamped, the record compared
    out = fingerprint.stale(path, sources())
    assert list(out) == [17] and out[17].why == "changed since: its kernels"
    assert sorted(fingerprint.stale(path, sources("6" * 16))) == [0, 16, 17]  # the sources changed since
    fingerprint.stamp_file(path, fp(BUILD), tmp_path, sources("6" * 16))  # and built to the same code
    assert fingerprint.stale(path, sources("6" * 16)) == {}


def test_a_record_compared_with_a_build_of_another_toolchain_stays_stale(tmp_path):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD, toolchain=dict(TOOLCHAIN, cxx="GCC: 14.1"))))
    fingerprint.stamp_file(path, fp(BUILD), tmp_path, sources())
    assert {s.why for s in fingerprint.stale(path, sources()).values()} == {
        "compared only with a build of another toolchain"}


def test_an_ncu_profile_row_is_compared_too(tmp_path):
    now = fp(BUILD)
    cur = now.of(17)
    path = ncu_profile(tmp_path / "x100_ncu.csv", f"{cur['sass']}:{cur['host']}:{cur['api']}")  # 17's, not 16's
    fingerprint.stamp_file(path, now, tmp_path, sources())
    out = fingerprint.stale(path, sources())
    assert list(out) == [16] and out[16].why == "changed since: its kernels and its host code"
    assert results.load_ncu(path)[17]["source"] == "5" * 16 + ":"  # a text column


def test_docs_marks_by_the_sources(tmp_path, marks):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    fingerprint.stamp_file(path, fp({**BUILD, 17: ("feed" * 4, BUILD[17][1])}), tmp_path, sources())
    marks(sources())
    text = docs.readme_block(RUNGS, {"x100": results.load(path)})
    assert "52,455†" in text and "| 51,798 |" in text
    assert "† `bench/results/x100.json`, rung 17 (measured at `aaaa1111`): changed since: its kernels." in text


def test_row_paths():
    assert fingerprint.row_paths({"M": 4096, "N": 4096, "K": 4096, "layout": "nn"}) == ()
    assert fingerprint.row_paths({"M": 4096, "N": 4096, "K": 4096, "layout": "tn"}) == ("general",)
    assert fingerprint.row_paths({"M": 8, "N": 8, "K": 8, "batch": 4}) == ("general",)
    assert fingerprint.row_paths({"M": 4096, "N": 4096, "K": 4095}) == ("packed",)  # dense A: lda = K
    assert fingerprint.row_paths({"M": 64, "N": 64, "K": 64, "lda": 4097, "ldb": 64, "ldc": 64}) == ("packed",)


# ----------------------------------------------------------------------------------------------
# The marks tools/docs.py prints


RUNGS = [SimpleNamespace(id=0, slug="00_cublas", title="cuBLAS", track="baseline", builds_on=None, capstone=False,
                         fp32_accurate=True, source="baseline/00_cublas.cuh", arch="", kernel=""),
         SimpleNamespace(id=16, slug="16_last_wave_cut", title="Cut", track="cuda-core", builds_on=None,
                         capstone=False, fp32_accurate=True, source="ffma/16_last_wave_cut.cuh", arch="sm_80",
                         kernel="sgemm_16"),
         SimpleNamespace(id=17, slug="17_any_layout", title="Any layout", track="cuda-core", builds_on=16,
                         capstone=True, fp32_accurate=True, source="ffma/17_any_layout.cuh", arch="sm_80",
                         kernel="sgemm_17")]


@pytest.fixture
def marks(monkeypatch):
    def use(now):
        monkeypatch.setattr(docs, "STALENESS", docs.Staleness(now))
    yield use


def test_docs_marks_the_figures_of_a_stale_rung_and_explains_once(tmp_path, marks):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    marks(fp({**BUILD, 17: ("feed" * 4, BUILD[17][1])}))  # rung 17's kernels changed since
    text = docs.readme_block(RUNGS, {"x100": results.load(path)})
    assert "| 17 | [Any layout](docs/rungs/17_any_layout.md) | 52,455† | 101.5 [101.4, 101.6]† | 101.5† |" in text
    assert "| 16 | [Cut](docs/rungs/16_last_wave_cut.md) | 51,798 | 100.4 [100.3, 100.5] | 100.4 |" in text
    assert "101.5 [101.4, 101.6]% of cuBLAS† at 4096³" in text  # the headline
    assert text.count("† `bench/results/x100.json`, rung 17 (measured at `aaaa1111`): changed since: its kernels.") == 1
    assert text.count("† Stale until measured again") == 1


def test_docs_prints_no_mark_where_nothing_is_stale(tmp_path, marks):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    marks(fp(BUILD))
    text = docs.readme_block(RUNGS, {"x100": results.load(path)})
    assert "†" not in text and "| 52,455 |" in text


def test_a_page_marks_the_rung_and_its_predecessor_where_each_is_stale(tmp_path, marks, monkeypatch):
    monkeypatch.setenv("SGEMM_RESULTS_DIR", str(tmp_path))
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    marks(fp({**BUILD, 16: (BUILD[16][0], "beef" * 4)}))  # rung 16's host code changed since
    page = docs.page_block(RUNGS[2], {r.id: r for r in RUNGS}, {"x100": results.load(path)})
    assert "| 4096³ | 52,455 | 101.5 [101.4, 101.6] | 100.4 [100.3, 100.5]† | +1.1† |" in page
    assert "† `bench/results/x100.json`, rung 16 (measured at `aaaa1111`): changed since: its host code." in page


def test_a_stale_figure_printed_without_its_mark_fails_the_check(tmp_path, marks, monkeypatch, capsys):
    """What the ctest docs.current runs (tools/docs.py --check): the committed part, printed before
    rung 17 changed, no longer equals the part generated now, which marks rung 17's figures."""
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    marks(fp(BUILD))
    readme = tmp_path / "README.md"
    readme.write_text("intro\n" + docs.readme_block(RUNGS, {"x100": results.load(path)}) + "\n")
    changed = fp({**BUILD, 17: ("feed" * 4, BUILD[17][1])})
    monkeypatch.setattr(docs, "REPO", tmp_path)  # where the message names files from
    monkeypatch.setattr(docs, "staleness", lambda: None)
    monkeypatch.setattr(docs, "prose_errors", lambda rungs: [])
    monkeypatch.setattr(docs, "stale_figures", lambda folder=None: {})
    monkeypatch.setattr(docs, "targets", lambda: {readme: "intro\n" + docs.readme_block(RUNGS, {"x100": results.load(path)}) + "\n"})
    assert docs.main(["--check"]) == 0  # the same code: the committed part is current
    marks(changed)
    assert docs.main(["--check"]) == 1
    assert "stale: " in capsys.readouterr().err


def test_without_the_builds_fingerprints_the_marks_are_left_as_they_are(tmp_path, marks):
    path = sweep(tmp_path / "x100.json", record=record_of(fp(BUILD)))
    marks(fp({**BUILD, 17: ("feed" * 4, BUILD[17][1])}))
    marked_text = docs.readme_block(RUNGS, {"x100": results.load(path)})
    marks(None)
    plain = docs.readme_block(RUNGS, {"x100": results.load(path)})
    assert "†" in marked_text and "†" not in plain
    assert docs.strip_marks(marked_text) == plain


# ----------------------------------------------------------------------------------------------
# The commit of a tree, and of a copy of it without its history


def git(cwd, *args):
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("no git")
    root = tmp_path / "repo"
    (root / "kernels").mkdir(parents=True)
    (root / "bench" / "results").mkdir(parents=True)
    (root / "kernels" / "a.cuh").write_text("// a rung\nint a;\n")
    (root / "bench" / "results" / "x100.json").write_text("{}\n")
    git(root, "init", "-q")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one")
    return root


def copy_without_history(root: Path, to: Path) -> Path:
    shutil.copytree(root, to, ignore=shutil.ignore_patterns(".git"))
    return to


def test_git_answers_in_a_checkout_and_results_files_do_not_make_it_dirty(repo):
    head = git(repo, "rev-parse", "HEAD")
    assert tree_stamp.answer(repo, env={})["commit"] == head and tree_stamp.answer(repo, env={})["clean"] is True
    (repo / "bench" / "results" / "x100.json").write_text('{"new": 1}\n')
    assert tree_stamp.answer(repo, env={})["clean"] is True
    (repo / "kernels" / "a.cuh").write_text("int a = 1;\n")
    a = tree_stamp.answer(repo, env={})
    assert a["clean"] is False and a["describe"].endswith("-dirty")


def test_a_copy_without_history_answers_from_its_stamp_while_the_files_match(repo, tmp_path):
    head = git(repo, "rev-parse", "HEAD")
    tree_stamp.write_stamp(repo)
    copy = copy_without_history(repo, tmp_path / "copy")
    a = tree_stamp.answer(copy, env={})
    assert (a["commit"], a["clean"], a["from"]) == (head, True, "stamp")
    assert tree_stamp.context(copy)["sgemm_ladder_clean"] in ("true", "false")
    (copy / "bench" / "results" / "x100.json").write_text('{"measured": 1}\n')  # a results file written there
    assert tree_stamp.answer(copy, env={})["commit"] == head
    (copy / "kernels" / "a.cuh").write_text("int a = 2;\n")
    a = tree_stamp.answer(copy, env={})
    assert (a["commit"], a["describe"], a["clean"]) == ("unknown", "unknown-dirty", False)
    assert "kernels/a.cuh" in a["why"]


def test_a_copy_with_an_older_history_answers_from_its_stamp_while_the_files_match(repo):
    # A GPU machine's copy may carry the .git of an older snapshot: its files are the stamped commit's.
    (repo / "kernels" / "a.cuh").write_text("int a = 3;\n")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "two")
    two = git(repo, "rev-parse", "HEAD")
    tree_stamp.write_stamp(repo)
    git(repo, "reset", "-q", "--soft", "HEAD~1")  # the history one commit older than the files
    a = tree_stamp.answer(repo, env={})
    assert (a["commit"], a["clean"], a["from"]) == (two, True, "stamp")
    (repo / "kernels" / "a.cuh").write_text("int a = 4;\n")  # and once the files no longer match: git's dirty
    a = tree_stamp.answer(repo, env={})
    assert (a["clean"], a["from"]) == (False, "git")


def test_a_copy_without_stamp_is_unknown_and_the_variable_overrides(repo, tmp_path):
    copy = copy_without_history(repo, tmp_path / "copy")
    assert tree_stamp.answer(copy, env={})["describe"] == "unknown"
    a = tree_stamp.answer(copy, env={"SGEMM_LADDER_GIT_DESCRIBE": "abc1234"})
    assert (a["describe"], a["from"]) == ("abc1234", "SGEMM_LADDER_GIT_DESCRIBE")


def test_the_build_records_the_stamps_commit(repo, tmp_path):
    """cmake/GitVersion.cmake on a copy without history: the header names the stamp's commit."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake")
    tools = Path(tree_stamp.__file__).resolve().parent
    (repo / "tools").mkdir()
    shutil.copy(tools / "tree_stamp.py", repo / "tools")
    git(repo, "add", "tools")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "tools")
    head = git(repo, "rev-parse", "HEAD")
    tree_stamp.write_stamp(repo)
    copy = copy_without_history(repo, tmp_path / "copy")
    out = tmp_path / "git_version.h"
    subprocess.run([cmake, f"-DPYTHON={shutil.which('python3')}", f"-DSRC={copy}", f"-DOUT={out}", "-P",
                    str(tools.parent / "cmake" / "GitVersion.cmake")], check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin"})
    header = out.read_text()
    assert f'#define SGEMM_LADDER_COMMIT "{head}"' in header and '#define SGEMM_LADDER_CLEAN "true"' in header
    assert '#define SGEMM_LADDER_COMMIT_FROM "stamp"' in header


def test_stamping_needs_the_builds_tree_at_the_commit_or_the_same_library_inputs(repo):
    first = git(repo, "rev-parse", "HEAD")
    assert fingerprint.stampable(repo, first[:8]) is None
    (repo / "README.md").write_text("docs only\n")
    git(repo, "add", "README.md")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "docs")
    assert fingerprint.stampable(repo, first[:8]) is None  # nothing the library is built from changed
    (repo / "kernels" / "a.cuh").write_text("int a = 3;\n")
    assert "uncommitted changes" in fingerprint.stampable(repo, first[:8])
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "code")
    assert "differs from it in the library's inputs" in fingerprint.stampable(repo, first[:8])
    assert "dirty" in fingerprint.stampable(repo, first[:8] + "-dirty") or "uncommitted" in fingerprint.stampable(
        repo, first[:8] + "-dirty")


# ----------------------------------------------------------------------------------------------
# Measuring the stale rows again


def test_the_refresh_command_is_the_files_own_with_only_the_stale_rungs(tmp_path):
    doc = json.loads(sweep(tmp_path / "x100.json").read_text())
    doc["context"]["command"] = "sgemm_bench --kernel 0,16,17 --sizes 4096 --json /root/out/x.json --min-time 0.1"
    assert refresh_results.command_for(doc, [16, 17], "bench") == [
        "bench", "--kernel", "16,17", "--sizes", "4096", "--min-time", "0.1"]
    doc["context"]["command"] = "tools/moduli_sweep.py --json x"
    with pytest.raises(refresh_results.RefreshError, match="not sgemm_bench"):
        refresh_results.command_for(doc, [31], "bench")


def test_merging_replaces_the_rungs_rows_in_place_with_their_commit(tmp_path):
    old = json.loads(sweep(tmp_path / "x100.json").read_text())
    new = {"context": {"gpu_name": "NVIDIA X100", "sgemm_ladder_git": "bbbb2222", "sgemm_ladder_commit": "bbbb2222" * 5,
                       "sgemm_ladder_clean": "true", "sgemm_ladder_commit_from": "stamp", "command": "sgemm_bench ..."},
           "benchmarks": [row(17, "17_any_layout", 4096, 52700.0, 102.0)]}
    merged = refresh_results.merge(old, new, [17])
    names = [(b["rung"], b["GFLOPS"], b.get("sgemm_ladder_git")) for b in merged["benchmarks"]]
    assert names == [(0, 51000.0, None), (16, 51798.0, None), (17, 52700.0, "bbbb2222")]
    assert merged["merged"][-1]["rungs"] == [17] and merged["merged"][-1]["commit"] == "bbbb2222"
    assert merged["context"] == old["context"]  # the file's own run keeps its context
    with pytest.raises(refresh_results.RefreshError, match="no rows of rung"):
        refresh_results.merge(old, new, [16, 17])
    new["context"]["gpu_name"] = "NVIDIA Y200"
    with pytest.raises(refresh_results.RefreshError, match="not merged"):
        refresh_results.merge(old, new, [17])


# ----------------------------------------------------------------------------------------------
# Pieces of the fingerprint


def test_a_units_rung_is_the_rung_files_stem_or_a_unit_named_after_it():
    stems = {"17_any_layout": 17, "30_auto": 30, "01_naive": 1}
    assert fingerprint.unit_rung("30_auto", stems) == 30
    assert fingerprint.unit_rung("30_auto_nt", stems) == 30
    assert fingerprint.unit_rung("general", stems) is None


def test_nv_info_records_lose_their_symbol_indices_only():
    # EIFMT_SVAL PARAM_CBANK (0x0a): symbol index 7, then offset and size; EIFMT_HVAL MAXREG (0x1b): 255
    a = bytes([0x04, 0x0A, 8, 0]) + (7).to_bytes(4, "little") + bytes([0x10, 0, 0x78, 0]) + bytes([0x03, 0x1B, 255, 0])
    b = bytes([0x04, 0x0A, 8, 0]) + (9).to_bytes(4, "little") + bytes([0x10, 0, 0x78, 0]) + bytes([0x03, 0x1B, 255, 0])
    assert fingerprint.nvinfo(a) == fingerprint.nvinfo(b) == "0a:0000000010007800 1b:ff00"
    c = bytes([0x03, 0x1B, 128, 0])
    assert fingerprint.nvinfo(c) != fingerprint.nvinfo(bytes([0x03, 0x1B, 255, 0]))


@pytest.mark.parametrize("insn, width", [
    ("movss (%rip),%xmm0", 4), ("movsd (%rip),%xmm1", 8), ("mulsd (%rip),%xmm2", 8), ("movaps (%rip),%xmm0", 16),
    ("mov (%rip),%rax", 8), ("mov (%rip),%eax", 4), ("cmpl $0x0,(%rip)", 4), ("lea (%rip),%rdi", 8),
])
def test_the_width_of_a_constant_load(insn, width):
    assert fingerprint.load_width(insn) == width


def test_run_measures_with_the_files_command_and_merges(tmp_path):
    """--run end to end, with a stand-in for sgemm_bench that writes rows for the rungs it is given."""
    path = sweep(tmp_path / "x100.json")
    fake = tmp_path / "sgemm_bench"
    fake.write_text(f"""#!{shutil.which('python3')}
import json, sys
args = sys.argv[1:]
out, kernels = args[args.index("--json") + 1], args[args.index("--kernel") + 1].split(",")
assert "--sizes" in args and args[args.index("--sizes") + 1] == "4096", args  # the file's own options
rows = []
for k in kernels:
    name = "rung%02d_x/4096x4096x4096/iterations:1/manual_time" % int(k)
    rows.append({{"name": name, "run_name": name, "rung": int(k), "M": 4096, "N": 4096, "K": 4096, "GFLOPS": 1.0}})
ctx = {{"gpu_name": "NVIDIA X100", "sgemm_ladder_git": "cccc3333", "sgemm_ladder_commit": "cccc3333" * 5,
        "sgemm_ladder_clean": "true", "sgemm_ladder_commit_from": "stamp", "command": " ".join(["sgemm_bench"] + args)}}
json.dump({{"context": ctx, "benchmarks": rows}}, open(out, "w"))
""")
    fake.chmod(0o755)
    assert refresh_results.main([str(path), "--rungs", "17", "--run", "--bench", str(fake)]) == 0
    doc = json.loads(path.read_text())
    assert [(b["rung"], b.get("sgemm_ladder_git")) for b in doc["benchmarks"]] == [(0, None), (16, None), (17, "cccc3333")]
    assert doc["merged"][0]["commit"] == "cccc3333" and doc["merged"][0]["rungs"] == [17]


def test_a_units_anonymous_namespace_hash_is_not_part_of_a_name():
    # nvcc names a unit's anonymous namespace after its path: a clone in another folder is the same code.
    here = "__device_stub__ZN5sgemm39_GLOBAL__N__aae3650b_7_pack_cu_20d95eb711repack_rowsILb0EEEv"
    there = "__device_stub__ZN5sgemm39_GLOBAL__N__e702e673_7_pack_cu_20d95eb711repack_rowsILb0EEEv"
    assert fingerprint.unpathed(here) == fingerprint.unpathed(there) != here
    assert len(fingerprint.unpathed(here)) == len(here)  # the mangled name's lengths stay true


@pytest.mark.skipif(shutil.which("ninja") is None, reason="no ninja")
def test_stamp_compares_only_with_a_build_current_with_its_sources(tmp_path):
    """fingerprint.outdated_input: a library Ninja built, then a header it includes edited, or the
    build's configuration: the build cannot vouch for the sources until built again."""
    import os
    import time
    src, build = tmp_path / "src", tmp_path / "build"
    (src / "kernels").mkdir(parents=True)
    (build / "kernels").mkdir(parents=True)
    (src / "CMakeLists.txt").write_text("project(x)\n")
    (src / "kernels" / "a.cu").write_text('#include "a.cuh"\n')
    (src / "kernels" / "a.cuh").write_text("int a;\n")
    (build / "CMakeCache.txt").write_text("")
    (build / "build.ninja").write_text(
        "rule cc\n  command = printf '%s: %s %s\\n' $out $in " + str(src / "kernels" / "a.cuh") + " > $out.d && touch $out\n"
        "  depfile = $out.d\n  deps = gcc\n"
        "rule link\n  command = touch $out\n"
        f"build kernels/a.o: cc {src / 'kernels' / 'a.cu'}\n"
        "build kernels/lib.so: link kernels/a.o\n")
    files = ["CMakeLists.txt", "kernels/a.cu", "kernels/a.cuh"]
    later = time.time() + 5  # inputs edited after the build, whatever the file system's clock grain

    def build_it():
        subprocess.run(["ninja", "-C", str(build)], check=True, capture_output=True)
        os.utime(build / "build.ninja", (later - 10, later - 10))
        for f in files:
            os.utime(src / f, (later - 20, later - 20))
        os.utime(build / "kernels" / "a.o", (later - 5, later - 5))
        os.utime(build / "kernels" / "lib.so", (later - 4, later - 4))

    build_it()
    lib = build / "kernels" / "lib.so"
    assert fingerprint.outdated_input(lib, src, files) is None
    os.utime(src / "kernels" / "a.cuh", (later, later))
    assert "a.cuh is newer than kernels/a.o" in fingerprint.outdated_input(lib, src, files)
    build_it()
    os.utime(src / "CMakeLists.txt", (later, later))
    assert "newer than the build's configuration" in fingerprint.outdated_input(lib, src, files)
    build_it()
    os.utime(build / "kernels" / "a.o", (later, later))
    assert "newer than the library" in fingerprint.outdated_input(lib, src, files)
