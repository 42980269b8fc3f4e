#!/usr/bin/env python3
"""The build's warnings against the known ones: exit 1 on any warning that tools/known_warnings.txt
does not name, so that a new warning fails CI where it appears (ctest's build.warnings).

    check_warnings.py LOG_DIR [KNOWN]

LOG_DIR holds what each compile printed on standard error (cmake/compile_log.sh, one file per
object). A warning is a line with the word "warning" (the host compiler's, nvcc's, ptxas's). KNOWN
(default: tools/known_warnings.txt beside this file) has one regular expression a line, each with
its reason after " # "; a known warning that no longer appears is reported, so that the list only
shrinks (its line should go).
"""
import re
import sys
from pathlib import Path

WARNING = re.compile(r"\bwarning\b", re.IGNORECASE)


def known(path: Path) -> list[tuple[re.Pattern, str]]:
    out = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        pattern, _, why = line.partition(" # ")
        if not why.strip():
            raise SystemExit(f"{path}: every known warning says why: {line}")
        out.append((re.compile(pattern.strip()), why.strip()))
    return out


def main(argv) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    logs = Path(argv[1])
    rules = known(Path(argv[2]) if len(argv) > 2 else Path(__file__).with_name("known_warnings.txt"))
    if not logs.is_dir():
        print(f"check_warnings: no compile logs in {logs} (build first)")
        return 1
    new, seen, count = [], set(), 0
    for log in sorted(logs.glob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if not WARNING.search(line) or line.startswith("Remark:"):  # nvcc's hint after a warning
                continue
            count += 1
            hit = [i for i, (p, _) in enumerate(rules) if p.search(line)]
            if hit:
                seen.update(hit)
            else:
                new.append(f"{log.name}: {line.strip()}")
    for line in new:
        print("NEW WARNING:", line)
    gone = [rules[i][0].pattern for i in range(len(rules)) if i not in seen]
    for pattern in gone:
        print(f"check_warnings: known warning no longer printed (remove it from the list): {pattern}")
    print(f"check_warnings: {count} warning line(s) in {len(list(logs.glob('*.log')))} compile logs, "
          f"{len(new)} new, {len(rules) - len(gone)} of {len(rules)} known ones printed")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
