"""Keyboard and screen reader: every focusable widget of every panel has an accessible name;
Tab reaches the Run button of every panel; the answer card is announced when it changes;
charts have their table as a text alternative; a keyboard-only walk opens a file, runs each
panel and exports a report."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget

from tests.conftest import EXAMPLES, open_example, wait_result

pytestmark = pytest.mark.gui

CTRL = Qt.KeyboardModifier.ControlModifier


def _idle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.loader.busy and not any(
        p.runner.busy or p._debounce.isActive() for p in window.panels.values()), timeout=120000)


def test_every_focusable_widget_of_every_panel_has_a_name(qtbot, window):
    from workbench.ui.accessibility import focusable, unnamed

    window.resize(1280, 800)
    for file_name in ("paired_14_to_5.csv", "ranking_graded.csv", "runs_nightly.csv", "judge_labels.csv",
                      "rubric_answers.csv", "cost_latency.csv", "repeats_epochs.csv", "passk_counts.csv",
                      "text_extraction.csv", "multilingual.csv"):
        open_example(qtbot, window, file_name)
        _idle(qtbot, window)
    for name in [*window.panels, "rule"]:
        window.show_panel(name)
        panel = window.rule_panel if name == "rule" else window.panels[name]
        assert not unnamed(panel), [(type(w).__name__, w.objectName()) for w in unnamed(panel)]
        focusables = [w for w in panel.findChildren(QWidget) if focusable(w)]
        assert len(focusables) > 3 and all(w.accessibleName().strip() for w in focusables)
    assert not unnamed(window), [(type(w).__name__, w.objectName()) for w in unnamed(window)]
    compare = window.panels["compare"]
    assert compare.control("baseline").accessibleName() == "Baseline outcome"
    assert compare.control("baseline").accessibleDescription().startswith("0/1 per item")
    assert compare.run_button.accessibleName() == "Run paired comparison now"


@pytest.mark.parametrize("start", ["first field", "tab bar"])
def test_tab_reaches_the_run_button_of_every_panel(qtbot, window, start):
    open_example(qtbot, window, "paired_14_to_5.csv")
    _idle(qtbot, window)
    window.activateWindow()
    for name, panel in window.panels.items():
        window.view_actions[name].trigger()
        if start == "tab bar":
            window.workspace.tabBar().setFocus()
        focus = QApplication.focusWidget()
        assert focus is not None
        seen = []
        for _ in range(80):
            if QApplication.focusWidget() is panel.run_button:
                break
            QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
            seen.append(QApplication.focusWidget())
        assert QApplication.focusWidget() is panel.run_button, (name, [w.accessibleName() for w in seen][:30])
        # in the form's order: every visible field before the button, each once
        fields = [ctl.widget for ctl in panel._controls.values() if not ctl.widget.isHidden()]
        order = [w for w in seen if w in fields or w.parentWidget() in fields]
        assert [fields.index(w if w in fields else w.parentWidget()) for w in order] == \
            sorted(fields.index(w if w in fields else w.parentWidget()) for w in order), name


def test_tab_leaves_tables_and_the_rule_editor(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    assert not panel.headline.tabKeyNavigation()
    window.view_actions["rule"].trigger()
    editor = window.rule_panel.editor
    assert QApplication.focusWidget() is editor
    QTest.keyClick(editor, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not editor and "\t" not in editor.toPlainText()


def test_the_answer_card_is_announced_when_it_changes(qtbot, window, monkeypatch):
    from workbench.ui import accessibility

    said = []
    real = accessibility.announce
    monkeypatch.setattr(accessibility, "announce", lambda w, text: (said.append((w, text)), real(w, text)))
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    card = panel.card
    assert (card.text, card.plain_text()) in said
    assert card.text.accessibleDescription() == card.plain_text()
    assert card.accessibleDescription() == card.plain_text()
    assert card.text.focusPolicy() & Qt.FocusPolicy.TabFocus and card.text.accessibleName() == "Answer"
    said.clear()
    with qtbot.waitSignal(panel.result_ready, timeout=60000):
        panel.control("gain").setCurrentIndex(1)
    assert [t for w, t in said if w is card.text] == [card.plain_text()]
    panel.control("ks").setText("0")
    panel.control("ks").editingFinished.emit()
    qtbot.waitUntil(lambda: panel.last_error is not None, timeout=30000)
    assert any(w is panel.message and panel.last_error in t for w, t in said)  # the error is heard


def test_a_chart_has_its_table_as_a_text_alternative(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    result = wait_result(qtbot, panel)
    chart = panel.chart("RankingCurveChart")
    text = chart.accessibleDescription()
    assert chart.accessibleName() == f"Chart: {chart.title}" and text == chart.text_alternative()
    lines = text.splitlines()
    assert lines[0].startswith(chart.title)
    ndcg = [r for r in result.records if r["metric"].startswith("ndcg@") and r.get("system") is None]
    for series, arrays in chart.plotted().items():
        assert any(line.startswith(series) for line in lines)
    from workbench.report import present

    assert any(present.format_value(r["value"], "plain") in text for r in ndcg), text


def test_a_keyboard_only_walk_opens_a_file_runs_each_panel_and_exports(qtbot, window, monkeypatch, tmp_path):
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        staticmethod(lambda *a, **k: ([str(EXAMPLES / "paired_14_to_5.csv")], "")))
    report = tmp_path / "walk.xlsx"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(report), "")))
    window.activateWindow()
    window.setFocus()
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        QTest.keyClick(window, Qt.Key.Key_O, CTRL)
    _idle(qtbot, window)
    ran = []
    for i, (name, panel) in enumerate(window.panels.items()):
        key = getattr(Qt.Key, f"Key_{i + 1 if i < 7 else i - 6}")
        mods = CTRL if i < 7 else CTRL | Qt.KeyboardModifier.ShiftModifier
        QTest.keyClick(QApplication.focusWidget() or window, key, mods)
        assert window.current_panel_name() == name
        for _ in range(80):
            if QApplication.focusWidget() is panel.run_button:
                break
            QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is panel.run_button, name
        if panel.not_applicable or panel.precheck():
            QTest.keyClick(panel.run_button, Qt.Key.Key_Space)
            continue
        # the run ends with its result drawn, or with the panel's sentence of why it cannot run
        # (the Runs panel on a file without a run column): either ends the wait
        ended = []
        panel.result_ready.connect(lambda _r, ended=ended: ended.append("result"))
        panel.runner.failed.connect(lambda *_a, ended=ended: ended.append("failed"))
        QTest.keyClick(panel.run_button, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda ended=ended: bool(ended), timeout=120000)
        if ended[0] == "result":
            ran.append(name)
        else:
            assert panel.last_error, name
    assert "compare" in ran and len(ran) >= 3, ran
    with qtbot.waitSignal(window.report_written, timeout=120000):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_E, CTRL)
    assert report.exists() and report.stat().st_size > 1000
