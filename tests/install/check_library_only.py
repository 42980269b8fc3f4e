#!/usr/bin/env python3
"""CPU test: the wheel's configuration (tests, bench and tools off) builds the library from the same
compile commands as the main build, without compiling it a second time.

    check_library_only.py MAIN_BUILD_DIR LIBRARY_ONLY_BUILD_DIR TARGET...

The main build has already compiled every library source; the library-only tree must compile each
of them with the same command (the build directory aside), compile nothing else for the wheel's
targets, and have a complete build graph for them (`ninja -n`: every input known, no rule missing).
"""
import json
import subprocess
import sys
from pathlib import Path


def commands(build: Path) -> dict[str, str]:
    """source (build-relative where it is generated) -> its command with the build directory named
    <build>, the output path dropped."""
    out = {}
    for e in json.loads((build / "compile_commands.json").read_text()):
        cmd = e["command"].replace(str(build), "<build>")
        words = cmd.split()
        if "-o" in words:  # the object's own path, relative to the build directory: the same
            i = words.index("-o")
            del words[i:i + 2]
        out[e["file"].replace(str(build), "<build>")] = " ".join(words)
    return out


def main(argv) -> int:
    if len(argv) < 4:
        print(__doc__)
        return 2
    main_dir, lib_dir, targets = Path(argv[1]).resolve(), Path(argv[2]).resolve(), argv[3:]
    ours, theirs = commands(main_dir), commands(lib_dir)
    if not theirs:
        print(f"FAIL: {lib_dir} has no compile commands")
        return 1
    # What the wheel's targets would compile: ninja's dry run lists every object it would build.
    dry = subprocess.run(["ninja", "-C", str(lib_dir), "-n", *targets], capture_output=True, text=True)
    if dry.returncode != 0:
        print(f"FAIL: ninja -n {' '.join(targets)} in {lib_dir}:\n{dry.stdout}{dry.stderr}")
        return 1
    bad = []
    for src, cmd in sorted(theirs.items()):
        if src not in ours:
            bad.append(f"compiled only in the library-only tree: {src}")
        elif ours[src] != cmd:
            bad.append(f"another command in the library-only tree for {src}:\n  main: {ours[src]}\n  lib:  {cmd}")
    for line in bad:
        print("FAIL:", line)
    if not bad:
        print(f"{len(theirs)} sources, each compiled by the main build with the library-only tree's command; "
              f"the graph of {' '.join(targets)} is complete")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
