"""Issue 23: first contact with the field's own files, driven as a user does (File > Open with
the dialog patched, drops of several files, the menus).

The "first contact" test opens each fixture written by a real tool (tests/fixtures/formats,
found on disk, so fixtures added later are covered) and checks the landing panel: a non-empty
answer that names its metric, and no error anywhere.
"""

from __future__ import annotations

import glob
import os
import re

import pytest
from PySide6.QtWidgets import QFileDialog

from conftest import EXAMPLES, wait_result

pytestmark = pytest.mark.gui

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats"))
#: files in the fixture folders that a tool did not write as results (its config, our expectations)
NOT_RESULTS = (".py", ".yaml", ".yml", ".js", "_expected.csv", ".md", "expected.json")
#: files that hold no per-item results: the window shows them in the data view, with a note
NO_ITEMS = ("results_",)          # lm-eval's own aggregated results JSON
JUDGMENTS = ("qrels",)            # TREC judgments alone: no run to score
RUNS = (".run",)                  # a TREC run alone: no judgments to score it with
#: the tools' own flags a note may name (promptfoo eval --repeat 3): not the workbench's
TOOL_FLAGS = {"--repeat"}
#: what a card that names its metric contains
METRIC = re.compile(r"mean '|pass@\d|pass\^\d|nDCG|MRR|exact match|[Mm]icro|per success|success|pts|"
                    r"acc|exact_match|Token F1|BLEU|kappa|Krippendorff|Rubric score|Scorer '", re.I)
#: HELM runs that recorded none of its accuracy metrics (a toy scenario's log-probabilities
#: only): the mean of the measure in its own unit, never a log-probability read as a rate
NO_MAIN = ("helm/simple1/",)
#: a tool's aggregated scores, no per-item results (an MTEB task's result file): their mean over
#: the task's splits and subsets (an STS task's correlations in their own unit)
SUMMARIES = ("mteb/", "mteb_old/")
#: files whose primary scorer is a measure in its own unit (a correlation, a log-probability)
MEASURES = ("Fixture46STS", "helm/simple1/")
#: files the workbench refuses, with a sentence (a Phoenix experiment no evaluator scored)
REFUSED = ("experiment_no_evaluator", "model_meta.json", "run_settings.jsonl")
#: files beside the results that a tool wrote or read but are not results: a SWE-bench run's
#: dataset, predictions and per-instance logs, an MTEB model's metadata, a custom task's data
NOT_RESULT_FILES = ("swebench/dataset.json", "swebench/predictions.jsonl", "eval.sh",
                    "patch.diff", "run_instance.log", "test_output.txt")


def _fixture_files():
    out = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "**", "*"), recursive=True)):
        if os.path.isfile(path) and not path.endswith(NOT_RESULTS) and not path.endswith(NOT_RESULT_FILES) \
                and os.sep + "task" + os.sep not in path:  # a custom lm-eval task's dataset
            out.append(os.path.relpath(path, FIXTURES))
    return out


def _groups():
    """Files a user opens together: a run's stacked tasks, two logs, runs with their qrels."""
    lm = sorted(glob.glob(os.path.join(FIXTURES, "lmeval", "dummy-seed1", "samples_*.jsonl")))
    inspect = sorted(glob.glob(os.path.join(FIXTURES, "inspect", "*.eval")))
    trec = [os.path.join(FIXTURES, "trec", n) for n in ("runA.run", "runB.run", "qrels.test.txt")]
    tools = [os.path.join(FIXTURES, "promptfoo_repeat", "results.json"),
             os.path.join(FIXTURES, "inspect285_judge", "judge_alpha.eval")]
    groups = {"lm-eval two tasks of one run": lm, "two Inspect logs": inspect[:2],
              "promptfoo + Inspect on the same questions": tools,
              "TREC run A + run B + qrels": trec,
              "TREC run A + qrels": [trec[0], trec[2]]}
    return {k: v for k, v in groups.items() if len(v) >= 2}


def _open(qtbot, window, monkeypatch, paths, *, refused=False):
    """File > Open with these files chosen in the dialog."""
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        staticmethod(lambda *a, **k: ([str(p) for p in paths], "")))
    loaded, failed = [], []
    window.table_loaded.connect(loaded.append)
    window.load_failed.connect(failed.append)
    try:
        window.open_action.trigger()
        qtbot.waitUntil(lambda: bool(loaded or failed), timeout=60000)
    finally:
        window.table_loaded.disconnect(loaded.append)
        window.load_failed.disconnect(failed.append)
    if refused:  # a file the workbench cannot analyse: one sentence naming it and what was expected
        assert failed and os.path.basename(paths[0]) in failed[0] and "expected" in failed[0], failed
        return failed[0]
    assert not failed, f"{paths}: {failed[0]}"


