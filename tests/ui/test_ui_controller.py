"""The session controller without a window: opening (one file, several, a session), roles and
the columns' check, recent files, saving the session and writing the report.  No widget is made:
each test asserts that no top-level widget exists when it ends."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QWidget

from workbench.core.errors import WorkbenchError
from workbench.resources_path import examples_dir
from workbench.ui.controller import MAX_RECENT, Loaded, SessionController

pytestmark = pytest.mark.gui

EXAMPLES = examples_dir()


@pytest.fixture
def controller(qtbot, tmp_path):
    from workbench.ui.app import create_app

    create_app()
    before = _live_widgets()
    c = SessionController(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    yield c
    c.shutdown()
    assert not c.findChildren(QWidget)
    assert _live_widgets() <= before, "the controller made a widget"


def _live_widgets() -> set[int]:
    """The top-level widgets still alive (other tests' deleted ones are left out)."""
    import shiboken6

    return {shiboken6.getCppPointer(w)[0] for w in QApplication.topLevelWidgets() if shiboken6.isValid(w)}


def _open(qtbot, controller, *paths) -> Loaded:
    with qtbot.waitSignal(controller.loaded, timeout=30000) as blocker:
        if len(paths) == 1:
            controller.open_path(str(paths[0]))
        else:
            controller.open_paths([str(p) for p in paths])
    return blocker.args[0]


def test_a_file_lands_with_its_guessed_roles_and_becomes_the_first_recent_entry(qtbot, controller):
    path = EXAMPLES / "multilingual.csv"
    loaded = _open(qtbot, controller, path)
    frame = pd.read_csv(path)
    assert len(loaded.table.frame) == len(frame) and loaded.table.path == str(path)
    assert loaded.roles.get("correct") == "success" and loaded.roles.get("language") == "group"
    assert loaded.problems is not None and loaded.session is None and loaded.qrels is None
    assert controller.table is loaded.table and controller.roles == loaded.roles
    assert controller.session.input_path == str(path)
    assert len(controller.session.input_sha256) == 64
    assert controller.recent_files()[0] == str(path)
    assert controller.title() == "Untitled session — multilingual.csv"
    controller.mark_dirty()
    assert controller.title() == "Untitled session — multilingual.csv *"


def test_a_file_that_cannot_be_read_is_reported_with_its_name(qtbot, controller, tmp_path):
    bad = tmp_path / "broken.xlsx"
    bad.write_bytes(b"this is not a workbook")
    with qtbot.waitSignal(controller.load_failed, timeout=30000) as blocker:
        controller.open_path(str(bad))
    error = blocker.args[0]
    assert isinstance(error, WorkbenchError) and "broken.xlsx" in str(error)
    assert controller.table is None and controller.recent_files() == []


def test_trec_runs_opened_with_their_qrels_are_stacked_and_the_qrels_kept_apart(qtbot, controller, tmp_path):
    qrels = tmp_path / "judged.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    runs = []
    for name in ("bm25", "dense"):
        run = tmp_path / f"{name}.run"
        run.write_text(f"q1 Q0 d1 1 2.0 {name}\nq1 Q0 d2 2 1.0 {name}\nq2 Q0 d3 1 3.0 {name}\n")
        runs.append(run)
    loaded = _open(qtbot, controller, *runs, qrels)
    assert loaded.qrels == str(qrels)
    assert len(loaded.table.frame) == 6  # both runs, not the judgments
    assert controller.recent_files()[0].endswith(f" + {qrels}")


def test_changing_a_role_checks_the_columns_again_on_a_worker(qtbot, controller, tmp_path):
    path = tmp_path / "neg.csv"
    pd.DataFrame({"system": ["A"] * 4, "success": [1, 0, 1, 1],
                  "cost": [0.1, -0.2, 0.1, -0.5]}).to_csv(path, index=False)
    loaded = _open(qtbot, controller, path)
    assert any("negative" in p.message for p in loaded.problems)
    with qtbot.waitSignal(controller.problems_found, timeout=30000) as blocker:
        controller.set_roles({"system": "system", "success": "success"})  # cost no longer a cost
    assert not any("negative" in p.message for p in blocker.args[0])
    assert controller.session.roles == {"system": "system", "success": "success"}


def test_a_saved_session_reopens_its_file_with_its_roles(qtbot, controller, tmp_path):
    path = EXAMPLES / "multilingual.csv"
    loaded = _open(qtbot, controller, path)
    roles = dict(loaded.roles, item_id="ignore")
    roles.pop("item_id")
    controller.set_roles(roles)
    session_file = tmp_path / "s.wbsession.json"
    with qtbot.waitSignal(controller.state_changed, timeout=5000):
        controller.write_session(controller.session, str(session_file))
    saved = json.loads(session_file.read_text())
    assert saved["input_path"] == str(path) and not controller.dirty
    assert controller.session_path == str(session_file)

    again = SessionController(QSettings(str(tmp_path / "other.ini"), QSettings.Format.IniFormat))
    try:
        with qtbot.waitSignal(again.loaded, timeout=30000) as blocker:
            session = again.open_session(str(session_file))
        reopened = blocker.args[0]
        assert reopened.session is session and reopened.roles == roles
        assert again.session_path == str(session_file)
    finally:
        again.shutdown()


def test_a_bad_session_file_raises_one_sentence(controller, tmp_path):
    bad = tmp_path / "bad.wbsession.json"
    bad.write_text("{not json")
    with pytest.raises(WorkbenchError, match="bad.wbsession.json"):
        controller.open_session(str(bad))


def test_recent_files_keep_the_last_eight_that_still_exist(qtbot, controller, tmp_path):
    paths = []
    for i in range(MAX_RECENT + 2):
        p = tmp_path / f"f{i}.csv"
        p.write_text("x\n1\n")
        paths.append(str(p))
        controller.add_recent(str(p))
    assert controller.recent_files() == paths[::-1][:MAX_RECENT]
    os.remove(paths[-1])
    with qtbot.waitSignal(controller.recent_changed, timeout=5000) as blocker:
        controller.refresh_recent()
    assert blocker.args[0] == paths[::-1][1:MAX_RECENT]


def test_the_report_is_written_on_a_worker(qtbot, controller, tmp_path):
    from openpyxl import load_workbook

    from workbench.analyses import aggregate

    loaded = _open(qtbot, controller, EXAMPLES / "multilingual.csv")
    result = aggregate.run(loaded.table, aggregate.Options(outcome="correct", group="language"))
    out = tmp_path / "report.xlsx"
    with qtbot.waitSignal(controller.report_written, timeout=60000) as blocker:
        controller.export_report(str(out), [result])
    assert blocker.args[0] == str(out)
    assert "aggregate" in " ".join(load_workbook(out).sheetnames).lower()


def test_a_report_that_cannot_be_written_says_why(qtbot, controller, tmp_path):
    from workbench.analyses import aggregate

    loaded = _open(qtbot, controller, EXAMPLES / "multilingual.csv")
    result = aggregate.run(loaded.table, aggregate.Options(outcome="correct", group="language"))
    out = tmp_path / "no such folder" / "report.xlsx"
    with qtbot.waitSignal(controller.report_failed, timeout=60000) as blocker:
        controller.export_report(str(out), [result])
    assert not out.exists()
    assert "no such folder" in str(blocker.args[0]) or isinstance(blocker.args[0], OSError)
