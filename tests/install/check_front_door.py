#!/usr/bin/env python3
"""CPU test: the front door is a door. No object of a rung (kernels/rungs/*, kernels/dispatch/*) or of
the shared machinery (kernels/common/*) calls a function that an object of kernels/api/ defines: api/
calls the rungs (through the registry) and common/, never the other way round.

    check_front_door.py SOURCE_DIR BUILD_DIR [NM]

SOURCE_DIR: the project's kernels/ folder; BUILD_DIR: its build folder (the build's kernels/). The
objects are those of today's sources (a build folder keeps the objects of files since moved): api/ and
common/ by their sources, dispatch/ by its host sources, the rungs by the units CMake generated
(BUILD_DIR/rungs), in sgemm_ladder_objects.dir and, where the build has one, sgemm_ladder_sm90a.dir.
Exits 1 naming each call that crosses, 0 when none does, 2 when the objects are not there (build the
library first).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def symbols(nm: str, obj: Path, undefined: bool) -> set[str]:
    flags = ["-u"] if undefined else ["--defined-only", "--extern-only"]
    out = subprocess.run([nm, *flags, str(obj)], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        if undefined:
            names.add(parts[-1])
        elif len(parts) >= 3 and parts[1] in "TWVBDR":  # text, weak, data: what a caller can reach
            names.add(parts[-1])
    return names


def demangle(names: list[str]) -> dict[str, str]:
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__)
        return 2
    src, build = Path(argv[1]), Path(argv[2])
    nm = argv[3] if len(argv) > 3 else "nm"
    dirs = [d for d in (build / "CMakeFiles" / "sgemm_ladder_objects.dir", build / "CMakeFiles" / "sgemm_ladder_sm90a.dir")
            if d.is_dir()]

    def objects(sub: str, sources: list[Path]) -> list[Path]:
        return [d / sub / f"{f.name}.o" for f in sources for d in dirs if (d / sub / f"{f.name}.o").is_file()]

    def sources(folder: Path, *patterns: str) -> list[Path]:
        return sorted(f for p in patterns for f in folder.glob(p))

    api = objects("api", sources(src / "api", "*.cpp", "*.cu"))
    callers = (objects("common", sources(src / "common", "*.cpp", "*.cu")) +
               objects("dispatch", sources(src / "dispatch", "*.cpp")) +
               objects("rungs", sources(build / "rungs", "*.cu")))
    if not api or not callers:
        print(f"FAIL: no objects of {src}/api, or of its rungs, dispatch and common, under {build} (build the library first)")
        return 2
    defined = {}
    for obj in api:
        for name in symbols(nm, obj, undefined=False):
            defined[name] = obj.name
    crossing = []
    for obj in callers:
        for name in sorted(symbols(nm, obj, undefined=True) & defined.keys()):
            crossing.append((obj, name))
    if crossing:
        readable = demangle(sorted({n for _, n in crossing}))
        print("FAIL: objects below the front door call functions that kernels/api/ defines:")
        for obj, name in crossing:
            print(f"  {obj.parent.name}/{obj.name} -> {readable[name]} ({defined[name]})")
        return 1
    print(f"ok: none of {len(callers)} rung, dispatch and common objects calls into the {len(api)} api/ objects "
          f"({len(defined)} symbols)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
