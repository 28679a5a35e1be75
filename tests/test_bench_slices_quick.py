"""The Slices benchmark row runs in its quick form and its values agree with the reference."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_slices_quick_runs_and_values_agree():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, str(ROOT / "tests/benchmarks/bench_slices.py"), "--quick"],
                          capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "values equal" in proc.stdout and "ratio reference / workbench" in proc.stdout
    assert "best of 3" in proc.stdout and "load average" in proc.stdout
