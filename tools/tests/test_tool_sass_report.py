"""sass_report: opcode normalisation, the cuobjdump parser on committed real SASS, the kernel of
each rung picked from the registry (the stand-in of conftest.py), the CLI, running cuobjdump as the
tools find it (the lookup's order itself: test_tool_cuobjdump.py), paths relative to the checkout."""
import json
import sys

import pytest

import sass_report as sr
import sgemm_tools_common as common
from cuda_tools_fixture import executable, no_cuda_tools  # noqa: F401  (a fixture)

ALL_RUNGS = list(range(1, 16)) + [21, 22, 23, 30]  # the registry's rungs with kernels of ours


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
    assert sr.rung_of_function(f.name) == 9
    e = sr.kernel_entry(f, f.name)
    assert (e["registers"], e["shared_bytes"], e["local_bytes"], e["stack_bytes"]) == (40, 1024, 8, 16)
    c = e["counts"]
    assert (c["FFMA"], c["LDG.E.128"], c["LDS.128"], c["LDL"], c["STL"], c["branch"], c["NOP"], c["other"]) == \
        (2, 1, 1, 1, 1, 3, 1, 1)
    assert e["total"] == 10  # 11 instructions, the NOP left out
    assert e["ffma_share"] == pytest.approx(0.2)
    assert set(c) == set(sr.CATEGORIES)


def test_verbatim_sample_rungs_1_to_3(data_dir, registry):
    with open(data_dir / "sample.sass") as f:
        lines = f.readlines()
    report = sr.build_report(lines, "sample.sass", None, registry)
    by = {r["rung"]: r for r in report["rungs"]}
    assert sorted(by) == [1, 2, 3] and report["gpu_arch"] == "sm_90"
    # every instruction line is counted once (the encoding lines below them are not); the listing
    # also holds the C ABI's scale_c_kernel, which is no rung
    functions = sr.parse_sass(lines)
    counted = sum(n for f in functions for c, n in f.counts.items() if c != "FFMA.reuse")
    assert sum(1 for ln in lines if sr._INSN_RE.match(ln)) == counted
    assert [sr.rung_of_function(f.name) for f in functions] == [None, 1, 2, 3]
    for r in by.values():
        assert r["registers"] == 32 and r["local_bytes"] == 0
    assert by[1]["counts"]["FFMA"] > 0 and by[1]["counts"]["LDG.E"] > 0
    assert by[1]["counts"]["LDS"] == 0 and by[1]["counts"]["BAR"] == 0 and by[1]["shared_bytes"] == 0
    # rung 3 tiles through shared memory: barriers, shared loads and stores appear
    assert by[3]["counts"]["BAR"] > 0 and by[3]["counts"]["STS"] > 0
    assert by[3]["counts"]["LDS"] + by[3]["counts"]["LDS.128"] > 0
    assert by[3]["shared_bytes"] == 17408  # 32x64 and 64x32 floats + the 1 KiB the system reserves on sm_90
    assert by[3]["ffma_share"] > by[1]["ffma_share"]


def test_all_rungs_sample_facts(sample_all_report):
    by = {r["rung"]: r for r in sample_all_report["rungs"]}
    assert sorted(by) == ALL_RUNGS  # the C ABI's helper is no rung; cuBLAS has none
    c = {n: r["counts"] for n, r in by.items()}
    # rung 6 is the first with 128-bit global loads and 128-bit shared stores
    assert all(c[n]["LDG.E.128"] == 0 and c[n]["STS.128"] == 0 for n in range(1, 6))
    assert c[6]["LDG.E.128"] > 0 and c[6]["STS.128"] > 0
    # ... while the compiler already merged rung 5's register-tile shared loads into LDS.128
    assert c[5]["LDS.128"] > 0 and c[5]["LDS"] == 0
    # rung 10 copies B global -> shared with cp.async (LDGSTS); A is staged through registers
    assert c[10]["LDGSTS"] > 0 and all(c[n]["LDGSTS"] == 0 for n in range(1, 10))
    assert c[10]["STS.128"] == 0 and c[10]["STS"] > 0
    assert c[10]["LDS"] == 0  # its `@!PT LDS RZ, [RZ]` placeholders are not counted as loads
    assert c[10]["NOP"] > 0
    # rung 13 orders its FFMAs for the operand reuse cache: more operands flagged .reuse
    assert c[13]["FFMA.reuse"] > c[12]["FFMA.reuse"] and c[13]["FFMA"] == c[12]["FFMA"]
    # rung 15 stores A as 64-bit pairs
    assert c[14]["STS"] > 0 and c[14]["STS.64"] == 0 and c[15]["STS"] == 0 and c[15]["STS.64"] > 0
    # the tensor-core track: mma.sync (HMMA), three of them per step for 3xTF32, then wgmma (HGMMA)
    assert c[21]["HMMA"] > 0 and c[22]["HMMA"] > c[21]["HMMA"] and c[23]["HGMMA"] > 0
    assert all(c[n]["HMMA"] == c[n]["HGMMA"] == 0 for n in range(1, 16))
    # no rung of the two tracks spills (the dispatch rung's GEMV is another kind of kernel)
    assert all(by[n]["local_bytes"] == 0 and c[n]["LDL"] == 0 and c[n]["STL"] == 0 for n in ALL_RUNGS if n < 30)
    assert by[10]["registers"] > by[9]["registers"]
    assert by[7]["slug"] == "07_bank_conflict_free"
    assert "sgemm_07_bank_conflict_free" in by[7]["function"]


