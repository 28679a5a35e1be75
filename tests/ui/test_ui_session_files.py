"""Sessions of several stacked files keep every file's path and SHA-256 and reopen them; a file
that changed since the session was saved is said; a TREC run opened alone asks for its
judgments (without blocking) and, once given them, lands on Ranking.  Driven through the File
menu's actions with the file dialogs patched."""

from __future__ import annotations

import hashlib
import json
import os

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from tests.conftest import wait_result

pytestmark = pytest.mark.gui

TREC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats", "trec"))


def _sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def _two_files(tmp_path):
    paths = []
    for name, outcomes in (("monday.csv", [1, 0, 1, 1]), ("tuesday.csv", [1, 1, 1, 0])):
        path = tmp_path / name
        pd.DataFrame({"item_id": [f"q{i}" for i in range(4)], "correct": outcomes}).to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _open_files(qtbot, window, monkeypatch, paths):
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: (list(paths), "")))
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.open_action.trigger()


def _save_as(qtbot, window, monkeypatch, path):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), "")))
    window.save_as_action.trigger()
    assert os.path.exists(path)


def _open_session(qtbot, window, monkeypatch, path):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.open_session_action.trigger()


def test_a_session_of_stacked_files_stores_each_file_and_reopens_them(qtbot, window, monkeypatch, tmp_path):
    paths = _two_files(tmp_path)
    _open_files(qtbot, window, monkeypatch, paths)
    session_file = tmp_path / "week.wbsession.json"
    _save_as(qtbot, window, monkeypatch, session_file)
    saved = json.loads(session_file.read_text())
    assert saved["input_files"] == [{"path": p, "sha256": _sha(p)} for p in paths]

    window.dirty = False
    _open_files(qtbot, window, monkeypatch, [str(tmp_path / "monday.csv")])  # something else
    _open_session(qtbot, window, monkeypatch, session_file)
    assert window.table.path == " + ".join(paths)
    assert len(window.table.frame) == 8 and not window.warnings, window.warnings


def test_a_stacked_file_that_changed_since_the_session_was_saved_is_named(qtbot, window, monkeypatch, tmp_path):
    paths = _two_files(tmp_path)
    _open_files(qtbot, window, monkeypatch, paths)
    session_file = tmp_path / "week.wbsession.json"
    _save_as(qtbot, window, monkeypatch, session_file)
    before = _sha(paths[1])
    with open(paths[1], "a", encoding="utf-8") as fh:
        fh.write("q9,1\n")
    window.dirty = False
    _open_session(qtbot, window, monkeypatch, session_file)
    assert len(window.warnings) == 1, window.warnings
    title, text = window.warnings[0]
    assert "changed since the session was saved" in title
    assert paths[1] in text and paths[0] not in text and before[:12] in text and _sha(paths[1])[:12] in text


def test_one_file_that_changed_since_the_session_was_saved_is_named(qtbot, window, monkeypatch, tmp_path):
    path = _two_files(tmp_path)[0]
    _open_files(qtbot, window, monkeypatch, [path])
    session_file = tmp_path / "one.wbsession.json"
    _save_as(qtbot, window, monkeypatch, session_file)
    assert json.loads(session_file.read_text())["input_sha256"] == _sha(path)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("q9,0\n")
    window.dirty = False
    _open_session(qtbot, window, monkeypatch, session_file)
    assert len(window.warnings) == 1 and path in window.warnings[0][1], window.warnings


def test_a_trec_run_alone_asks_for_its_qrels_then_lands_on_ranking(qtbot, window, monkeypatch):
    run = os.path.join(TREC, "runA.run")
    _open_files(qtbot, window, monkeypatch, [run])
    prompt = window.qrels_prompt
    assert prompt.isVisible() and "runA.run" in prompt.text.text() and "qrels" in prompt.button.text()
    qrels = os.path.join(TREC, "qrels.test.txt")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (qrels, "")))
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        qtbot.mouseClick(prompt.button, Qt.MouseButton.LeftButton)
    assert not prompt.isVisible()
    ranking = window.panels["ranking"]
    result = wait_result(qtbot, ranking)
    assert window.current_panel_name() == "ranking"
    assert ranking.control("qrels").path() == qrels
    assert any(r["metric"].startswith("ndcg") for r in result.records)
    assert not window.warnings and not window.exceptions


def test_a_run_opened_with_its_qrels_is_not_asked_for_them(qtbot, window, monkeypatch):
    _open_files(qtbot, window, monkeypatch, [os.path.join(TREC, "runA.run"), os.path.join(TREC, "qrels.test.txt")])
    assert not window.qrels_prompt.isVisible()
