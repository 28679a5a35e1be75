"""The charts' colours without pyqtgraph: the colour-blind-safe palette and each system's colour
for the session.  The window sets the systems' order when a file is in (before any chart is
made), so that step must not import pyqtgraph (0.2-0.3 s on the GUI thread, beside the answer
being computed); :mod:`workbench.ui.charts.base` re-exports these names."""

from __future__ import annotations

from PySide6.QtGui import QColor

#: Okabe & Ito's colour-blind-safe palette (blue, orange, green, vermillion, purple, sky, yellow)
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
GREY = "#9A9A9A"


def colour(i: int) -> QColor:
    return QColor(OKABE_ITO[i % len(OKABE_ITO)])


#: system name -> palette index, kept for the session: each system keeps one colour on every
#: chart (cleared when another file is opened)
_SYSTEM_COLOURS: dict[str, int] = {}


def system_index(name) -> int:
    """The palette index of a system (or version), the same on every chart of the session."""
    key = str(name)
    if key not in _SYSTEM_COLOURS:
        _SYSTEM_COLOURS[key] = len(_SYSTEM_COLOURS)
    return _SYSTEM_COLOURS[key]


def system_colour(name) -> QColor:
    return colour(system_index(name))


def reset_system_colours(names=()) -> None:
    """A new file: systems are coloured in the order given (the file's order)."""
    _SYSTEM_COLOURS.clear()
    for name in names:
        system_index(name)