def _settle(qtbot, window, timeout=30.0):
    """Until no panel runs or waits to run (a landing run that fails moves the window on)."""
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        pending = [p for p in window.panels.values() if p.runner.busy or p._debounce.isActive()]
        if not pending:
            return
        qtbot.waitSignal(pending[0].runner.busy_changed, timeout=200, raising=False).wait()
    raise AssertionError("the panels did not settle")


def _landed(qtbot, window):
    _settle(qtbot, window)
    name = window.current_panel_name()
    return name, window.panels.get(name)


def _no_error(window, panel=None):
    assert not window.warnings, window.warnings
    assert not window.exceptions, window.exceptions
    if panel is not None:
        assert not panel.last_error, panel.last_error
        assert "b3261e" not in panel.message.styleSheet(), panel.message.text()


def _check_card(panel):
    text = panel.card.plain_text()
    assert text.strip(), "empty answer"
    assert METRIC.search(text), text
    assert not re.search(r"= -(?!\d)|over 0 \w+", text), text   # never an empty answer
    assert "--" not in text and "--" not in panel.message.text()  # no command-line flag in the GUI
    flags = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", panel.notes.text())) - TOOL_FLAGS
    assert not flags, flags  # the notes in the window's words too (the reading's flags included)


@pytest.mark.parametrize("name", _fixture_files())
def test_first_contact_with_each_real_tool_file(qtbot, window, monkeypatch, name):
    if any(r in name for r in REFUSED):
        _open(qtbot, window, monkeypatch, [os.path.join(FIXTURES, name)], refused=True)
        assert not window.exceptions, window.exceptions
        return
    _open(qtbot, window, monkeypatch, [os.path.join(FIXTURES, name)])
    landed, panel = _landed(qtbot, window)
    base = os.path.basename(name)
    if name.startswith(SUMMARIES + NO_MAIN):  # a task's scores, a run's measure: a named mean
        assert panel is not None, f"{name} landed on {landed}"
        _no_error(window, panel)
        _check_card(panel)
        if any(m in name for m in MEASURES):  # in its own unit: a mean, never a percentage
            text = panel.card.plain_text()
            assert "mean '" in text and not re.search(r"\d%(?! CI)", text), text
        return
    if base.startswith(NO_ITEMS) or any(j in base for j in JUDGMENTS):
        # no per-item results (a tool's summary, or judgments alone): the data, and no error
        assert landed == "data", landed
        _no_error(window)
        return
    if base.endswith(RUNS):
        # Ranking cannot run without judgments: not the landing panel; its tab and the status
        # bar say how to give them, in the window's words (no command-line flag)
        assert landed == "data", landed
        _no_error(window)
        tip = window.tabs.tabToolTip(window.tabs.indexOf(window.panels["ranking"]))
        assert "qrels" in tip and "--" not in tip, tip
        assert "qrels" in window.statusBar().currentMessage()
        return
    assert panel is not None, f"{name} landed on {landed}"
    _no_error(window, panel)
    _check_card(panel)


@pytest.mark.parametrize("group", list(_groups()))
def test_first_contact_with_files_opened_together(qtbot, window, monkeypatch, group):
    _open(qtbot, window, monkeypatch, _groups()[group])
    landed, panel = _landed(qtbot, window)
    assert panel is not None, f"{group} landed on {landed}"
    _no_error(window, panel)
    _check_card(panel)


# -- item 1: pass@k leads with the largest k the data supports -------------------------------

def test_passk_headline_is_the_largest_supported_k_on_card_and_in_the_report(qtbot, window, monkeypatch,
                                                                             tmp_path):
    import openpyxl

    log = os.path.join(FIXTURES, "inspect", "arith_alpha.eval")
    _open(qtbot, window, monkeypatch, [log])
    landed, panel = _landed(qtbot, window)
    assert landed == "passk"
    result = panel.last_result
    supported = [int(r["k"]) for r in result.records if r["metric"] == f"pass@{r['k']}" and r["n"]]
    asked = [int(r["k"]) for r in result.records if r["metric"] == f"pass@{r['k']}"]
    # the default k list is the data's: every k up to the fewest attempts of a task, none beyond
    assert asked == supported and max(supported) >= 2, (asked, supported)
    text = panel.card.plain_text()
    assert f"pass@{max(supported)} = " in text and "over 0" not in text
    assert f"pass@{max(supported) + 1}" not in text
    out = tmp_path / "report.xlsx"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    with qtbot.waitSignal(window.report_written, timeout=60000):
        window.export_action.trigger()
    cells = [str(c.value) for ws in openpyxl.load_workbook(out).worksheets
             for row in ws.iter_rows() for c in row if c.value is not None]
    assert any(f"pass@{max(supported)} = " in c for c in cells)
    assert not any("over 0 tasks" in c or f"pass@{max(asked)} = -" in c for c in cells)


