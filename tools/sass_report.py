#!/usr/bin/env python3
"""SASS report: what the compiler made of each rung, read from cuobjdump.

Runs `cuobjdump -sass -res-usage` once on the ladder's library, splits the output per kernel,
maps each kernel to its rung (the rung whose file, the registry's `source`, it was compiled from:
each rung file is a translation unit of its own, which cuobjdump's `identifier` lines name; rung 0
is cuBLAS and has no SASS of ours) and prints, per rung, the static instruction mix (FFMA, FMUL, FADD, LDG.E / .64 / .128,
LDS / .64 / .128, STS and STG by width, LDGSTS (cp.async), BAR, LDL/STL spills, branches,
other), registers, shared memory, local (spill) memory and stack.

The listing is parsed here, by hand: cuobjdump prints only text, and no Python library reads it.

Counts are static: every instruction in the function, over all its code paths (fast path and
edge path alike). NOP padding and instructions predicated `@!PT` (never executed) are counted
as NOP and left out of `total`. ncu_profile.py gives executed counts.

Examples:
    python3 tools/sass_report.py --kernel 7
    python3 tools/sass_report.py --all --json bench/results/h200_sass.json
    python3 tools/sass_report.py --diff 6 7
    python3 tools/sass_report.py --all --sass-file saved.sass    # parse a saved listing

cuobjdump is looked for in $CUOBJDUMP, PATH, the CUDA Toolkit's bin/ ($CUDA_HOME, $CUDA_PATH,
/usr/local/cuda, nvcc's folder), then NVIDIA's PyPI wheel in this Python's site-packages and in
the project's .venv, where tools/setup.sh installs the wheels when the toolkit lacks the programs.
It needs nvdisasm to print SASS: $NVDISASM, the one beside cuobjdump, else looked for the same way,
and handed to cuobjdump through its environment (sgemm_tools_common.cuobjdump_command, the rule
tools/cuobjdump.sh uses too).

JSON written by --json:
    {"tool": "sass_report", "lib": PATH, "cuobjdump_version": "13.2.86" | null,
     "gpu_arch": "sm_90", "sgemm_ladder_git": "<12 hex>[-dirty]", "sgemm_ladder_commit": FULL_SHA,
     "sgemm_ladder_clean": "true" | "false" | "unknown", "sgemm_ladder_commit_from": "git" | "stamp" | ...,
     "rungs": [{"rung": 7, "slug": "07_bank_conflict_free", "function": DEMANGLED_NAME,
                "registers": INT, "shared_bytes": INT, "local_bytes": INT, "stack_bytes": INT,
                "counts": {CATEGORY: INT, ...}, "total": INT, "ffma_share": FLOAT}, ...]}
The sgemm_ladder_* keys name the commit of the library's source tree and whether it was clean
(sgemm_tools_common.provenance: git, or the stamp of a copy without its history; "unknown" for a
--sass-file). PATH (the library, or the --sass-file) is relative to the repository root when it is inside the
checkout, so that a regenerated committed file holds no machine's path. Every category of
CATEGORIES is present in "counts" (0 when absent); "NOP" and "FFMA.reuse" (the FFMA source
operands flagged .reuse, not instructions) are in "counts" but not in "total"; ffma_share =
FFMA / total. A rung with several kernels reports the one that carries its lesson (the
registry's `kernel` field, read through `sgemm_ladder.rungs()`: the largest kernel whose name
contains that text) and lists the rest, entries of the same form, under "other_kernels".
shared_bytes is the static shared memory cuobjdump reports (on sm_90 it includes the 1 KiB the
system reserves per block; dynamic shared memory, such as rung 10's pipeline buffers, is not in
it). local_bytes > 0 means register spills.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sgemm_tools_common as common  # noqa: E402
from sgemm_tools_common import ToolError, UsageError  # noqa: E402

PROG = "sass_report"

# Report order. Widths: LDG.E / LDS / STS / STG.E are 32-bit (and narrower) accesses.
CATEGORIES = [
    "FFMA", "FMUL", "FADD",
    "LDG.E", "LDG.E.64", "LDG.E.128",
    "LDS", "LDS.64", "LDS.128",
    "STS", "STS.64", "STS.128",
    "STG.E", "STG.E.64", "STG.E.128",
    "LDGSTS", "HMMA", "HGMMA", "IGMMA", "BAR", "LDL", "STL", "branch", "other", "NOP",
    "FFMA.reuse",
]
# Not instructions: NOP padding, and FFMA.reuse, the FFMA source operands flagged .reuse (served
# from the operand reuse cache instead of the register file; the register-reuse rung's lesson).
NOT_IN_TOTAL = {"NOP", "FFMA.reuse"}
BRANCH_OPCODES = {"BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "CALL", "RET", "EXIT", "BREAK",
                  "BSSY", "BSYNC", "WARPSYNC", "KILL"}
NEVER_PREDICATES = {"@!PT", "@!UPT"}
RES_KEYS = {"REG": "registers", "SHARED": "shared_bytes", "LOCAL": "local_bytes", "STACK": "stack_bytes"}


# ----------------------------------------------------------------------------------------------
# Parsing


def split_instruction(text: str) -> tuple[str | None, str]:
    """'@!P0 LDG.E.128.CONSTANT R4, desc[UR6][R2.64]' -> ('@!P0', 'LDG.E.128.CONSTANT')."""
    text = text.strip()
    pred = None
    m = re.match(r"(@!?U?P(?:T|\d+))\s+", text)
    if m:
        pred, text = m.group(1), text[m.end():]
    opcode = text.split(None, 1)[0].rstrip(";") if text else ""
    return pred, opcode


def categorize(opcode: str, predicate: str | None = None) -> str:
    """The report category of one SASS opcode with its modifiers (see CATEGORIES)."""
    if predicate in NEVER_PREDICATES:
        return "NOP"  # e.g. `@!PT LDS RZ, [RZ]`: a placeholder the hardware never executes
    parts = opcode.upper().split(".")
    base, mods = re.sub(r"32I$", "", parts[0]), set(parts[1:])
    width = ".128" if "128" in mods else ".64" if "64" in mods else ""
    if base in ("FFMA", "FMUL", "FADD"):
        return base
    if base in ("LDG", "STG"):
        return f"{base}.E{width}"
    if base in ("LDS", "STS"):
        return f"{base}{width}"
    if base in ("LDGSTS", "HMMA", "HGMMA", "IGMMA"):  # cp.async; mma.sync and wgmma (float, integer) on the tensor cores
        return base
    if base in ("BAR", "LDL", "STL", "NOP"):
        return base
    if base in BRANCH_OPCODES:
        return "branch"
    return "other"


@dataclass
class Function:
    name: str  # mangled
    arch: str = ""
    unit: str = ""  # the translation unit it was compiled in, as cuobjdump's identifier names it: "12_stream_k"
    resources: dict[str, int] = field(default_factory=dict)
    opcodes: Counter = field(default_factory=Counter)  # (predicate-class, opcode) -> count
    counts: Counter = field(default_factory=Counter)  # category -> count


_INSN_RE = re.compile(r"^\s*/\*[0-9a-fA-F]{4,}\*/\s+([^;]*?)\s*;")
_FUNC_RE = re.compile(r"^\s*Function\s*:\s*(\S+)")
_RES_FUNC_RE = re.compile(r"^\s*Function\s+(\S+?):\s*$")
_RES_LINE_RE = re.compile(r"^\s*REG:\d+")
_ARCH_RE = re.compile(r"^\s*arch\s*=\s*(sm_\w+)")
_UNIT_RE = re.compile(r"^\s*identifier\s*=\s*(\S+)")
_CODE_FOR_RE = re.compile(r"^\s*code for\s+(sm_\w+)")


def parse_sass(lines) -> list[Function]:
    """Parse `cuobjdump -sass -res-usage` output into one Function per (arch, translation unit,
    kernel)."""
    funcs: dict[tuple[str, str, str], Function] = {}
    arch = unit = ""
    res_name = None  # function whose REG:... line comes next
    current: Function | None = None

    def get(name: str) -> Function:
        key = (arch, unit, name)
        if key not in funcs:
            funcs[key] = Function(name=name, arch=arch, unit=unit)
        return funcs[key]

    for line in lines:
        m = _INSN_RE.match(line)
        if m:
            if current is not None:
                pred, opcode = split_instruction(m.group(1))
                if opcode:
                    current.opcodes[opcode] += 1
                    category = categorize(opcode, pred)
                    current.counts[category] += 1
                    if category == "FFMA":
                        current.counts["FFMA.reuse"] += m.group(1).count(".reuse")
            continue
        if m := _FUNC_RE.match(line):
            current = get(m.group(1))
            continue
        if m := _RES_FUNC_RE.match(line):
            res_name = m.group(1)
            continue
        if res_name and _RES_LINE_RE.match(line):
            f = get(res_name)
            for key, value in re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", line):
                f.resources[key] = int(value)
            res_name = None
            continue
        if m := _ARCH_RE.match(line) or _CODE_FOR_RE.match(line):
            arch = m.group(1)
            current = None
            continue
        if m := _UNIT_RE.match(line):
            unit = Path(m.group(1)).stem
            continue
        if line.startswith("Fatbin"):
            current, res_name = None, None
    return list(funcs.values())


def demangle(names: list[str]) -> dict[str, str]:
    """Mangled -> demangled with c++filt or cu++filt; names stay as they are without either."""
    tool = shutil.which("c++filt") or shutil.which("cu++filt")
    for d in common.cuda_bin_dirs():
        if tool:
            break
        if Path(d, "cu++filt").is_file():
            tool = str(Path(d, "cu++filt"))
    if not tool or not names:
        return {n: n for n in names}
    try:
        out = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True,
                             timeout=60, check=True).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return {n: n for n in names}
    if len(out) != len(names):
        return {n: n for n in names}
    return dict(zip(names, out))


def rung_of_function(name: str) -> int | None:
    """The rung whose namespace (`sgemm::rungNN`, the registry's) holds a kernel, from its
    demangled or mangled name; None for a kernel of no rung (the C ABI's helpers). For listings
    that do not name their translation units (see build_report)."""
    if m := re.search(r"\bsgemm::rung(\d+)::", name):
        return int(m.group(1))
    if m := re.search(r"5sgemm(\d+)rung", name):  # mangled: "6rung12" is 6 characters long
        digits = int(m.group(1)) - len("rung")
        return int(name[m.end():m.end() + digits])
    # A kernel of kernels/common/ templated on a rung's tag (common/tf32_split.cuh), mangled: its
    # template argument names sgemm by substitution, "NS_6rung237PrePassE".
    if m := re.search(r"NS_(\d+)rung", name):
        digits = int(m.group(1)) - len("rung")
        return int(name[m.end():m.end() + digits])
    return None


def kernel_entry(f: Function, demangled: str) -> dict:
    """One kernel's part of the report: its name, resources and instruction counts."""
    counts = {c: int(f.counts.get(c, 0)) for c in CATEGORIES}
    total = sum(v for c, v in counts.items() if c not in NOT_IN_TOTAL)
    entry = {"function": demangled}
    for key, out in RES_KEYS.items():
        entry[out] = int(f.resources.get(key, 0))
    entry.update({"counts": counts, "total": total, "ffma_share": counts["FFMA"] / total if total else 0.0})
    return entry


def template_args(function: str) -> str:
    """'void ns::k<64, 256, false>(int, ...)' -> '<64, 256, false>' ('' for a plain function)."""
    m = re.search(r"(<[^()]*>)\(", function)
    return m.group(1) if m else ""


def counterpart(a: dict, b: dict) -> dict:
    """The kernel of rung entry `a` to compare with rung entry `b`: the one of a's kernels (the
    reported one and its other_kernels) instantiated with b's template arguments, else the one
    reported (a copied rung keeps its predecessor's templates, so like is compared with like)."""
    args = template_args(b["function"])
    for k in [a] + a.get("other_kernels", []):
        if args and template_args(k["function"]) == args:
            return k
    return a


def reported_kernel(kernels: list[dict], text: str, rung: int) -> dict:
    """The kernel that carries the rung's lesson: among those whose name shows the registry's
    `kernel` text, the largest; the largest of all when the text is empty (or, with a warning,
    when no kernel shows it). A rung's other kernels (a pre-pass, a fix-up pass) are the rest."""
    matching = [k for k in kernels if common.kernel_matches(k["function"], text)] if text else kernels
    if not matching:
        print(f"{PROG}: rung {rung}: no kernel name contains the registry's `{text}`; "
              f"reporting its largest kernel", file=sys.stderr)
        matching = kernels
    return max(matching, key=lambda k: k["total"])


def pick_arch(funcs: list[Function], arch: str | None) -> tuple[list[Function], str | None]:
    """The kernels of one architecture: `arch`, else the newest in the fat binary together with
    its arch-specific variant (sm_90 and sm_90a kernels, the wgmma rung, are one report)."""
    archs = sorted({f.arch for f in funcs}, key=lambda a: int(re.sub(r"\D", "", a) or 0))
    if arch:
        if arch not in archs:
            raise UsageError(f"--arch {arch}: no rung kernels for it (found: {', '.join(archs) or 'none'})")
        return [f for f in funcs if f.arch == arch], arch
    if not archs:
        return [], None
    family = re.sub(r"[a-z]$", "", archs[-1])
    return [f for f in funcs if re.sub(r"[a-z]$", "", f.arch) == family], family


def build_report(lines, lib: str, cuobjdump_version: str | None, rungs: list,
                 arch: str | None = None) -> dict:
    """The JSON document (see the module docstring) from cuobjdump's output lines and the
    registry's rungs (`sgemm_ladder.rungs()`: id, slug and kernel of each)."""
    registry = {r.id: r for r in rungs}
    by_unit = {Path(r.source).stem: r.id for r in rungs}  # one translation unit per rung file

    def rung_of(f: Function) -> int | None:
        """The rung whose file the kernel was compiled from (a dispatch rung's instances of another
        rung's kernels are its own; a rung split over several units names each `<rung>.<part>`);
        without unit names, the rung namespace in the kernel's name."""
        return by_unit.get(f.unit.split(".")[0]) if f.unit else rung_of_function(f.name)

    funcs, arch = pick_arch([f for f in parse_sass(lines) if rung_of(f) is not None], arch)
    names = demangle([f.name for f in funcs])
    kernels: dict[int, list[dict]] = {}
    for f in funcs:
        rung = rung_of(f)
        if rung not in registry:
            print(f"{PROG}: {names[f.name]}: rung {rung} is not in the registry; left out", file=sys.stderr)
            continue
        kernels.setdefault(rung, []).append(kernel_entry(f, names[f.name]))
    report = []
    for rung in sorted(kernels):
        chosen = reported_kernel(kernels[rung], registry[rung].kernel, rung)
        entry = {"rung": rung, "slug": registry[rung].slug, **chosen}
        others = [k for k in kernels[rung] if k is not chosen]
        if others:
            entry["other_kernels"] = others
        report.append(entry)
    return {"tool": "sass_report", "lib": lib, "cuobjdump_version": cuobjdump_version,
            "gpu_arch": arch, "rungs": report}


# ----------------------------------------------------------------------------------------------
# Running cuobjdump


def cuobjdump_version(tool: Path) -> str | None:
    try:
        out = subprocess.run([str(tool), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"V(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else (out.strip().splitlines()[-1] if out.strip() else None)


def run_cuobjdump(lib: Path) -> tuple[list[str], str | None]:
    """`cuobjdump -sass -res-usage lib`'s lines, and its version. cuobjdump and nvdisasm are found
    by the tools' one rule (sgemm_tools_common.cuobjdump_command)."""
    tool, nvdisasm, env = common.cuobjdump_command()
    if nvdisasm is None:
        raise ToolError(common.nvdisasm_missing())
    try:
        proc = subprocess.run([str(tool), "-sass", "-res-usage", str(lib)], capture_output=True,
                              text=True, env=env, timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        raise ToolError(f"could not run {tool}: {e}") from e
    lines = proc.stdout.splitlines()
    if "nvdisasm" in proc.stderr and not any(_INSN_RE.match(ln) for ln in lines):
        raise ToolError(f"{tool} failed with the nvdisasm {nvdisasm}: {proc.stderr.strip()}")
    if proc.returncode != 0:
        raise ToolError(f"{tool} -sass -res-usage {lib} failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return lines, cuobjdump_version(tool)


# ----------------------------------------------------------------------------------------------
# Printing


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_rung(e: dict) -> str:
    lines = [f"rung {e['rung']}: {e['slug']}", f"  function     {e['function']}",
             f"  registers    {e['registers']}", f"  shared       {e['shared_bytes']} bytes",
             f"  local/spill  {e['local_bytes']} bytes", f"  stack        {e['stack_bytes']} bytes",
             f"  instructions {e['total']} (static, all code paths; NOP padding excluded)",
             f"  FFMA share   {pct(e['ffma_share'])}", "", f"  {'category':<12}{'count':>8}{'share':>9}"]
    for c in CATEGORIES:
        n = e["counts"].get(c, 0)
        if n or c in ("FFMA", "LDL", "STL"):
            share = "" if c in NOT_IN_TOTAL else pct(n / e["total"]) if e["total"] else "-"
            lines.append(f"  {c:<12}{n:>8}{share:>9}")
    return "\n".join(lines)


def format_all(rungs: list[dict]) -> str:
    used = [c for c in CATEGORIES if c not in NOT_IN_TOTAL and any(r["counts"].get(c) for r in rungs)]
    head = ["rung", "slug", "regs", "smem", "local", "total", "FFMA%"] + used
    rows = [[str(r["rung"]), r["slug"] or "?", str(r["registers"]), str(r["shared_bytes"]),
             str(r["local_bytes"]), str(r["total"]), f"{100 * r['ffma_share']:.1f}"]
            + [str(r["counts"].get(c, 0)) for c in used] for r in rungs]
    return common.format_table(head, rows, left=2)


def diff_rows(a: dict, b: dict) -> list[tuple[str, float, float]]:
    """(what, value in a, value in b) for the resources, totals and every non-empty category."""
    rows = [("registers", a["registers"], b["registers"]),
            ("shared_bytes (static)", a["shared_bytes"], b["shared_bytes"]),
            ("local_bytes (spills)", a["local_bytes"], b["local_bytes"]),
            ("stack_bytes", a["stack_bytes"], b["stack_bytes"]),
            ("total", a["total"], b["total"])]
    rows += [(c, a["counts"].get(c, 0), b["counts"].get(c, 0)) for c in CATEGORIES
             if a["counts"].get(c, 0) or b["counts"].get(c, 0)]
    return rows


def format_diff(a: dict, b: dict) -> str:
    rows = []
    for what, x, y in diff_rows(a, b):
        d = y - x
        rows.append([what, str(x), str(y), "" if d == 0 else f"{d:+d}",
                     "" if d == 0 or x == 0 else f"{100 * d / x:+.0f}%"])
    rows.append(["FFMA share", pct(a["ffma_share"]), pct(b["ffma_share"]),
                 "" if a["ffma_share"] == b["ffma_share"] else f"{100 * (b['ffma_share'] - a['ffma_share']):+.1f} pt", ""])
    head = ["", f"rung {a['rung']} ({a['slug']})", f"rung {b['rung']} ({b['slug']})", "delta", "rel"]
    return common.format_table(head, rows)


# ----------------------------------------------------------------------------------------------
# Command line


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="sass_report.py", description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 ok, 1 tool failure (cuobjdump missing or failing), 2 usage error.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--kernel", type=int, metavar="N", help="report rung N")
    what.add_argument("--all", action="store_true", help="report every rung found")
    what.add_argument("--diff", type=int, nargs=2, metavar=("N", "M"), help="what changed from rung N to rung M")
    p.add_argument("--lib", type=Path, default=common.DEFAULT_LIB,
                   help="the ladder's shared library (default: build/release/kernels/libsgemm_ladder.so)")
    p.add_argument("--sass-file", type=Path, metavar="FILE",
                   help="parse this saved `cuobjdump -sass -res-usage` output (.gz too) instead of running cuobjdump")
    p.add_argument("--arch", metavar="SM", help="architecture to report when the library holds several (default: newest)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the JSON report (all rungs found) to FILE")
    return p.parse_args(argv)


def load_report(args, rungs: list) -> dict:
    if args.sass_file:
        if not args.sass_file.is_file():
            raise UsageError(f"--sass-file {args.sass_file}: no such file")
        with common.open_text(args.sass_file) as f:
            report = build_report(f, common.repo_path(args.sass_file), None, rungs, args.arch)
        report.update(common.UNKNOWN_PROVENANCE)  # a saved listing: which code it came from is not known here
        return report
    lib = common.require_file(args.lib, "library", common.BUILD_HINT)
    lines, version = run_cuobjdump(lib)
    report = build_report(lines, common.repo_path(lib), version, rungs, args.arch)
    report.update(common.provenance(lib))  # the commit the library was built from, and whether clean
    return report


def main(argv=None) -> int:
    args = parse_args(argv)
    registry = {r.id: r for r in common.registry()}
    report = load_report(args, list(registry.values()))
    by_rung = {r["rung"]: r for r in report["rungs"]}
    if not by_rung:
        raise ToolError("no kernels of the registry's rungs (namespace sgemm::rungNN) found in the SASS")

    def rung(n: int) -> dict:
        if n in registry and not registry[n].kernel:
            raise UsageError(f"rung {n} ({registry[n].slug}) runs no kernel of ours: no SASS to report "
                             f"(ncu_profile.py --kernel {n} names the kernel it runs)")
        if n not in by_rung:
            raise UsageError(f"rung {n} not found; rungs in the SASS: {', '.join(map(str, sorted(by_rung)))}")
        return by_rung[n]

    if args.kernel is not None:
        print(format_rung(rung(args.kernel)))
    elif args.diff:
        b = rung(args.diff[1])
        print(format_diff(counterpart(rung(args.diff[0]), b), b))
    else:
        print(f"SASS of {report['lib']} ({report['gpu_arch']}); static counts, all code paths")
        print(format_all(report["rungs"]))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return common.EXIT_OK


if __name__ == "__main__":
    sys.exit(common.run_main(PROG, main))
