"""A large text file shows its first rows while it loads; the preview never outlives the load."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from workbench.core.errors import DataError

pytestmark = pytest.mark.gui


def _big_csv(path, rows=400):
    pd.DataFrame({"item": [f"it{i:04d}" for i in range(rows)], "system": ["A", "B"] * (rows // 2),
                  "correct": [i % 3 == 0 for i in range(rows)]}).astype({"correct": int}).to_csv(path, index=False)
    return path


@pytest.fixture
def held_load(monkeypatch):
    """The full load waits until the test releases it (or fails, when told to)."""
    import workbench.io.loader as loader
    import workbench.ui.loading as mw

    monkeypatch.setattr(loader, "HEAD_BYTES", 1500)  # a few dozen rows count as "the head"
    gate = threading.Event()
    state = {"fail": False}
    real = mw.load_job

    def slow(path, sheet, saved_roles, progress):
        assert gate.wait(30)
        if state["fail"]:
            raise DataError(f"File '{path}' could not be read (test).")
        return real(path, sheet, saved_roles, progress)

    monkeypatch.setattr(mw, "load_job", slow)
    yield gate, state
    gate.set()


def test_first_rows_show_while_the_file_loads_then_the_whole_table(qtbot, window, tmp_path, held_load):
    gate, _ = held_load
    path = _big_csv(tmp_path / "big.csv")
    with qtbot.waitSignal(window.preview_shown, timeout=30000) as shown:
        window.open_path(str(path))
    preview = shown.args[0]
    assert 10 < len(preview.frame) < 400
    assert window.data.model.rowCount() == len(preview.frame)
    assert window.table is None  # nothing else sees the preview
    assert list(preview.frame["item"][:3]) == ["it0000", "it0001", "it0002"]
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        gate.set()
    assert window.data.model.rowCount() == 400
    assert not window.controller.preview_shown


def test_a_failed_load_puts_back_the_file_that_was_open(qtbot, window, tmp_path, held_load):
    gate, state = held_load
    first = tmp_path / "first.csv"
    pd.DataFrame({"system": ["A", "B"], "correct": [1, 0]}).to_csv(first, index=False)
    gate.set()
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(str(first), confirm=False)
    assert window.data.model.rowCount() == 2
    gate.clear()
    state["fail"] = True
    with qtbot.waitSignal(window.preview_shown, timeout=30000):
        window.open_path(str(_big_csv(tmp_path / "big.csv")), confirm=False)
    assert window.data.model.rowCount() > 2
    with qtbot.waitSignal(window.load_failed, timeout=30000):
        gate.set()
    assert window.data.model.rowCount() == 2  # the open file's rows again
    assert window.table.name == "first.csv"
    assert window.warnings and "could not be read" in window.warnings[-1][1]


def test_a_late_preview_of_an_earlier_file_is_not_shown_for_stacked_files(qtbot, window, tmp_path, held_load,
                                                                              monkeypatch):
    """Open a large file, then several files before its preview arrives: the preview is dropped."""
    import workbench.ui.loading as mw

    gate, _ = held_load
    release = threading.Event()
    real_preview = mw.preview_job
    monkeypatch.setattr(mw, "preview_job", lambda path: (release.wait(30), real_preview(path))[1])
    real_many = mw.load_many_job
    monkeypatch.setattr(mw, "load_many_job", lambda paths, progress: (gate.wait(30), real_many(paths, progress))[1])
    shown = []
    window.preview_shown.connect(shown.append)
    big = _big_csv(tmp_path / "big.csv")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for p in (a, b):
        pd.DataFrame({"system": ["A", "B"], "correct": [1, 0]}).to_csv(p, index=False)
    window.open_path(str(big))
    window.open_paths([str(a), str(b)], confirm=False)
    release.set()
    qtbot.wait(500)
    assert window.loader.busy  # the stacked files are still loading
    assert shown == []
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        gate.set()
    assert window.data.model.rowCount() == 4