# -- item 2: the registration time on the card and in the workbook ------------------------------

def test_registered_time_is_on_the_pass_card_and_in_the_workbook(qtbot, window, monkeypatch, tmp_path):
    import openpyxl

    from workbench.ui.examples import EXAMPLE_SESSIONS

    example = next(e for e in EXAMPLE_SESSIONS if e.file == "paired_14_to_5.wbsession.json")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(example.path), "")))
    rule = window.rule_panel
    with qtbot.waitSignal(rule.result_ready, timeout=60000):
        window.open_session_action.trigger()
    when = window.session.rule_registered_at
    assert when and when in rule.status.text()
    card = rule.answer.plain_text() if hasattr(rule.answer, "plain_text") else rule.answer.text()
    assert when in card and "no registration time recorded" not in card, card
    out = tmp_path / "rule-report.xlsx"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    with qtbot.waitSignal(window.report_written, timeout=60000):
        window.export_action.trigger()
    found = []
    for ws in openpyxl.load_workbook(out).worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value == "registered":
                    found.append(ws.cell(c.row, c.column + 1).value)
    assert found and all(v and when in str(v) for v in found), found


# -- item 3: nothing of the previous file decides the next one's analysis ------------------------

def test_two_logs_after_one_of_them_compare_their_two_systems(qtbot, window, monkeypatch):
    logs = sorted(glob.glob(os.path.join(FIXTURES, "inspect", "*.eval")))[:2]
    _open(qtbot, window, monkeypatch, logs[:1])
    _landed(qtbot, window)
    _open(qtbot, window, monkeypatch, logs)
    landed, panel = _landed(qtbot, window)
    assert landed == "compare"
    _no_error(window, panel)
    options = panel.options()
    assert options.baseline_system != options.candidate_system
    assert {options.baseline_system, options.candidate_system} == \
        set(window.table.frame[options.system].astype(str))


def test_qrels_and_margin_of_the_previous_file_are_reset(qtbot, window, monkeypatch):
    trec = os.path.join(FIXTURES, "trec")
    _open(qtbot, window, monkeypatch, [os.path.join(trec, "runA.run"), os.path.join(trec, "qrels.test.txt")])
    ranking = window.panels["ranking"]
    assert ranking.control("qrels").path().endswith("qrels.test.txt")
    compare = window.panels["compare"]
    compare.control("margin").setValue(2.5)
    window.panels["cost"].control("currency").setText("$")
    window.dirty = False
    _open(qtbot, window, monkeypatch, [EXAMPLES / "paired_14_to_5.csv"])
    _landed(qtbot, window)
    assert ranking.control("qrels").path() == ""
    assert compare.control("margin").value() == 0.0
    assert window.panels["cost"].currency() is None


# -- item 4: a panel that cannot run is not the landing panel ------------------------------------

def test_two_tasks_of_one_lmeval_run_do_not_land_on_a_compare_error(qtbot, window, monkeypatch):
    _open(qtbot, window, monkeypatch, _groups()["lm-eval two tasks of one run"])
    landed, panel = _landed(qtbot, window)
    compare = window.panels["compare"]
    assert landed != "compare"
    _no_error(window, panel)
    index = window.tabs.indexOf(compare)
    # greyed with its reason: one system to compare, or (the tasks scored by different metrics)
    # no pooled outcome to compare
    tip = window.tabs.tabToolTip(index)
    assert "one system" in tip or "outcome or score" in tip, tip
    assert not compare.last_error  # said in its message, not a red error
    # item 15: the card names the measures and does not present acc and exact_match as one
    text = panel.card.plain_text()
    if landed == "text":  # no pooled outcome (the tasks' metrics differ): the generated task's text metrics
        assert "exact match" in text and "arith_gen" in text, text
    else:
        assert "acc" in text and "exact_match" in text and "different metrics" in text, text


# -- item 8: trec_eval's three inputs together ---------------------------------------------------

