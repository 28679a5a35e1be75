from ...analyses import cost
from .base import AnalysisPanel, Field


class CostPanel(AnalysisPanel):
    module = cost
    FIELDS = (
        Field("system", "System", "column", "One row per request; systems compared.", roles=("system", "version")),
        Field("success", "Success", "column", "0/1 per request.", roles=("success",), optional=False),
        Field("cost", "Cost", "column", "Cost of the request (currency as in the file).", roles=("cost",),
              optional=False),
        Field("latency", "Latency", "column", "Optional; units as in the file.", roles=("latency",)),
        Field("percentile_method", "Percentiles", "choice",
              "linear: numpy's default interpolation (type 7)\nnearest rank: the ceil(p·N)-th smallest value",
              choices=(("linear", "linear (numpy)"), ("nearest_rank", "nearest rank"))),
    )
