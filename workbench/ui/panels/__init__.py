"""One panel per analysis: the form that edits its Options, and the rendering of its result.

The mapping from analysis name to panel class is explicit (no discovery magic).
"""

from .aggregate import AggregatePanel
from .base import AnalysisPanel
from .compare import ComparePanel
from .cost import CostPanel
from .judge import JudgePanel
from .passk import PassKPanel
from .plan import PlanPanel
from .ranking import RankingPanel
from .repeats import RepeatsPanel
from .rubric import RubricPanel
from .runs import RunsPanel
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
    "judge": ("Judge", JudgePanel),
    "rubric": ("Rubric", RubricPanel),
    "runs": ("Runs", RunsPanel),
    "repeats": ("Repeats", RepeatsPanel),
}
#: The first panels keep Ctrl+1 ... Ctrl+7 (the release rule Ctrl+8); the later ones Ctrl+Shift+1...
FIRST_PANELS = 7

__all__ = ["PANELS", "AnalysisPanel"]
