"""One panel per analysis: the form that edits its Options, and the rendering of its result.

The mapping from analysis name to panel class is explicit (no discovery magic).
"""

from .aggregate import AggregatePanel
from .base import AnalysisPanel
from .compare import ComparePanel
from .cost import CostPanel
from .passk import PassKPanel
from .plan import PlanPanel
from .ranking import RankingPanel
from .text import TextPanel

#: analysis name -> (tab title, panel class), in the order of the tabs
PANELS: dict[str, tuple[str, type[AnalysisPanel]]] = {
    "text": ("Text", TextPanel),
    "ranking": ("Ranking", RankingPanel),
    "passk": ("pass@k", PassKPanel),
    "aggregate": ("Aggregation", AggregatePanel),
    "compare": ("Compare", ComparePanel),
    "cost": ("Cost && latency", CostPanel),
    "plan": ("Planning", PlanPanel),
}

__all__ = ["PANELS", "AnalysisPanel"]
