"""sass_report: opcode normalisation, the cuobjdump parser on committed real SASS, the CLI."""
import json
import os
import stat
import sys

import pytest

import sass_report as sr
import sgemm_tools_common as common


@pytest.mark.parametrize("opcode, predicate, category", [
    ("FFMA", None, "FFMA"),
    ("FFMA.FTZ", None, "FFMA"),
    ("FFMA.RZ.FTZ.SAT", "@P0", "FFMA"),
    ("FFMA32I", None, "FFMA"),
    ("FMUL", None, "FMUL"),
    ("FMUL32I.FTZ", None, "FMUL"),
    ("FADD.FTZ", None, "FADD"),
    ("LDG.E", None, "LDG.E"),
    ("LDG.E.U8", None, "LDG.E"),
    ("LDG.E.64", None, "LDG.E.64"),
    ("LDG.E.64.SYS", None, "LDG.E.64"),
    ("LDG.E.128", "@!P1", "LDG.E.128"),
    ("LDG.E.128.CONSTANT", None, "LDG.E.128"),
    ("LDG.E.LTC128B.128", None, "LDG.E.128"),
    ("LDG.E.LTC128B", None, "LDG.E"),  # an L2 prefetch hint, not a 128-bit access
    ("LDS", None, "LDS"),
    ("LDS.U.64", None, "LDS.64"),
    ("LDS.U.128", None, "LDS.128"),
    ("LDS.128", None, "LDS.128"),
    ("STS", None, "STS"),
    ("STS.64", None, "STS.64"),
    ("STS.128", None, "STS.128"),
    ("STG.E", None, "STG.E"),
    ("STG.E.64", None, "STG.E.64"),
    ("STG.E.128", "@P2", "STG.E.128"),
    ("LDGSTS.E.BYPASS.128.ZFILL", None, "LDGSTS"),
    ("LDGSTS.E.LTC128B", None, "LDGSTS"),
    ("BAR.SYNC.DEFER_BLOCKING", None, "BAR"),
    ("BAR.SYNC", None, "BAR"),
    ("LDL.LU", None, "LDL"),
    ("STL.64", None, "STL"),
    ("BRA", "@P0", "branch"),
    ("BRA.DIV", None, "branch"),
    ("EXIT", None, "branch"),
    ("RET.REL.NODEC", None, "branch"),
    ("CALL.REL.NOINC", None, "branch"),
    ("BSSY", None, "branch"),
    ("IMAD.WIDE.U32", None, "other"),
    ("LDGDEPBAR", None, "other"),
    ("LDSM.16.M88.4", None, "other"),
    ("NOP", None, "NOP"),
    ("LDS", "@!PT", "NOP"),  # `@!PT LDS RZ, [RZ]`: never executed
])
def test_categorize(opcode, predicate, category):
    assert sr.categorize(opcode, predicate) == category


@pytest.mark.parametrize("text, pred, opcode", [
    ("@!P0 LDG.E.128.CONSTANT R4, desc[UR6][R2.64]", "@!P0", "LDG.E.128.CONSTANT"),
    ("@P1 BRA `(.L_x_3)", "@P1", "BRA"),
    ("@UP0 UMOV UR4, 0x1", "@UP0", "UMOV"),
    ("@!PT LDS RZ, [RZ]", "@!PT", "LDS"),
    ("  FFMA R1, R2, R3, R1  ", None, "FFMA"),
    ("EXIT", None, "EXIT"),
    ("NOP", None, "NOP"),
])
def test_split_instruction(text, pred, opcode):
    assert sr.split_instruction(text) == (pred, opcode)


