"""Every exit path of a report write, in real processes: a full disk (or a file-size limit) is
one sentence with no stray ``Exception ignored in ZipFile.__del__``; Ctrl-C is exit 130 with one
line and no traceback; SIGTERM leaves no hidden temporary file; an earlier report survives."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from report_checks import EX, ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and resource limits")

COMPARE = ["compare", "--baseline", "baseline", "--candidate", "candidate", "--item", "item_id",
           "--resamples", "1000"]


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}


def _cli(args, **kw):
    return subprocess.Popen([sys.executable, "-m", "workbench", *map(str, args)], cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name.startswith("."))


@pytest.fixture(scope="module")
def big_pairs(tmp_path_factory) -> Path:
    """A paired file whose report takes a few seconds to write (a long sheet of flipped items)."""
    rng = np.random.default_rng(7)
    n = 250_000
    frame = pd.DataFrame({"item_id": [f"item-{i:06d}" for i in range(n)],
                          "baseline": rng.integers(0, 2, n), "candidate": rng.integers(0, 2, n)})
    path = tmp_path_factory.mktemp("big") / "pairs.csv"
    frame.to_csv(path, index=False)
    return path


def _limit_file_size(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_write_that_runs_out_of_room_is_one_sentence_without_a_stray_traceback(tmp_path):
    out = tmp_path / "r.xlsx"
    proc = _cli([*COMPARE[:1], EX / "paired_14_to_5.csv", *COMPARE[1:], "--xlsx", out],
                preexec_fn=_limit_file_size(6_000))
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr
    assert stdout == ""
    assert stderr.startswith(f"workbench: The report could not be written to '{out}': ")
    assert "no file was written" in stderr
    assert stderr.count("\n") == 1, stderr  # one line: no "Exception ignored in ZipFile.__del__"
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_full_disk_is_one_sentence_and_keeps_the_earlier_report(tmp_path):
    """On a real 16 kB file system (tmpfs; needs the right to mount, else skipped)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        out = disk / "r.xlsx"
        out.write_bytes(b"earlier report")
        proc = _cli([*COMPARE[:1], EX / "paired_14_to_5.csv", *COMPARE[1:], "--xlsx", out])
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 2, stderr
        assert stderr == (f"workbench: The report could not be written to '{out}': the disk is full; "
                          f"the earlier report there is unchanged.\n")
        assert out.read_bytes() == b"earlier report"
        assert _leftovers(disk) == []
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def _interrupt_midway(big_pairs: Path, folder: Path, sig: int):
    out = folder / "r.xlsx"
    out.write_bytes(b"earlier report")
    # a shell without job control starts background jobs with SIGINT ignored, which Python
    # then keeps (no KeyboardInterrupt): the child gets Ctrl-C's default back, as in a terminal
    proc = _cli([COMPARE[0], big_pairs, *COMPARE[1:], "--xlsx", out],
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not any(p.name.endswith(".tmp") for p in folder.iterdir()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the report was never started"
        time.sleep(0.02)
    time.sleep(0.3)  # well inside the write
    assert proc.poll() is None, "the write finished before the signal: make the file bigger"
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    return proc.returncode, stdout, stderr, out


def test_ctrl_c_during_the_write_is_exit_130_one_line_and_cleans_up(big_pairs, tmp_path):
    code, stdout, stderr, out = _interrupt_midway(big_pairs, tmp_path, signal.SIGINT)
    assert code == 130
    assert stderr == "workbench: interrupted.\n"
    assert stdout == ""
    assert out.read_bytes() == b"earlier report"
    assert _leftovers(tmp_path) == []


def test_sigterm_during_the_write_leaves_no_hidden_temporary_file(big_pairs, tmp_path):
    code, stdout, stderr, out = _interrupt_midway(big_pairs, tmp_path, signal.SIGTERM)
    assert code == 128 + signal.SIGTERM
    assert stderr == "workbench: terminated.\n"
    assert out.read_bytes() == b"earlier report"
    assert _leftovers(tmp_path) == []


def test_sigterm_outside_a_write_keeps_its_default_meaning(tmp_path):
    """The handler exists only while a report is written: a plain analysis dies as usual."""
    script = ("import signal, sys\n"
              "from workbench.report.safety import atomic_target\n"
              f"with atomic_target({str(tmp_path / 'r.xlsx')!r}) as tmp:\n"
              "    inside = signal.getsignal(signal.SIGTERM)\n"
              "print(inside is not signal.SIG_DFL, signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=_env(), capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout.split() == ["True", "True"], proc.stderr
