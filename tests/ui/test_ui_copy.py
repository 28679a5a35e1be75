"""Copy what you see: Ctrl+C on a results table (an HTML table with the numbers as shown, and
tab-separated text at full precision); Copy answer (the sentence with its signature); Copy as
Markdown; the card and a chart as an image (PNG at 2x) and saved as PNG or SVG.  Driven through
the Edit menu's actions, the card's Copy menu and keys, with the file dialog patched."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from tests.conftest import open_example, wait_result

pytestmark = pytest.mark.gui


def _clipboard():
    return QGuiApplication.clipboard().mimeData()


def test_ctrl_c_on_the_headline_table_gives_an_html_table_and_full_precision_text(qtbot, window):
    panel = open_example(qtbot, window, "multilingual.csv")
    result = wait_result(qtbot, panel)
    view = panel.headline
    view.clearSelection()
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    data = _clipboard()
    assert data.hasHtml() and data.hasText()
    page = data.html()
    assert "<table" in page and "<th" in page and "<td" in page
    shown = [view.model().data(view.model().index(r, c)) for r in range(view.model().rowCount())
             for c in range(view.model().columnCount()) if not view.isColumnHidden(c)]
    for text in shown:  # every cell as it is on screen
        assert f">{text}<" in page.replace("&amp;", "&").replace("&gt;", ">").replace("&lt;", "<"), text
    macro = result.value("macro")
    assert repr(float(macro)) in data.text().split("\n")[2] or repr(float(macro)) in data.text()
    floats = [float(x) for x in re.findall(r"\t(-?\d+\.\d+)", data.text())]
    values = {float(r["value"]) for r in result.records if isinstance(r.get("value"), float)}
    assert values and values <= set(floats)  # full precision: the very floats of the result
    assert any(len(x.split(".")[1]) > 4 for x in re.findall(r"\d+\.\d+", data.text()))  # not rounded
    assert "%" in page and "%" not in data.text()  # the HTML as shown, the text as numbers


def test_ctrl_c_on_a_selection_of_a_result_table(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    result = wait_result(qtbot, panel)
    name = next(t.name for t in result.tables if not t.name.startswith("conv"))
    view = panel.result_table(name)
    panel.tabs.setCurrentWidget(view)
    view.selectRow(0)
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    data = _clipboard()
    assert data.html().count("<tr>") == 2  # the header and the one selected row
    assert len(data.text().strip().split("\n")) == 2


def test_copy_answer_and_markdown_from_the_edit_menu_and_the_card(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    result = wait_result(qtbot, panel)
    window.copy_answer_action.trigger()
    text = QGuiApplication.clipboard().text()
    assert text == f"{panel.card.plain_text()}\nSignature: {result.signature}"
    assert panel.card.sentences[0] in text
    QGuiApplication.clipboard().clear()
    panel.card.copy_answer_action.trigger()  # the card's own Copy menu
    assert QGuiApplication.clipboard().text() == text
    window.copy_markdown_action.trigger()
    md = QGuiApplication.clipboard().text()
    assert md.startswith(f"### {panel.module.TITLE}") and f"Signature: `{result.signature}`" in md
    assert "| --- |" in md or "| ---" in md
    header = next(line for line in md.splitlines() if line.startswith("| Measure"))
    assert "Value" in header and " n " in header
    assert panel.card.copy_button.isVisible() and panel.card.copy_button.accessibleName()


def test_the_card_as_an_image_at_2x_and_saved_as_png_and_svg(qtbot, window, monkeypatch, tmp_path):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    window.copy_card_image_action.trigger()
    image = QGuiApplication.clipboard().image()
    assert not image.isNull()
    assert image.width() == 2 * panel.card.width() and image.height() == 2 * panel.card.height()
    assert QGuiApplication.clipboard().text().startswith(panel.card.plain_text())
    colours = {image.pixel(x, y) for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)}
    assert len(colours) > 10  # drawn: text and badge, not an empty box
    for ext in ("png", "svg"):
        target = tmp_path / f"card.{ext}"
        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, t=target, **k: (str(t), "")))
        window.save_card_image_action.trigger()
        assert target.exists()
    png = QImage(str(tmp_path / "card.png"))
    assert png.width() == 2 * panel.card.width()
    root = ET.fromstring((tmp_path / "card.svg").read_bytes())
    assert root.tag.endswith("svg")


def test_a_chart_copied_and_saved_with_its_text_alternative(qtbot, window, monkeypatch, tmp_path):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    chart = next(c for c in panel.charts if panel.tabs.isTabVisible(panel.tabs.indexOf(c)))
    panel.tabs.setCurrentWidget(chart)
    window.copy_chart_action.trigger()
    clip = QGuiApplication.clipboard()
    assert clip.image().width() == 2 * chart.width()
    assert clip.text() == chart.text_alternative() and chart.title in clip.text()
    assert chart.accessibleDescription() == chart.text_alternative()
    for ext in ("png", "svg"):
        target = tmp_path / f"chart.{ext}"
        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, t=target, **k: (str(t), "")))
        window.save_chart_action.trigger()
        assert target.exists() and target.stat().st_size > 500
    assert ET.fromstring((tmp_path / "chart.svg").read_bytes()).tag.endswith("svg")
    assert QImage(str(tmp_path / "chart.png")).width() == 2 * chart.width()


def test_nothing_on_screen_to_copy_is_said(qtbot, window):
    window.show_panel(None)
    window.copy_answer_action.trigger()
    window.copy_chart_action.trigger()
    assert "No chart" in window.statusBar().currentMessage()