def test_two_runs_and_their_qrels_dropped_together(qtbot, window):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    paths = _groups()["TREC run A + run B + qrels"]
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(p) for p in paths])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.dropEvent(event)
    landed, panel = _landed(qtbot, window)
    assert landed == "ranking"
    _no_error(window, panel)
    systems = {r.get("system") for r in panel.last_result.records if r.get("system")}
    assert systems == {"runA", "runB"}
    assert "qrels" in panel.last_result.signature or panel.control("qrels").path()


def test_gzip_compressed_runs_and_qrels_dropped_together(qtbot, window, tmp_path):
    """The same three files as TREC distributes them (gzip): the qrels found by their content
    and kept apart, the runs stacked, the numbers of the plain files."""
    import gzip

    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    from workbench.analyses import ranking

    paths = _groups()["TREC run A + run B + qrels"]
    packed = []
    for p in paths:
        target = tmp_path / (os.path.basename(p) + ".gz")
        target.write_bytes(gzip.compress(open(p, "rb").read()))
        packed.append(str(target))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(p) for p in packed])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.dropEvent(event)
    landed, panel = _landed(qtbot, window)
    assert landed == "ranking"
    _no_error(window, panel)
    assert panel.control("qrels").path().endswith(".gz")
    runs = [p for p in paths if p.endswith(".run")]
    qrels = [p for p in paths if not p.endswith(".run")][0]
    from workbench.io import load_many

    import dataclasses

    plain = ranking.run(load_many(runs), dataclasses.replace(panel.options(), qrels=qrels))
    got = {(r["metric"], r.get("system")): r["value"] for r in panel.last_result.records}
    want = {(r["metric"], r.get("system")): r["value"] for r in plain.records}
    assert got.keys() >= {("map", "runA"), ("map", "runB")}
    assert {k: got[k] for k in want if k[0] == "map"} == pytest.approx(
        {k: v for k, v in want.items() if k[0] == "map"})