SNIPPET = """
Fatbin elf code:
================
arch = sm_90
code version = [1,8]

Resource usage:
 Common:
  GLOBAL:0
 Function _ZN5sgemm6rung0913sgemm_09_fakeEv:
  REG:40 STACK:16 SHARED:1024 LOCAL:8 CONSTANT[0]:588 TEXTURE:0 SURFACE:0 SAMPLER:0

\tcode for sm_90
\t\tFunction : _ZN5sgemm6rung0913sgemm_09_fakeEv
\t.headerflags\t@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                     /* 0x00000a00ff017b82 */
                                                                              /* 0x000fe20000000800 */
        /*0010*/              @!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;  /* 0x0000000402047981 */
                                                                              /* 0x000ea2000c1e9d00 */
        /*0020*/                   FFMA.FTZ R1, R4, R5, R1 ;
        /*0030*/                   FFMA R1, R6, R7, R1 ;
.L_x_0:
        /*0040*/                   STL [R1], R2 ;
        /*0050*/                   LDL R2, [R1] ;
        /*0060*/                   LDS.U.128 R8, [R0] ;
        /*0070*/               @P0 BRA `(.L_x_0) ;
        /*0080*/                   EXIT ;
        /*0090*/                   BRA 0x90;
        /*00a0*/                   NOP;
\t\t..........
"""


def test_parse_snippet_with_encodings_labels_and_resources():
    (f,) = sr.parse_sass(SNIPPET.splitlines())
    assert f.arch == "sm_90"
    assert f.resources["REG"] == 40 and f.resources["LOCAL"] == 8 and f.resources["STACK"] == 16
    e = sr.rung_entry(f, f.name)
    assert e["rung"] == 9 and e["slug"] == "09_fake"
    assert (e["registers"], e["shared_bytes"], e["local_bytes"], e["stack_bytes"]) == (40, 1024, 8, 16)
    c = e["counts"]
    assert (c["FFMA"], c["LDG.E.128"], c["LDS.128"], c["LDL"], c["STL"], c["branch"], c["NOP"], c["other"]) == \
        (2, 1, 1, 1, 1, 3, 1, 1)
    assert e["total"] == 10  # 11 instructions, the NOP left out
    assert e["ffma_share"] == pytest.approx(0.2)
    assert set(c) == set(sr.CATEGORIES)


def test_verbatim_sample_rungs_1_to_3(data_dir):
    with open(data_dir / "sample.sass") as f:
        lines = f.readlines()
    report = sr.build_report(lines, "sample.sass", None)
    by = {r["rung"]: r for r in report["rungs"]}
    assert sorted(by) == [1, 2, 3] and report["gpu_arch"] == "sm_90"
    # every instruction line is counted once; the encoding lines below them are not
    n_insns = sum(1 for ln in lines if sr._INSN_RE.match(ln))
    assert n_insns == sum(sum(r["counts"].values()) for r in report["rungs"])
    for r in by.values():
        assert r["registers"] == 32 and r["local_bytes"] == 0
    assert by[1]["counts"]["FFMA"] > 0 and by[1]["counts"]["LDG.E"] > 0
    assert by[1]["counts"]["LDS"] == 0 and by[1]["counts"]["BAR"] == 0 and by[1]["shared_bytes"] == 0
    # rung 3 tiles through shared memory: barriers, shared loads and stores appear
    assert by[3]["counts"]["BAR"] > 0 and by[3]["counts"]["STS"] > 0
    assert by[3]["counts"]["LDS"] + by[3]["counts"]["LDS.128"] > 0
    assert by[3]["shared_bytes"] == 9216  # 2 tiles of 32x32 floats + the 1 KiB the system reserves on sm_90
    assert by[3]["ffma_share"] > by[1]["ffma_share"]