def test_the_registry_picks_the_kernel_that_carries_the_lesson(sample_all_report):
    """Stream-K rungs report their whole-tile kernel (the registry's "sgemm_12_stream_k<true"), not
    the larger kernel that runs the shares; the wgmma rung its GEMM, not its split pre-passes; the
    dispatch rung its GEMV. (The sample keeps the aligned instances only, see data/README.md.)"""
    by = {r["rung"]: r for r in sample_all_report["rungs"]}
    for rung, slug in ((12, "12_stream_k"), (13, "13_register_reuse"), (14, "14_slab_end"),
                       (15, "15_copy_instructions")):
        assert f"sgemm_{slug}<true, sgemm::rung{rung}::Config<64, 256," in by[rung]["function"]
        (shares,) = by[rung]["other_kernels"]
        assert f"sgemm_{slug}_shares<true" in shares["function"] and shares["total"] > by[rung]["total"]
    assert "sgemm_23_wgmma_3xtf32<" in by[23]["function"]
    split = " ".join(k["function"] for k in by[23]["other_kernels"])
    assert len(by[23]["other_kernels"]) == 2 and "split_23_wgmma_3xtf32_a<true>(" in split
    assert "split_23_wgmma_3xtf32_b(" in split
    assert "sgemm_11_split_k_reduce" in " ".join(k["function"] for k in by[11]["other_kernels"])
    assert "other_kernels" not in by[7]
    # the dispatch rung: its largest GEMV, and the instances of rung 15's kernel compiled in its file
    assert "sgemm_30_gemv<8>" in by[30]["function"]
    others = [k["function"] for k in by[30]["other_kernels"]]
    assert sum("sgemm_30_gemv<" in f for f in others) == 3
    assert sum("sgemm::rung15::sgemm_15_copy_instructions" in f for f in others) == 6  # 3 tiles, shares too


def test_kernel_text_found_nowhere_reports_the_largest_with_a_warning(capsys):
    kernels = [{"function": "void k_small<1>(int)", "total": 10}, {"function": "void k_big<1>(int)", "total": 20}]
    assert sr.reported_kernel(kernels, "k_small<", 5)["total"] == 10
    assert sr.reported_kernel(kernels, "", 5)["total"] == 20
    assert capsys.readouterr().err == ""
    assert sr.reported_kernel(kernels, "k_gone<", 5)["total"] == 20
    assert "rung 5: no kernel name contains the registry's `k_gone<`" in capsys.readouterr().err


def test_kernels_of_rungs_the_registry_lacks_are_left_out(registry, capsys):
    report = sr.build_report(SNIPPET.splitlines(), "x", None, [r for r in registry if r.id != 9])
    assert report["rungs"] == [] and "rung 9 is not in the registry" in capsys.readouterr().err


def test_kernels_belong_to_the_rung_file_they_were_compiled_from(registry):
    """cuobjdump's `identifier` names each translation unit; a rung's file is one of its own."""
    dispatch = ["identifier = /build/release/kernels/rungs/30_auto.cu"] + SNIPPET.replace(
        "rung0913sgemm_09_fake", "rung1520sgemm_15_copy_instr").splitlines()
    (entry,) = sr.build_report(dispatch, "x", None, registry)["rungs"]
    assert entry["rung"] == 30 and entry["slug"] == "30_auto"  # not rung 15, whose namespace it is in
    helper = ["identifier = /kernels/api/run.cu"] + SNIPPET.splitlines()
    assert sr.build_report(helper, "x", None, registry)["rungs"] == []  # a unit of no rung


