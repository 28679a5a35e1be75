"""Every menu action and shortcut driven through its QAction or its key (file dialogs patched),
and what a new file does to the panels of the previous one."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from conftest import EXAMPLES, open_example, wait_result

pytestmark = pytest.mark.gui


def _menu_actions(window):
    """(menu title, action) for every action of the menu bar, sub-menus included."""
    out = []

    def walk(menu, title):
        for act in menu.actions():
            if act.menu() is not None:
                walk(act.menu(), act.menu().title())
            elif not act.isSeparator():
                out.append((title, act))

    for top in window.menuBar().actions():
        walk(top.menu(), top.text())
    return out


def _action(window, text):
    found = [a for _m, a in _menu_actions(window) if a.text().replace("&&", "\0").replace("&", "")
             .replace("\0", "&") == text]
    assert len(found) == 1, (text, [a.text() for _m, a in _menu_actions(window)])
    return found[0]


def _patch_save(monkeypatch, path):
    asked = []

    def fake(*args, **kwargs):
        asked.append(args)
        return str(path), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake))
    return asked


def _patch_open(monkeypatch, path):
    asked = []

    def fake(*args, **kwargs):
        asked.append(args)
        return str(path), ""

    def fake_many(*args, **kwargs):
        asked.append(args)
        return [str(path)], ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(fake))
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(fake_many))
    return asked


def _key(window, key, modifier=Qt.KeyboardModifier.NoModifier, widget=None):
    window.activateWindow()
    target = widget or window
    target.setFocus()
    QTest.keyClick(target, key, modifier)


def test_no_menu_text_has_a_stray_mnemonic(window):
    for _menu, act in _menu_actions(window):
        text = act.text().replace("&&", "")
        # a single "&" before a space or at the end underlines nothing useful ("Cost _latency")
        assert "& " not in text and not text.endswith("&"), act.text()
    cost = _action(window, "Cost & latency panel")
    assert "&&" in cost.text()


def test_file_export_report_through_the_menu_and_ctrl_e(qtbot, window, monkeypatch, tmp_path):
    panel = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, panel)
    path = tmp_path / "menu-report.xlsx"
    asked = _patch_save(monkeypatch, path)
    with qtbot.waitSignal(window.report_written, timeout=60000) as blocker:
        _action(window, "Export report…").trigger()
    assert blocker.args[0] == str(path) and path.stat().st_size > 0 and len(asked) == 1
    assert not window.exceptions
    again = tmp_path / "key-report.xlsx"
    _patch_save(monkeypatch, again)
    with qtbot.waitSignal(window.report_written, timeout=60000):
        _key(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert again.exists()


def test_export_with_nothing_shown_says_so(qtbot, window, monkeypatch, tmp_path):
    asked = _patch_save(monkeypatch, tmp_path / "none.xlsx")
    _action(window, "Export report…").trigger()
    assert not asked and window.warnings[-1] == ("Export report", "There are no results to export yet.")


def test_file_open_through_the_menu_and_ctrl_o(qtbot, window, monkeypatch):
    _patch_open(monkeypatch, EXAMPLES / "claims.csv")
    with qtbot.waitSignal(window.table_loaded, timeout=30000) as blocker:
        _action(window, "Open…").trigger()
    assert blocker.args[0].name == "claims.csv"
    _patch_open(monkeypatch, EXAMPLES / "simpson.csv")
    with qtbot.waitSignal(window.table_loaded, timeout=30000) as blocker:
        _key(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args[0].name == "simpson.csv"


def test_file_open_reads_a_gzip_compressed_run(qtbot, window, monkeypatch, tmp_path):
    """File > Open on a .csv.gz: the rows of the CSV inside, its panel, and the note."""
    import gzip

    path = tmp_path / "ranking_seed.csv.gz"
    path.write_bytes(gzip.compress((EXAMPLES / "ranking_seed.csv").read_bytes()))
    _patch_open(monkeypatch, path)
    with qtbot.waitSignal(window.table_loaded, timeout=30000) as blocker:
        _action(window, "Open…").trigger()
    table = blocker.args[0]
    assert table.name == "ranking_seed.csv.gz" and len(table.frame) == 15
    assert any("decompressed (gzip" in n for n in table.notes)
    assert window.current_panel_name() == "ranking"


def test_save_session_then_open_it_through_the_menu(qtbot, window, monkeypatch, tmp_path):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    gain = panel.control("gain")
    gain.setCurrentIndex(gain.findData("exponential"))
    path = tmp_path / "mine.wbsession.json"
    _patch_save(monkeypatch, path)
    _action(window, "Save session").trigger()
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert not window.dirty and window.session_path == str(path)
    assert "exponential" in json.dumps(saved)
    # Ctrl+S saves again to the same file without asking
    asked = _patch_save(monkeypatch, tmp_path / "other.json")
    window.dirty = True
    _key(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not asked and not window.dirty
    # Save session as… asks
    as_path = tmp_path / "copy.wbsession.json"
    asked = _patch_save(monkeypatch, as_path)
    _action(window, "Save session as…").trigger()
    assert asked and as_path.exists()
    _patch_open(monkeypatch, path)
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        _action(window, "Open session…").trigger()
    assert window.panels["ranking"].control("gain").currentData() == "exponential"


def test_open_example_and_example_session_menus(qtbot, window):
    for title in ("The 14-to-5 paired split", "Simpson's paradox"):
        with qtbot.waitSignal(window.table_loaded, timeout=30000):
            _action(window, title).trigger()
    with qtbot.waitSignal(window.rule_panel.result_ready, timeout=60000) as blocker:
        _action(window, "14-to-5 with its release rule").trigger()
    assert blocker.args[0].value("verdict") == "PASS"
    assert window.current_panel_name() == "rule"


@pytest.mark.parametrize("how", ["action", "key"])
def test_presentation_mode_on_and_off(qtbot, window, how):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    toggle = (lambda: _action(window, "Presentation mode").trigger()) if how == "action" else \
        (lambda: _key(window, Qt.Key.Key_F11))
    toggle()
    assert window.presentation and window.presentation_action.isChecked()
    screen = window.screen().geometry()
    qtbot.waitUntil(lambda: screen.contains(window.frameGeometry()), timeout=5000)
    assert not panel.options_scroll.isVisible()  # the options are in a drawer
    assert panel.card.scale > 1
    toggle()
    assert not window.presentation and not window.presentation_action.isChecked()
    assert panel.options_scroll.isVisible()


def test_every_view_entry_and_its_shortcut(qtbot, window):
    names = [*window.panels, "rule", "data"]
    for name in names:
        window.stack.setCurrentWidget(window.start)
        window.view_actions[name].trigger()
        assert window.current_panel_name() == name, name
    from workbench.ui.panels import FIRST_PANELS

    first = list(window.panels)[:FIRST_PANELS]
    later = list(window.panels)[FIRST_PANELS:]
    keys = {name: (i + 1, Qt.KeyboardModifier.ControlModifier) for i, name in enumerate([*first, "rule"])}
    keys.update({name: (i + 1, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
                 for i, name in enumerate(later)})
    keys["data"] = (0, Qt.KeyboardModifier.ControlModifier)
    for name, (digit, mods) in keys.items():
        window.stack.setCurrentWidget(window.start)
        _key(window, getattr(Qt.Key, f"Key_{digit}"), mods)
        assert window.current_panel_name() == name, name
    for _menu, act in _menu_actions(window):
        if _menu.replace("&", "") == "View":
            assert act.isEnabled(), act.text()
    window.show_panel("data")
    window.start_action.trigger()
    assert window.current_panel_name() is None
    window.show_panel("data")
    _key(window, Qt.Key.Key_Home, Qt.KeyboardModifier.AltModifier)
    assert window.current_panel_name() is None
    # the Roles and Problems docks toggle from the View menu
    window.roles_dock.toggleViewAction().trigger()
    assert window.roles_dock.isVisible()
    window.roles_dock.toggleViewAction().trigger()
    assert not window.roles_dock.isVisible()


def test_ctrl_home_in_the_rule_editor_stays_in_the_editor(qtbot, window):
    window.view_actions["rule"].trigger()
    editor = window.rule_panel.editor
    editor.setPlainText("[rule]\nbaseline = 'a'\ncandidate = 'b'\n")
    cursor = editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    editor.setTextCursor(cursor)
    _key(window, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier, widget=editor)
    assert editor.textCursor().position() == 0
    assert window.current_panel_name() == "rule"


def test_a_second_file_leaves_no_number_of_the_first(qtbot, window):
    first_panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, first_panel)
    first = window.table.sha256
    assert first_panel.last_input_sha256 == first
    assert any(p.last_result is not None for p in window.panels.values())
    second_panel = open_example(qtbot, window, "multilingual.csv")
    wait_result(qtbot, second_panel)
    second = window.table.sha256
    assert second != first
    for name, panel in window.panels.items():
        panel.runner.wait(30000)
    qtbot.wait(100)
    for name, panel in window.panels.items():
        assert panel.last_input_sha256 != first, name
        if panel.last_result is not None and panel.NEEDS_DATA:
            assert panel.last_input_sha256 == second, name
    for result in window.results():
        assert result is not None
    compare = window.panels["compare"]
    assert compare.last_result is None
    assert compare.headline.frame_model().rowCount() == 0
    assert compare.signature.text() == ""
    assert not compare.show_discordant.isEnabled()
    assert compare.not_applicable and "needs" in compare.message.text()
    index = window.tabs.indexOf(compare)
    assert "Does not apply" in window.tabs.tabToolTip(index)
    assert window.tabs.tabBar().tabTextColor(index) != window.tabs.tabBar().tabTextColor(
        window.tabs.indexOf(second_panel))
    assert not window.panel_applies("compare") and window.panel_applies("aggregate")
    # the export holds the second file's results only
    assert all(r is not first_panel.last_result for r in window.results())


def test_the_decision_of_the_first_file_goes_with_it(qtbot, window):
    from workbench.ui.examples import EXAMPLE_SESSIONS

    ex = next(e for e in EXAMPLE_SESSIONS if e.file == "paired_14_to_5.wbsession.json")
    with qtbot.waitSignal(window.rule_panel.result_ready, timeout=60000):
        window.open_example(ex)
    assert window.rule_panel.last_input_sha256 == window.table.sha256
    open_example(qtbot, window, "claims.csv")
    panel = window.rule_panel
    panel.runner.wait(30000)
    qtbot.wait(50)
    assert panel.last_input_sha256 != _sha(EXAMPLES / "paired_14_to_5.csv")


def _sha(path):
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_evaluate_does_not_register(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    rule = window.rule_panel
    window.view_actions["rule"].trigger()
    rule.new_button.click()
    text = rule.rule_text()
    assert 'baseline = "baseline"' in text and 'candidate = "candidate"' in text  # wide form
    assert 'item = "item_id"' in text
    with qtbot.waitSignal(rule.result_ready, timeout=60000):
        rule.evaluate_button.click()
    assert window.session.rule_sha256 is None
    assert rule.verdict.text().startswith("DRAFT")
    assert "not registered" in rule.message.text()
    assert all(r is not rule.last_result for r in window.results())
    rule.register_button.click()
    assert window.session.rule_sha256 is not None
    with qtbot.waitSignal(rule.result_ready, timeout=60000):
        rule.evaluate_button.click()
    assert not rule.verdict.text().startswith("DRAFT")
    assert window.results()[0] is rule.last_result


def test_new_rule_for_long_data_names_its_systems(qtbot, window):
    open_example(qtbot, window, "cost_latency.csv")
    rule = window.rule_panel
    rule.new_button.click()
    text = rule.rule_text()
    from workbench.rules import parse_rule

    parsed = parse_rule(text)
    systems = sorted(set(window.table.frame["system"].astype(str)))
    assert parsed.baseline in systems and parsed.candidate in systems
    assert {c.metric for c in parsed.conditions} >= {"cost_per_success", "latency_p95"}


def test_rule_errors_are_sentences_about_the_editor(qtbot, window, tmp_path):
    import pandas as pd

    path = tmp_path / "other.csv"
    pd.DataFrame({"item_id": ["a", "b"], "x": [1, 0]}).to_csv(path, index=False)
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(str(path))
    rule = window.rule_panel
    rule.set_rule_text("[rule]\nbaseline = 'v1'\ncandidate = 'v2'\n\n[[condition]]\nmetric = 'success'\nmax_drop = 0.01\n")
    with qtbot.waitSignal(rule.runner.failed, timeout=30000):
        rule.evaluate_button.click()
    text = rule.message.text()
    assert "Condition 1 (success, line 5)" in text, text
    assert "rule file" not in text and "[[condition]]" not in text


@pytest.mark.parametrize("file_name, panel", [(e.file, e.panel) for e in
                                              __import__("workbench.ui.examples", fromlist=["x"]).EXAMPLES]
                         + [("passk_attempts.csv", "passk")])
def test_a_file_opened_by_name_lands_on_its_panel(qtbot, window, file_name, panel):
    """As from the command line, a drop or File > Open: no example tells the window the panel."""
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_any(str(EXAMPLES / file_name))
    assert window.current_panel_name() == panel


def test_a_file_no_panel_fits_lands_on_the_data(qtbot, window, tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("name,colour\nx,red\ny,blue\n", encoding="utf-8")
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_any(str(path))
    assert window.current_panel_name() == "data"


def test_lazy_window_paints_before_the_heavy_imports(qtbot, tmp_path):
    """The start-up path: the window shown by ``workbench`` imports no pandas or pyqtgraph
    before its first paint (checked in a fresh interpreter)."""
    import os
    import subprocess
    import sys

    code = ("import sys\nfrom workbench.ui.app import create_app\nfrom workbench.ui.main_window import MainWindow\n"
            "app = create_app()\nw = MainWindow(lazy=True)\nw.show()\napp.processEvents()\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyqtgraph', 'openpyxl', 'scipy'})\n"
            "w.ensure_workspace()\nprint(heavy, 'pandas' in sys.modules, len(w.panels))\nw.shutdown()\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    from workbench.ui.panels import PANELS

    assert out.stdout.split("\n")[0] == f"[] True {len(PANELS)}"


RAW_FLOAT = __import__("re").compile(r"\d(\.\d+)?e[-+]?\d|[1-9]\d*\.\d{5,}|0\.0*[1-9]\d{5,}")


def _visible_texts(panel):
    from PySide6.QtCore import Qt

    views = [panel.headline, *panel._table_views.values()]
    for view in views:
        model = view.frame_model()
        for c in range(model.columnCount()):
            yield model.headerData(c, Qt.Orientation.Horizontal)
            for r in range(model.rowCount()):
                yield model.data(model.index(r, c))


@pytest.mark.parametrize("file_name", ["paired_14_to_5.csv", "cost_latency.csv", "multilingual.csv",
                                       "simpson.csv", "text_extraction.csv", "passk_counts.csv",
                                       "ranking_graded.csv", "claims.csv"])
def test_each_panel_leads_with_its_answer_and_shows_no_raw_float(qtbot, window, file_name):
    from workbench.report import present

    panel = open_example(qtbot, window, file_name)
    result = wait_result(qtbot, panel)
    expected = present.answer(result)
    assert panel.card.isVisible() and panel.card.sentences == tuple(expected.sentences)
    assert panel.card.badge.text() == expected.badge
    # the card sits above the tabs (what a presenter shows first), across the panel's width
    from PySide6.QtCore import QPoint

    card_bottom = panel.card.mapTo(panel, QPoint(0, panel.card.height())).y()
    assert card_bottom <= panel.tabs.mapTo(panel, QPoint(0, 0)).y()
    texts = [t for t in _visible_texts(panel) if isinstance(t, str)]
    assert texts
    bad = [t for t in texts if RAW_FLOAT.search(t)]
    assert not bad, bad[:5]
    # display names, with the metric id in the tooltip and in a copy
    model = panel.headline.frame_model()
    shown = [model.data(model.index(r, 0)) for r in range(model.rowCount())]
    ids = [r["metric"] for r in result.records]
    assert [s.split(" — ")[0] for s in shown] == [present.display_name(i) for i in ids]
    from PySide6.QtCore import Qt

    header = str(model.headerData(0, Qt.Orientation.Horizontal))
    for text, rec in zip(shown, result.records):  # the qualifiers are in the label
        for key in ("system", "group", "version", "from", "to"):
            if rec.get(key) is None:
                continue
            if result.analysis == "compare" and key in ("from", "to"):  # Compare's one pair: in the header
                assert str(rec[key]) in header, (header, rec)
            else:
                assert str(rec[key]) in text.split(" — ", 1)[1], (text, rec)

    tip = model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(ids[0])
    assert panel.headline.copy_all().splitlines()[1].startswith(ids[0] + "\t")


def test_n_is_visible_without_scrolling(qtbot, window):
    from PySide6.QtCore import Qt

    window.resize(1280, 800)
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    qtbot.wait(50)
    model = panel.headline.frame_model()
    names = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    col = names.index("n")
    view = panel.headline
    right = view.columnViewportPosition(col) + view.columnWidth(col)
    assert 0 <= view.columnViewportPosition(col) and right <= view.viewport().width(), (names, right)


def test_the_decision_card_leads_with_the_gate_answer(qtbot, window):
    from workbench.report import present
    from workbench.ui.examples import EXAMPLE_SESSIONS

    ex = next(e for e in EXAMPLE_SESSIONS if e.file == "paired_14_to_5.wbsession.json")
    with qtbot.waitSignal(window.rule_panel.result_ready, timeout=60000) as blocker:
        window.open_example(ex)
    expected = present.answer(blocker.args[0])
    assert window.rule_panel.answer.sentences == tuple(expected.sentences)
    assert window.rule_panel.verdict.text().startswith(expected.badge) and expected.badge == "PASS"


def test_costs_in_the_files_units_unless_a_currency_is_chosen(qtbot, window):
    from PySide6.QtCore import Qt

    panel = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, panel)
    assert "$" not in panel.card.plain_text() and "0.0146" in panel.card.plain_text()
    edit = panel.control("currency")
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        edit.setText("$")
        edit.editingFinished.emit()
    assert "$0.0146" in panel.card.plain_text()
    view = panel.result_table("systems")
    model = view.frame_model()
    col = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index(
        "Cost per success")
    assert model.data(model.index(0, col)).startswith("$")


def test_the_program_started_with_a_file_lands_on_its_panel(tmp_path):
    """``workbench FILE`` as a user starts it: the window paints first, then the file opens on
    the panel its columns fit."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), WORKBENCH_SMOKE="workspace",
               WORKBENCH_STARTUP_TIMING="1", XDG_CONFIG_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "workbench", str(EXAMPLES / "ranking_seed.csv")],
                         capture_output=True, text=True, env=env, timeout=180)
    assert out.returncode == 0, out.stderr
    assert "panel: ranking" in out.stdout
    painted = [line for line in out.stderr.splitlines() if line.startswith("window painted at")]
    ready = [line for line in out.stderr.splitlines() if line.startswith("workspace ready at")]
    assert painted and ready and float(painted[0].split()[-1]) <= float(ready[0].split()[-1])