def test_an_ms_marco_run_and_its_qrels_dropped_together(qtbot, window, tmp_path):
    """``qid pid rank`` lines with no header (MS MARCO's run format) and a TREC qrels named
    .tsv: the run read as a run (not a table with the header '1048585'), the qrels kept apart,
    Ranking answers with the rank order."""
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    run = tmp_path / "run.dev.small.tsv"
    run.write_text("1048585\t7187158\t1\n1048585\t7187157\t2\n2\t100\t1\n2\t101\t2\n")
    qrels = tmp_path / "qrels.dev.small.tsv"
    qrels.write_text("1048585\t0\t7187158\t1\n2\t0\t101\t1\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in (run, qrels)])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.dropEvent(event)
    landed, panel = _landed(qtbot, window)
    assert landed == "ranking"
    _no_error(window, panel)
    assert panel.control("qrels").path() == str(qrels)
    assert "order:rank-asc" in panel.last_result.signature
    assert panel.last_result.value("mrr") == pytest.approx((1 + 1 / 2) / 2)
    # the Rank field says which column orders the run (it showed "(none)")
    assert panel.value("rank") == "rank"
    assert panel.control("rank").currentText().startswith("rank"), panel.control("rank").currentText()


def test_a_csv_run_and_its_csv_qrels_opened_together(qtbot, window, monkeypatch, tmp_path):
    """File > Open with a run table and a qrels table of other column names: Ranking with the
    qrels file set (before: "cannot be stacked"), the numbers of the command line's."""
    from workbench.analyses import ranking as ra
    from workbench.io import load_table

    run, qrels = tmp_path / "run.csv", tmp_path / "judgments.csv"
    run.write_text("qid,docno,sim\n1,d1,0.9\n1,d2,0.5\n2,d3,0.7\n2,d1,0.6\n")
    qrels.write_text("query_id,doc_id,relevance\n1,d2,1\n2,d3,2\n2,d9,1\n")
    _open(qtbot, window, monkeypatch, [run, qrels])
    landed, panel = _landed(qtbot, window)
    assert landed == "ranking"
    _no_error(window, panel)
    assert panel.control("qrels").path() == str(qrels)
    expected = ra.run(load_table(str(run)), ra.Options(qrels=str(qrels), ks=(1, 3, 5, 10)))
    for metric in ("map", "ndcg@10", "mrr"):
        assert panel.last_result.value(metric) == pytest.approx(expected.value(metric)), metric
    assert panel.last_result.value("map") == pytest.approx((1 / 2 + 1 / 2) / 2)


def test_a_run_with_a_score_and_a_rank_is_ordered_by_its_score(qtbot, window, monkeypatch,
                                                              tmp_path):
    """A TREC-like table with both columns: Rank is not filled automatically (the score orders
    the run, as trec_eval does), and the signature says so."""
    path = tmp_path / "run.csv"
    path.write_text("query,doc,rank,score,relevance\nq1,d1,1,0.2,1\nq1,d2,2,0.9,0\n")
    _open(qtbot, window, monkeypatch, [path])
    landed, panel = _landed(qtbot, window)
    assert landed == "ranking"
    _no_error(window, panel)
    assert panel.value("rank") is None
    assert panel.value("score") == "score"
    assert "order:score-desc" in panel.last_result.signature
    assert panel.last_result.value("mrr") == pytest.approx(1 / 2)


# -- item 9: while a ranking computes, the panel does not say it lacks its columns ---------------

def test_a_computing_ranking_shows_nothing_of_the_previous_file(qtbot, window, monkeypatch):
    _open(qtbot, window, monkeypatch, [EXAMPLES / "claims.csv"])
    _landed(qtbot, window)
    ranking = window.panels["ranking"]
    assert "needs a column" in ranking.message.text()  # true of claims.csv
    said = []
    ranking.runner.started.connect(lambda: said.append(ranking.message.text()))
    _open(qtbot, window, monkeypatch, [EXAMPLES / "ranking_seed.csv"])
    landed, panel = _landed(qtbot, window)
    assert landed == "ranking" and said
    assert all("needs a column" not in text for text in said), said
    _no_error(window, panel)


# -- item 16 and Open recent: several files are named as several --------------------------------

def test_several_files_name_the_title_report_and_recent_entry(qtbot, window, monkeypatch, tmp_path):
    import openpyxl

    trec = os.path.join(FIXTURES, "trec")
    paths = [os.path.join(trec, n) for n in ("runA.run", "runB.run", "qrels.test.txt")]
    _open(qtbot, window, monkeypatch, paths)
    landed, panel = _landed(qtbot, window)
    assert landed == "ranking"
    assert "runA.run + runB.run" in window.windowTitle(), window.windowTitle()
    out = tmp_path / "several.xlsx"
    proposed = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda _p, _c, name, _f: proposed.append(name) or (str(out), "")))
    with qtbot.waitSignal(window.report_written, timeout=60000):
        window.export_action.trigger()
    assert os.path.basename(proposed[0]) == "runA+runB-report.xlsx", proposed
    assert os.path.dirname(proposed[0]) == trec
    wb = openpyxl.load_workbook(out)
    title = str(wb["Summary"]["A1"].value)
    assert "runA.run" in title and "runB.run" in title, title
    for ws in wb.worksheets:
        assert (ws.page_setup.scale or 100) >= 70, (ws.title, ws.page_setup.scale)
    # the two runs are an entry of File > Open recent, which opens both again
    entries = [a for a in window.recent_menu.actions() if "runA.run + runB.run" in a.text()]
    assert len(entries) == 1, [a.text() for a in window.recent_menu.actions()]
    window.dirty = False
    with qtbot.waitSignal(window.table_loaded, timeout=60000) as blocker:
        entries[0].trigger()
    assert set(blocker.args[0].frame["system"].astype(str)) == {"runA", "runB"}
    landed, panel = _landed(qtbot, window)  # with the qrels opened with them
    assert landed == "ranking" and panel.control("qrels").path().endswith("qrels.test.txt")


# -- item 17: `workbench runA.run runB.run qrels` on the command line -----------------------------

def test_the_program_started_with_several_files_opens_them_together(tmp_path):
    import subprocess
    import sys

    trec = os.path.join(FIXTURES, "trec")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), WORKBENCH_SMOKE="workspace",
               XDG_CONFIG_HOME=str(tmp_path))
    args = [os.path.join(trec, n) for n in ("runA.run", "runB.run", "qrels.test.txt")]
    out = subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True,
                         env=env, timeout=180, cwd=os.path.abspath(os.path.join(FIXTURES, "..", "..", "..")))
    assert out.returncode == 0, out.stderr
    assert "panel: ranking" in out.stdout, (out.stdout, out.stderr)
    assert "flag" not in out.stderr and "compare" not in out.stderr


