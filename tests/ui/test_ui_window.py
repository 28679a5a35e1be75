"""The main window driven as a user would: examples, options, cancel, bad files, sessions."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import EXAMPLES, open_example, open_file, table_of, wait_result
from workbench.analyses import REGISTRY
from workbench.io import load_table

pytestmark = pytest.mark.gui

CASES = [  # example file, panel, headline metric, expected (from the seed)
    ("paired_14_to_5.csv", "compare", "sign_test_p", 0.0636),
    ("ranking_seed.csv", "ranking", "mrr", 0.6111),
    ("ranking_graded.csv", "ranking", "ndcg@3", 0.9134),
    ("passk_counts.csv", "passk", "pass@3", 0.7083),
    ("multilingual.csv", "aggregate", "micro", 0.87),
    ("simpson.csv", "aggregate", "simpson", True),
    ("claims.csv", "aggregate", "mean_of_ratios", 0.6),
    ("cost_latency.csv", "cost", "cost_per_success", 0.0146),
    ("text_extraction.csv", "text", "exact_match", 0.4),
]


def _same_records(shown, engine):
    assert len(shown.records) == len(engine.records)
    for a, b in zip(shown.records, engine.records):
        assert a.keys() == b.keys()
        for key in a:
            if isinstance(a[key], float):
                assert a[key] == pytest.approx(b[key], rel=1e-12, abs=1e-15), (key, a, b)
            else:
                assert a[key] == b[key], (key, a, b)


@pytest.mark.parametrize("file_name, panel_name, metric, expected", CASES)
def test_each_example_shows_the_engine_numbers(qtbot, window, file_name, panel_name, metric, expected):
    panel = open_example(qtbot, window, file_name)
    assert panel is window.panels[panel_name]
    assert window.tabs.currentWidget() is panel
    result = wait_result(qtbot, panel)
    engine = REGISTRY[panel_name].run(load_table(EXAMPLES / file_name), panel.options())
    _same_records(result, engine)
    values = [r["value"] for r in result.records if r["metric"] == metric]
    if isinstance(expected, bool):
        assert values[0] is expected
    else:
        assert values[0] == pytest.approx(expected, abs=6e-5)
    # what the user sees: the headline table, the signature, the result tables
    model = panel.headline.frame_model()
    assert model.rowCount() == len(result.records)
    assert panel.signature.text() == result.signature
    for tab in result.tables:
        assert panel.result_table(tab.name).frame_model().rowCount() == len(tab.frame)


def test_changing_an_option_reruns_with_the_new_convention(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    first = wait_result(qtbot, panel)
    assert first.value("ndcg@3") == pytest.approx(0.9134, abs=1e-4)
    gain = panel.control("gain")
    with qtbot.waitSignal(panel.result_ready, timeout=30000) as blocker:
        gain.setCurrentIndex(gain.findData("exponential"))
    second = blocker.args[0]
    assert second.value("ndcg@3") == pytest.approx(0.834, abs=1e-3)
    assert "gain:exponential" in panel.signature.text()
    assert window.dirty


def test_cancel_a_long_run_keeps_the_previous_result(qtbot, window, tmp_path):
    rng = np.random.default_rng(1)
    n = 60_000
    frame = pd.DataFrame({"item_id": np.arange(n), "conversation": np.arange(n) // 2,
                          "baseline": rng.integers(0, 2, n), "candidate": rng.integers(0, 2, n)})
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    open_file(qtbot, window, path)
    panel = window.panels["compare"]
    window.show_panel("compare")
    wait_result(qtbot, panel, timeout=60000)
    previous = panel.last_result
    resamples = panel.control("resamples")
    resamples.setValue(1_000_000)  # a cluster bootstrap that takes a while
    panel.run_now()
    assert panel.runner.busy
    with qtbot.waitSignal(panel.runner.cancelled, timeout=5000):
        panel.busy.cancel.click()
    assert not panel.runner.busy
    assert panel.last_result is previous
    assert "Cancelled" in panel.message.text()
    panel.runner.wait(60000)  # the worker stops at its next check


def test_a_new_run_supersedes_the_old_one(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    seeds = []
    panel.result_ready.connect(lambda r: seeds.append(r.signature))
    seed = panel.control("seed")
    seed.setValue(1)
    panel.run_now()
    seed.setValue(2)
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        panel.run_now()
    panel.runner.wait(10000)
    qtbot.wait(50)
    assert seeds and all("seed:2" in s for s in seeds)


def test_a_bad_file_gives_a_sentence(qtbot, window, tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n1,2\n3,4,5\n", encoding="utf-8")
    with qtbot.waitSignal(window.load_failed, timeout=30000) as blocker:
        window.open_path(str(path))
    message = blocker.args[0]
    assert "ragged.csv" in message and "3" in message
    assert window.warnings and window.warnings[-1][0] == "Cannot open the file"
    assert window.table is None


def test_an_analysis_error_is_shown_in_the_panel(qtbot, window, tmp_path):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"item_id": ["a", "b"], "baseline": [1, 0], "candidate": [1, 7]}).to_csv(path, index=False)
    open_file(qtbot, window, path)
    panel = window.panels["compare"]
    with qtbot.waitSignal(panel.runner.failed, timeout=30000):
        panel.run_now()
    assert "candidate" in panel.message.text() and "7" in panel.message.text()
    assert panel.last_error
    assert any("candidate" in item for item in
               [window.problem_list.item(i).text() for i in range(window.problem_list.count())])


def test_problem_click_selects_the_rows(qtbot, window, tmp_path):
    path = tmp_path / "neg.csv"
    pd.DataFrame({"system": ["A"] * 4, "success": [1, 0, 1, 1],
                  "cost": [0.1, -0.2, 0.1, -0.5]}).to_csv(path, index=False)
    open_file(qtbot, window, path)
    items = [window.problem_list.item(i) for i in range(window.problem_list.count())]
    negative = next(it for it in items if "negative" in it.text())
    from PySide6.QtCore import Qt

    rect = window.problem_list.visualItemRect(negative)  # clicked as the user clicks it
    qtbot.mouseClick(window.problem_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    selected = sorted({i.row() for i in window.data.view.selectionModel().selectedIndexes()})
    assert [window.data.model.source_row(r) for r in selected] == [1, 3]


def test_changing_a_role_updates_the_panels(qtbot, window):
    panel = open_example(qtbot, window, "multilingual.csv")
    wait_result(qtbot, panel)
    assert panel.last_result.value("macro") == pytest.approx(0.75)
    with qtbot.waitSignal(panel.result_ready, timeout=30000) as blocker:
        window.roles_table.set_role("language", "ignore")
        window.roles_table.set_role("item_id", "group")
    # every item is its own group now: macro = micro
    assert blocker.args[0].value("macro") == pytest.approx(0.87) or panel.last_result.value("macro") == pytest.approx(0.87)


def test_discordant_items_one_click_away(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    panel.show_discordant.click()
    assert window.tabs.currentWidget() is window.data
    assert window.data.model.rowCount() == 19
    shown = window.data.model.frame.iloc[[window.data.model.source_row(r) for r in range(19)]]
    assert (shown["baseline"] != shown["candidate"]).all()
    window.data.show_all.click()
    assert window.data.model.rowCount() == 200


def test_copy_a_result_table_as_tsv_full_precision(qtbot, window):
    from PySide6.QtGui import QGuiApplication

    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    result = wait_result(qtbot, panel)
    text = panel.headline.copy_all()
    assert QGuiApplication.clipboard().text() == text
    lines = text.splitlines()
    assert lines[0].split("\t")[0] == "metric"
    row = next(l for l in lines if l.startswith("sign_test_p\t")).split("\t")
    assert float(row[lines[0].split("\t").index("value")]) == result.value("sign_test_p")


def test_session_round_trip(qtbot, window, tmp_path):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    gain = panel.control("gain")
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        gain.setCurrentIndex(gain.findData("exponential"))
    path = tmp_path / "s.wbsession.json"
    assert window._write_session(str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["panels"]["ranking"]["gain"] == "exponential"
    assert data["current_panel"] == "ranking"  # the tab on screen reopens
    assert data["input_sha256"] == window.table.sha256
    assert data["roles"]["query"] == "query"
    assert not window.dirty

    from PySide6.QtCore import QSettings
    from workbench.ui.main_window import MainWindow

    other = MainWindow(QSettings(str(tmp_path / "other.ini"), QSettings.Format.IniFormat))
    other.ask_unsaved = lambda: "discard"
    qtbot.addWidget(other)
    try:
        with qtbot.waitSignal(other.table_loaded, timeout=30000):
            other.open_session(str(path))
        reopened = other.panels["ranking"]
        assert other.tabs.currentWidget() is reopened
        assert reopened.control("gain").currentData() == "exponential"
        result = wait_result(qtbot, reopened)
        assert result.value("ndcg@3") == pytest.approx(0.834, abs=1e-3)
    finally:
        other.dirty = False
        other.shutdown()


def test_xlsx_with_several_sheets_asks_which(qtbot, window, tmp_path):
    path = tmp_path / "two.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"x": [1]}).to_excel(writer, sheet_name="Notes", index=False)
        pd.read_csv(EXAMPLES / "passk_counts.csv").to_excel(writer, sheet_name="Runs", index=False)
    asked = []
    window.choose_sheet = lambda p, sheets: asked.append(tuple(sheets)) or "Runs"
    open_file(qtbot, window, path)
    assert asked == [("Notes", "Runs")]
    assert window.table.sheet == "Runs"
    result = wait_result(qtbot, window.panels["passk"])
    assert result.value("pass@1") == pytest.approx(0.3)


def test_recent_files_and_geometry_are_remembered(qtbot, window):
    open_example(qtbot, window, "claims.csv")
    assert window.recent_files()[0].endswith("claims.csv")
    window.shutdown()
    assert window.settings.value("window/geometry") is not None


def test_presentation_mode_scales_fonts(qtbot, window):
    from PySide6.QtWidgets import QApplication

    from workbench.ui.presentation import presentation_scale

    before = QApplication.font().pointSizeF()
    screen = window.screen().geometry()
    window.toggle_presentation()
    assert QApplication.font().pointSizeF() == pytest.approx(
        before * presentation_scale(screen.width(), screen.height()))
    assert QApplication.font().pointSizeF() > before * 1.1
    window.toggle_presentation()
    assert QApplication.font().pointSizeF() == pytest.approx(before)


def test_plan_panel_needs_no_data(qtbot, window):
    panel = window.panels["plan"]
    window.show_panel("plan")
    result = wait_result(qtbot, panel)
    assert result.value("ci_half_width") == pytest.approx(1.959964 * np.sqrt(0.8 * 0.2 / 200), rel=1e-6)


def test_unexpected_error_opens_the_dialog_and_keeps_the_data(qtbot, window, monkeypatch):
    panel = open_example(qtbot, window, "claims.csv")
    wait_result(qtbot, panel)
    from workbench.analyses import aggregate

    def boom(*_a, **_k):
        raise ZeroDivisionError("synthetic")

    monkeypatch.setattr(aggregate, "run", boom)
    with qtbot.waitSignal(panel.runner.failed, timeout=30000):
        panel.run_now()
    assert window.exceptions and "ZeroDivisionError" in window.exceptions[-1][0]
    assert window.table is not None and len(window.data.model.frame) == 2


def test_unsaved_changes_are_protected_on_quit(qtbot, window, tmp_path):
    from PySide6.QtGui import QCloseEvent

    panel = open_example(qtbot, window, "claims.csv")
    wait_result(qtbot, panel)
    assert not window.dirty  # opening a file is not a change
    window.roles_table.set_role("claims", "ignore")
    assert window.dirty
    window.ask_unsaved = lambda: "cancel"
    event = QCloseEvent()
    window.closeEvent(event)
    assert not event.isAccepted()
    saved = tmp_path / "saved.wbsession.json"
    window.session_path = str(saved)
    window.ask_unsaved = lambda: "save"
    event = QCloseEvent()
    window.closeEvent(event)
    assert event.isAccepted() and saved.exists() and not window.dirty


def test_release_rule_registered_before_results_then_card(qtbot, window):
    from workbench.resources_path import resources_dir

    rule_text = (resources_dir() / "rules" / "seed_14_to_5.toml").read_text(encoding="utf-8")
    window.show_panel("rule")
    panel = window.rule_panel
    panel.set_rule_text(rule_text)
    assert panel.register()
    assert window.session.rule_sha256 and window.session.rule_registered_at
    assert not window.session.rule_changed_after_results
    with qtbot.waitSignal(panel.result_ready, timeout=60000) as blocker:
        open_example(qtbot, window, "paired_14_to_5.csv")
    card = blocker.args[0]
    assert card.value("verdict") == "PASS"
    assert "PASS" in panel.verdict.text() and "changed" not in panel.verdict.text()
    shown = panel.card.frame_model().frame
    assert shown["status"].tolist() == ["PASS"]
    assert "14" in shown["counts"].iloc[0] and "5" in shown["counts"].iloc[0]
    assert window.results()[0] is card  # the report leads with the decision


def test_rule_edited_after_results_is_marked(qtbot, window):
    from workbench.resources_path import resources_dir

    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)  # results were shown
    rule_text = (resources_dir() / "rules" / "seed_14_to_5.toml").read_text(encoding="utf-8")
    window.rule_panel.set_rule_text(rule_text.replace("max_drop = 0.01", "max_drop = 0.02"))
    window.rule_panel.register_button.click()  # registering is its own step
    with qtbot.waitSignal(window.rule_panel.result_ready, timeout=60000) as blocker:
        window.rule_panel.evaluate_button.click()
    card = blocker.args[0]
    assert card.value("rule_changed_after_results") is True
    assert "rule changed after results were seen" in window.rule_panel.verdict.text()
    assert window.session.rule_changed_after_results


def test_invalid_rule_gets_a_sentence(qtbot, window):
    window.rule_panel.set_rule_text("[rule]\nbaseline = 'a'\ncandidate = 'b'\n[[condition]]\nmetric = 'succes'\nmax_drop = 0.01\n")
    assert not window.rule_panel.register()
    assert "succes" in window.rule_panel.message.text()
    # a sentence about the editor, and the cursor on the line it names
    assert window.rule_panel.message.text().startswith("Line 5 of the rule (condition 1): ")
    assert "rule file" not in window.rule_panel.message.text().lower()
    assert window.rule_panel.editor.textCursor().blockNumber() == 4


def test_export_report_from_the_gui(qtbot, window, tmp_path):
    from openpyxl import load_workbook

    panel = open_example(qtbot, window, "cost_latency.csv")
    result = wait_result(qtbot, panel)
    path = tmp_path / "report.xlsx"
    with qtbot.waitSignal(window.report_written, timeout=60000):
        window.export_report(str(path))
    book = load_workbook(path, data_only=True)
    assert book.sheetnames[0] == "Summary"
    values = [c.value for row in book.worksheets[0].iter_rows() for c in row if c.value is not None]
    assert any(isinstance(v, str) and "cost" in v.lower() for v in values)
    cps = result.value("cost_per_success", system="A")
    numbers = [c.value for ws in book.worksheets for row in ws.iter_rows() for c in row
               if isinstance(c.value, float)]
    assert any(abs(v - cps) < 1e-12 for v in numbers)


def test_registered_rule_draws_its_bars_on_the_charts(qtbot, window):
    from workbench.resources_path import resources_dir

    text = (resources_dir() / "rules" / "release_all_conditions.toml").read_text(encoding="utf-8")
    window.rule_panel.set_rule_text(text)
    assert window.rule_panel.register()
    from workbench.rules import parse_rule

    rule = parse_rule(text)
    success = next(c for c in rule.conditions if c.metric == "success")
    latency = next(c for c in rule.conditions if c.metric == "latency_p95")
    assert window.panels["compare"].control("margin").value() == pytest.approx(100 * success.threshold)
    assert window.panels["cost"].control("latency_threshold").value() == pytest.approx(latency.threshold)


def _click_item(qtbot, widget, row):
    from PySide6.QtCore import Qt

    rect = widget.visualItemRect(widget.item(row))
    qtbot.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_example_session_with_its_rule_opens_from_the_start_page(qtbot, window):
    """The 14-to-5 example session: its file, roles, options and the rule registered before
    any result; the rule is evaluated as soon as the data is in, and the card says PASS."""
    from workbench.ui.examples import EXAMPLE_SESSIONS

    sessions = window.start.sessions
    assert sessions.count() == len(EXAMPLE_SESSIONS) == 3
    assert "paired_14_to_5.wbsession.json" in sessions.item(0).toolTip()
    with qtbot.waitSignal(window.rule_panel.result_ready, timeout=60000) as blocker:
        _click_item(qtbot, sessions, 0)
    card = blocker.args[0]
    assert card.value("verdict") == "PASS"
    assert window.tabs.currentWidget() is window.rule_panel
    assert window.table.path.endswith("paired_14_to_5.csv")
    assert window.session.input_sha256 == window.table.sha256
    assert window.session.rule_registered_at == "2026-11-30T09:00:00+00:00"
    assert not window.session.rule_changed_after_results
    assert "Registered 2026-11-30" in window.rule_panel.status.text()
    assert window.roles["conversation"] == "cluster"
    assert window.panels["compare"].options().cluster == "conversation"
    # the rule's margin is drawn on the compare chart, as after registering it by hand
    assert window.panels["compare"].control("margin").value() == pytest.approx(1.0)
    # the example stays read-only: saving asks for a new file
    assert window.session_path is None
    assert not window.warnings and not window.exceptions


@pytest.mark.parametrize("row, panel_name, metric, expected, signature", [
    (1, "ranking", "ndcg@3", 0.834, "gain:exponential"),
    (2, "cost", "latency_p95", None, "pct:nearest_rank"),
])
def test_example_sessions_restore_their_conventions(qtbot, window, row, panel_name, metric,
                                                     expected, signature):
    from workbench.ui.examples import EXAMPLE_SESSIONS

    example = EXAMPLE_SESSIONS[row]
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        _click_item(qtbot, window.start.sessions, row)
    panel = window.panels[panel_name]
    assert window.tabs.currentWidget() is panel
    result = wait_result(qtbot, panel)
    assert signature in result.signature and signature in panel.signature.text()
    saved = json.loads(example.path.read_text(encoding="utf-8"))["panels"][panel_name]
    engine = REGISTRY[panel_name].run(load_table(EXAMPLES / saved_input(example)),
                                      REGISTRY[panel_name].Options(**{
                                          k: tuple(v) if isinstance(v, list) else v
                                          for k, v in saved.items()}))
    _same_records(result, engine)
    if expected is not None:
        assert result.value(metric) == pytest.approx(expected, abs=1e-3)


def saved_input(example) -> str:
    return json.loads(example.path.read_text(encoding="utf-8"))["input_path"]


def test_about_shows_the_version_and_the_libraries():
    from importlib.metadata import version

    import PySide6
    from PySide6.QtCore import qVersion

    from workbench import __version__
    from workbench.io import parquet
    from workbench.ui.about import about_text

    text = about_text()
    assert f"Eval Workbench {__version__}" in text
    assert f"Qt {qVersion()} (PySide6 {PySide6.__version__})" in text
    for dist in ("pandas", "scipy", "numpy"):
        assert f"{dist} {version(dist)}" in text
    reader = parquet.engine()
    assert f"Parquet read by {reader} {version(reader)}" in text


@pytest.mark.parametrize("file_name", ["ranking_graded.wbsession.json", "claims.csv"])
def test_a_file_open_event_opens_the_file(qtbot, window, file_name):
    """macOS Finder's "open" on a running app arrives as a QFileOpenEvent on the application."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QFileOpenEvent
    from PySide6.QtWidgets import QApplication

    from workbench.ui.app import FileOpenHandler

    app = QApplication.instance()
    handler = FileOpenHandler(app, window)
    try:
        with qtbot.waitSignal(window.table_loaded, timeout=30000) as blocker:
            QCoreApplication.sendEvent(app, QFileOpenEvent(str(EXAMPLES / file_name)))
        assert blocker.args[0].path.endswith(file_name.split(".")[0] + ".csv")
        if file_name.endswith(".json"):
            assert window.panels["ranking"].control("gain").currentData() == "exponential"
    finally:
        app.removeEventFilter(handler)
        handler.deleteLater()