@pytest.mark.parametrize("name, rung", [
    ("_ZN5sgemm6rung0114sgemm_01_naiveEiiifPKfiS2_ifPfi", 1),
    ("_ZN5sgemm6rung1225sgemm_12_stream_k_sharesINS0_6ConfigILi64EEEEEviii", 12),
    ("_ZN5sgemm6rung2323split_23_wgmma_3xtf32_bEiiPKfillPfS3_", 23),
    ("void sgemm::rung12::sgemm_12_stream_k<sgemm::rung12::Config<64> >(int)", 12),
    ("sgemm::rung23::split_23_wgmma_3xtf32_a(int, int, float const*, int, long, long, float*, float*)", 23),
    ("_ZN5sgemm14split_3xtf32_bINS_6rung247PrePassEEEviiPKfillPfS5_", 24),
    ("void sgemm::split_3xtf32_a<sgemm::rung23::PrePass, true>(int, int, float const*, int, long, long, float*, "
     "float*)", 23),
    ("_ZN5sgemm38_GLOBAL__N__2177450a_6_run_cu_a39934a314scale_c_kernelEllfPfl", None),
    ("sgemm::(anonymous namespace)::scale_c_kernel(long, long, float, float*, long)", None),
])
def test_rung_of_function(name, rung):
    assert sr.rung_of_function(name) == rung


def test_json_schema(sample_all_report):
    doc = json.loads(json.dumps(sample_all_report))
    assert set(doc) == {"tool", "lib", "cuobjdump_version", "gpu_arch", "rungs"}
    assert doc["tool"] == "sass_report" and doc["gpu_arch"] == "sm_90"
    for r in doc["rungs"]:
        assert set(r) - {"other_kernels"} == {"rung", "slug", "function", "registers", "shared_bytes",
                                              "local_bytes", "stack_bytes", "counts", "total", "ffma_share"}
        assert r["total"] == sum(v for k, v in r["counts"].items() if k not in sr.NOT_IN_TOTAL)
        assert 0 < r["ffma_share"] < 1


def test_arch_choice(registry):
    lines = SNIPPET.splitlines() + [ln.replace("sm_90", "sm_80").replace("REG:40", "REG:50")
                                    for ln in SNIPPET.splitlines()]
    assert sr.build_report(lines, "x", None, registry)["rungs"][0]["registers"] == 40  # newest by default
    assert sr.build_report(lines, "x", None, registry, "sm_80")["rungs"][0]["registers"] == 50
    with pytest.raises(common.UsageError):
        sr.build_report(lines, "x", None, registry, "sm_100")


def test_cli_kernel_all_diff_json(data_dir, tmp_path, capsys):
    sample = str(data_dir / "sample_all.sass.xz")
    assert sr.main(["--kernel", "10", "--sass-file", sample]) == 0
    out = capsys.readouterr().out
    assert "rung 10: 10_double_buffering" in out and "LDGSTS" in out
    assert sr.main(["--diff", "5", "6", "--sass-file", sample]) == 0
    out = capsys.readouterr().out
    assert "LDG.E.128" in out and "+40" in out and "FFMA share" in out
    out_json = tmp_path / "sub" / "sass.json"
    assert sr.main(["--all", "--sass-file", sample, "--json", str(out_json)]) == 0
    assert "07_bank_conflict_free" in capsys.readouterr().out
    assert len(common.results.load_sass(out_json)) == len(ALL_RUNGS)


@pytest.mark.parametrize("argv, said", [(["--kernel", "0"], "rung 0 (00_cublas) runs no kernel of ours"),
                                        (["--kernel", "42"], "rung 42 not found"),
                                        (["--diff", "1", "99"], "rung 99 not found")])
def test_cli_usage_errors(data_dir, argv, said, capsys):
    assert common.run_main("sass_report", sr.main, argv + ["--sass-file", str(data_dir / "sample.sass")]) == 2
    assert said in capsys.readouterr().err