def test_a_missing_second_file_is_named_as_a_file_not_a_flag(tmp_path):
    from workbench.launcher import _gui_argument_problem

    run = os.path.join(FIXTURES, "trec", "runA.run")
    problem = _gui_argument_problem([run, str(tmp_path / "runB.txt")])
    assert "runB.txt" in problem and "does not exist" in problem and "flag" not in problem
    assert _gui_argument_problem([run, os.path.join(FIXTURES, "trec", "runB.run")]) is None


# -- item 5: the first window fits the screen, status bar included ------------------------------

@pytest.mark.parametrize("size", [(1280, 800 - 30), (1920, 1080 - 30), (2560, 1440 - 30)])
def test_the_first_window_fits_its_screen(size):
    from workbench.ui.presentation import WINDOW_FRAME_PX, first_window_size, maximize_first_window

    width, height = first_window_size(*size)
    assert width <= size[0] and height + WINDOW_FRAME_PX <= size[1]
    assert maximize_first_window(*size) == (size[0] <= 1920)


def test_a_fresh_window_is_maximized_on_this_screen_and_its_normal_size_fits(qtbot, tmp_path):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.ui.app import create_app
    from workbench.ui.main_window import MainWindow

    create_app()
    win = MainWindow(QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    area = QApplication.primaryScreen().availableGeometry()
    assert win.width() <= area.width() and win.height() <= area.height()
    if area.width() <= 1920:
        assert win.windowState() & Qt_maximized()
    # the start page is not squeezed by empty docks, even after a session that showed them
    win.roles_dock.setVisible(True)
    win.settings.setValue("window/state", win.saveState())
    win.shutdown()
    again = MainWindow(QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    assert not again.roles_dock.isVisibleTo(again) and not again.problems_dock.isVisibleTo(again)
    again.shutdown()


def Qt_maximized():  # noqa: N802
    from PySide6.QtCore import Qt

    return Qt.WindowState.WindowMaximized


# -- item 10: presentation mode keeps its room and gives the maximized window back ---------------

def test_f11_then_open_keeps_docks_away_and_leaving_restores_maximized(qtbot, window, monkeypatch):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window.showMaximized()
    assert window.windowState() & Qt.WindowState.WindowMaximized
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_F11)
    assert window.presentation
    _open(qtbot, window, monkeypatch, [EXAMPLES / "paired_14_to_5.csv"])
    _landed(qtbot, window)
    assert not window.roles_dock.isVisibleTo(window) and not window.problems_dock.isVisibleTo(window)
    QTest.keyClick(window, Qt.Key.Key_F11)
    assert not window.presentation
    assert window.windowState() & Qt.WindowState.WindowMaximized
    assert not window.windowState() & Qt.WindowState.WindowFullScreen
    assert window.roles_dock.isVisibleTo(window) and window.problems_dock.isVisibleTo(window)


# -- polish: no empty Notes box; the Data view shows the file's text -----------------------------

def test_no_empty_notes_box_and_the_data_view_shows_the_files_text(qtbot, window, monkeypatch, tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("item_id,baseline,candidate,cost\na,1,0,7.50\nb,0,1,0.123456789\nc,1,1,1e3\n",
                    encoding="utf-8")
    _open(qtbot, window, monkeypatch, [path])
    landed, panel = _landed(qtbot, window)
    for p in window.panels.values():
        if p.last_result is not None:
            assert p.notes_scroll.isVisibleTo(p) == bool(p.last_result.notes), type(p).__name__
        else:
            assert not p.notes_scroll.isVisibleTo(p), type(p).__name__
    window.view_actions["data"].trigger()
    model = window.data.model
    col = [str(model.headerData(c, Qt_horizontal())) for c in range(model.columnCount())].index("cost")
    assert [model.data(model.index(r, col)) for r in range(3)] == ["7.50", "0.123456789", "1e3"]


def Qt_horizontal():  # noqa: N802
    from PySide6.QtCore import Qt

    return Qt.Orientation.Horizontal


# -- polish: the rule's New on data it cannot check says so; errors name the file, not its path --

def test_new_rule_on_a_one_system_text_file_says_what_it_lacks(qtbot, window, monkeypatch):
    _open(qtbot, window, monkeypatch, [EXAMPLES / "text_extraction.csv"])
    _landed(qtbot, window)
    window.view_actions["rule"].trigger()
    rule = window.rule_panel
    rule.new_button.click()
    assert rule.rule_text().startswith("# text_extraction.csv has no outcome")
    with qtbot.waitSignal(rule.runner.failed, timeout=30000):
        rule.evaluate_button.click()
    text = rule.message.text()
    assert "text_extraction.csv" in text and str(EXAMPLES) not in text, text
