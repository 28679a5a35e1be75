"""The window on a real X display (Xvfb, with openbox when installed): at 200% scale on a
1920x1080 screen (QT_SCALE_FACTOR=2) and at 1280x800 no answer card is cut, and under X11's
key bindings Ctrl+E exports from inside an option field.  Skipped where Xvfb is missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKS = Path(__file__).with_name("xvfb_checks.py")

pytestmark = [pytest.mark.gui,
              pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)")]


def _free_display() -> int:
    # each pytest-xdist worker (gw0, gw1, ...) tries its own numbers: two workers never race
    # for the same free display
    first = 180 + 40 * int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
    for number in range(first, first + 40):
        if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not os.path.exists(f"/tmp/.X{number}-lock"):
            return number
    raise RuntimeError("no free X display number")


@pytest.fixture(params=[(1920, 1080), (1280, 800)], ids=["1920x1080", "1280x800"])
def display(request):
    width, height = request.param
    number = _free_display()
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(f"/tmp/.X11-unix/X{number}"):
            break
        time.sleep(0.05)
    manager = None
    if shutil.which("openbox"):
        manager = subprocess.Popen(["openbox"], env=dict(os.environ, DISPLAY=f":{number}"),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
    yield f":{number}", (width, height)
    for proc in (manager, server):
        if proc is not None:
            proc.terminate()
            proc.wait(10)


def _run(check: str, display: str, **env) -> dict:
    environ = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT), **env)
    done = subprocess.run([sys.executable, str(CHECKS), check], capture_output=True, text=True,
                          env=environ, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_no_answer_card_is_cut(display):
    where, (width, height) = display
    scale = {"QT_SCALE_FACTOR": "2"} if width == 1920 else {}
    out = _run("cards", where, **scale)
    if scale:
        assert out["ratio"] == 2.0 and out["screen"][0] <= 960
    assert len(out["cards"]) == 6 and not out["clipped"], json.dumps(out, indent=1)
    assert out["window_fits"], out


def test_ctrl_e_exports_from_an_option_field_under_x11_keys(display):
    where, (width, _) = display
    if width != 1280:
        pytest.skip("one screen size is enough for the keys")
    out = _run("ctrl_e", where)
    assert out["exported"] == 1 and out["cursor"] == 0, out
    assert out["focus"] == "QLineEdit"