def test_without_the_registry_the_tool_says_how_to_get_it(data_dir, monkeypatch, capsys):
    def no_library():
        raise OSError("libsgemm_ladder.so: cannot open shared object file")

    monkeypatch.setattr(common.sgemm_ladder, "rungs", no_library)
    assert common.run_main("sass_report", sr.main, ["--all", "--sass-file", str(data_dir / "sample.sass")]) == 1
    err = capsys.readouterr().err
    assert "cannot read the registry" in err and "cmake --build" in err


def test_cli_missing_sass_file_and_no_mode(tmp_path):
    assert common.run_main("sass_report", sr.main, ["--all", "--sass-file", str(tmp_path / "none")]) == 2
    with pytest.raises(SystemExit) as e:
        sr.main([])
    assert e.value.code == 2


def test_missing_cuobjdump_says_how_to_get_it(data_dir, no_cuda_tools, capsys):
    rc = common.run_main("sass_report", sr.main, ["--all", "--lib", str(data_dir / "sample.sass")])
    err = capsys.readouterr().err
    assert rc == 1 and err.count("\n") == 1
    assert "cuobjdump not found" in err and "tools/setup.sh" in err and "CUDA Toolkit" in err


def test_a_cuobjdump_named_in_the_environment_that_is_not_there(data_dir, monkeypatch, capsys):
    monkeypatch.setenv("CUOBJDUMP", "/nonexistent/cuobjdump")
    rc = common.run_main("sass_report", sr.main, ["--all", "--lib", str(data_dir / "sample.sass")])
    assert rc == 1
    assert "$CUOBJDUMP=/nonexistent/cuobjdump is not an executable file" in capsys.readouterr().err


def test_missing_nvdisasm_says_how_to_get_it(data_dir, tmp_path, no_cuda_tools, capsys):
    no_cuda_tools.setenv("CUOBJDUMP", str(_fake_cuobjdump(tmp_path / "alone", data_dir)))
    rc = common.run_main("sass_report", sr.main, ["--all", "--lib", str(data_dir / "sample.sass")])
    err = capsys.readouterr().err
    assert rc == 1 and "nvdisasm not found" in err and "tools/setup.sh" in err


def test_missing_library_says_how_to_build_it(tmp_path, capsys):
    assert common.run_main("sass_report", sr.main, ["--all", "--lib", str(tmp_path / "lib.so")]) == 1
    assert "cmake --build" in capsys.readouterr().err


def _fake_cuobjdump(folder, data_dir, monkeypatch=None):
    """A cuobjdump that prints the committed listing, once it has checked that it can find nvdisasm
    as cuobjdump does (on PATH or in $NVDISASM_PATH); with monkeypatch, an nvdisasm in a folder of
    its own, named by $NVDISASM."""
    script = executable(folder / "cuobjdump", f"""#!{sys.executable}
import lzma, os, shutil, sys
if "--version" in sys.argv:
    print("cuobjdump: NVIDIA (R) fat binary listing tool")
    print("Cuda compilation tools, release 13.2, V13.2.86")
    sys.exit(0)
assert sys.argv[1:3] == ["-sass", "-res-usage"], sys.argv
disasm = shutil.which("nvdisasm")
if disasm is None or os.path.join(os.environ.get("NVDISASM_PATH", ""), "nvdisasm") != disasm:
    sys.exit("cuobjdump fatal   : Could not find executable file 'nvdisasm'")
sys.stdout.write(lzma.open({str(data_dir / "sample_all.sass.xz")!r}, "rt").read())
""")
    if monkeypatch is not None:
        monkeypatch.setenv("NVDISASM", str(executable(folder.parent / "disasm_bin" / "nvdisasm")))
    return script


def test_runs_cuobjdump_once_through_the_cli(data_dir, tmp_path, no_cuda_tools, capsys):
    no_cuda_tools.setenv("CUOBJDUMP", str(_fake_cuobjdump(tmp_path / "cuda", data_dir, no_cuda_tools)))
    out_json = tmp_path / "s.json"
    lib = tmp_path / "libsgemm_ladder.so"
    lib.write_bytes(b"\x7fELF")
    assert sr.main(["--all", "--lib", str(lib), "--json", str(out_json)]) == 0
    doc = json.loads(out_json.read_text())
    assert doc["cuobjdump_version"] == "13.2.86" and doc["lib"] == str(lib)  # outside the checkout
    assert [r["rung"] for r in doc["rungs"]] == ALL_RUNGS


