"""A window half a screen wide: the results table keeps the measure's name readable (it wraps and
the table scrolls sideways) instead of squeezing it to "…" beside the value, n and interval; a
wide window gives it the room left over again."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QHeaderView

from tests.conftest import open_example, wait_result

pytestmark = pytest.mark.gui


def _measure(view):
    header = view.horizontalHeader()
    return header.sectionSize(0), header.sectionResizeMode(0)


def test_the_measure_column_stays_readable_in_a_narrow_window_and_stretches_in_a_wide_one(qtbot, window):
    window.resize(1000, 800)
    window.show()
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    view = panel.headline
    least = view.fontMetrics().averageCharWidth() * 20  # a readable share of a measure's name
    qtbot.waitUntil(lambda: _measure(view)[0] >= least, timeout=5000)
    width, mode = _measure(view)
    assert mode == QHeaderView.ResizeMode.Interactive  # fixed at its least, the table scrolls
    assert view.horizontalScrollBar().maximum() > 0
    assert view.visualRect(view.model().index(0, 0)).width() >= least - 1  # (less the grid line)
    window.resize(1900, 1000)
    qtbot.waitUntil(lambda: _measure(view)[1] == QHeaderView.ResizeMode.Stretch, timeout=5000)
    others = sum(view.horizontalHeader().sectionSize(c) for c in range(1, view.model().columnCount())
                 if not view.isColumnHidden(c))
    assert _measure(view)[0] >= view.viewport().width() - others - 2  # the room left over
