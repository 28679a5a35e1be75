"""Charts drawn from result tables with pyqtgraph (a chart never shows a number that is not in
a table)."""

from .base import Chart
from .intervals import (CompareIntervalChart, CorpusDiffChart, GroupMeanChart, GroupRateChart, SystemRateChart,
                        SystemsDiffChart)
from .judge_rubric import ConfusionChart, ContributionChart, CriterionRateChart, LabelShareChart
from .cost import CostPerSuccessChart, EffortPerSuccessChart, LatencyChart
from .others import (BootstrapChart, PassKChart, PlanMdeChart, RankingCurveChart, RankingSpreadChart, SegmentBarChart,
                     TextScoreChart)
from .runs_repeats import ItemShareChart, NoiseSplitChart, RunGroupsChart, RunsHeatmap

__all__ = ["Chart", "CompareIntervalChart", "GroupMeanChart", "GroupRateChart", "SystemRateChart", "SystemsDiffChart", "CorpusDiffChart", "BootstrapChart",
           "CostPerSuccessChart", "EffortPerSuccessChart", "LatencyChart", "PassKChart", "RankingCurveChart",
           "RankingSpreadChart", "SegmentBarChart", "TextScoreChart", "PlanMdeChart",
           "ConfusionChart", "ContributionChart", "CriterionRateChart", "LabelShareChart", "ItemShareChart",
           "NoiseSplitChart", "RunGroupsChart", "RunsHeatmap"]
