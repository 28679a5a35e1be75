"""The window fits a 1280x800 laptop with any example open, and presentation mode fits its screen."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication


pytestmark = pytest.mark.gui


def _open(qtbot, window, example):
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.open_example(example)
    for panel in [*window.panels.values(), window.rule_panel]:
        _settle(qtbot, panel)
    qtbot.wait(50)


def _settle(qtbot, panel):
    """Until the panel's run (result or error) is done."""
    debounce = getattr(panel, "_debounce", None)
    if debounce is not None and debounce.isActive():
        panel.run_now()
    if panel.runner.busy:
        with qtbot.waitSignal(panel.runner.busy_changed, timeout=60000, check_params_cb=lambda b: not b):
            pass


def _every_tab_shown(window):
    """The minimum size of every tab counts, not only the one on screen."""
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        widget = window.tabs.widget(i)
        if hasattr(widget, "tabs"):
            for j in range(widget.tabs.count()):
                widget.tabs.setCurrentIndex(j)


def _example_sessions():
    from workbench.ui.examples import EXAMPLE_SESSIONS

    return EXAMPLE_SESSIONS


@pytest.mark.parametrize("example", _example_sessions(), ids=lambda e: e.file)
def test_minimum_size_fits_1280x800_with_each_example_session(qtbot, window, example):
    from workbench.resources_path import examples_dir

    assert (examples_dir() / example.file).exists()
    _open(qtbot, window, example)
    _every_tab_shown(window)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1280 and hint.height() <= 800, hint
    window.resize(1280, 800)
    qtbot.wait(20)
    assert window.width() <= 1280 and window.height() <= 800


def test_minimum_size_fits_with_the_widest_examples(qtbot, window):
    from workbench.ui.examples import EXAMPLES

    for example in EXAMPLES:
        _open(qtbot, window, example)
        _every_tab_shown(window)
        hint = window.minimumSizeHint()
        assert hint.width() <= 1280 and hint.height() <= 800, (example.file, hint)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (3840, 2160)])
def test_presentation_layout_fits_screens(qtbot, window, size):
    """The layout presentation mode uses, at the font of a screen of this size, needs no
    more than the screen."""
    from workbench.ui.examples import EXAMPLE_SESSIONS
    from workbench.ui.presentation import presentation_scale

    _open(qtbot, window, EXAMPLE_SESSIONS[0])
    base = QApplication.font()
    try:
        font = QApplication.font()
        font.setPointSizeF(base.pointSizeF() * presentation_scale(*size))
        QApplication.setFont(font)
        window.setFont(font)
        window.roles_dock.setVisible(False)
        window.problems_dock.setVisible(False)
        for panel in [*window.panels.values(), window.rule_panel]:
            panel.set_presentation(True)
        _every_tab_shown(window)
        hint = window.minimumSizeHint()
        assert hint.width() <= size[0] and hint.height() <= size[1], hint
    finally:
        QApplication.setFont(base)
        window.setFont(base)


def test_presentation_scale_grows_with_the_screen():
    from workbench.ui.presentation import presentation_scale

    small, full_hd, uhd = (presentation_scale(1280, 720), presentation_scale(1920, 1080),
                           presentation_scale(3840, 2160))
    assert 1.1 <= small < full_hd < uhd <= 2.2


def test_presentation_window_is_within_its_screen(qtbot, window):
    from workbench.ui.examples import EXAMPLE_SESSIONS

    _open(qtbot, window, EXAMPLE_SESSIONS[0])
    window.presentation_action.trigger()
    screen = window.screen().geometry()
    qtbot.waitUntil(lambda: screen.contains(window.frameGeometry()), timeout=5000)
    assert window.minimumSizeHint().width() <= screen.width()
    window.presentation_action.trigger()
    assert not window.presentation
