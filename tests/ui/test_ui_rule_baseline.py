"""The Release rule panel's baseline strip: the blessed baseline of the rule's folder is shown,
and "Bless this run as baseline…" (a QAction, its button) stores the open run off the GUI
thread, with the name asked in a dialog (patched here)."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from conftest import open_file

pytestmark = pytest.mark.gui

RULE = """[rule]
name = "nightly"
baseline = "v1"
candidate = "v2"
[data]
item = "item_id"
outcome = "success"
[[condition]]
metric = "success"
max_drop = 0.05
"""


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    rule = proj / "release.toml"
    rule.write_text(RULE, encoding="utf-8")
    run = tmp_path / "run-2026-12-01.csv"
    pd.DataFrame({"item_id": [f"q{i}" for i in range(120)],
                  "success": [int(i % 3 != 0) for i in range(120)]}).to_csv(run, index=False)
    return proj, rule, run


def _open_rule(qtbot, panel, rule, monkeypatch):
    from workbench.ui.panels import rule as rule_module

    monkeypatch.setattr(rule_module.QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(rule), "")))
    button = next(b for b in panel.findChildren(QPushButton) if b.text() == "Open…")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert panel.rule_path == str(rule)


def _answer(monkeypatch, name, ok=True):
    from workbench.ui.panels import rule_baseline

    asked = []

    def get_text(parent, title, label, *args, **kwargs):
        asked.append((title, label, kwargs.get("text")))
        return name, ok

    monkeypatch.setattr(rule_baseline.QInputDialog, "getText", staticmethod(get_text))
    return asked


def test_bless_from_the_panel_stores_the_run_next_to_the_rule(qtbot, window, project, monkeypatch):
    proj, rule, run = project
    window.show_panel("rule")
    panel = window.rule_panel
    strip = panel.baseline_strip
    _open_rule(qtbot, panel, rule, monkeypatch)
    assert "No baseline" in strip.label.text()
    assert not strip.bless_action.isEnabled()  # no run open yet
    open_file(qtbot, window, run)
    assert strip.bless_action.isEnabled()
    asked = _answer(monkeypatch, "nightly")
    with qtbot.waitSignal(strip.blessed, timeout=30000) as blocker:
        strip.bless_action.trigger()
    assert asked and asked[0][2] == "run-2026-12-01"  # the run's name is offered
    stored = proj / ".workbench" / "baselines" / "nightly"
    sha = hashlib.sha256(run.read_bytes()).hexdigest()
    assert (stored / run.name).read_bytes() == run.read_bytes()
    assert json.loads((stored / "baseline.json").read_text(encoding="utf-8"))["sha256"] == sha
    assert blocker.args[0].name == "nightly"
    text = strip.label.text()
    assert "nightly" in text and sha[:12] in text and "120 items" in text
    assert "Blessed" in panel.message.text()


def test_bless_button_refuses_an_existing_name_in_a_sentence(qtbot, window, project, monkeypatch):
    proj, rule, run = project
    window.show_panel("rule")
    panel = window.rule_panel
    strip = panel.baseline_strip
    _open_rule(qtbot, panel, rule, monkeypatch)
    open_file(qtbot, window, run)
    _answer(monkeypatch, "v1")
    with qtbot.waitSignal(strip.blessed, timeout=30000):
        qtbot.mouseClick(strip.button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(strip.button, Qt.MouseButton.LeftButton)  # the same name again
    assert "already exists" in panel.message.text() and "another name" in panel.message.text()
    assert not strip.runner.busy
    assert strip.bless_action.isEnabled()
    # a cancelled dialog does nothing
    _answer(monkeypatch, "", ok=False)
    qtbot.mouseClick(strip.button, Qt.MouseButton.LeftButton)
    assert [p.name for p in (proj / ".workbench" / "baselines").iterdir()] == ["v1"]


def test_a_failed_bless_is_a_sentence_and_leaves_no_folder(qtbot, window, project, monkeypatch):
    proj, rule, run = project
    window.show_panel("rule")
    panel = window.rule_panel
    strip = panel.baseline_strip
    _open_rule(qtbot, panel, rule, monkeypatch)
    open_file(qtbot, window, run)
    run.unlink()  # the file went away after it was opened
    _answer(monkeypatch, "gone")
    with qtbot.waitSignal(strip.runner.failed, timeout=30000):
        strip.bless_action.trigger()
    assert "does not exist" in panel.message.text()
    assert not (proj / ".workbench" / "baselines" / "gone").exists()
    assert strip.bless_action.isEnabled()