def test_a_session_from_an_older_file_without_a_current_panel_opens_on_the_data(qtbot, window,
                                                                               tmp_path):
    saved = json.loads((EXAMPLES / "ranking_graded.wbsession.json").read_text(encoding="utf-8"))
    del saved["current_panel"]
    saved["input_path"] = str(EXAMPLES / saved["input_path"])
    path = tmp_path / "old.wbsession.json"
    path.write_text(json.dumps(saved), encoding="utf-8")
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_any(str(path))
    assert window.tabs.currentWidget() is window.data
    assert window.panels["ranking"].control("gain").currentData() == "exponential"
    assert window.session_path == str(path)


def test_the_data_view_sorts_and_filters_a_large_table_off_the_gui_thread(qtbot, window, tmp_path):
    from PySide6.QtCore import Qt

    from workbench.ui.dataview import BACKGROUND_ROWS

    n = BACKGROUND_ROWS + 10_000
    frame = pd.DataFrame({"item_id": [f"item-{i:06d}" for i in range(n)],
                          "baseline": np.arange(n) % 2, "candidate": (np.arange(n) // 2) % 2})
    path = tmp_path / "large.csv"
    frame.to_csv(path, index=False)
    open_file(qtbot, window, path)
    data = window.data
    model = data.model
    with qtbot.waitSignal(model.rows_ready, timeout=30000):
        qtbot.keyClicks(data.filter, "item-0123")  # debounced, then on a worker
        with qtbot.waitSignal(model.busy_changed, timeout=5000):
            pass
        assert model.busy and "sorting and filtering" in data.info.text()
    assert model.rowCount() == 100 and data.info.text() == f"100 of {n:,} rows"
    with qtbot.waitSignal(model.rows_ready, timeout=30000):
        data.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # as a header click does
    assert model.data(model.index(0, 0)) == "item-012399"
    # "show these rows" on a sorted, filtered large table selects exactly them
    data.show_rows([12340, 12345], "two items")
    assert sorted(model.source_row(r) for r in range(model.rowCount())) == [12340, 12345]
    assert len(data.view.selectionModel().selectedRows()) == 2


def test_opening_another_file_or_session_offers_to_save_first(qtbot, window):
    panel = open_example(qtbot, window, "claims.csv")
    wait_result(qtbot, panel)
    window.roles_table.set_role("claims", "ignore")
    assert window.dirty
    asked = []
    window.ask_unsaved = lambda: asked.append(1) or "cancel"
    window.open_path(str(EXAMPLES / "simpson.csv"))
    window.open_any(str(EXAMPLES / "ranking_graded.wbsession.json"))
    assert len(asked) == 2 and window.table.path.endswith("claims.csv")  # nothing replaced
    assert not window.loader.busy
    window.ask_unsaved = lambda: asked.append(1) or "discard"
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_any(str(EXAMPLES / "ranking_graded.wbsession.json"))
    assert len(asked) == 3 and window.table.path.endswith("ranking_graded.csv")
    assert window.tabs.currentWidget() is window.panels["ranking"]


def test_a_failed_load_does_not_leave_its_tab_for_the_next_one(qtbot, window, tmp_path):
    saved = json.loads((EXAMPLES / "cost_latency.wbsession.json").read_text(encoding="utf-8"))
    saved["input_path"] = str(tmp_path / "gone.csv")  # its input is missing
    broken = tmp_path / "broken.wbsession.json"
    broken.write_text(json.dumps(saved), encoding="utf-8")
    with qtbot.waitSignal(window.load_failed, timeout=30000):
        window.open_session(str(broken))
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(str(EXAMPLES / "claims.csv"))
    assert window.current_panel_name() == "aggregate"  # its columns' panel, not the failed session's "cost"


def test_a_selection_asked_for_on_the_old_table_is_not_applied_to_the_new_one(qtbot, window,
                                                                               tmp_path):
    from workbench.ui.dataview import BACKGROUND_ROWS

    n = BACKGROUND_ROWS + 5000
    path = tmp_path / "large.csv"
    pd.DataFrame({"item_id": [f"i{k}" for k in range(n)], "x": np.arange(n) % 2}).to_csv(
        path, index=False)
    open_file(qtbot, window, path)
    data = window.data
    data.model.set_filter("i1")
    assert data.model.busy
    data.select_rows([n - 1])             # queued until the filter is done
    open_file(qtbot, window, EXAMPLES / "claims.csv")  # ... but the table changes first
    data.model.wait()
    qtbot.wait(100)
    assert not window.exceptions and data.model.rowCount() == 2


def test_saving_an_installed_example_session_proposes_the_home_folder(qtbot, window, monkeypatch,
                                                                       tmp_path):
    import os

    from PySide6.QtWidgets import QFileDialog

    import workbench.ui.main_window as mw
    from workbench.ui.examples import EXAMPLE_SESSIONS

    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_example(EXAMPLE_SESSIONS[1])
    proposed = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *args: proposed.append(args[2]) or ("", ""))
    monkeypatch.setattr(mw.os, "access", lambda path, mode: False)  # as under /opt
    monkeypatch.setenv("HOME", str(tmp_path))
    assert window.save_session_as() is False  # the dialog was cancelled
    assert proposed == [os.path.join(str(tmp_path), "ranking_graded.wbsession.json")]
