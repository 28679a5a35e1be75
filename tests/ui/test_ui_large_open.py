"""A large table is shown first and its columns are checked on a worker right after (the
threshold is lowered here so that a small file takes that path)."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

pytestmark = pytest.mark.gui


def test_a_large_table_is_shown_first_then_checked_on_a_worker(qtbot, window, tmp_path, monkeypatch):
    import workbench.io.roles as roles_mod
    import workbench.ui.main_window as mw

    monkeypatch.setattr(mw, "CHECK_BEFORE_SHOWING_ROWS", 2)
    threads = []
    real = roles_mod.find_problems

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(roles_mod, "find_problems", spy)
    path = tmp_path / "neg.csv"
    pd.DataFrame({"system": ["A", "B", "A", "B"], "success": [1, 0, 1, 1],
                  "cost": [0.1, -0.2, 0.1, -0.5]}).to_csv(path, index=False)
    with qtbot.waitSignal(window.problem_runner.finished, timeout=30000):
        with qtbot.waitSignal(window.table_loaded, timeout=30000):
            window.open_path(str(path))
        assert window.data.model.rowCount() == 4  # the rows are on screen before the check
        assert window.roles["cost"] == "cost"
    assert threads and all(t is not threading.main_thread() for t in threads)
    texts = [window.problem_list.item(i).text() for i in range(window.problem_list.count())]
    assert any("negative" in t for t in texts) and not any("Checking" in t for t in texts)
    assert window.problems_dock.windowTitle() == f"Problems in the data ({len(window.problems)})"
    # the text cells are shown as the file has them (read from the string array, not copied)
    model = window.data.model
    from PySide6.QtCore import Qt

    col = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index("system")
    assert [model.data(model.index(r, col)) for r in range(4)] == ["A", "B", "A", "B"]
