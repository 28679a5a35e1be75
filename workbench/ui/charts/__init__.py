"""Charts drawn from result tables with pyqtgraph (a chart never shows a number that is not in
a table).

Importing this package does not import pyqtgraph (0.2 s): a panel names its charts
(:data:`CHARTS` gives each one's module and tab title) and a chart's module is imported when the
chart is first made, or when its class is asked for (``from workbench.ui.charts import X``).
"""

from __future__ import annotations

import importlib

#: every chart a panel may name: class name -> (module in this package, its tab's title)
CHARTS = {
    "BootstrapChart": ("others", "Bootstrap distribution"),
    "CompareIntervalChart": ("intervals", "Difference with its intervals"),
    "ConfusionChart": ("judge_rubric", "Confusion matrix"),
    "ContributionChart": ("judge_rubric", "What moved the score"),
    "CorpusDiffChart": ("intervals", "BLEU/chrF differences"),
    "CostPerSuccessChart": ("cost", "Cost per success"),
    "CriterionRateChart": ("judge_rubric", "Pass rate per criterion"),
    "EffortPerSuccessChart": ("cost", "Effort per success"),
    "ForestChart": ("slices", "Forest plot"),
    "GroupMeanChart": ("intervals", "Means per group"),
    "GroupRateChart": ("intervals", "Rates per group"),
    "ItemShareChart": ("runs_repeats", "Items that flip"),
    "LabelShareChart": ("judge_rubric", "Judge vs people per label"),
    "LatencyChart": ("cost", "Latency"),
    "NoiseSplitChart": ("runs_repeats", "Variance split"),
    "PassKChart": ("others", "pass@k and pass^k"),
    "PlanMdeChart": ("others", "Detectable difference by n"),
    "RankingCurveChart": ("others", "Metrics by cut-off"),
    "RankingSpreadChart": ("others", "Per-query nDCG"),
    "RepeatsPassKChart": ("runs_repeats", "pass@k and pass^k"),
    "RunGroupsChart": ("runs_repeats", "Runs and tie groups"),
    "RunsHeatmap": ("runs_repeats", "Heat map"),
    "SegmentBarChart": ("others", "Per-segment rates"),
    "SystemRateChart": ("intervals", "Success rate per system"),
    "SystemsDiffChart": ("intervals", "Differences per metric"),
    "TextScoreChart": ("others", "Token F1 per item"),
}


def chart_class(name: str) -> type:
    """The chart class ``name`` of :data:`CHARTS` (its module imported now)."""
    module, _title = CHARTS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __getattr__(name: str):
    if name == "Chart":
        return importlib.import_module(f"{__name__}.base").Chart
    if name in CHARTS:
        return chart_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CHARTS", "Chart", "chart_class", *CHARTS]
