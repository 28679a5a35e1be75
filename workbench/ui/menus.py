"""The window's menus: File (open, examples, recent, sessions, report), Edit (undo, redo,
copy the answer or the chart on screen),
View (start page, presentation mode, the docks, one entry per panel with its shortcut) and
Help (guide, about)."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence

from . import edit_commands as edit
from .examples import EXAMPLE_SESSIONS, EXAMPLES
from .guide import show_guide
from .loading import recent_label


def action(window, text: str, slot, shortcut=None, tip: str = "") -> QAction:
    act = QAction(text, window)
    if shortcut is not None:
        act.setShortcut(QKeySequence(shortcut))
    if tip:
        act.setStatusTip(tip)
    act.triggered.connect(slot)
    return act


def build_menus(w) -> None:
    """The menus of window ``w``; their actions become its attributes (tests trigger them)."""
    bar = w.menuBar()
    file_menu = bar.addMenu("&File")
    w.open_action = action(w, "&Open…", w.open_dialog, QKeySequence.StandardKey.Open,
                           "Open a CSV, TSV, XLSX or Parquet file of per-item results")
    file_menu.addAction(w.open_action)
    w.examples_menu = file_menu.addMenu("Open &example")
    for ex in EXAMPLES:
        w.examples_menu.addAction(action(w, ex.title, lambda _=False, e=ex: w.open_example(e)))
    w.example_sessions_menu = file_menu.addMenu("Open example sess&ion")
    for ex in EXAMPLE_SESSIONS:
        w.example_sessions_menu.addAction(
            action(w, ex.title.removeprefix("Session: "), lambda _=False, e=ex: w.open_example(e)))
    w.recent_menu = file_menu.addMenu("Open &recent")
    file_menu.addSeparator()
    w.open_session_action = action(w, "Open &session…", w.open_session_dialog, "Ctrl+Shift+O")
    file_menu.addAction(w.open_session_action)
    w.save_action = action(w, "&Save session", lambda _c=False: w.save_session(),
                           QKeySequence.StandardKey.Save)
    file_menu.addAction(w.save_action)
    w.save_as_action = action(w, "Save session &as…", lambda _c=False: w.save_session_as(),
                              QKeySequence.StandardKey.SaveAs)
    file_menu.addAction(w.save_as_action)
    file_menu.addSeparator()
    # triggered(bool) would hand its "checked" flag to export_report as the path
    w.export_action = action(w, "&Export report…", lambda _checked=False: w.export_report(), "Ctrl+E",
                             "Write an Excel workbook of every panel's results")
    file_menu.addAction(w.export_action)
    w.export_items_action = action(w, "Export &items…", lambda _checked=False: w.export_items(), None,
                                   "Write the file's items as one flat table (CSV, Parquet or XLSX) that "
                                   "the workbench opens again as the same evaluation")
    file_menu.addAction(w.export_items_action)
    file_menu.addSeparator()
    file_menu.addAction(action(w, "&Quit", w.close, QKeySequence.StandardKey.Quit))
    w.edit_menu = bar.addMenu("&Edit")
    w.undo_action, w.redo_action = w.history.undo_action, w.history.redo_action
    w.undo_stack = w.history.stack
    w.edit_menu.addAction(w.undo_action)
    w.edit_menu.addAction(w.redo_action)
    w.edit_menu.addSeparator()
    w.copy_answer_action = action(w, "Copy &answer", lambda _c=False: edit.copy_answer(w), "Ctrl+Shift+C",
                                  "The answer on screen and its signature, as text")
    w.copy_markdown_action = action(w, "Copy answer as &Markdown", lambda _c=False: edit.copy_answer(w, "markdown"),
                                    "Ctrl+Shift+M", "The answer, its table and signature, for a review document")
    w.copy_card_image_action = action(w, "Copy answer card as &image", lambda _c=False: edit.copy_answer(w, "image"),
                                      tip="The answer card as a PNG image at twice the screen's size")
    w.save_card_image_action = action(w, "Save answer card as image…", lambda _c=False: edit.save_card(w),
                                      tip="PNG (2x) or SVG")
    w.copy_chart_action = action(w, "Copy &chart as image", lambda _c=False: edit.copy_chart(w), "Ctrl+Shift+I",
                                 "The chart on screen as a PNG image (2x), its table as text")
    w.save_chart_action = action(w, "Save c&hart as image…", lambda _c=False: edit.save_chart(w),
                                 tip="PNG (2x) or SVG")
    for act in (w.copy_answer_action, w.copy_markdown_action, w.copy_card_image_action,
                w.save_card_image_action, w.copy_chart_action, w.save_chart_action):
        w.edit_menu.addAction(act)
    w.edit_menu.addSeparator()
    w.settings_action = action(w, "&Settings…", lambda _c=False: w.open_settings(), "Ctrl+,",
                               "How numbers read in the window: the locale's decimal and thousands separators")
    w.edit_menu.addAction(w.settings_action)
    view = bar.addMenu("&View")
    # Alt+Home, not Ctrl+Home: a text editor (the rule editor) keeps Ctrl+Home for itself
    w.start_action = action(w, "&Start page", lambda: w.stack.setCurrentWidget(w.start), "Alt+Home")
    view.addAction(w.start_action)
    w.presentation_action = action(w, "&Presentation mode", lambda _c=False: w.toggle_presentation(),
                                   "F11", "Larger fonts, full screen: for review meetings")
    w.presentation_action.setCheckable(True)
    view.addAction(w.presentation_action)
    view.addAction(w.roles_dock.toggleViewAction())
    view.addAction(w.problems_dock.toggleViewAction())
    w.view_menu = view
    w.view_actions = {}
    help_menu = bar.addMenu("&Help")
    w.guide_action = action(w, "&User guide", lambda _c=False: show_guide(w), "F1",
                            "How to read each panel, file formats, release rules (offline)")
    help_menu.addAction(w.guide_action)
    help_menu.addAction(action(w, "&About Eval Workbench", w.about))


def add_view_actions(w, panels) -> None:
    """View > one entry per panel (the tab's title), the release rule and the data table."""
    from .panels import FIRST_PANELS

    w.view_menu.addSeparator()
    for i, (name, (title, _cls)) in enumerate(panels.items()):
        # the tab title keeps "&&" (a literal "&" in a menu; a single "&" would underline)
        keys = f"Ctrl+{i + 1}" if i < FIRST_PANELS else f"Ctrl+Shift+{i - FIRST_PANELS + 1}"
        w.view_actions[name] = action(w, f"{title} panel", lambda _=False, n=name: w.show_panel(n, focus=True), keys)
    w.view_actions["rule"] = action(w, "Release rule", lambda _=False: w.show_panel("rule", focus=True),
                                    f"Ctrl+{FIRST_PANELS + 1}")
    w.view_actions["data"] = action(w, "Data table", lambda _=False: w.show_panel(None, focus=True), "Ctrl+0")
    for act in w.view_actions.values():
        w.view_menu.addAction(act)


def fill_recent(w, paths: list[str]) -> None:
    """File > Open recent and the start page's list."""
    w.start.set_recent(paths)
    w.recent_menu.clear()
    for path in paths:
        w.recent_menu.addAction(action(w, recent_label(path), lambda _=False, p=path: w.open_recent(p)))
    w.recent_menu.setEnabled(bool(paths))
