#!/usr/bin/env python3
"""The code a figure measured, as fingerprints per rung, and which committed figures are stale.

A figure belongs to the code that measured it (docs/design.md, "Measuring"): it is stale when that
code changed after the commit that measured it. This tool says what "that code" is, as sha256
fingerprints (16 hex digits each) computed from a BUILT library (build/release/kernels/
libsgemm_ladder.so, release preset), and records them in results files. Per rung:

  sass  the rung's kernels for sm_90 (sm_90 and sm_90a: the GPUs measured): every function of the
        rung's translation units (the rung file's unit, as tools/sass_report.py attributes kernels:
        cuobjdump names each cubin after its unit; a dispatch rung's instances of another rung's
        kernels are its own), each as its instruction words as encoded (opcode, operands and the
        scheduling control bits, which SASS text leaves out; branch targets are relative, so there
        is no address to normalise), its resources (cuobjdump -res-usage: registers, stack, shared,
        local, constant banks), its .nv.info attributes (launch bounds, parameter sizes, exit
        offsets; symbol-table indices zeroed) and its shared and parameter sizes, plus the unit's
        constant banks and initialised globals. Debug sections (.debug_line, .nv_debug_line_sass,
        .nv_debug_ptx_txt: where -lineinfo puts line numbers) are never read, so a comment that
        moves lines changes nothing. On one machine the build makes the SASS a function of the
        source alone (cmake/reproducible_cuda.sh): NVVM's choices in some kernels (rung 17's
        few-columns instance in rung 30's unit) otherwise follow random names, addresses and the
        lengths of paths and variables; another machine may still build them otherwise, which is
        why staleness is told from the sources (below). Kernels of
        the library's shared units (kernels/common, the registry) are added where the rung's host
        code launches them (their host stub is reached).
  host  the rung's host launch path: the library's functions that are direct members of the rung's
        namespace and not templates (`sgemm::rungNN::launch`, `supports`, `tile`: the registry's
        entry points, what else registry.cu declares, the rung's helpers) and every function they
        reach, transitively, by a direct call or jump or by taking its address (so a shared helper
        of kernels/common that the rung calls, and another rung's code that a dispatch rung runs,
        are part of it; `sgemm::registry()`, the table of every rung, is not), disassembled
        (objdump -d) with addresses normalised: a call or jump by the symbol it reaches (within the
        function: as an offset), a RIP-relative operand by the symbol it reaches (a read-only
        object, such as a rung's model constants, with its bytes), a constant it loads from
        anonymous read-only data by its bytes, a string by its text; padding dropped. Plus the
        rung's registry row (slug, track, arch, kernel, tile, takes, fp32_accurate) as the package
        reads it. Not seen: the contents of an anonymous read-only table reached only by its
        address (a jump table; a constant array without a symbol), and registry fields the C ABI
        does not describe (the front door's packing flag).

And for the front door, which every rung's figures go through (sgemm_bench times `sgemm::run`):

  api      `sgemm::run` and what it reaches the same way (argument checks, the registry lookup but
           not the table, the choice of path), with the shared units' kernels it launches;
  packed   `sgemm::run_packed` and what it reaches: unaligned operands copied to aligned rows;
  general  `sgemm::run_general` and `sgemm::update_c`: layouts, batches, a bias, C = beta C.

A row's figure depends on its rung's sass and host and on api; on packed where a leading dimension
is not a multiple of four floats, on general where its layout is not NN or it has a batch or a bias
(the SASS report's figures on sass alone). Shared host code is thus part of a figure's
fingerprint where that figure's measurement runs it, and nowhere else.

Which figures are stale is told from the sources, not from a build, so that every checkout and
machine tells the same (NVVM does not build every kernel the same way everywhere from one source:
cmake/reproducible_cuda.sh makes it so on one machine, but another machine's build may differ, and
a test that compared the build's SASS would pass in one place and fail in the other). The sources
are the library's inputs (kernels/, cmake/, CMakeLists.txt, CMakePresets.json), hashed into one
16-digit key with their comments and indentation left out (a comment or a re-indented line is not
code; line breaks are kept). `stamp`, run where the tree is built, compares each record of a file
(the fingerprints of the commit that measured it) with the build's and writes beside the record
the key of the sources built and, per rung, the components that differ (none: the same code). A
figure is then stale when

  - the file records no fingerprints for its commit (measured before this tool, on a dirty tree,
    or not yet stamped), or records them with another definition;
  - the record was not compared with a build of the current sources (another key: sources changed,
    and `stamp` has not been run since), or was compared by a build of another toolchain (host code
    is gcc's, kernels ptxas's: their machine code cannot be compared; rebuild the recorded commit
    with this toolchain and stamp again, or measure again);
  - a component its figures depend on differed from the build of the current sources.

Where results files keep them:
  JSON (sgemm_bench's files, the SASS report, the model benchmark, the autotuner's): a top-level
    "fingerprints": {"<commit as the file records it>": {"commit": FULL_SHA, "definition": 2,
                     "toolchain": {"cxx": ..., "cuda": ..., "build_type": ...},
                     "front": {"api": HEX16, "packed": HEX16, "general": HEX16},
                     "rungs": {"17": {"sass": HEX16, "host": HEX16}, ...}}}
    keyed by the commit the file's context (or a merged row, tools/refresh_results.py) records;
    and in each record, once `stamp` compared it with a build:
                     "source": {"definition": 1, "key": HEX16 (the sources built),
                                "changed": {"17": [], "30": ["host"], ...}}
  CSV (ncu_profile's): per row (one rung each) the columns sgemm_ladder_git, sgemm_ladder_clean,
    fingerprint ("<sass>:<host>:<api>") and source ("<key>:<changed components, joined by +>").

    python3 tools/fingerprint.py show [RUNG ...]             the current build's fingerprints (JSON)
    python3 tools/fingerprint.py dump RUNG sass|host         the text a fingerprint hashes (dump api|packed|general)
    python3 tools/fingerprint.py stamp FILE ...              record the build's fingerprints in results files,
                                                             and compare every record with the build
    python3 tools/fingerprint.py stale FILE ...              the stale rungs of results files (exit 1: some)
    python3 tools/fingerprint.py key                         the key of the current sources
    --lib LIB: another library (default: $SGEMM_LADDER_LIB, else build/release/kernels/libsgemm_ladder.so)

`stamp` records a commit of the file (its context's, or a merged row's) only where it is the commit
of the library's source tree, or differs from it in no input of the library (kernels/, cmake/,
CMakeLists.txt, CMakePresets.json), and that tree is clean in those inputs (git); it says which
commits it left (their rows stay stale). It compares every record of the file with the build (the
build must be current with every library input, and git must track them all, or it says what to
do), and exits 1 when it could neither stamp nor compare any of a file's.
Fingerprints are cached beside the library (<lib>.fingerprints.json, keyed by its size, mtime and
sha256, and by this file's own sha256).

Standard library, plus cuobjdump (found as the other tools find it), objdump and c++filt (binutils).
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

DEFINITION = 2  # bump when what a fingerprint hashes changes: records of another definition are stale
# A unit's anonymous namespace is named after a hash of the unit's path (nvcc's _GLOBAL__N__<hex>_...,
# in the host stubs of its kernels): the same code built in another folder must fingerprint the same.
_ANON_NS = re.compile(r"_GLOBAL__N__[0-9a-f]+_")


def unpathed(name: str) -> str:
    """`name` with each anonymous namespace's path hash zeroed (same length: mangled names stay valid)."""
    return _ANON_NS.sub(lambda m: "_GLOBAL__N__" + "0" * (len(m.group()) - len("_GLOBAL__N___")) + "_", name)
