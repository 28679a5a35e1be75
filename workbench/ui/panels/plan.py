from ...analyses import plan
from ..charts import PlanMdeChart
from .base import AnalysisPanel, Field


class PlanPanel(AnalysisPanel):
    CHARTS = (PlanMdeChart,)
    module = plan
    NEEDS_DATA = False
    FIELDS = (
        Field("rate", "Expected success rate", "float", "A rate as a fraction, e.g. 0.80.",
              minimum=0, maximum=1, decimals=3, step=0.01, default=0.8),
        Field("n", "Items", "int", "Items in the evaluation set.", minimum=1, maximum=10_000_000,
              step=50, default=200),
        Field("discordance", "Discordance", "float",
              "Fraction of items on which two systems disagree (wins + losses) / n.",
              minimum=0.001, maximum=1, decimals=3, step=0.01, default=0.15),
        Field("target_difference", "Difference to detect", "float",
              "A paired difference worth detecting: gives the items needed.",
              minimum=0.001, maximum=1, decimals=3, step=0.005, default=0.02),
        Field("pass_at_k", "Observed pass@k", "float", "Gives the implied per-try rate.",
              minimum=0, maximum=1, decimals=3, step=0.01, default=0.9),
        Field("k", "k", "int", "The k of that pass@k.", minimum=1, maximum=10_000, default=10),
    )
