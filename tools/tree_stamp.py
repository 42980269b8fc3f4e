#!/usr/bin/env python3
"""Which commit a source tree holds, and whether it is clean: git where the tree has its history,
else a stamp written beside it (standard library only).

Every results file records the commit that measured it and whether the tree was clean
(docs/design.md, "Measuring"). A checkout answers with git. A copy of the tree without its
history (the GPU machine gets a copy of the working tree, not .git) answers with the stamp that
`write` left at the tree's root before the copy was made:

    .tree-stamp.json    {"tool": "tree_stamp", "commit": FULL_SHA, "describe": DESCRIBE,
                         "clean": true|false, "excluded": ["bench/results/"],
                         "tree_sha256": HEX, "files": {PATH: SHA256 of its bytes, ...}}

It is untracked and not ignored, so it travels with a copy of the working tree; it lists every
tracked file with the sha256 of its bytes as they were when it was written. Read back, it is
believed only while every listed file still has those bytes: one edited, missing or added file
(as a listed one) and the answer is "unknown-dirty". A stamp cannot vouch for files it does not
list (an untracked file is not part of a commit either: git describe --dirty ignores them too).

The answer (`json`):
    {"commit": FULL_SHA | "unknown", "describe": "<12 hex>[-dirty]" | "unknown" | "unknown-dirty",
     "clean": true | false | null, "from": "git" | "stamp" | "SGEMM_LADDER_GIT_DESCRIBE" | "none",
     "why": TEXT}
"clean" is git's meaning of --dirty, less bench/results/: no tracked file outside bench/results/
differs from the commit (results files are what a measurement writes, not what it measured, and a
tree whose only change is a new results file still measured its commit). $SGEMM_LADDER_GIT_DESCRIBE,
when set, overrides everything (a person vouches for the copy): "from" says so and "clean" is null
unless the value ends in "-dirty".

    python3 tools/tree_stamp.py write             here, before a copy leaves: write .tree-stamp.json
    python3 tools/tree_stamp.py json              the answer (cmake/GitVersion.cmake, the Python writers)
    python3 tools/tree_stamp.py describe          the answer's "describe" alone
    python3 tools/tree_stamp.py check             exit 1 unless the answer is a known commit, clean
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAMP = ".tree-stamp.json"
EXCLUDED = ("bench/results/",)  # what a measurement writes: not part of what it measured
ENV = "SGEMM_LADDER_GIT_DESCRIBE"
ABBREV = 12


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.decode("utf-8", "surrogateescape") if out.returncode == 0 else None


def has_git(root: Path = REPO) -> bool:
    """Whether `root` is the top of a git work tree that git can read (a copy without .git is not)."""
    if not (root / ".git").exists():
        return False
    top = _git(root, "rev-parse", "--show-toplevel")
    return top is not None and Path(top.strip()).resolve() == root.resolve()


def excluded(path: str) -> bool:
    return any(path.startswith(p) for p in EXCLUDED)


def tracked_files(root: Path = REPO) -> list[str]:
    out = _git(root, "ls-files", "-z")
    if out is None:
        raise RuntimeError(f"git ls-files failed in {root}")
    return sorted(p for p in out.split("\0") if p and not excluded(p) and p != STAMP)  # a stamp committed by mistake


def file_hash(path: Path) -> str:
    """sha256 of a file's bytes (of a link's target text: git stores a link as its text); "missing"."""
    if path.is_symlink():
        return hashlib.sha256(os.readlink(path).encode("utf-8", "surrogateescape")).hexdigest()
    if not path.is_file():
        return "missing"
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tree_hash(files: dict[str, str]) -> str:
    text = "".join(f"{h}  {p}\n" for p, h in sorted(files.items()))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def git_answer(root: Path = REPO) -> dict:
    commit = (_git(root, "rev-parse", "HEAD") or "").strip()
    if not commit:
        return {"commit": "unknown", "describe": "unknown", "clean": None, "from": "none",
                "why": f"git rev-parse HEAD failed in {root}"}
    _git(root, "update-index", "-q", "--refresh")
    diff = _git(root, "diff-index", "--name-only", "-z", "HEAD")
    if diff is None:
        return {"commit": commit, "describe": "unknown-dirty", "clean": None, "from": "git",
                "why": "git diff-index HEAD failed"}
    changed = sorted({p for p in diff.split("\0") if p})
    changed = [p for p in changed if not excluded(p)]
    described = (_git(root, "describe", "--always", f"--abbrev={ABBREV}") or commit[:ABBREV]).strip()
    clean = not changed
    return {"commit": commit, "describe": described + ("" if clean else "-dirty"), "clean": clean, "from": "git",
            "why": "git: " + ("no tracked file changed" if clean else
                              f"{len(changed)} tracked file(s) changed: {', '.join(changed[:5])}"
                              + (" ..." if len(changed) > 5 else ""))}


def write_stamp(root: Path = REPO) -> dict:
    """Write `root`/.tree-stamp.json from git: the commit, whether clean, every tracked file's hash."""
    answer = git_answer(root)
    if answer["commit"] == "unknown":
        raise RuntimeError(answer["why"])
    files = {p: file_hash(root / p) for p in tracked_files(root)}
    stamp = {"tool": "tree_stamp", "commit": answer["commit"], "describe": answer["describe"],
             "clean": answer["clean"], "excluded": list(EXCLUDED), "tree_sha256": tree_hash(files), "files": files}
    (root / STAMP).write_text(json.dumps(stamp, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    return stamp


def stamp_answer(root: Path = REPO) -> dict:
    path = root / STAMP
    if not path.is_file():
        return {"commit": "unknown", "describe": "unknown", "clean": None, "from": "none",
                "why": f"no git history and no {STAMP} (run `python3 tools/tree_stamp.py write` in the checkout "
                       f"before copying the tree, or set {ENV})"}
    try:
        stamp = json.loads(path.read_text(encoding="utf-8"))
        files, commit = dict(stamp["files"]), str(stamp["commit"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        return {"commit": "unknown", "describe": "unknown-dirty", "clean": None, "from": "stamp",
                "why": f"{STAMP} unreadable: {e}"}
    now = {p: file_hash(root / p) for p in files}
    differ = sorted(p for p in files if now[p] != files[p])
    if differ or tree_hash(files) != stamp.get("tree_sha256"):
        return {"commit": "unknown", "describe": "unknown-dirty", "clean": False, "from": "stamp",
                "why": f"{STAMP} of {commit[:ABBREV]} no longer matches the files: {len(differ)} differ ("
                       + ", ".join(differ[:5]) + (" ..." if len(differ) > 5 else "") + ")"}
    return {"commit": commit, "describe": str(stamp.get("describe") or commit[:ABBREV]),
            "clean": bool(stamp.get("clean")), "from": "stamp",
            "why": f"{STAMP}: all {len(files)} files listed still have the bytes stamped"}


def answer(root: Path = REPO, env: dict | None = None) -> dict:
    """The tree's commit: $SGEMM_LADDER_GIT_DESCRIBE, else git, else the stamp (see the docstring)."""
    env = os.environ if env is None else env
    if env.get(ENV):
        value = env[ENV]
        return {"commit": value.removesuffix("-dirty"), "describe": value,
                "clean": False if value.endswith("-dirty") else None, "from": ENV, "why": f"${ENV} set by hand"}
    if not has_git(root):
        return stamp_answer(root)
    ours = git_answer(root)
    if ours["clean"] is not True and (root / STAMP).is_file():
        # A copy may come with a git history older than its files (a GPU machine's snapshot): a stamp
        # whose every file still has the bytes stamped says more than that history's "dirty".
        stamped = stamp_answer(root)
        if stamped["commit"] != "unknown":
            return dict(stamped, why=stamped["why"] + f" (git's history says otherwise: {ours['why']})")
    return ours


def context(root: Path = REPO) -> dict[str, str]:
    """The keys a results file records (text, as sgemm_bench's context holds them)."""
    a = answer(root)
    return {"sgemm_ladder_git": a["describe"], "sgemm_ladder_commit": a["commit"],
            "sgemm_ladder_clean": {True: "true", False: "false", None: "unknown"}[a["clean"]],
            "sgemm_ladder_commit_from": a["from"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="tree_stamp", description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("write", "json", "describe", "check"))
    ap.add_argument("--root", type=Path, default=REPO, help="the tree (default: this checkout)")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    if args.what == "write":
        if not has_git(root):
            print(f"tree_stamp: {root} has no git history: write the stamp in the checkout, before the copy",
                  file=sys.stderr)
            return 1
        stamp = write_stamp(root)
        print(f"tree_stamp: wrote {STAMP}: {stamp['describe']} ({'clean' if stamp['clean'] else 'DIRTY'}), "
              f"{len(stamp['files'])} files")
        return 0
    a = answer(root)
    if args.what == "json":
        print(json.dumps(a))
    elif args.what == "describe":
        print(a["describe"])
    else:
        ok = a["commit"] != "unknown" and a["clean"] is True
        print(f"tree_stamp: {a['describe']} ({a['from']}): {a['why']}", file=sys.stdout if ok else sys.stderr)
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
