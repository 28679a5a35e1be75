"""Edit > Undo and Redo (Ctrl+Z, Ctrl+Shift+Z): a k list, a column role, a baseline system and a
rule edit each taken back and done again, the step's name in the menu, the answer following
the restored settings; another file starts a new history; the keys work from inside a field."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.conftest import EXAMPLES, open_example, open_file, wait_result

pytestmark = pytest.mark.gui

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def _key(widget, key, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    widget.window().activateWindow()
    widget.setFocus()
    QTest.keyClick(widget, key, modifiers)


def _next_result(qtbot, panel, act):
    with qtbot.waitSignal(panel.result_ready, timeout=60000) as blocker:
        act()
    return blocker.args[0]


def _metrics(result) -> set[str]:
    return {r["metric"] for r in result.records}


def test_undo_and_redo_a_k_list_typed_in_its_field(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    first = wait_result(qtbot, panel)
    card = panel.card.plain_text()
    field = panel.control("ks")
    assert "ndcg@4" not in _metrics(first)
    assert not window.undo_action.isEnabled() and window.undo_action.text() == "&Undo"

    def type_ks():
        field.setFocus()
        field.selectAll()
        QTest.keyClicks(field, "1,2,4")
        QTest.keyClick(field, Qt.Key.Key_Return)

    changed = _next_result(qtbot, panel, type_ks)
    assert "ndcg@4" in _metrics(changed)
    assert window.undo_action.isEnabled()
    assert window.undo_action.text() == "&Undo: Cut-offs k 1,3,5,10 -> 1,2,4 (Ranking metrics)"

    undone = _next_result(qtbot, panel, lambda: _key(field, Qt.Key.Key_Z, CTRL))  # in the field
    assert field.text() == "1,3,5,10" and "ndcg@4" not in _metrics(undone)
    assert panel.card.plain_text() == card and undone.signature == first.signature
    assert window.redo_action.text() == "&Redo: Cut-offs k 1,3,5,10 -> 1,2,4 (Ranking metrics)"

    redone = _next_result(qtbot, panel, lambda: _key(field, Qt.Key.Key_Z, CTRL | SHIFT))
    assert field.text() == "1,2,4" and "ndcg@4" in _metrics(redone)
    assert window.dirty


def test_undo_a_column_role_restores_the_roles_and_the_answer(qtbot, window):
    panel = open_example(qtbot, window, "multilingual.csv")
    first = wait_result(qtbot, panel)
    assert first.value("macro") == pytest.approx(0.75)
    before = dict(window.roles_table.roles())
    changed = _next_result(qtbot, panel, lambda: window.roles_table.set_role("item_id", "group"))
    assert changed.value("macro") == pytest.approx(0.87)  # every item its own group
    assert window.undo_action.text().startswith("&Undo: Role of 'item_id' ")
    assert window.undo_action.text().endswith("-> group / segment")
    undone = _next_result(qtbot, panel, window.undo_action.trigger)
    assert window.roles_table.roles() == before and window.roles.get("language") == "group"
    assert undone.value("macro") == pytest.approx(0.75)
    assert [r["value"] for r in undone.records] == [r["value"] for r in first.records]
    assert window.redo_action.text().startswith("&Redo: Role of 'item_id' ")
    redone = _next_result(qtbot, panel, window.redo_action.trigger)
    assert redone.value("macro") == pytest.approx(0.87)
    assert window.roles_table.roles().get("item_id") == "group"


def _three_systems(tmp_path):
    rows = []
    for system, outcomes in (("A", [1, 1, 0, 1, 0, 1, 1, 0]), ("B", [1, 0, 0, 1, 0, 0, 1, 0]),
                             ("C", [1, 1, 1, 1, 1, 1, 1, 0])):
        rows += [{"system": system, "item_id": f"q{i}", "correct": v} for i, v in enumerate(outcomes)]
    path = tmp_path / "three.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_undo_a_baseline_system_restores_the_comparison(qtbot, window, tmp_path):
    open_file(qtbot, window, _three_systems(tmp_path))
    window.show_panel("compare")
    panel = window.panels["compare"]
    first = wait_result(qtbot, panel)
    base = panel.control("baseline_system")
    assert base.currentData() == "A"
    changed = _next_result(qtbot, panel, lambda: base.setCurrentIndex(base.findData("C")))
    assert changed.records != first.records
    assert "Baseline system A -> C" in window.undo_action.text()
    undone = _next_result(qtbot, panel, lambda: _key(base, Qt.Key.Key_Z, CTRL))
    assert base.currentData() == "A" and panel.control("candidate_system").currentData() == \
        first_candidate(first)
    assert [r.get("value") for r in undone.records] == [r.get("value") for r in first.records]
    redone = _next_result(qtbot, panel, lambda: _key(base, Qt.Key.Key_Z, CTRL | SHIFT))
    assert base.currentData() == "C" and [r.get("value") for r in redone.records] == \
        [r.get("value") for r in changed.records]


def first_candidate(result) -> str:
    return next(r["to"] for r in result.records if r.get("to") is not None)


def test_spin_box_steps_in_quick_succession_are_one_step(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    seed = panel.control("seed")
    start = seed.value()
    for _ in range(3):
        _key(seed, Qt.Key.Key_Up)
    assert seed.value() == start + 3 and window.undo_stack.count() == 1
    window.undo_action.trigger()
    assert seed.value() == start and not window.undo_action.isEnabled()


def test_rule_edits_are_steps_and_the_editor_keys_are_the_historys(qtbot, window):
    window.show_panel("rule")
    editor = window.rule_panel.editor
    editor.setFocus()
    QTest.keyClicks(editor, "[rule]")
    _key(editor, Qt.Key.Key_Z, CTRL)  # the typing not yet paused is its own step, taken back
    assert editor.toPlainText() == ""
    assert window.redo_action.text() == "&Redo: Release rule written"
    _key(editor, Qt.Key.Key_Z, CTRL | SHIFT)
    assert editor.toPlainText() == "[rule]"
    window.rule_panel.new_button.click()  # New: the template, one step
    template = editor.toPlainText()
    assert template.startswith("#") or "[rule]" in template
    window.undo_action.trigger()
    assert editor.toPlainText() == "[rule]"
    assert window.tabs.currentWidget() is window.rule_panel


def test_another_file_starts_a_new_history(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    panel.control("ks").setText("1,2")
    panel.control("ks").editingFinished.emit()
    assert window.undo_stack.count() == 1
    open_file(qtbot, window, EXAMPLES / "multilingual.csv")
    assert window.undo_stack.count() == 0 and not window.undo_action.isEnabled()


def test_export_and_the_panel_keys_work_from_inside_an_option_field(qtbot, window, monkeypatch, tmp_path):
    """A line edit on Linux desktops takes Ctrl+E (end of line): the window's filter lets the
    window's own shortcuts through from a field (offscreen, the claim is simulated)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    field = panel.control("ks")
    field.setFocus()

    def claimed_by_the_field(key, mods) -> bool:
        event = QKeyEvent(QEvent.Type.ShortcutOverride, key, mods)
        event.ignore()
        QApplication.sendEvent(field, event)
        return event.isAccepted()

    for key, mods, routed in ((Qt.Key.Key_E, CTRL, True), (Qt.Key.Key_2, CTRL, True),
                              (Qt.Key.Key_C, CTRL, False), (Qt.Key.Key_V, CTRL, False),
                              (Qt.Key.Key_A, CTRL, False)):
        assert claimed_by_the_field(key, mods) is not routed, (key, mods)
    assert claimed_by_the_field(Qt.Key.Key_Z, CTRL)  # nothing to undo: the field's own typing
    field.setText("1,2")
    field.editingFinished.emit()
    assert not claimed_by_the_field(Qt.Key.Key_Z, CTRL)  # a step to take back: the window's
    written = []
    monkeypatch.setattr(window, "export_report", lambda *a, **k: written.append(1))
    window.export_action.triggered.disconnect()
    window.export_action.triggered.connect(lambda _c=False: window.export_report())
    _key(field, Qt.Key.Key_E, CTRL)
    assert written == [1]
    _key(field, Qt.Key.Key_2, CTRL)
    assert window.current_panel_name() == list(window.panels)[1]
