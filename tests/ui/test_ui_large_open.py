"""A large table is shown first and its columns are checked on a worker right after (the
threshold is lowered here so that a small file takes that path)."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

pytestmark = pytest.mark.gui


def test_a_large_table_is_shown_first_then_checked_on_a_worker(qtbot, window, tmp_path, monkeypatch):
    import workbench.io.roles as roles_mod
    import workbench.ui.loading as mw

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
    with qtbot.waitSignal(window.controller.problems_found, timeout=30000):
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


def test_a_file_changed_after_loading_gives_a_sentence_not_a_traceback(qtbot, window, tmp_path,
                                                                        monkeypatch):
    """A large CSV is loaded without holding its bytes.  The system names were read while it
    was loaded, so the rule panel's New still names the loaded systems after the file changed;
    a number column's text read afterwards is refused, and that refusal, raised on the GUI
    thread, shows as the loader's sentence, not the exception dialog."""
    import os
    import sys

    from PySide6.QtCore import Qt, QTimer

    from workbench.core.errors import DataError
    from workbench.io import loader
    from workbench.ui.app import install_exception_hook

    monkeypatch.setattr(loader, "STREAM_BYTES", 0)  # every file the large way
    path = tmp_path / "systems.csv"
    pd.DataFrame({"item": [f"i{i}" for i in range(40)], "system": [1, 2] * 20,
                  "success": [1, 0, 1, 1] * 10}).to_csv(path, index=False)
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(str(path))
    assert window.roles.get("system") == "system"
    path.write_text(path.read_text().replace(",2,", ",3,"))
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    install_exception_hook(window)
    qtbot.mouseClick(window.rule_panel.new_button, Qt.MouseButton.LeftButton)
    assert 'candidate = "2"' in window.rule_panel.rule_text()  # as loaded, not the new file's 3
    with pytest.raises(DataError, match="changed on disk") as info:
        window.table.cell_text("success")

    def read_on_gui_thread():
        raise info.value

    QTimer.singleShot(0, read_on_gui_thread)
    qtbot.waitUntil(lambda: bool(window.warnings), timeout=5000)
    assert window.exceptions == []
    assert any("changed on disk" in text and "systems.csv" in text for _title, text in window.warnings)
