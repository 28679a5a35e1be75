"""``workbench --self-test`` from the checkout (the packaging test runs it in the bundle)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gui


def test_the_self_test_passes_from_the_checkout(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-m", "workbench.launcher", "--self-test",
                           "--screenshots", str(tmp_path / "shots")],
                          capture_output=True, text=True, timeout=300, env=env)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert re.search(r"^self-test passed: \d+ steps", out, re.M), out
    steps = re.findall(r"^(ok|FAIL) +(.+?) - ", out, re.M)
    names = [name for _, name in steps]
    # every example file and every example session was opened and checked
    from workbench.ui.examples import EXAMPLE_SESSIONS, EXAMPLES

    for ex in EXAMPLES:
        assert f"example {ex.file} -> {ex.panel}" in names, out
    for ex in EXAMPLE_SESSIONS:
        assert f"example session {ex.file}" in names, out
    assert any(n.startswith("parquet input (") for n in names), out
    assert (tmp_path / "shots" / "start.png").stat().st_size > 10_000


def test_the_self_test_fails_when_a_step_fails():
    """A session whose number is not the expected one must make the self-test exit 1."""
    code = ("import sys, workbench.ui.selftest as t, workbench.ui.selftest_steps as s; "
            "s.EXPECTED_SESSIONS['ranking_graded.wbsession.json'] = ('ndcg@3', 0.5, 'gain:'); "
            "sys.exit(t.main([]))")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"^FAIL example session ranking_graded.wbsession.json - ndcg@3 = 0.8340",
                     proc.stdout, re.M), proc.stdout
    assert "self-test FAILED: 1 of" in proc.stdout
