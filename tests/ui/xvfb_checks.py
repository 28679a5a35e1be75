"""Checks that need a real X display (run by test_ui_xvfb.py under Xvfb, in a child process, as
``python tests/ui/xvfb_checks.py CHECK``); each prints one JSON line.

* ``cards``: every example's answer card (and the release decision of an example session) is
  whole at the window's size: its text as tall as it needs, inside the window, inside the
  screen, overlapping nothing beside it; the window fits the screen.
* ``ctrl_e``: under X11's key bindings a line edit takes Ctrl+E (end of line); pressed in the
  Ranking panel's k field it still exports the report.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _window():
    from PySide6.QtCore import QSettings

    from workbench.ui.app import create_app
    from workbench.ui.main_window import MainWindow

    app = create_app()
    window = MainWindow(QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat))
    window.ask_unsaved = lambda: "discard"  # no modal box: it would wait for a click forever
    window.warn = lambda title, text: print(f"warning: {title}: {text}", file=sys.stderr)
    window.showMaximized()
    screen = app.primaryScreen().availableGeometry()
    if window.width() < screen.width() - 40:  # no window manager to maximize it
        window.setGeometry(screen)
    return app, window


def _settle(app, window, seconds: float = 90) -> None:
    end = time.time() + seconds
    while time.time() < end:
        app.processEvents()
        time.sleep(0.02)
        if not window.loader.busy and not any(p.runner.busy or p._debounce.isActive()
                                              for p in window.panels.values()) \
                and not window.rule_panel.runner.busy:
            break
    for _ in range(30):
        app.processEvents()
        time.sleep(0.01)


def cards() -> dict:
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QWidget

    from workbench.ui.examples import EXAMPLE_SESSIONS, EXAMPLES

    app, window = _window()
    _settle(app, window, 3)
    screen = app.primaryScreen().availableGeometry()
    out = {"screen": [screen.width(), screen.height()], "ratio": app.primaryScreen().devicePixelRatio(),
           "cards": [], "clipped": []}
    wanted = [e for e in EXAMPLE_SESSIONS if e.panel == "rule"][:1] + \
        [e for e in EXAMPLES if e.file in ("paired_14_to_5.csv", "repeats_epochs.csv", "multilingual.csv",
                                           "runs_nightly.csv", "judge_labels.csv")]
    for example in wanted:
        window.open_example(example)
        _settle(app, window)
        window.show_panel(example.panel)
        _settle(app, window, 5)
        panel = window.rule_panel if example.panel == "rule" else window.panels[example.panel]
        card = panel.answer if example.panel == "rule" else panel.card
        top = card.mapTo(window, QPoint(0, 0))
        need = card.text.heightForWidth(card.text.width())
        siblings = [w for w in card.parentWidget().children() if isinstance(w, QWidget) and w is not card
                    and w.isVisible() and not w.isWindow() and w.geometry().intersects(card.geometry())]
        whole = (card.isVisible() and bool(card.sentences) and card.text.height() >= need
                 and window.rect().contains(QRect(top, card.size()))
                 and screen.contains(QRect(window.mapToGlobal(top), card.size())) and not siblings)
        out["cards"].append({"panel": example.panel, "file": example.file, "size": [card.width(), card.height()],
                             "text_height": card.text.height(), "needed": need,
                             "overlaps": [type(w).__name__ for w in siblings]})
        if not whole:
            out["clipped"].append(example.file)
    out["window"] = [window.width(), window.height()]
    out["window_fits"] = window.width() <= screen.width() and window.height() <= screen.height() + 2
    window.dirty = False
    window.shutdown()
    return out


def ctrl_e() -> dict:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QKeySequence
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app, window = _window()
    hits = []
    window.export_action.triggered.disconnect()
    window.export_action.triggered.connect(lambda *_: hits.append(1))
    window.view_actions["ranking"].trigger()
    _settle(app, window, 2)
    field = window.panels["ranking"].control("ks")
    window.activateWindow()
    field.setFocus()
    _settle(app, window, 1)
    field.setCursorPosition(0)
    QTest.keyClick(field, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    bindings = [k.toString() for k in QKeySequence.keyBindings(QKeySequence.StandardKey.MoveToEndOfLine)]
    result = {"exported": len(hits), "cursor": field.cursorPosition(), "end_of_line_keys": bindings,
              "focus": type(QApplication.focusWidget()).__name__}
    window.dirty = False
    window.shutdown()
    return result


if __name__ == "__main__":
    print(json.dumps({"cards": cards, "ctrl_e": ctrl_e}[sys.argv[1]]()), flush=True)
