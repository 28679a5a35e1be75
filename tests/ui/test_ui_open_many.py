"""Several files at once (a drop of several files, File > Open with several selected): one
stacked table, as the command line's ``load_many`` makes it, loaded on the worker thread."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from conftest import wait_result

pytestmark = pytest.mark.gui


def _runs(tmp_path):
    rng = np.random.default_rng(3)
    paths = []
    for system, lift in (("bm25", 0.0), ("dense", 0.4)):
        rows = []
        for q in range(12):
            for d in range(6):
                rel = int(d < 2)
                rows.append((system, f"q{q}", f"d{d}", round(float(rng.random() + lift * rel), 4), rel))
        path = tmp_path / f"{system}.csv"
        pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"]).to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _expect_stacked(qtbot, window, paths):
    from workbench.analyses import ranking
    from workbench.io import load_many

    expected = load_many(paths)
    table = window.table
    assert len(table.frame) == len(expected.frame) == 2 * 72
    pd.testing.assert_frame_equal(table.frame, expected.frame)
    assert table.sha256 == expected.sha256
    assert "file" in table.frame.columns
    panel = window.panels["ranking"]
    assert window.tabs.currentWidget() is panel
    result = wait_result(qtbot, panel, timeout=60000)
    engine = ranking.run(expected, panel.options())
    assert [r["value"] for r in result.records] == pytest.approx([r["value"] for r in engine.records],
                                                                 nan_ok=True)
    assert set(result.table("systems_compared").frame["to"]) == {"dense"}


def _spy_worker(monkeypatch):
    """Record the thread load_many runs on (it must not be the GUI thread)."""
    import workbench.io as io_package

    threads = []
    real = io_package.load_many

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(io_package, "load_many", spy)
    return threads


def test_dropping_several_files_opens_one_stacked_table(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    paths = _runs(tmp_path)
    threads = _spy_worker(monkeypatch)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(p) for p in paths])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.dropEvent(event)
    assert event.isAccepted()
    assert threads and threads[0] is not threading.main_thread()
    _expect_stacked(qtbot, window, paths)
    # the files opened together are one entry of Open recent (issue 23, polish), which reopens them all
    assert window.recent_files()[0] == " + ".join(str(p) for p in paths)


def test_file_open_with_several_files_selected(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    paths = _runs(tmp_path)
    threads = _spy_worker(monkeypatch)
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: (list(paths), "")))
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_action.trigger()
    assert threads and threads[0] is not threading.main_thread()
    _expect_stacked(qtbot, window, paths)


def test_stacking_files_that_do_not_fit_says_why(qtbot, window, tmp_path):
    paths = _runs(tmp_path)
    other = tmp_path / "other.csv"
    pd.DataFrame({"item": ["a"], "success": [1]}).to_csv(other, index=False)
    with qtbot.waitSignal(window.load_failed, timeout=30000) as blocker:
        window.open_paths([paths[0], str(other)])
    assert "cannot be stacked" in blocker.args[0] and "other.csv" in blocker.args[0]
    assert window.warnings and window.warnings[-1][0] == "Cannot open the file"