COMPONENTS = ("sass", "host", "api")  # what every measured figure of a rung depends on
PATHS = ("packed", "general")  # the front door's other paths: a row's figure depends on them where it takes them
DIGITS = 16
ARCH = "sm_90"  # the GPUs measured (H100, H200); cuobjdump -arch sm_90 takes sm_90a too
LIBRARY_INPUTS = ("kernels", "cmake", "CMakeLists.txt", "CMakePresets.json")
# The front door sgemm_bench times, and its paths that only some calls take (their own components):
# unaligned operands packed into aligned copies, the general entry (layouts, batches, a bias) and
# C = beta C (K = 0 or alpha = 0) with it.
FRONT = {"api": (re.compile(r"^sgemm::run\(int, "),),
         "packed": (re.compile(r"^sgemm::run_packed\("),),
         "general": (re.compile(r"^sgemm::run_general\("), re.compile(r"^sgemm::update_c\(")),}
STOP = re.compile(r"^sgemm::registry\(\)")  # the table of every rung: each rung's row goes in by itself
# A rung's own functions: direct members of its namespace, not templates (what registry.cu declares
# and the rung's helpers; its templates and lambdas are reached from them)
RUNG_ROOT = re.compile(r"^sgemm::rung(\d+)::[A-Za-z_]\w*(?:\[abi:\w+\])?\(")
CACHE_SUFFIX = ".fingerprints.json"
SOURCE_DEFINITION = 1  # bump when what the sources' key hashes changes
C_FAMILY = (".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".inl")
CONTEXT_KEYS = ("sgemm_ladder_git", "sgemm_ladder_commit", "sgemm_ladder_clean", "sgemm_ladder_commit_from")


class FingerprintError(Exception):
    """The fingerprints cannot be computed here (one line: what is missing and how to get it)."""


def short(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:DIGITS]


# ----------------------------------------------------------------------------------------------
# ELF (64-bit little-endian: the host library and NVIDIA's cubins)


@dataclass
class Section:
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


SHT_NOBITS = 8
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4


class Elf:
    def __init__(self, data: bytes, what: str = "ELF"):
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise FingerprintError(f"{what}: not a 64-bit little-endian ELF file")
        self.data = data
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        names = raw[shstrndx]
        self.sections = []
        for (name, typ, flags, addr, off, size, link, info, _align, entsize) in raw:
            self.sections.append(Section(self._str(names[4], name), typ, flags, addr, off, size, link, info, entsize))

    def _str(self, table_offset: int, index: int) -> str:
        start = table_offset + index
        return self.data[start:self.data.index(b"\0", start)].decode("utf-8", "surrogateescape")

    def content(self, s: Section) -> bytes:
        return b"" if s.type == SHT_NOBITS else self.data[s.offset:s.offset + s.size]

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def symbols(self, table: str = ".symtab") -> list[tuple[str, int, int, int, int, int]]:
        """(name, value, size, type, bind, section index) of a symbol table."""
        s = self.section(table)
        if s is None:
            return []
        strtab = self.sections[s.link]
        out = []
        for i in range(s.size // 24):
            name, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", self.data, s.offset + i * 24)
            out.append((self._str(strtab.offset, name), value, size, info & 0xF, info >> 4, shndx))
        return out

    def section_at(self, addr: int) -> Section | None:
        for s in self.sections:
            if s.flags & SHF_ALLOC and s.addr <= addr < s.addr + s.size:
                return s
        return None

    def read(self, addr: int, size: int) -> bytes:
        s = self.section_at(addr)
        if s is None or s.type == SHT_NOBITS:
            return b""
        start = s.offset + addr - s.addr
        return self.data[start:min(start + size, s.offset + s.size)]

    def got_names(self) -> dict[int, str]:
        """GOT slot address -> the dynamic symbol it holds (R_X86_64_GLOB_DAT, JUMP_SLOT, 64)."""
        dyn = self.symbols(".dynsym")
        out = {}
        for s in self.sections:
            if s.type != 4 or not s.name.startswith(".rela"):  # SHT_RELA
                continue
            for i in range(s.size // 24):
                offset, info, _addend = struct.unpack_from("<QQq", self.data, s.offset + i * 24)
                sym, typ = info >> 32, info & 0xFFFFFFFF
                if typ in (1, 6, 7) and 0 < sym < len(dyn):  # R_X86_64_64, GLOB_DAT, JUMP_SLOT
                    out[offset] = dyn[sym][0]
        return out


# ----------------------------------------------------------------------------------------------
# Tools


def _run(cmd: list[str], cwd: Path | None = None, env: dict | None = None, what: str = "") -> str:
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.SubprocessError) as e:
        raise FingerprintError(f"could not run {cmd[0]}: {e}") from e
    if proc.returncode != 0:
        raise FingerprintError(f"{what or ' '.join(cmd[:3])} failed (exit {proc.returncode}): "
                               f"{proc.stderr.strip()[:300]}")
    return proc.stdout


def cuobjdump() -> tuple[str, dict]:
    import sgemm_tools_common as common  # noqa: E402  (finds cuobjdump as every tool does)

    try:
        tool, _nvdisasm, env = common.cuobjdump_command()
    except common.ToolError as e:
        raise FingerprintError(str(e)) from e
    return str(tool), env


def binutil(name: str) -> str:
    tool = shutil.which(name)
    if tool is None:
        raise FingerprintError(f"{name} not found (binutils): the host fingerprint needs objdump and c++filt")
    return tool


def demangle(names: list[str]) -> dict[str, str]:
    if not names:
        return {}
    proc = subprocess.run([binutil("c++filt")], input="\n".join(names) + "\n", capture_output=True, text=True,
                          timeout=300)
    out = proc.stdout.splitlines()
    if proc.returncode != 0 or len(out) != len(names):
        raise FingerprintError("c++filt failed to demangle the library's symbols")
    return dict(zip(names, out))


# ----------------------------------------------------------------------------------------------
# The build: its library, registry and toolchain


def build_dir_of(lib: Path) -> Path | None:
    for d in Path(os.path.abspath(lib)).parents:
        if (d / "CMakeCache.txt").is_file():
            return d
    return None


def cmake_cache(build: Path | None) -> dict[str, str]:
    out = {}
    if build is None:
        return out
    for line in (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace").splitlines():
        if m := re.match(r"^([A-Za-z_0-9]+):[A-Z]+=(.*)$", line):
            out[m[1]] = m[2]
    return out


def source_dir_of(lib: Path) -> Path | None:
    """The source tree the library was built from (CMakeCache's CMAKE_HOME_DIRECTORY)."""
    home = cmake_cache(build_dir_of(lib)).get("CMAKE_HOME_DIRECTORY")
    return Path(home) if home else None


def toolchain(lib: Path, host: Elf, cubin: bytes | None) -> dict[str, str]:
    comment = host.section(".comment")
    cxx = ""
    if comment is not None:
        cxx = "; ".join(sorted({t.decode("utf-8", "replace") for t in host.content(comment).split(b"\0") if t}))
    cuda = ""
    if cubin:
        if m := re.search(rb"Cuda compilation tools, release [0-9.]+, (V[0-9.]+)", cubin):
            cuda = m[1].decode()
    cache = cmake_cache(build_dir_of(lib))
    return {"cxx": cxx or "unknown", "cuda": cuda or "unknown",
            "build_type": cache.get("CMAKE_BUILD_TYPE", "unknown") or "unknown"}


REGISTRY_FIELDS = ("id", "slug", "track", "arch", "kernel", "tile", "takes", "fp32_accurate", "source")
_REGISTRY_PROBE = ("import json, sys; sys.path.insert(0, sys.argv[1]); from sgemm_ladder import library as l; "
                   "print(json.dumps([{k: getattr(r, k, None) for k in sys.argv[2].split(',')} for r in l.rungs()]))")


def read_registry(lib: Path) -> list[dict]:
    """The registry of this library (through the package, in a process of its own: one library per
    process), each rung's REGISTRY_FIELDS."""
    env = dict(os.environ, SGEMM_LADDER_LIB=str(lib))
    out = _run([sys.executable, "-c", _REGISTRY_PROBE, str(REPO / "python"), ",".join(REGISTRY_FIELDS)], env=env,
               what=f"reading the registry of {lib}")
    return json.loads(out)


# ----------------------------------------------------------------------------------------------
# Kernels


@dataclass
class Kernel:
    unit: str
    arch: str
    name: str  # mangled
    digest: str
    text: str  # what the digest hashes (dump)


# .nv.info attributes whose value starts with a symbol-table index (an index into the unit's
# symbols, which moves when another function of the unit comes or goes): that index is zeroed.
_NVINFO_SYMBOL_FIRST = {0x0A, 0x11, 0x12, 0x23, 0x2F}


def nvinfo(data: bytes) -> str:
    """A .nv.info section as "attr:value" items (EIFMT records), symbol indices zeroed."""
    items, i = [], 0
    while i + 2 <= len(data):
        fmt, attr = data[i], data[i + 1]
        i += 2
        if fmt == 0x04:  # EIFMT_SVAL: a 16-bit size, then the value
            if i + 2 > len(data):
                break
            size, = struct.unpack_from("<H", data, i)
            value = bytearray(data[i + 2:i + 2 + size])
            i += 2 + size
            if attr in _NVINFO_SYMBOL_FIRST and len(value) >= 4:
                value[0:4] = b"\0\0\0\0"
            items.append(f"{attr:02x}:{value.hex()}")
        elif fmt == 0x03:  # EIFMT_HVAL: 16 bits
            items.append(f"{attr:02x}:{data[i:i + 2].hex()}")
            i += 2
        elif fmt == 0x02:  # EIFMT_BVAL
            items.append(f"{attr:02x}:{data[i:i + 1].hex()}")
            i += 1
        elif fmt == 0x01:  # EIFMT_NVAL
            items.append(f"{attr:02x}")
        else:  # unknown: the rest as it is
            items.append("raw:" + data[i - 2:].hex())
            break
    return " ".join(items)


def cubin_kernels(unit: str, arch: str, data: bytes, resources: dict[str, str]) -> tuple[list[Kernel], str]:
    """The functions of one cubin, and the unit-wide data (constant banks, initialised globals)."""
    elf = Elf(data, f"{unit}.{arch}.cubin")
    by_name = {s.name: s for s in elf.sections}
    kernels = []
    for s in elf.sections:
        if not s.name.startswith(".text."):
            continue
        fn = s.name[len(".text."):]
        code = elf.content(s)
        parts = [f"code {hashlib.sha256(code).hexdigest()} {len(code)}",
                 f"resources {resources.get(fn, '?')}"]
        if (info := by_name.get(f".nv.info.{fn}")) is not None:
            parts.append("info " + nvinfo(elf.content(info)))
        if (shared := by_name.get(f".nv.shared.{fn}")) is not None:
            parts.append(f"shared {shared.size}")
        if (const0 := by_name.get(f".nv.constant0.{fn}")) is not None:
            parts.append(f"params {const0.size} {hashlib.sha256(elf.content(const0)).hexdigest()}")
        text = "\n".join(parts)
        kernels.append(Kernel(unit, arch, unpathed(fn), short(text), text))
    unit_data = []
    for s in sorted(elf.sections, key=lambda s: s.name):
        if re.fullmatch(r"\.nv\.constant\d+", s.name) or s.name in (".nv.global.init", ".nv.global"):
            unit_data.append(f"{s.name} {s.size} {hashlib.sha256(elf.content(s)).hexdigest()}")
    return kernels, "\n".join(unit_data)


_RES_FUNC = re.compile(r"^\s*Function\s+(\S+?):\s*$")
_RES_LINE = re.compile(r"^\s*REG:\d+")
_IDENT = re.compile(r"^\s*identifier\s*=\s*(\S+)")
_ARCH_LINE = re.compile(r"^\s*arch\s*=\s*(sm_\w+)")


def parse_resources(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """`cuobjdump -res-usage` by (unit stem, arch): function -> its resource line."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    unit = arch = ""
    fn = None
    for line in text.splitlines():
        if m := _ARCH_LINE.match(line):
            arch = m[1]
        elif m := _IDENT.match(line):
            unit = Path(m[1]).name.split(".")[0]
        elif m := _RES_FUNC.match(line):
            fn = m[1]
        elif fn and _RES_LINE.match(line):
            out.setdefault((unit, arch), {})[fn] = " ".join(line.split())
            fn = None
    return out


def read_kernels(lib: Path) -> tuple[list[Kernel], dict[str, str], bytes | None]:
    """Every sm_90-family function of the library, the unit-wide data by "unit.arch", and one cubin's
    bytes (for the toolchain)."""
    tool, env = cuobjdump()
    listing = _run([tool, "-lelf", str(lib)], env=env, what="cuobjdump -lelf")
    names = re.findall(r"ELF file\s+\d+:\s*(\S+)", listing)
    wanted = [n for n in names if re.fullmatch(r".+\.sm_90a?\.cubin", n)]
    if not wanted:
        built = ", ".join(sorted({n.split(".")[-2] for n in names})) or "nothing"
        raise FingerprintError(f"{lib} holds no {ARCH} code (built for {built}): fingerprints describe the sm_90 "
                               "build (cmake --preset release)")
    if len(set(wanted)) != len(wanted):
        twice = sorted({n for n in wanted if wanted.count(n) > 1})
        raise FingerprintError(f"{lib}: two translation units share a name: {twice}")
    usage = _run([tool, "-res-usage", "-arch", ARCH, str(lib)], env=env, what="cuobjdump -res-usage")
    resources = parse_resources(usage)
    kernels, unit_data, sample = [], {}, None
    with tempfile.TemporaryDirectory(prefix="fingerprint_") as tmp:
        _run([tool, "-xelf", ARCH, str(Path(lib).resolve())], cwd=Path(tmp), env=env, what="cuobjdump -xelf")
        for name in wanted:
            path = Path(tmp) / name
            if not path.is_file():
                raise FingerprintError(f"cuobjdump -xelf did not write {name}")
            unit, arch = name[:-len(".cubin")].rsplit(".", 1)
            data = path.read_bytes()
            sample = sample or data
            ks, ud = cubin_kernels(unit, arch, data, resources.get((unit, arch), {}))
            kernels += ks
            unit_data[f"{unit}.{arch}"] = ud
    return kernels, unit_data, sample


def unit_rung(unit: str, stems: dict[str, int]) -> int | None:
    """The rung a translation unit belongs to: the rung file's stem, or a unit named after it and a
    suffix (a rung's instances split across units: "30_auto_nt" is rung 30's)."""
    if unit in stems:
        return stems[unit]
    best = max((s for s in stems if unit.startswith(s + "_") or unit.startswith(s + ".")), key=len, default=None)
    return stems[best] if best else None


# ----------------------------------------------------------------------------------------------
# Host code


@dataclass
class Function:
    name: str  # demangled
    addr: int
    size: int
    lines: list[str] = field(default_factory=list)
    calls: set[str] = field(default_factory=set)  # functions it reaches (demangled)
    data: dict[str, str] = field(default_factory=dict)  # read-only data it reads: name -> bytes


_INSN = re.compile(r"^\s*([0-9a-f]+):\s*(.*?)\s*$")
_HEAD = re.compile(r"^([0-9a-f]+) <(.*)>:$")
_DIRECT = re.compile(r"^(?P<op>(?:bnd |notrack )?(?:call|jmp|j[a-z]{1,3}|loop\w*|xbegin)q?)\s+"
                     r"(?P<target>[0-9a-f]+) <[^\n]*>$")
_RIP = re.compile(r"-?0x[0-9a-f]+\(%rip\)")
_COMMENT = re.compile(r"\s+#\s+([0-9a-f]+)(?: <.*>)?$")
_PADDING = re.compile(r"^(?:(?:cs |ds |data16 )*nop[wlq]?\b.*|xchg\s+%ax,%ax|int3|\(bad\)|\.\.\.)$")


class HostCode:
    """The library's host functions, disassembled and normalised, and who reaches whom."""

    def __init__(self, lib: Path, elf: Elf):
        self.elf = elf
        symbols = [s for s in elf.symbols() if s[0] and s[3] in (1, 2) and s[1]]  # OBJECT, FUNC with an address
        mangled = sorted({s[0] for s in symbols})
        names = demangle(mangled)
        # Functions by key: the name, or for a second function of the same name (a static function
        # of a header, compiled in two units: rung 17's kernels' host stubs in rung 30's unit too)
        # "name [copy N]"; what is hashed is the name and the code, never the key.
        self.funcs: dict[str, Function] = {}
        self.by_addr: dict[int, str] = {}
        self.objects: list[tuple[int, int, str, bool]] = []  # (addr, size, name, read-only)
        for name, value, size, typ, _bind, _shndx in sorted(symbols, key=lambda s: s[1]):
            pretty = unpathed(names.get(name, name))
            if typ == 2:
                if value in self.by_addr:
                    continue  # an alias of a function already listed
                key, n = pretty, 1
                while key in self.funcs:
                    n += 1
                    key = f"{pretty} [copy {n}]"
                self.funcs[key] = Function(pretty, value, size)
                self.by_addr[value] = key
            else:
                sec = elf.section_at(value)
                readonly = sec is not None and not sec.flags & SHF_WRITE and not sec.flags & SHF_EXECINSTR
                self.objects.append((value, size, pretty, readonly))
        self.objects.sort()
        self.starts = sorted((f.addr, f.addr + max(f.size, 1), key) for key, f in self.funcs.items())
        self.got = elf.got_names()
        self.plt = [s for s in elf.sections if s.name.startswith(".plt")]
        self._disassemble(lib)

    def function_at(self, addr: int) -> Function | None:
        import bisect

        i = bisect.bisect_right(self.starts, (addr, float("inf"), "")) - 1
        if i >= 0 and self.starts[i][0] <= addr < self.starts[i][1]:
            return self.funcs[self.starts[i][2]]
        return None

    def object_at(self, addr: int) -> tuple[int, int, str, bool] | None:
        import bisect

        i = bisect.bisect_right(self.objects, (addr, float("inf"), "", True)) - 1
        if i >= 0 and self.objects[i][0] <= addr < self.objects[i][0] + max(self.objects[i][1], 1):
            return self.objects[i]
        return None

    def _disassemble(self, lib: Path) -> None:
        out = _run([binutil("objdump"), "-d", "--no-show-raw-insn", "-w", str(lib)], what="objdump -d")
        current: Function | None = None
        for line in out.splitlines():
            if m := _HEAD.match(line):
                current = self.funcs.get(self.by_addr.get(int(m[1], 16), ""))
                continue
            if current is None:
                continue
            m = _INSN.match(line)
            if not m or not m[2]:
                continue
            addr, text = int(m[1], 16), " ".join(m[2].split("\t")).strip()
            text = re.sub(r"\s+", " ", text)
            if _PADDING.match(text):
                continue
            current.lines.append(self._normalise(current, addr, text))

    def _target(self, current: Function, addr: int, what: str = "") -> str:
        if current.addr <= addr < current.addr + max(current.size, 1):
            return f"<.+{addr - current.addr:#x}>"
        if f := self.function_at(addr):
            current.calls.add(self.by_addr[f.addr])
            return f"<{f.name}" + (f"+{addr - f.addr:#x}" if addr != f.addr else "") + ">"
        for s in self.plt:
            if s.addr <= addr < s.addr + s.size:
                return f"<{what}>"  # objdump's own name of a PLT entry: name@plt
        return "<?>"

    def _normalise(self, current: Function, addr: int, text: str) -> str:
        if m := _DIRECT.match(text):
            target = int(m["target"], 16)
            plt = re.search(r"<([^<>]*@plt)>$", text)
            return f"{m['op']} {self._target(current, target, plt[1] if plt else '')}"
        if "(%rip)" in text and (c := _COMMENT.search(text)):
            target = int(c[1], 16)
            body = _RIP.sub("(%rip)", text[:c.start()])
            return f"{body} # {self._reference(current, target, body)}"
        return text

    def _reference(self, current: Function, target: int, insn: str) -> str:
        """What a RIP-relative operand reaches: a function, a GOT slot's symbol, an object (its bytes
        when read-only), a string, a constant (its bytes), or anonymous data."""
        if target in self.got:
            return f"<got:{self.got[target]}>"
        if self.function_at(target) is not None:
            return self._target(current, target)
        if obj := self.object_at(target):
            start, size, name, readonly = obj
            if readonly and size:
                current.data[name] = self.elf.read(start, size).hex()
            return f"<{name}" + (f"+{target - start:#x}" if target != start else "") + ">"
        sec = self.elf.section_at(target)
        if sec is None or sec.flags & SHF_WRITE:
            return f"<{sec.name if sec else '?'}>"
        mnemonic = insn.split()[0]
        if mnemonic.startswith("lea"):
            raw = self.elf.read(target, 256)
            end = raw.find(b"\0")
            text = raw[:end] if end >= 0 else b""
            if end >= 0 and all(32 <= b < 127 or b in (9, 10) for b in text):
                return "<string " + json.dumps(text.decode("ascii")) + ">"
            return f"<{sec.name}>"
        width = load_width(insn)
        return f"<{sec.name} {self.elf.read(target, width).hex()}>" if width else f"<{sec.name}>"

    def matching(self, pattern: re.Pattern) -> set[str]:
        """The keys of the functions whose name matches."""
        return {key for key, f in self.funcs.items() if pattern.match(f.name)}

    def closure(self, roots: set[str], stop: set[str] = frozenset()) -> set[str]:
        """The keys of `roots` and of every function they reach (not through STOP or `stop`)."""
        seen, todo = set(), [r for r in roots if r in self.funcs]
        while todo:
            key = todo.pop()
            if key in seen or key in stop or STOP.match(self.funcs[key].name):
                continue
            seen.add(key)
            todo += [c for c in self.funcs[key].calls if c not in seen]
        return seen

    def text(self, keys: set[str]) -> str:
        """The functions' normalised code, by name (copies of one name by their code)."""
        parts = []
        for key in keys:
            f = self.funcs[key]
            parts.append(f"== {f.name}\n" + "\n".join(f.lines)
                         + "".join(f"\n   data {k} {v}" for k, v in sorted(f.data.items())))
        return "\n".join(sorted(parts))

    def names(self, keys: set[str]) -> set[str]:
        return {self.funcs[k].name for k in keys}


def load_width(insn: str) -> int | None:
    """Bytes a load from memory reads, from its mnemonic and registers (AT&T); None when unknown."""
    mnemonic = insn.split()[0]
    if "%ymm" in insn:
        return 32
    if mnemonic.endswith("ss") or mnemonic in ("movd", "cvtss2sd", "vcvtss2sd"):
        return 4
    if mnemonic.endswith("sd") or mnemonic in ("movq", "vmovq", "cvtsd2ss", "vcvtsd2ss", "movhpd", "movlpd"):
        return 8
    if "%xmm" in insn:
        return 16
    if re.search(r",%r(?:[a-d]x|[sd]i|bp|sp|\d+)$", insn) or mnemonic.endswith("q"):
        return 8
    if re.search(r",%(?:e[a-d]x|e[sd]i|ebp|r\d+d)$", insn) or mnemonic.endswith("l"):
        return 4
    return None


# ----------------------------------------------------------------------------------------------
# Fingerprints of a build


@dataclass
class Fingerprints:
    lib: Path
    toolchain: dict[str, str]
    rungs: dict[int, dict[str, str]]  # rung -> {"sass", "host"}
    front: dict[str, str]  # {"api", "packed", "general"}: the front door and its paths
    texts: dict[tuple[int | str, str], str] = field(default_factory=dict)  # what each fingerprint hashes

    def record(self, commit: str) -> dict:
        return {"commit": commit, "definition": DEFINITION, "toolchain": self.toolchain, "front": dict(self.front),
                "rungs": {str(r): dict(v) for r, v in sorted(self.rungs.items())}}

    def of(self, rung: int) -> dict[str, str] | None:
        """Every component a figure of `rung` may depend on: its own, the front door's."""
        return {**self.rungs[rung], **self.front} if rung in self.rungs else None


def compute(lib: Path, registry: list[dict] | None = None, keep_text: bool = False) -> Fingerprints:
    lib = Path(lib)
    if not lib.is_file():
        raise FingerprintError(f"no library at {lib} (build it: cmake --preset release && "
                               "cmake --build build/release --target sgemm_ladder)")
    registry = read_registry(lib) if registry is None else registry
    stems = {Path(r["source"]).stem: int(r["id"]) for r in registry}
    kernels, unit_data, sample = read_kernels(lib)
    elf = Elf(Path(lib).read_bytes(), str(lib))
    host = HostCode(lib, elf)
    tools = toolchain(lib, elf, sample)

    by_rung: dict[int | None, list[Kernel]] = {}
    units_of: dict[int | None, set[str]] = {}
    for k in kernels:
        rung = unit_rung(k.unit, stems)
        by_rung.setdefault(rung, []).append(k)
        units_of.setdefault(rung, set()).add(f"{k.unit}.{k.arch}")
    shared_kernels = {k.name: k for k in by_rung.get(None, [])}

    def sass_text(own: list[Kernel], units: set[str], closure: set[str]) -> str:
        lines = [f"unit {u}\n{unit_data.get(u, '')}" for u in sorted(units)]
        for k in sorted(own, key=lambda k: (k.arch, k.unit, k.name)):
            lines.append(f"kernel {k.arch} {k.unit} {k.name} {k.digest}")
        # the shared units' kernels this code launches: their host stubs carry the kernels' names
        mangled_of = {v: k for k, v in demangle(sorted(shared_kernels)).items()} if shared_kernels else {}
        for name in sorted(host.names(closure)):
            if (m := mangled_of.get(name)) is not None:
                k = shared_kernels[m]
                lines.append(f"launches {k.arch} {k.unit} {k.name} {k.digest}")
        return "\n".join(lines)

    roots = {path: set().union(*(host.matching(r) for r in patterns)) for path, patterns in FRONT.items()}
    if not roots["api"]:
        raise FingerprintError(f"{lib}: no front door (sgemm::run) among its functions")
    front, texts = {}, {}
    for path in FRONT:
        others = set().union(*(roots[p] for p in FRONT if p != path)) if path == "api" else set()
        closure = host.closure(roots[path], stop=others)
        text = "host\n" + host.text(closure) + "\nkernels\n" + sass_text([], set(), closure)
        front[path] = short(text)
        if keep_text:
            texts[(path, path)] = text

    rungs = {}
    for r in registry:
        rid = int(r["id"])
        own = {k for k, f in host.funcs.items() if (m := RUNG_ROOT.match(f.name)) and int(m[1]) == rid}
        closure = host.closure(own)
        row = "registry " + json.dumps({k: r.get(k) for k in REGISTRY_FIELDS if k != "source"}, sort_keys=True)
        host_text = row + "\n" + host.text(closure)
        sass = sass_text(by_rung.get(rid, []), units_of.get(rid, set()), closure)
        rungs[rid] = {"sass": short(sass), "host": short(host_text)}
        if keep_text:
            texts[(rid, "sass")], texts[(rid, "host")] = sass, host_text
    return Fingerprints(lib, tools, rungs, front, texts)


def library_key(lib: Path) -> dict:
    st = Path(lib).stat()
    h = hashlib.sha256()
    with open(lib, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    tool = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()  # this file: how they were computed
    return {"definition": DEFINITION, "tool": tool, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "sha256": h.hexdigest()}


def current(lib: Path | None = None) -> Fingerprints:
    """The fingerprints of a library (default: the one the package reads), from the cache beside it
    when the library has not changed since."""
    lib = Path(default_library() if lib is None else lib)
    if not lib.is_file():
        raise FingerprintError(f"no library at {lib}")
    real = lib.resolve()
    build_type = cmake_cache(build_dir_of(real)).get("CMAKE_BUILD_TYPE")
    if build_type is not None and build_type != "Release":
        raise FingerprintError(f"{lib} is not a release build (CMAKE_BUILD_TYPE {build_type or 'empty'}): "
                               "fingerprints describe the release preset's code (cmake --preset release)")
    cache = real.with_name(real.name + CACHE_SUFFIX)
    key = library_key(real)
    try:
        doc = json.loads(cache.read_text(encoding="utf-8"))
        if doc.get("key") == key:
            return Fingerprints(lib, doc["toolchain"], {int(r): v for r, v in doc["rungs"].items()}, doc["front"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    fp = compute(lib)  # a library outside its build tree: build type "unknown", which no record of a release build matches
    try:  # written whole, then renamed: a reader beside (ctest runs tests in parallel) never sees half of it
        part = cache.with_name(f"{cache.name}.{os.getpid()}")
        part.write_text(json.dumps({"key": key, **fp.record("")}, indent=1) + "\n", encoding="utf-8")
        os.replace(part, cache)
    except OSError:
        pass  # a read-only build: computed again next time
    return fp


def default_library() -> Path:
    """The library the package reads: $SGEMM_LADDER_LIB, else the checkout's release build."""
    sys.path.insert(0, str(REPO / "python"))
    from sgemm_ladder import library

    try:
        return library.library_path()
    except library.LibraryNotFoundError as e:
        raise FingerprintError(str(e)) from e


# ----------------------------------------------------------------------------------------------
# The sources: what the library is built from, as one key

# A comment, or a literal (kept as written: a comment's marks inside it are text)
_C_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def uncommented(text: str) -> str:
    """C or C++ `text` as code: comments out (a block comment's line breaks kept, so every line keeps
    its number), each line without its indentation and trailing blanks. Literals are kept whole."""
    def keep(m: re.Match) -> str:
        t = m.group()
        if t.startswith("//"):
            return ""
        return ("\n" * t.count("\n") or " ") if t.startswith("/*") else t
    return "\n".join(line.strip() for line in _C_TOKEN.sub(keep, text).split("\n"))


def library_files(root: Path) -> list[str]:
    """The library's inputs under `root`, as paths relative to it: where `root` is a checkout's top,
    the files git tracks or would (not those it ignores: a clean clone has none of them), else every
    file."""
    root = Path(root)
    if (root / ".git").exists():
        out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *LIBRARY_INPUTS)
        if out is not None:
            return sorted(p for p in out.split("\0") if p and (root / p).is_file())
    found = []
    for top in LIBRARY_INPUTS:
        path = root / top
        if path.is_file():
            found.append(top)
        for d, dirs, files in os.walk(path):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            found += [str((Path(d) / f).relative_to(root)) for f in files if not f.startswith(".")]
    return sorted(found)


def source_key(root: Path, files: list[str] | None = None) -> str:
    """The key of the library's sources under `root` (16 hex digits): every input's path and text,
    C and C++ files as code (uncommented)."""
    h = hashlib.sha256(f"sources {SOURCE_DEFINITION}\n".encode())
    for rel in (library_files(root) if files is None else files):
        data = (Path(root) / rel).read_bytes()
        if rel.endswith(C_FAMILY):
            data = uncommented(data.decode("utf-8", errors="surrogateescape")).encode("utf-8", "surrogateescape")
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:DIGITS]


@dataclass
class Sources:
    """The current sources, against which committed figures are told stale or not."""

    key: str

    @classmethod
    def of(cls, root: Path = REPO) -> "Sources":
        try:
            return cls(source_key(root))
        except OSError as e:
            raise FingerprintError(f"cannot read the library's sources under {root}: {e}") from e


def outdated_input(lib: Path, source: Path, files: list[str]) -> str | None:
    """Why the library `lib` may be older than the library inputs `files` of `source` (None: it is
    not): a build older than its sources cannot vouch for them. Where Ninja built it: an input of
    the build's configuration newer than build.ninja, a file an object of the library was compiled
    from (Ninja's record of each object's includes) newer than the object, or an object newer than
    the library; elsewhere, an input newer than the library."""
    real = Path(lib).resolve()
    build = build_dir_of(real)
    ninja = shutil.which("ninja")
    if build is not None and (build / "build.ninja").is_file() and ninja is not None:
        configured = (build / "build.ninja").stat().st_mtime_ns
        for rel in files:
            if not rel.endswith(C_FAMILY) and (Path(source) / rel).stat().st_mtime_ns > configured:
                return f"{rel} is newer than the build's configuration"
        out = subprocess.run([ninja, "-C", str(build), "-t", "deps"], capture_output=True, text=True)
        if out.returncode != 0:
            return f"ninja -t deps failed: {out.stderr.strip()}"
        linked = real.stat().st_mtime_ns
        made = None  # the library object whose includes follow, with its mtime
        for line in out.stdout.splitlines():
            if not line.strip():
                made = None
            elif not line.startswith(" "):
                name = line.split(": #deps")[0]
                obj = build / name
                made = (name, obj.stat().st_mtime_ns) if name.startswith("kernels/") and obj.is_file() else None
                if made is not None and made[1] > linked:
                    return f"{name} is newer than the library"
            elif made is not None:
                dep = build / line.strip()
                if dep.exists() and dep.stat().st_mtime_ns > made[1]:
                    return f"{line.strip()} is newer than {made[0]}"
        return None
    built = real.stat().st_mtime_ns
    for rel in files:
        if (Path(source) / rel).stat().st_mtime_ns > built:
            return f"{rel} is newer than the library"
    return None


# ----------------------------------------------------------------------------------------------
# Results files: what they record, and which of their rungs are stale


@dataclass
class Measured:
    """A rung of a results file measured at one commit, the components its figures depend on, and
    the fingerprints the file records for that commit (None: none)."""

    rung: int
    commit: str  # as the file records it ("306c281", "cf4d02f9c45d", "abc-dirty", "unknown", "")
    clean: str  # "true", "false", "unknown" ("" where not recorded)
    needs: tuple[str, ...]  # components: ("sass",) for the SASS report, else COMPONENTS and the PATHS taken
    record: dict | None  # component -> fingerprint at that commit
    toolchain: dict | None = None
    definition: int | None = None
    # what `stamp` found comparing the record with a build: {"definition", "key" (of the sources
    # built), "changed" (the components that differed; None: the record has no such rung)}
    source: dict | None = None


@dataclass
class Stale:
    rung: int
    commit: str
    why: str


def file_kind(path: Path) -> str:
    return "csv" if Path(path).suffix == ".csv" else "json"


_ROW_RUNG = re.compile(r"^(?:rung|accuracy/)(\d+)_")


def row_rung(row: dict) -> int | None:
    if isinstance(row.get("rung"), (int, float)):
        return int(row["rung"])
    m = _ROW_RUNG.match(str(row.get("name", "")))
    return int(m[1]) if m else None


def row_paths(row: dict) -> tuple[str, ...]:
    """The front door's paths an sgemm_bench row took: "general" for a layout other than NN, a batch
    or a bias; "packed" where a leading dimension is not a multiple of four floats (operands whose
    rows are not 16-byte aligned: the front door may pack them)."""
    out = []
    layout = str(row.get("layout") or "nn")
    if layout != "nn" or float(row.get("batch") or 1) > 1 or float(row.get("bias") or 0):
        out.append("general")
    m, n, k = (int(float(row.get(d) or 0)) for d in "MNK")
    dense = {"lda": m if layout[0] == "t" else k, "ldb": k if layout[1:2] == "t" else n, "ldc": n}
    if any(int(float(row.get(ld) or dense[ld])) % 4 for ld in dense):
        out.append("packed")
    return tuple(out)


def read_json(path: Path) -> dict:
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, dict):
        raise FingerprintError(f"{path}: not a JSON object")
    return doc


def file_context(doc: dict) -> dict:
    """Where a JSON results file keeps its commit: the context (sgemm_bench, the model benchmark) or
    the top level (the SASS report, the autotuner)."""
    ctx = doc.get("context")
    return ctx if isinstance(ctx, dict) else doc


def measured(path: Path) -> list[Measured]:
    """Every (rung, commit) a results file holds, with what its figures depend on and the
    fingerprints the file records for them."""
    path = Path(path)
    if file_kind(path) == "csv":  # ncu_profile's: one plain product per rung through sgemm_bench
        out = {}
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                rung, commit = int(float(row["rung"])), row.get("sgemm_ladder_git") or ""
                parts = (row.get("fingerprint") or "").split(":")
                record = dict(zip(COMPONENTS, parts)) if len(parts) == len(COMPONENTS) else None
                key, _, changed = (row.get("source") or "").partition(":")
                source = {"definition": SOURCE_DEFINITION, "key": key,
                          "changed": [c for c in changed.split("+") if c]} if key else None
                out[(rung, commit)] = Measured(rung, commit, row.get("sgemm_ladder_clean") or "", COMPONENTS,
                                               record, definition=DEFINITION if record else None, source=source)
        return sorted(out.values(), key=lambda m: (m.rung, m.commit))
    doc = read_json(path)
    ctx = file_context(doc)
    commit, clean = str(ctx.get("sgemm_ladder_git") or ""), str(ctx.get("sgemm_ladder_clean") or "")
    needs: dict[tuple[int, str, str], set[str]] = {}
    rows = doc.get("benchmarks") if isinstance(doc.get("benchmarks"), list) else []
    if isinstance(doc.get("rungs"), list) and doc.get("tool") == "sass_report":  # static SASS counts
        for r in doc["rungs"]:
            needs.setdefault((int(r["rung"]), commit, clean), set()).add("sass")
    elif any(isinstance(r, dict) and row_rung(r) is not None for r in rows):  # sgemm_bench
        for r in rows:
            if isinstance(r, dict) and (rung := row_rung(r)) is not None:
                key = (rung, str(r.get("sgemm_ladder_git") or commit), str(r.get("sgemm_ladder_clean") or clean))
                needs.setdefault(key, set(COMPONENTS)).update(row_paths(r))
    elif str(ctx.get("rung", "")).isdigit():  # the model benchmark: every layout, through the C ABI
        needs[(int(ctx["rung"]), commit, clean)] = set(COMPONENTS) | set(PATHS)
    records = doc.get("fingerprints") if isinstance(doc.get("fingerprints"), dict) else {}
    out = []
    for (rung, c, cl), comps in sorted(needs.items()):
        rec = records.get(c) if isinstance(records.get(c), dict) else None
        fp = {**rec.get("rungs", {}).get(str(rung), {}), **rec.get("front", {})} if rec else None
        if rec and str(rung) not in rec.get("rungs", {}):
            fp = None
        order = COMPONENTS + PATHS
        src = rec.get("source") if rec and isinstance(rec.get("source"), dict) else None
        if src is not None:
            changed = src.get("changed") if isinstance(src.get("changed"), dict) else {}
            src = {"definition": src.get("definition"), "key": src.get("key"), "changed": changed.get(str(rung))}
        out.append(Measured(rung, c, cl, tuple(x for x in order if x in comps), fp,
                            rec.get("toolchain") if rec else None, rec.get("definition") if rec else None, src))
    return out


WORDS = {"sass": "its kernels", "host": "its host code", "api": "the front door (sgemm::run)",
         "packed": "the front door's packing of unaligned operands", "general": "the front door's general entry"}


def why_stale(m: Measured, now: Sources | Fingerprints) -> str | None:
    """Why a rung's figures in a file are stale against the current sources (what the committed
    pages and every check go by), or against a build (what `stamp` compares); None when they are
    not."""
    if not m.commit or m.commit.startswith("unknown"):
        return "the file records no commit"
    if m.commit.endswith("-dirty") or m.clean == "false":
        return "measured on a tree with uncommitted changes"
    if m.record is None:
        return "no fingerprint recorded"
    if m.definition != DEFINITION:
        return f"a fingerprint of another definition ({m.definition})"
    if isinstance(now, Sources):
        src = m.source
        if src is None or src.get("definition") != SOURCE_DEFINITION or src.get("key") != now.key:
            return ("not compared with a build of the current sources (they changed after `python3 "
                    "tools/fingerprint.py stamp` last ran on this file)")
        if src.get("changed") is None:
            return f"rung {m.rung} was not in the build of the current sources"
        if "toolchain" in src["changed"]:
            return "compared only with a build of another toolchain"
        changed = [c for c in m.needs if c in src["changed"]]
        return "changed since: " + " and ".join(WORDS[c] for c in changed) if changed else None
    if m.toolchain is not None and m.toolchain != now.toolchain:
        return (f"fingerprinted with another toolchain ({describe_toolchain(m.toolchain)}; this build: "
                f"{describe_toolchain(now.toolchain)})")
    cur = now.of(m.rung)
    if cur is None:
        return f"rung {m.rung} is not in this build"
    changed = [c for c in m.needs if m.record.get(c) != cur.get(c)]
    if not changed:
        return None
    return "changed since: " + " and ".join(WORDS[c] for c in changed)


def describe_toolchain(t: dict) -> str:
    return f"{t.get('cxx', '?')}, CUDA {t.get('cuda', '?')}, {t.get('build_type', '?')}"


def stale(path: Path, now: Sources | Fingerprints) -> dict[int, Stale]:
    """The stale rungs of a results file: rung -> its first stale (commit, why)."""
    out: dict[int, Stale] = {}
    for m in measured(path):
        if m.rung not in out and (why := why_stale(m, now)) is not None:
            out[m.rung] = Stale(m.rung, m.commit or "unknown", why)
    return out


# ----------------------------------------------------------------------------------------------
# Stamping


def git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def resolve(root: Path, commit: str) -> str | None:
    """A commit as files record it ("306c281", "v0.3.0-5-gabc1234", a full sha) as a full sha."""
    text = commit.removesuffix("-dirty")
    if m := re.search(r"-g([0-9a-f]{4,40})$", text):
        text = m[1]
    if not re.fullmatch(r"[0-9a-f]{4,40}", text):
        return None
    return git(root, "rev-parse", "--verify", "--quiet", text + "^{commit}")


def stampable(source: Path, commit: str, clean: str = "") -> str | None:
    """Why the build of `source` cannot vouch for `commit`'s fingerprints (None: it can): the file
    says the tree it measured was clean; the build's tree is a git checkout, clean in the library's
    inputs, at `commit` or at a commit whose library inputs are the same."""
    if commit.endswith("-dirty") or clean == "false":
        return f"{commit} was measured on a tree with uncommitted changes: no commit to vouch for"
    full = resolve(source, commit)
    if full is None:
        return f"{commit!r} is not a commit of {source}"
    head = git(source, "rev-parse", "HEAD")
    if head is None:
        return f"{source} is not a git checkout"
    changed = git(source, "diff", "--name-only", "HEAD", "--", *LIBRARY_INPUTS)
    if changed is None or changed:
        return f"the build's tree {source} has uncommitted changes in the library's inputs: {changed or '?'}"
    if head != full:
        moved = git(source, "diff", "--name-only", full, head, "--", *LIBRARY_INPUTS)
        if moved is None or moved:
            return (f"the build's tree is at {head[:12]}, and {commit} differs from it in the library's inputs "
                    f"({', '.join((moved or '?').split()[:4])}): build {commit} to stamp it")
    return None


def compared(record: dict, fp: Fingerprints) -> dict[str, list[str]]:
    """Per rung of `record` (one commit's fingerprints), the components that differ in the build
    `fp`: ["toolchain"] where the build's toolchain is another one (its code cannot be compared)."""
    out = {}
    for r, comps in (record.get("rungs") or {}).items():
        cur = fp.of(int(r))
        if cur is None:
            continue
        if record.get("toolchain") != fp.toolchain:
            out[r] = ["toolchain"]
            continue
        both = {**comps, **(record.get("front") or {})}
        out[r] = [c for c in COMPONENTS + PATHS if both.get(c) != cur.get(c)]
    return out


def stamp_file(path: Path, fp: Fingerprints, source: Path,
               sources: Sources | None = None) -> tuple[list[str], list[str], list[str]]:
    """Record `fp` for every commit of the file that the build can vouch for, then (with `sources`,
    the key of the sources the build was built from) compare every record of the file with the
    build; (stamped, refused, compared)."""
    path = Path(path)
    done, refused, ok, seen = [], [], {}, []
    commits = {}
    for m in measured(path):
        if m.commit:
            commits.setdefault(m.commit, m.clean)
    if not commits:
        return [], [f"{path.name}: records no commit"], []
    for c, clean in sorted(commits.items()):
        why = stampable(source, c, clean)
        if why is None:
            ok[c] = resolve(source, c)
            done.append(c)
        else:
            refused.append(f"{path.name}: {why}")
    if file_kind(path) == "csv":
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            head, rows = list(reader.fieldnames or []), list(reader)
        for col in ("fingerprint",) + (("source",) if sources is not None else ()):
            if col not in head:
                head.append(col)
        for row in rows:
            rung = int(float(row["rung"]))
            if row.get("sgemm_ladder_git") in ok and (cur := fp.of(rung)) is not None:
                row["fingerprint"] = ":".join(cur[c] for c in COMPONENTS)
            parts = (row.get("fingerprint") or "").split(":")
            if sources is None or len(parts) != len(COMPONENTS) or (cur := fp.of(rung)) is None:
                continue
            # The row's figures take no other path; the row keeps no toolchain (its fingerprints differ
            # where another one made them).
            changed = [c for c, was in zip(COMPONENTS, parts) if was != cur[c]]
            row["source"] = f"{sources.key}:" + "+".join(changed)
            seen.append(row.get("sgemm_ladder_git") or "unknown")
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=head, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        path.write_text(buf.getvalue(), encoding="utf-8")
        return done, refused, sorted(set(seen))
    doc = read_json(path)
    records = doc.get("fingerprints") if isinstance(doc.get("fingerprints"), dict) else {}
    for c, full in ok.items():
        records[c] = fp.record(full)
    if sources is not None:
        for c, record in records.items():
            if isinstance(record, dict) and record.get("definition") == DEFINITION:
                record["source"] = {"definition": SOURCE_DEFINITION, "key": sources.key,
                                    "changed": compared(record, fp)}
                seen.append(c)
    if records:
        doc["fingerprints"] = dict(sorted(records.items()))
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return done, refused, seen


# ----------------------------------------------------------------------------------------------
# Command line


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="fingerprint.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", type=Path, help="the library (default: the one the package reads)")
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("show", help="the build's fingerprints as JSON")
    p.add_argument("rungs", nargs="*", type=int)
    p = sub.add_parser("dump", help="the text a fingerprint hashes (a rung's sass or host; api, packed, general)")
    p.add_argument("what_of", metavar="RUNG|PATH", help="a rung id, or api, packed, general")
    p.add_argument("component", nargs="?", choices=("sass", "host"), help="for a rung: sass or host")
    p = sub.add_parser("stamp", help="record the build's fingerprints in results files")
    p.add_argument("files", nargs="+", type=Path)
    p = sub.add_parser("stale", help="the stale rungs of results files (exit 1 when there are any)")
    p.add_argument("files", nargs="+", type=Path)
    sub.add_parser("key", help="the key of the current sources (what staleness is told against)")
    args = ap.parse_args(argv)
    try:
        if args.what == "key":
            print(Sources.of(REPO).key)
            return 0
        if args.what == "stale":  # against the sources: no build needed
            now = Sources.of(REPO)
            any_stale = False
            for path in args.files:
                rows = stale(path, now)
                any_stale |= bool(rows)
                for st in sorted(rows.values(), key=lambda st: st.rung):
                    print(f"{path}: rung {st.rung} (measured at {st.commit}): {st.why}")
                if not rows:
                    print(f"{path}: nothing stale")
            return 1 if any_stale else 0
        lib = Path(args.lib if args.lib is not None else default_library())
        if args.what == "dump":
            fp = compute(lib, keep_text=True)
            key = (args.what_of, args.what_of) if args.what_of in FRONT else (
                int(args.what_of) if args.what_of.isdigit() else None, args.component)
            if key not in fp.texts:
                print(f"fingerprint: nothing to dump for {args.what_of} {args.component or ''} in {lib} (a rung id "
                      "with sass or host, or one of api, packed, general)", file=sys.stderr)
                return 2
            print(fp.texts[key])
            return 0
        fp = current(lib)
        if args.what == "show":
            wanted = set(args.rungs) or set(fp.rungs)
            print(json.dumps({"lib": str(lib), **fp.record(""), "commit": None,
                              "rungs": {str(r): v for r, v in sorted(fp.rungs.items()) if r in wanted}}, indent=1))
            return 0
        source = source_dir_of(lib)
        if source is None:
            print(f"fingerprint: cannot tell which source tree {lib} was built from (no CMakeCache.txt above it)",
                  file=sys.stderr)
            return 1
        files = library_files(source)
        sources = Sources(source_key(source, files))
        loose = git(source, "ls-files", "--others", "--exclude-standard", "--", *LIBRARY_INPUTS)
        if loose:  # a clean clone would not have them: its key would differ from the one written
            print(f"fingerprint: files git does not track among the library's inputs ({', '.join(loose.split()[:4])}): "
                  "add them (or ignore them) to compare records with the build; stamping only", file=sys.stderr)
            sources = None
        elif (why := outdated_input(lib, source, files)) is not None:
            print(f"fingerprint: {lib} may be older than its sources ({why}): build it again (cmake --build "
                  f"{build_dir_of(lib.resolve())}) to compare records with it; stamping only", file=sys.stderr)
            sources = None
        rc = 0
        for path in args.files:
            done, refused, seen = stamp_file(path, fp, source, sources)
            for line in refused:  # rows of older runs in a merged file: expected, and they stay stale
                print(f"fingerprint: not stamped: {line}", file=sys.stderr)
            if done:
                print(f"fingerprint: {path}: stamped {', '.join(done)} with the fingerprints of {lib}")
            if seen:
                print(f"fingerprint: {path}: compared {', '.join(seen)} with the build of sources {sources.key}")
            if not done and not seen:
                rc = 1  # nothing of this file could be stamped or compared
        return rc
    except FingerprintError as e:
        print(f"fingerprint: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
