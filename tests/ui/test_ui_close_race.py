"""Issue 23, item 18: closing the window (or a panel going) while an analysis runs.

A background analysis must never emit on a deleted relay object ("Signal source has been
deleted", or a crash), and a panel's debounce timer must not start a run after
``MainWindow.shutdown()``.  The window is closed in the middle of a long analysis many times,
with two busy processes beside the test (about the load under which CI failed).
"""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings
from PySide6.QtWidgets import QApplication

from workbench.ui.tasks import TaskRunner

pytestmark = pytest.mark.gui


@pytest.fixture
def cpu_load():
    """Two busy processes for the test's duration (killed by their own id)."""
    procs = [subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 120\n"
                               "while time.time() < end: pass"]) for _ in range(2)]
    yield
    for proc in procs:
        proc.kill()
        proc.wait()


@pytest.fixture
def clustered(tmp_path):
    """A long file with clusters: Compare runs a cluster bootstrap that takes a while."""
    rng = np.random.default_rng(1)
    n = 6000
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(n)],
                          "conversation": [f"c{i // 3}" for i in range(n)],
                          "baseline": rng.integers(0, 2, n), "candidate": rng.integers(0, 2, n)})
    path = tmp_path / "clustered.csv"
    frame.to_csv(path, index=False)
    return path


def _pump(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        time.sleep(0.005)


def _new_window(tmp_path, i):
    from workbench.ui.main_window import MainWindow

    win = MainWindow(QSettings(str(tmp_path / f"settings{i}.ini"), QSettings.Format.IniFormat))
    win.warnings, win.exceptions = [], []
    win.warn = lambda title, text: win.warnings.append((title, text))
    win.show_exception = lambda summary, details: win.exceptions.append((summary, details))
    win.show()
    return win


def test_closing_the_window_mid_analysis_many_times(qtbot, tmp_path, clustered, cpu_load):
    from workbench.ui.app import create_app

    create_app()
    errors: list[str] = []
    hook = sys.excepthook
    sys.excepthook = lambda t, e, tb: errors.append(f"{t.__name__}: {e}")
    try:
        for i in range(12):
            win = _new_window(tmp_path, i)
            with qtbot.waitSignal(win.table_loaded, timeout=60000):
                win.open_path(str(clustered))
            compare = win.panels["compare"]
            compare.control("cluster").setCurrentIndex(compare.control("cluster").findData("conversation"))
            compare.control("resamples").setValue(200_000 + i)  # a long cluster bootstrap
            if i % 3 == 0:   # the run under way
                compare.run_now()
                _pump(0.05 * (i % 4))
            elif i % 3 == 1:  # the debounce timer pending: it must not fire after the close
                compare.control("seed").setValue(1000 + i)
                assert compare._debounce.isActive()
            else:             # a panel run and the timer both
                compare.run_now()
                compare.control("seed").setValue(2000 + i)
            win.dirty = False
            win.close()       # closeEvent -> shutdown(), as the user's close button
            assert not compare._debounce.isActive()
            _pump(0.45)       # longer than the 350 ms debounce
            assert not compare.runner.busy
            win.deleteLater()
            _pump(0.2)
            assert not win.exceptions, win.exceptions
        # every worker done: none of them reported on a deleted object
        assert QApplication.instance() is not None
        deadline = time.monotonic() + 60
        from PySide6.QtCore import QThreadPool

        while QThreadPool.globalInstance().activeThreadCount() and time.monotonic() < deadline:
            _pump(0.05)
        assert QThreadPool.globalInstance().activeThreadCount() == 0
    finally:
        sys.excepthook = hook
    assert not errors, errors


def test_a_panel_deleted_while_its_analysis_runs_reports_nothing(qtbot, tmp_path, clustered):
    """Without shutdown: the runner's deletion closes its gate before the relay goes."""
    from workbench.core.progress import Progress

    started = []

    def slow(progress: Progress):
        started.append(1)
        for k in range(200):
            time.sleep(0.002)
            progress.advance(k / 200, "working")
        raise ValueError("reported on a deleted object?")

    errors: list[str] = []
    hook = sys.excepthook
    sys.excepthook = lambda t, e, tb: errors.append(f"{t.__name__}: {e}")
    try:
        for _ in range(5):
            runner = TaskRunner()
            runner.start(slow)
            while not started:
                time.sleep(0.001)
            started.clear()
            runner.deleteLater()
            _pump(0.05)
        runner = TaskRunner()
        assert runner.wait(30000)
    finally:
        sys.excepthook = hook
    assert not errors, errors


def test_a_detached_runner_starts_nothing(qtbot):
    runner = TaskRunner()
    runner.detach()
    ran = []
    assert runner.start(lambda progress: ran.append(1)) == -1
    assert runner.wait(5000)
    assert not ran and not runner.busy
