"""Charts drawn from result tables with pyqtgraph (a chart never shows a number that is not in
a table)."""

from .base import Chart
from .intervals import CompareIntervalChart, GroupRateChart, SystemRateChart
from .others import (BootstrapChart, CostPerSuccessChart, LatencyChart, PassKChart, RankingCurveChart,
                     RankingSpreadChart, SegmentBarChart, TextScoreChart, PlanMdeChart)

__all__ = ["Chart", "CompareIntervalChart", "GroupRateChart", "SystemRateChart", "BootstrapChart",
           "CostPerSuccessChart", "LatencyChart", "PassKChart", "RankingCurveChart",
           "RankingSpreadChart", "SegmentBarChart", "TextScoreChart", "PlanMdeChart"]