def test_all_rungs_sample_facts(sample_all_report):
    by = {r["rung"]: r for r in sample_all_report["rungs"]}
    assert sorted(by) == list(range(1, 11))  # the api.cu helper kernel is not a rung; cuBLAS has none
    c = {n: r["counts"] for n, r in by.items()}
    # rung 6 is the first with 128-bit global loads and 128-bit shared stores
    assert all(c[n]["LDG.E.128"] == 0 and c[n]["STS.128"] == 0 for n in range(1, 6))
    assert c[6]["LDG.E.128"] > 0 and c[6]["STS.128"] > 0
    # ... while the compiler already merged rung 5's register-tile shared loads into LDS.128
    assert c[5]["LDS.128"] > 0 and c[5]["LDS"] == 0
    # rung 10 copies global -> shared with cp.async (LDGSTS) and stores nothing to shared itself
    assert c[10]["LDGSTS"] > 0 and all(c[n]["LDGSTS"] == 0 for n in range(1, 10))
    assert c[10]["STS"] == c[10]["STS.128"] == 0
    assert c[10]["LDS"] == 0  # its `@!PT LDS RZ, [RZ]` placeholders are not counted as loads
    assert c[10]["NOP"] > 0
    # no rung spills
    assert all(r["local_bytes"] == 0 and r["counts"]["LDL"] == 0 and r["counts"]["STL"] == 0 for r in by.values())
    assert by[10]["registers"] > by[9]["registers"]
    assert by[7]["slug"] == "07_bank_conflict_free"
    assert "sgemm_07_bank_conflict_free" in by[7]["function"]


def test_json_schema(sample_all_report):
    doc = json.loads(json.dumps(sample_all_report))
    assert set(doc) == {"tool", "lib", "cuobjdump_version", "gpu_arch", "rungs"}
    assert doc["tool"] == "sass_report" and doc["gpu_arch"] == "sm_90"
    for r in doc["rungs"]:
        assert set(r) - {"other_kernels"} == {"rung", "slug", "function", "registers", "shared_bytes",
                                              "local_bytes", "stack_bytes", "counts", "total", "ffma_share"}
        assert r["total"] == sum(v for k, v in r["counts"].items() if k not in sr.NOT_IN_TOTAL)
        assert 0 < r["ffma_share"] < 1


def test_arch_choice(data_dir):
    lines = SNIPPET.splitlines() + [ln.replace("sm_90", "sm_80").replace("REG:40", "REG:50")
                                    for ln in SNIPPET.splitlines()]
    assert sr.build_report(lines, "x", None)["rungs"][0]["registers"] == 40  # newest by default
    assert sr.build_report(lines, "x", None, "sm_80")["rungs"][0]["registers"] == 50
    with pytest.raises(common.UsageError):
        sr.build_report(lines, "x", None, "sm_100")


def test_cli_kernel_all_diff_json(data_dir, tmp_path, capsys):
    sample = str(data_dir / "sample_all.sass.gz")
    assert sr.main(["--kernel", "10", "--sass-file", sample]) == 0
    out = capsys.readouterr().out
    assert "rung 10: 10_double_buffering" in out and "LDGSTS" in out
    assert sr.main(["--diff", "5", "6", "--sass-file", sample]) == 0
    out = capsys.readouterr().out
    assert "LDG.E.128" in out and "+40" in out and "FFMA share" in out
    out_json = tmp_path / "sub" / "sass.json"
    assert sr.main(["--all", "--sass-file", sample, "--json", str(out_json)]) == 0
    assert "07_bank_conflict_free" in capsys.readouterr().out
    assert len(common.load_sass_json(out_json)["by_rung"]) == 10


@pytest.mark.parametrize("argv", [["--kernel", "0"], ["--kernel", "42"], ["--diff", "1", "99"]])
def test_cli_usage_errors(data_dir, argv, capsys):
    assert common.run_main("sass_report", sr.main, argv + ["--sass-file", str(data_dir / "sample.sass")]) == 2
    assert "rung" in capsys.readouterr().err


def test_cli_missing_sass_file_and_no_mode(tmp_path):
    assert common.run_main("sass_report", sr.main, ["--all", "--sass-file", str(tmp_path / "none")]) == 2
    with pytest.raises(SystemExit) as e:
        sr.main([])
    assert e.value.code == 2


def test_missing_cuobjdump_says_how_to_get_it(data_dir, monkeypatch, capsys):
    monkeypatch.setenv("CUOBJDUMP", "/nonexistent/cuobjdump")
    rc = common.run_main("sass_report", sr.main, ["--all", "--lib", str(data_dir / "sample.sass")])
    err = capsys.readouterr().err
    assert rc == 1
    assert "cuobjdump not found" in err and "pip install nvidia-cuda-cuobjdump" in err and "CUDA Toolkit" in err


