"""The Cost panel's display currency is part of the session (File > Save session / Open
session through their actions); older session files, which have none, mean the file's units."""

from __future__ import annotations

import json

import pytest

from conftest import EXAMPLES, open_example, wait_result

pytestmark = pytest.mark.gui


def _patch(monkeypatch, save=None, open_=None):
    from PySide6.QtWidgets import QFileDialog

    if save is not None:
        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(save), "")))
    if open_ is not None:
        monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(open_), "")))


def test_currency_is_saved_and_restored_with_the_session(qtbot, window, monkeypatch, tmp_path):
    panel = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, panel)
    edit = panel.control("currency")
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        edit.setText("€")
        edit.editingFinished.emit()
    assert "€0.0146" in panel.card.plain_text()
    path = tmp_path / "costs.wbsession.json"
    _patch(monkeypatch, save=path)
    window.save_action.trigger()
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["currency"] == "€"
    # another file without a currency, then the session again: the currency comes back
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(str(EXAMPLES / "simpson.csv"), confirm=False)
    edit.setText("")
    _patch(monkeypatch, open_=path)
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_session_action.trigger()
    assert edit.text() == "€" and panel.currency() == "€"
    wait_result(qtbot, panel)
    assert "€0.0146" in panel.card.plain_text()


def test_an_older_session_without_currency_shows_the_files_units(qtbot, window, monkeypatch, tmp_path):
    panel = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, panel)
    panel.set_currency("$")
    old = {"input_path": str(EXAMPLES / "cost_latency.csv"), "roles": {},
           "panels": {"cost": {"percentile_method": "linear"}}, "schema": 1}
    path = tmp_path / "old.wbsession.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    window.dirty = False
    _patch(monkeypatch, open_=path)
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_session_action.trigger()
    assert panel.control("currency").text() == "" and panel.currency() is None
    wait_result(qtbot, panel)
    assert "$" not in panel.card.plain_text() and "0.0146" in panel.card.plain_text()


def test_session_file_currency_round_trip_and_type_check(tmp_path):
    from workbench.core.errors import DataError
    from workbench.core.session import Session, load_session, save_session

    path = tmp_path / "s.wbsession.json"
    save_session(Session(currency="CHF"), path)
    assert load_session(path).currency == "CHF"
    path.write_text(json.dumps({"schema": 1, "panels": {}}), encoding="utf-8")
    assert load_session(path).currency is None  # an older file
    path.write_text(json.dumps({"schema": 1, "currency": 5}), encoding="utf-8")
    with pytest.raises(DataError, match="'currency' must be text or null"):
        load_session(path)
