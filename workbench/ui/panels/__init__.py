"""One panel per analysis: the form that edits its Options, and the rendering of its result.

Which panels exist, in which order and under which title, is :mod:`workbench.catalog`'s list.
"""

from ... import catalog
from .base import AnalysisPanel

#: analysis name -> (tab title, panel class), in the order of the tabs (:mod:`workbench.catalog`)
PANELS: dict[str, tuple[str, type[AnalysisPanel]]] = {
    a.name: (a.tab, a.panel_class()) for a in catalog.ANALYSES}
#: The first panels keep Ctrl+1 ... Ctrl+7 (the release rule Ctrl+8); the later ones Ctrl+Shift+1...
FIRST_PANELS = 7

__all__ = ["PANELS", "AnalysisPanel"]
