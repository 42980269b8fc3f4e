"""Pages for readers (issue 65): a rung's page holds the lesson, the prediction, the measurement and
the generated evidence in at most 400 lines; what was tried and missed goes to a lab log beside it,
docs/rungs/<slug>.lab.md, which the page links and which links back to its page; README.md is at
most 200 lines. And the relative links of README.md and docs/ lead to files and headings that
exist, so that a section moved from a page to its lab log leaves no link behind."""
import re
from pathlib import Path

import pytest

import docs

PAGE_LINES = 400
README_LINES = 200
LAB = ".lab.md"  # docs/rungs/<slug>.lab.md: the lab log of the page docs/rungs/<slug>.md


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def links_to(text: str, name: str) -> bool:
    """Whether `text` has a Markdown link to the file `name` of its own folder (an anchor allowed)."""
    return re.search(r"\]\(\s*(?:\./)?" + re.escape(name) + r"(?:#[^)\s]*)?\)", text) is not None


def page_problems(folder: Path, limit: int = PAGE_LINES) -> list[str]:
    """What breaks the rules in a folder of rung pages: a page over `limit` lines, a lab log its page
    does not link, a lab log without a page or without a link back to it."""
    problems = []
    for page in sorted(p for p in folder.glob("*.md") if not p.name.endswith(LAB)):
        if (n := lines(page)) > limit:
            problems.append(f"{page.name}: {n} lines, more than {limit}: move what was tried and missed "
                            f"to {page.name[:-3]}{LAB}")
    for lab in sorted(folder.glob(f"*{LAB}")):
        page = folder / (lab.name[: -len(LAB)] + ".md")
        if not page.is_file():
            problems.append(f"{lab.name}: no page {page.name} beside it")
            continue
        if not links_to(docs.GENERATED.sub("", page.read_text(encoding="utf-8")), lab.name):
            problems.append(f"{page.name}: does not link its lab log {lab.name}")
        if not links_to(lab.read_text(encoding="utf-8"), page.name):
            problems.append(f"{lab.name}: does not link back to {page.name}")
    return problems


_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def headings(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them (a repeated one gets -1, -2)."""
    out, seen = set(), {}
    for h in re.findall(r"^#{1,6} (.+)$", _FENCE.sub("", path.read_text(encoding="utf-8")), re.MULTILINE):
        a = docs.anchor(h)
        out.add(f"{a}-{seen[a]}" if a in seen else a)
        seen[a] = seen.get(a, 0) + 1
    return out


def broken_links(path: Path, root: Path) -> list[str]:
    """The relative links of a Markdown file (outside fenced code) whose file or heading is missing."""
    broken = []
    for m in _LINK.finditer(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        link = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", link):  # https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not file.exists():
            broken.append(f"{path.relative_to(root)}: {link}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in headings(file):
            broken.append(f"{path.relative_to(root)}: {link}: no such heading")
    return broken


# ---------------------------------------------------------------------------------------------
# The rules, on a folder made here


@pytest.fixture
def rungs_dir(tmp_path):
    (tmp_path / "07_r.md").write_text("# Rung 7\n\nThe [lab log](07_r.lab.md) has the rest.\n")
    (tmp_path / "07_r.lab.md").write_text("# Rung 7 — the lab log\n\n[Rung 7's page](07_r.md).\n")
    (tmp_path / "08_r.md").write_text("# Rung 8\n" + "line\n" * 20)
    return tmp_path


def test_pages_that_keep_the_rules(rungs_dir):
    assert page_problems(rungs_dir, limit=21) == []


def test_a_long_page_is_reported_and_its_lab_log_is_not_counted(rungs_dir):
    (rungs_dir / "07_r.lab.md").write_text("[page](07_r.md)\n" + "history\n" * 100)
    assert page_problems(rungs_dir, limit=21) == []
    (found,) = page_problems(rungs_dir, limit=20)
    assert found.startswith("08_r.md: 21 lines, more than 20") and "08_r.lab.md" in found


@pytest.mark.parametrize("page, lab, why", [
    ("# Rung 7\n\nNo link.\n", "[page](07_r.md)\n", "07_r.md: does not link its lab log 07_r.lab.md"),
    (f"# Rung 7\n{docs.BEGIN}\n[log](07_r.lab.md)\n{docs.END}\n", "[page](07_r.md)\n",
     "07_r.md: does not link its lab log"),  # a link in the generated part is not the page's
    ("See [the log](./07_r.lab.md#a-session).\n", "No link back.\n", "07_r.lab.md: does not link back to 07_r.md"),
])
def test_lab_logs_and_pages_link_each_other(rungs_dir, page, lab, why):
    (rungs_dir / "07_r.md").write_text(page)
    (rungs_dir / "07_r.lab.md").write_text(lab)
    (found,) = page_problems(rungs_dir)
    assert found.startswith(why), found


def test_a_lab_log_needs_its_page(rungs_dir):
    (rungs_dir / "09_r.lab.md").write_text("[page](09_r.md)\n")
    assert page_problems(rungs_dir) == ["09_r.lab.md: no page 09_r.md beside it"]


def test_links_to_missing_files_and_headings_are_reported(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n## A session's end\n\n## Twice\n\n## Twice\n")
    (tmp_path / "b.md").write_text("[ok](a.md#a-sessions-end) [ok](a.md#twice-1) [ok](#b) [web](https://x.org/y#z)\n"
                                   "# B\n\n[gone](a.md#moved) [gone](c.md)\n\n```\n[in code](nowhere.md)\n```\n")
    assert broken_links(tmp_path / "b.md", tmp_path) == ["b.md: a.md#moved: no such heading",
                                                         "b.md: c.md: no such file"]


# ---------------------------------------------------------------------------------------------
# The committed pages


def test_every_rung_page_fits_and_links_its_lab_log():
    assert page_problems(docs.DOCS) == []


def test_the_readme_fits():
    assert lines(docs.README) <= README_LINES, (
        f"README.md: {lines(docs.README)} lines, more than {README_LINES}: move detail to a page under docs/")


def test_links_of_the_readme_and_the_docs_lead_somewhere():
    files = [docs.README] + sorted((docs.REPO / "docs").rglob("*.md"))
    assert [b for f in files for b in broken_links(f, docs.REPO)] == []
