"""tools/check_warnings.py: a warning the known list does not name fails; a known one passes."""
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "check_warnings.py"


def run(logs: Path, known: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), str(logs), str(known)], capture_output=True, text=True)


def test_new_warning_fails_and_known_one_passes(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.o.log").write_text("ptxas warning : Registers are spilled to local memory in function '_Zfoo', 4 bytes\n")
    (logs / "b.o.log").write_text("Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n")
    known = tmp_path / "known.txt"
    known.write_text("# comment\nspilled to local memory in function '_Zfoo' # why it stays\n")
    assert run(logs, known).returncode == 0
    (logs / "c.o.log").write_text("../../kernels/x.cu(3): warning #177-D: variable \"y\" was declared but never referenced\n")
    r = run(logs, known)
    assert r.returncode == 1 and "NEW WARNING: c.o.log" in r.stdout


def test_known_warning_needs_a_reason_and_a_gone_one_is_reported(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.o.log").write_text("")
    known = tmp_path / "known.txt"
    known.write_text("spilled in '_Zgone' # fixed since\n")
    r = run(logs, known)
    assert r.returncode == 0 and "no longer printed" in r.stdout
    known.write_text("spilled in '_Zgone'\n")
    assert run(logs, known).returncode != 0


def test_the_committed_list_parses():
    known = TOOL.with_name("known_warnings.txt")
    for line in known.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert " # " in line, line
