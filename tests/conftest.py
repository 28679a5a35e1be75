"""Shared fixtures: example paths, a CLI runner returning parsed JSON, in-memory tables."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "resources" / "examples"


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


def table_of(frame: pd.DataFrame, name: str = "<memory>"):
    """A LoadedTable around an in-memory DataFrame (line numbers are index + 2)."""
    from workbench.io import LoadedTable

    return LoadedTable(frame=frame.reset_index(drop=True), path=name)


@pytest.fixture
def cli(capsys):
    """Run the command line in-process: ``cli("ranking", path, "--k", "3")`` -> parsed JSON."""
    from workbench.cli.main import main

    def run(*argv: str, expect: int = 0):
        code = main([str(a) for a in argv] + ["--json"])
        out, err = capsys.readouterr()
        assert code == expect, f"exit {code}, stderr: {err}"
        return json.loads(out) if code == 0 else err

    return run


def recs(payload: dict, metric: str, **match) -> list[dict]:
    """The JSON records with this metric and these keys (``group_=`` for a key named like a
    keyword)."""
    match = {k.rstrip("_"): v for k, v in match.items()}
    return [r for r in payload["results"] if r["metric"] == metric and all(r.get(k) == v for k, v in match.items())]


def value(payload: dict, metric: str, **match):
    """The one JSON record with this metric and these keys."""
    found = recs(payload, metric, **match)
    assert len(found) == 1, f"{len(found)} records for {metric} {match}: {found}"
    return found[0]


one = value


@pytest.fixture
def no_gc_collect(monkeypatch):
    """statsmodels 0.15's ``multipletests(method="holm")`` runs ``gc.collect()`` on every call,
    0.05-0.3 s in a test process full of objects: tests that call it in a loop switch that
    collection off for themselves (it changes none of the values)."""
    import gc

    monkeypatch.setattr(gc, "collect", lambda *_a, **_k: 0)


@pytest.fixture
def write_csv(tmp_path):
    def write(name: str, frame: pd.DataFrame) -> Path:
        path = tmp_path / name
        frame.to_csv(path, index=False)
        return path

    return write


# --- GUI ---------------------------------------------------------------------------------------
# Waiting uses Qt event loops (qtbot.waitSignal), never QTest.qWait loops: with PySide6, qWait
# keeps the GIL and starves the worker threads.

@pytest.fixture
def window(qtbot, tmp_path):
    """An isolated main window (own settings file); message boxes are recorded, not shown."""
    from PySide6.QtCore import QSettings

    from workbench.ui.app import create_app
    from workbench.ui.main_window import MainWindow

    create_app()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings)
    win.warnings = []
    win.warn = lambda title, text: win.warnings.append((title, text))
    win.inform = lambda title, text: win.warnings.append((title, text))
    win.exceptions = []
    win.show_exception = lambda summary, details: win.exceptions.append((summary, details))
    win.unsaved_answers = []
    win.ask_unsaved = lambda: win.unsaved_answers.append("asked") or "discard"
    qtbot.addWidget(win)
    win.show()
    yield win
    win.dirty = False
    win.shutdown()
    for panel in win.panels.values():
        panel.runner.wait(30000)


def wait_result(qtbot, panel, timeout=30000):
    """The panel's next result drawn on every tab (or the current one if no run is pending)."""
    from workbench.ui.panels.results_view import late_pending

    if panel.runner.busy or panel._debounce.isActive() or late_pending(panel):
        with qtbot.waitSignal(panel.result_ready, timeout=timeout) as blocker:
            pass
        return blocker.args[0]
    assert panel.last_result is not None, panel.last_error
    return panel.last_result


def open_example(qtbot, window, file_name):
    from workbench.ui.examples import EXAMPLES as UI_EXAMPLES

    example = next(e for e in UI_EXAMPLES if e.file == file_name)
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_example(example)
    return window.panels[example.panel]


def open_file(qtbot, window, path, **kwargs):
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(str(path), **kwargs)


@pytest.fixture(scope="module", params=["whole", "streamed"])
def reading(request):
    """Every test runs twice: with files read whole, and with every text file first tried the
    way a large one is, without holding its bytes (``loader.STREAM_BYTES`` = 0)."""
    from workbench.io import loader

    kept = loader.STREAM_BYTES
    loader.STREAM_BYTES = 0 if request.param == "streamed" else kept
    yield request.param
    loader.STREAM_BYTES = kept


# --- the test process's own end ---------------------------------------------------------------------
# Since the window gained its desktop habits, a test process that created and closed a few hundred
# windows may crash in the interpreter's final clean-up (after every test has passed and pytest
# has printed its summary; Qt objects freed in an order Python does not control). The program
# itself exits cleanly (`WORKBENCH_SMOKE=answer workbench FILE` returns 0). Until that clean-up is
# found, a process that loaded Qt ends right after pytest's last word, with pytest's own status.
_STATUS: dict[str, int] = {}


def pytest_sessionfinish(session, exitstatus):
    _STATUS["exit"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    import sys

    if "exit" not in _STATUS or "PySide6.QtWidgets" not in sys.modules \
            or os.environ.get("WORKBENCH_TESTS_NORMAL_EXIT"):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_STATUS["exit"])
