from ...analyses import aggregate
from ..charts import SegmentBarChart, GroupRateChart
from .base import AnalysisPanel, Field

FORMS = (("group", "outcome per group (micro / macro)"), ("ratio", "numerator / denominator"),
         ("unit", "outcome per unit (pooled / mean)"))


class AggregatePanel(AnalysisPanel):
    CHARTS = (SegmentBarChart, GroupRateChart,)
    module = aggregate
    FIELDS = (
        Field("form", "Roll-up", "choice",
              "micro = sum/sum, macro = mean of group rates; pooled = sum/sum, mean of ratios = "
              "mean of per-unit ratios.", choices=FORMS),
        Field("outcome", "Outcome", "column", "0/1 per item (or a score in [0, 1]).", roles=("success",),
              forms=("group", "unit"), optional=False),
        Field("group", "Group / segment", "column", "Per-group table; macro averages over it.",
              roles=("group",), forms=("group",), optional=False),
        Field("version", "Version", "column", "Optional: per version, with a Simpson's paradox check.",
              roles=("version",), forms=("group",)),
        Field("numerator", "Numerator", "column", "e.g. correct claims.", roles=("numerator",),
              forms=("ratio",), optional=False),
        Field("denominator", "Denominator", "column", "e.g. claims.", roles=("denominator",),
              forms=("ratio",), optional=False),
        Field("unit", "Unit", "column", "Conversation, user…: the ratio is formed per unit.",
              roles=("unit", "cluster"), forms=("ratio", "unit")),
    )

    def form_for_roles(self, roles):
        return "ratio" if "numerator" in set(roles.values()) else "group"

    def form_of(self, options):
        if options.numerator or options.denominator:
            return "ratio"
        return "unit" if options.unit and not options.group else "group"
