"""Nothing lost: a session's file is written only by Save or Save As on that session; another
file opened after it starts a new, untitled session (the title says so) and Ctrl+S on it asks
where; unsaved changes are asked about on close, quit and open.  Driven through the File menu's
actions and keys, with the file dialogs patched."""

from __future__ import annotations

import json
import os

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QFileDialog

from tests.conftest import EXAMPLES, wait_result

pytestmark = pytest.mark.gui


def _open_files(qtbot, window, monkeypatch, *paths):
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([str(p) for p in paths], "")))
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.open_action.trigger()


def _save_dialog(monkeypatch, answer):
    """File dialogs answer ``answer`` ("" = cancelled); returns the list of times asked."""
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: asked.append(a) or (str(answer), "")))
    return asked


def test_a_saved_session_is_never_rewritten_with_another_files_analysis(qtbot, window, monkeypatch, tmp_path):
    _open_files(qtbot, window, monkeypatch, EXAMPLES / "multilingual.csv")
    wait_result(qtbot, window.panels["aggregate"])
    first = tmp_path / "first.wbsession.json"
    _save_dialog(monkeypatch, first)
    window.save_as_action.trigger()
    before = first.read_bytes()
    assert window.windowTitle().startswith("first.wbsession.json")

    _open_files(qtbot, window, monkeypatch, EXAMPLES / "claims.csv")  # another file
    assert window.session_path is None
    assert window.windowTitle().startswith("Untitled session — claims.csv"), window.windowTitle()
    window.roles_table.set_role("claims", "ignore")  # a change on the new file
    assert window.dirty

    asked = _save_dialog(monkeypatch, "")  # Ctrl+S asks where; cancelled: nothing written
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert len(asked) == 1 and first.read_bytes() == before and window.dirty

    second = tmp_path / "second.wbsession.json"
    asked = _save_dialog(monkeypatch, second)
    window.save_action.trigger()
    assert len(asked) == 1 and first.read_bytes() == before  # byte for byte
    assert json.loads(second.read_text())["input_path"].endswith("claims.csv")
    assert window.windowTitle().startswith("second.wbsession.json") and not window.dirty
    # and now Save writes that session's own file without asking
    window.roles_table.set_role("claims", "count")
    asked = _save_dialog(monkeypatch, tmp_path / "never.json")
    window.save_action.trigger()
    assert not asked and not (tmp_path / "never.json").exists() and first.read_bytes() == before


def test_a_session_opened_then_another_file_gives_an_untitled_session(qtbot, window, monkeypatch, tmp_path):
    session = tmp_path / "kept.wbsession.json"
    session.write_text(json.dumps({"input_path": str(EXAMPLES / "multilingual.csv"), "schema": 1}))
    before = session.read_bytes()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(session), "")))
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.open_session_action.trigger()
    assert window.windowTitle().startswith("kept.wbsession.json")
    _open_files(qtbot, window, monkeypatch, EXAMPLES / "simpson.csv")
    assert "Untitled session" in window.windowTitle()
    new = tmp_path / "new.wbsession.json"
    asked = _save_dialog(monkeypatch, new)
    window.save_action.trigger()
    assert asked and session.read_bytes() == before and new.exists()


def test_unsaved_changes_are_asked_about_on_close_quit_and_open(qtbot, window, monkeypatch):
    _open_files(qtbot, window, monkeypatch, EXAMPLES / "claims.csv")
    window.roles_table.set_role("claims", "ignore")
    asked = []
    window.ask_unsaved = lambda: asked.append(1) or "cancel"
    event = QCloseEvent()
    window.closeEvent(event)  # the window's close button
    assert not event.isAccepted() and len(asked) == 1
    quit_action = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "&Quit")
    quit_action.trigger()
    assert window.isVisible() and len(asked) == 2
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        staticmethod(lambda *a, **k: ([str(EXAMPLES / "simpson.csv")], "")))
    window.open_action.trigger()
    assert len(asked) == 3 and not window.loader.busy and window.table.path.endswith("claims.csv")


def test_changed_options_without_data_are_asked_about_too(qtbot, window):
    window.show_panel("plan")
    plan = window.panels["plan"]
    spin = next(ctl.widget for ctl in plan._controls.values() if ctl.spec.kind in ("int", "float"))
    spin.setValue(spin.value() + spin.singleStep())
    assert window.dirty and window.table is None
    asked = []
    window.ask_unsaved = lambda: asked.append(1) or "cancel"
    event = QCloseEvent()
    window.closeEvent(event)
    assert asked and not event.isAccepted()


def test_a_rule_that_cannot_be_saved_says_so(qtbot, window, monkeypatch, tmp_path):
    window.show_panel("rule")
    window.rule_panel.editor.setPlainText("[rule]\nname = 'x'\n")
    target = tmp_path / "missing-folder" / "rule.toml"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    window.rule_panel.save_dialog()
    assert "could not be saved" in window.rule_panel.last_error and not os.path.exists(target)