def test_missing_library_says_how_to_build_it(tmp_path, capsys):
    assert common.run_main("sass_report", sr.main, ["--all", "--lib", str(tmp_path / "lib.so")]) == 1
    assert "cmake --build" in capsys.readouterr().err


def _fake_cuobjdump(tmp_path, data_dir):
    script = tmp_path / "cuobjdump"
    script.write_text(f"""#!{sys.executable}
import gzip, sys
if "--version" in sys.argv:
    print("cuobjdump: NVIDIA (R) fat binary listing tool")
    print("Cuda compilation tools, release 13.2, V13.2.86")
    sys.exit(0)
assert sys.argv[1:3] == ["-sass", "-res-usage"], sys.argv
sys.stdout.write(gzip.open({str(data_dir / "sample_all.sass.gz")!r}, "rt").read())
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_runs_cuobjdump_once_through_the_cli(data_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CUOBJDUMP", str(_fake_cuobjdump(tmp_path, data_dir)))
    out_json = tmp_path / "s.json"
    lib = tmp_path / "libsgemm_ladder.so"
    lib.write_bytes(b"\x7fELF")
    assert sr.main(["--all", "--lib", str(lib), "--json", str(out_json)]) == 0
    doc = json.loads(out_json.read_text())
    assert doc["cuobjdump_version"] == "13.2.86" and doc["lib"] == str(lib)
    assert [r["rung"] for r in doc["rungs"]] == list(range(1, 11))


def test_real_cuobjdump_on_the_built_library():
    tool = sr.find_cuobjdump()
    if tool is None:
        pytest.skip("cuobjdump not found")
    if not common.DEFAULT_LIB.is_file():
        pytest.skip("library not built (cmake --build --preset release)")
    if sr.find_nvdisasm(tool) is None and not os.environ.get("NVDISASM"):
        pytest.skip("nvdisasm not found")
    lines, version = sr.run_cuobjdump(common.DEFAULT_LIB)
    report = sr.build_report(lines, str(common.DEFAULT_LIB), version)
    rungs = [r["rung"] for r in report["rungs"]]
    assert rungs and rungs[0] == 1 and rungs == sorted(set(rungs))
    assert all(r["counts"]["FFMA"] > 0 for r in report["rungs"])


def test_finds_the_pypi_wheels_in_site_packages(tmp_path, monkeypatch):
    for rel in ("nvidia/cu13/bin/cuobjdump", "nvidia/cu13/bin/nvdisasm"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("#!/bin/sh\n")
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    monkeypatch.delenv("CUOBJDUMP", raising=False)
    monkeypatch.delenv("NVDISASM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sr, "CUDA_BIN_DIRS", (str(tmp_path / "no-cuda"),))
    monkeypatch.setattr(common, "site_package_dirs", lambda: [tmp_path])
    tool = sr.find_cuobjdump()
    assert tool == tmp_path / "nvidia/cu13/bin/cuobjdump"
    assert sr.find_nvdisasm(tool) == tmp_path / "nvidia/cu13/bin/nvdisasm"


def test_ffma_reuse_counts_flagged_operands_and_is_not_an_instruction():
    lines = ["\t\tFunction : _ZN5sgemm6rung1619sgemm_16_ffma_orderILi8ELb0EEEviii",
             "        /*0000*/                   FFMA R7, R132.reuse, R136.reuse, R7 ;",
             "        /*0010*/                   FFMA R11, R132, R137.reuse, R11 ;",
             "        /*0020*/                   LDS.128 R4, [R2] ;"]
    (f,) = sr.parse_sass(lines)
    assert f.counts["FFMA"] == 2 and f.counts["FFMA.reuse"] == 3
    assert sr.rung_entry(f, f.name)["total"] == 3


def test_counterpart_compares_like_template_instances():
    a = {"function": "void k15<64, true>(int)", "other_kernels": [{"function": "void k15<64, false>(int)"}]}
    assert sr.counterpart(a, {"function": "void k16<64, false>(int)"})["function"] == "void k15<64, false>(int)"
    assert sr.counterpart(a, {"function": "void k16<32, false>(int)"}) is a
