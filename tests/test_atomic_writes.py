"""A writer killed in the middle of writing a session, a report or a baseline leaves the previous
file whole and readable.  Each writer runs in a child process that is stopped with SIGKILL at a
chosen point of the write (while the new bytes are being flushed, or between the renames of a
baseline's replacement) or at random moments; the file is then compared byte for byte."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "resources" / "examples"

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def _child(code: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)


#: a child prints READY and sleeps when it reaches the point where it is to be killed
HANG = """
import os, sys, time
def hang(*args, **kwargs):
    print("READY", flush=True)
    time.sleep(600)
"""


def _kill_when_ready(proc: subprocess.Popen, timeout: float = 120) -> None:
    line = proc.stdout.readline()
    assert line.strip() == "READY", (line, proc.stderr.read() if proc.poll() is not None else "")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout)
    assert proc.returncode == -signal.SIGKILL


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- sessions ---------------------------------------------------------------------------------

def _first_session(tmp_path: Path) -> Path:
    from workbench.core.session import Session, save_session

    path = tmp_path / "first.wbsession.json"
    save_session(Session(input_path=str(EXAMPLES / "claims.csv"), roles={"claims": "success"}), path)
    return path


def test_a_session_writer_killed_while_flushing_leaves_the_previous_session(tmp_path):
    from workbench.core.session import load_session

    path = _first_session(tmp_path)
    before = path.read_bytes()
    proc = _child(HANG + f"""
from workbench.core.session import Session, save_session
os.fsync = hang   # the new bytes are written, not yet renamed into place
save_session(Session(input_path="other.csv", rule_text="x" * 1_000_000), {str(path)!r})
""")
    _kill_when_ready(proc)
    assert path.read_bytes() == before
    assert load_session(path).roles == {"claims": "success"}


def test_a_session_writer_killed_at_random_moments_leaves_old_or_new_never_a_mix(tmp_path):
    """A large session (a 20 MB rule text) rewritten over and over; killed at random times, the
    file is always the old one or the whole new one."""
    from workbench.core.session import load_session

    path = _first_session(tmp_path)
    old = path.read_bytes()
    rng = random.Random(12345)
    seen = set()
    for _ in range(4):
        proc = _child(f"""
import sys
from workbench.core.session import Session, save_session
print("READY", flush=True)
for i in range(1000):
    save_session(Session(input_path="new.csv", rule_text=str(i % 10) * 20_000_000), {str(path)!r})
""")
        assert proc.stdout.readline().strip() == "READY"
        time.sleep(rng.uniform(0.05, 1.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        data = path.read_bytes()
        if data == old:
            seen.add("old")
            continue
        session = load_session(path)  # whole JSON: never a half-written file
        assert session.input_path.endswith("new.csv") and len(session.rule_text) == 20_000_000
        assert set(session.rule_text) == {session.rule_text[0]}
        seen.add("new")
    assert seen  # the loop ran; which of the two was found depends on the timing


def test_atomic_write_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    from workbench.core.session import atomic_write_text

    path = tmp_path / "shared.json"
    path.write_text("{}")
    os.chmod(path, 0o644)
    atomic_write_text(path, '{"a": 1}')
    assert path.read_text() == '{"a": 1}' and (os.stat(path).st_mode & 0o777) == 0o644
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


# -- reports ----------------------------------------------------------------------------------

def test_a_report_writer_killed_while_flushing_leaves_the_previous_report(tmp_path):
    import openpyxl

    from workbench.cli.main import main

    path = tmp_path / "report.xlsx"
    assert main(["aggregate", str(EXAMPLES / "multilingual.csv"), "--xlsx", str(path)]) == 0
    before = _sha(path)
    proc = _child(HANG + f"""
from workbench.cli.main import main
os.fsync = hang   # the new workbook is written beside it, not yet renamed into place
main(["compare", {str(EXAMPLES / "paired_14_to_5.csv")!r}, "--xlsx", {str(path)!r}])
""")
    _kill_when_ready(proc)
    assert _sha(path) == before
    book = openpyxl.load_workbook(path)
    assert book.sheetnames  # the earlier report opens


# -- baselines --------------------------------------------------------------------------------

def _bless(tmp_path: Path, name: str, content: str, **kwargs):
    from workbench.rules import baseline as bl

    run = tmp_path / f"{name}-{len(content)}.csv"
    run.write_text(content)
    return bl.bless(str(run), name, str(tmp_path / "baselines"), **kwargs)


RUN_A = "item_id,correct\nq1,1\nq2,0\nq3,1\n"
RUN_B = "item_id,correct\nq1,1\nq2,1\nq3,1\nq4,0\n"


@pytest.mark.parametrize("where", ["copy", "between renames"])
def test_a_baseline_replacement_killed_midway_leaves_the_previous_baseline(tmp_path, where):
    from workbench.rules import baseline as bl

    first = _bless(tmp_path, "v1", RUN_A)
    stored = Path(first.path).read_bytes()
    run = tmp_path / "new-run.csv"
    run.write_text(RUN_B)
    patch = "os.fsync = hang" if where == "copy" else """
real_rename = os.rename
calls = []
def rename(a, b):
    calls.append(a)
    real_rename(a, b)
    if len(calls) == 1:   # the old baseline set aside, the new one not yet in place
        hang()
os.rename = rename
"""
    proc = _child(HANG + patch + f"""
from workbench.rules import baseline as bl
bl.bless({str(run)!r}, "v1", {str(tmp_path / "baselines")!r}, force=True)
""")
    _kill_when_ready(proc)
    folder = str(tmp_path / "baselines")
    again = bl.read(folder, "v1")
    assert again.sha256 == first.sha256 and Path(again.path).read_bytes() == stored
    assert bl.check_integrity(again) is None
    assert bl.names(folder) == ["v1"]


def test_a_baseline_replaced_in_full_is_the_new_run(tmp_path):
    from workbench.rules import baseline as bl

    _bless(tmp_path, "v1", RUN_A)
    second = _bless(tmp_path, "v1", RUN_B, force=True)
    folder = str(tmp_path / "baselines")
    assert bl.read(folder, "v1").sha256 == second.sha256 == hashlib.sha256(RUN_B.encode()).hexdigest()
    assert os.listdir(folder) == ["v1"]