def test_the_library_inside_the_checkout_is_recorded_relative_to_it(data_dir, tmp_path, no_cuda_tools,
                                                                    capsys):
    """A regenerated committed file (bench/results/<gpu>_sass.json) holds no machine's path."""
    no_cuda_tools.setenv("CUOBJDUMP", str(_fake_cuobjdump(tmp_path / "cuda", data_dir, no_cuda_tools)))
    checkout = tmp_path / "checkout"
    lib = checkout / "build/release/kernels/libsgemm_ladder.so"
    lib.parent.mkdir(parents=True)
    (lib.parent / "libsgemm_ladder.so.0").write_bytes(b"\x7fELF")
    lib.symlink_to("libsgemm_ladder.so.0")  # as the build makes it: the link's name is recorded
    no_cuda_tools.setattr(common, "REPO_ROOT", checkout)
    out_json = tmp_path / "s.json"
    assert sr.main(["--all", "--lib", str(lib), "--json", str(out_json)]) == 0
    assert json.loads(out_json.read_text())["lib"] == "build/release/kernels/libsgemm_ladder.so"
    no_cuda_tools.chdir(checkout / "build")  # a relative --lib, from elsewhere in the checkout
    assert sr.main(["--all", "--lib", "release/kernels/libsgemm_ladder.so", "--json", str(out_json)]) == 0
    assert json.loads(out_json.read_text())["lib"] == "build/release/kernels/libsgemm_ladder.so"
    assert "SASS of build/release/kernels/libsgemm_ladder.so (sm_90)" in capsys.readouterr().out


@pytest.mark.parametrize("inside, recorded", [("bench/results/x.json", "bench/results/x.json"),
                                              (".", "."), ("../elsewhere/y.so", None)])
def test_repo_path(tmp_path, monkeypatch, inside, recorded):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    monkeypatch.setattr(common, "REPO_ROOT", checkout)
    expected = recorded if recorded is not None else str(tmp_path / "elsewhere" / "y.so")
    assert common.repo_path(checkout / inside) == expected
    link = tmp_path / "link"  # the checkout reached through a link
    link.symlink_to(checkout)
    if recorded is not None and inside != ".":
        assert common.repo_path(link / inside) == recorded


def test_real_cuobjdump_on_the_built_library(registry):
    tool = common.find_cuobjdump()
    if tool is None:
        pytest.skip("cuobjdump not found (tools/setup.sh installs it)")
    if not common.DEFAULT_LIB.is_file():
        pytest.skip("library not built (cmake --build --preset release)")
    if common.find_nvdisasm(tool) is None:
        pytest.skip("nvdisasm not found (tools/setup.sh installs it)")
    lines, version = sr.run_cuobjdump(common.DEFAULT_LIB)
    report = sr.build_report(lines, common.repo_path(common.DEFAULT_LIB), version, registry)
    assert report["lib"] == "build/release/kernels/libsgemm_ladder.so"
    # Kernel 0's file (cuBLAS) compiles helper kernels of ours (the Ozaki baseline's residues), no FFMA loop.
    ours = [r for r in report["rungs"] if r["rung"] != 0]
    rungs = [r["rung"] for r in ours]
    assert rungs and rungs[0] == 1 and rungs == sorted(set(rungs))
    assert all(r["counts"]["FFMA"] > 0 for r in ours)


def test_ffma_reuse_counts_flagged_operands_and_is_not_an_instruction():
    lines = ["\t\tFunction : _ZN5sgemm6rung1321sgemm_13_register_reuseILi8ELb0EEEviii",
             "        /*0000*/                   FFMA R7, R132.reuse, R136.reuse, R7 ;",
             "        /*0010*/                   FFMA R11, R132, R137.reuse, R11 ;",
             "        /*0020*/                   LDS.128 R4, [R2] ;"]
    (f,) = sr.parse_sass(lines)
    assert f.counts["FFMA"] == 2 and f.counts["FFMA.reuse"] == 3
    assert sr.kernel_entry(f, f.name)["total"] == 3


def test_counterpart_compares_like_template_instances():
    a = {"function": "void k12<64, true>(int)", "other_kernels": [{"function": "void k12<64, false>(int)"}]}
    assert sr.counterpart(a, {"function": "void k13<64, false>(int)"})["function"] == "void k12<64, false>(int)"
    assert sr.counterpart(a, {"function": "void k13<32, false>(int)"}) is a
