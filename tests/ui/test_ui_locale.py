"""Numbers in the analyst's locale, by choice: Edit > Settings (or ``--locale de_DE``) shows
"0,692" on the cards, in the tables and in the spin boxes, while the exported workbook holds
numbers as numbers and a copied table's text keeps a decimal point at full precision."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog

from tests.conftest import ROOT, open_example, wait_result

pytestmark = pytest.mark.gui


def _swap(text: str) -> str:
    """English separators of the numbers in ``text`` turned German ("1,049.5" -> "1.049,5")."""
    return re.sub(r"\d[\d.,]*\d", lambda m: m.group(0).replace(",", "\0").replace(".", ",").replace("\0", "."), text)


def _choose_locale(window, name: str) -> None:
    """Edit > Settings, the locale chosen in its list and OK."""
    def answer(dialog):
        box = dialog.locale_box
        box.setCurrentIndex(box.findData(name))
        assert dialog.preview.text().startswith("0,692" if name == "de_DE" else "0.692")
        return True

    window.run_dialog = answer
    window.settings_action.trigger()


def test_settings_switch_the_card_and_tables_to_german_and_back(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    english = panel.card.plain_text()
    cell = panel.headline.model().index(0, 1)
    english_cell = panel.headline.model().data(cell)
    assert re.search(r"\d\.\d{3}", english) and not re.search(r"\d,\d{3}\b(?!,)", english.replace(",", ";"))
    _choose_locale(window, "de_DE")
    german = panel.card.plain_text()
    assert german == _swap(english) and german != english
    assert re.search(r"\b0,\d{3}\b", german)
    assert panel.headline.model().data(cell) == _swap(english_cell)
    assert window.settings.value("display/locale") == "de_DE"
    threshold = panel.control("relevance_threshold")
    assert "," in threshold.text() and "." not in threshold.text()
    _choose_locale(window, "en_US")
    assert panel.card.plain_text() == english


def test_german_card_while_the_workbook_holds_numbers(qtbot, window, monkeypatch, tmp_path):
    import openpyxl

    panel = open_example(qtbot, window, "ranking_graded.csv")
    result = wait_result(qtbot, panel)
    _choose_locale(window, "de_DE")
    score = next(r for r in result.records if isinstance(r.get("value"), float) and 0 < r["value"] < 1)
    shown = present_score(score)
    assert "," in shown and shown in " ".join(
        str(panel.headline.model().data(panel.headline.model().index(r, 1)))
        for r in range(panel.headline.model().rowCount()))
    path = tmp_path / "de.xlsx"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), "")))
    with qtbot.waitSignal(window.report_written, timeout=120000):
        window.export_action.trigger()
    book = openpyxl.load_workbook(path)
    numbers_found, comma_texts = [], []
    for sheet in book.worksheets:
        for row in sheet.iter_rows(values_only=True):
            for value in row:
                if isinstance(value, float):
                    numbers_found.append(value)
                elif isinstance(value, str) and re.fullmatch(r"[+-]?\d+,\d+%?", value.strip()):
                    comma_texts.append(value)
    assert any(abs(v - score["value"]) < 1e-12 for v in numbers_found)  # the number itself
    assert not comma_texts
    panel.headline.clearSelection()
    panel.headline.copy_all()
    assert repr(float(score["value"])) in QGuiApplication.clipboard().text()  # locale-free text


def present_score(record) -> str:
    from workbench.report import present

    return present.format_value(record["value"], present.kind_of(record["metric"]))


def test_the_locale_given_for_the_run_wins_and_settings_say_so(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from workbench.ui.main_window import MainWindow
    from workbench.ui.settings_dialog import SettingsDialog

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue("display/locale", "en_US")
    win = MainWindow(settings, locale="de_DE")
    qtbot.addWidget(win)
    try:
        from workbench.report import present

        assert present.format_value(0.6924, "score") == "0,692"
        dialog = SettingsDialog("en_US", "de_DE", win)
        assert dialog.choice() == "en_US"
        assert "--locale de_DE" in dialog.findChild(type(dialog.preview), "localeOverride").text()
        assert dialog.findChild(type(dialog.preview), "systemLocale").text().startswith("The system's locale is")
        assert dialog.locale_box.itemData(0) == "" and "system" in dialog.locale_box.itemText(0)
    finally:
        win.shutdown()
    from workbench.report import present

    assert present.format_value(0.6924, "score") == "0.692"  # the window gone: plain again


def test_the_launcher_takes_locale_out_of_the_arguments():
    from workbench.locale_arg import take_locale

    assert take_locale(["--locale", "de_DE", "a.csv"]) == ("de_DE", ["a.csv"], None)
    assert take_locale(["a.csv", "--locale=fr_FR"]) == ("fr_FR", ["a.csv"], None)
    assert take_locale(["a.csv"]) == (None, ["a.csv"], None)
    assert "locale name" in take_locale(["--locale"])[2]


def test_an_unknown_locale_is_one_sentence(tmp_path):
    env = {"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "workbench", "--locale", "xx_QQ"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 2 and "unknown locale 'xx_QQ'" in done.stderr and "Traceback" not in done.stderr
