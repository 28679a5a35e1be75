from ...analyses import cost
from ...metrics.cost import PERCENTILE_METHODS
from .base import AnalysisPanel, Field
from .engine_field import engine_field


class CostPanel(AnalysisPanel):
    CHARTS = ("CostPerSuccessChart", "EffortPerSuccessChart", "SystemRateChart", "LatencyChart")
    module = cost
    FIELDS = (
        Field("system", "System", "column", "One row per request; systems compared.", roles=("system", "version")),
        Field("success", "Success", "column", "0/1 per request.", roles=("success",), optional=False),
        Field("cost", "Cost", "column", "Cost of the request (currency as in the file).", roles=("cost",),
              optional=False),
        Field("latency", "Latency", "column", "Optional; units as in the file.", roles=("latency",)),
        Field("steps", "Steps", "column", "Optional: an agent's steps per request (per request and per success).",
              roles=("steps",)),
        Field("tool_calls", "Tool calls", "column", "Optional: tool calls per request (per request and per success).",
              roles=("tool_calls",)),
        Field("tokens", "Tokens", "column", "Optional: tokens per request (per request and per success).",
              roles=("tokens",)),
        Field("input_tokens", "Input tokens", "column", "Optional: input (prompt) tokens per request."),
        Field("output_tokens", "Output tokens", "column", "Optional: output (completion) tokens per request."),
        Field("working_time", "Working time", "column", "Optional: the agent's working time per request."),
        Field("ideal_steps", "Ideal steps", "column",
              "Optional: a reference number of steps per request; shown: steps / ideal steps."),
        Field("percentile_method", "Percentiles", "choice",
              "linear: numpy's default interpolation (type 7)\nnearest rank: the ceil(p·N)-th smallest value",
              choices=(("linear", "linear (numpy)"), ("nearest_rank", "nearest rank"),
                       *((m, f"{m.replace('_', ' ')} (numpy)") for m in PERCENTILE_METHODS
                         if m not in ("linear", "nearest_rank")))),
        Field("latency_threshold", "p95 latency limit", "float",
              "A release rule's p95 limit, drawn on the latency chart; 'none' (0) draws none.",
              minimum=0, maximum=1e6, decimals=3, step=0.5, default=0.0),
        Field("currency", "Currency", "text",
              "A symbol shown with every cost (e.g. $ or €). Empty: costs in the file's units, no "
              "symbol. Display only: the numbers do not change."),
        engine_field("the columns of the requests"),
    )

    def __init__(self, parent=None):
        super().__init__(parent)
        # 0 is "no limit": the box says so instead of a limit of 0.000
        self.control("latency_threshold").setSpecialValueText("none")

    def currency(self):
        text = self.control("currency").text().strip()
        return text or None

    def set_currency(self, currency: str | None) -> None:
        """Show a saved currency (session restore) without starting a run of its own."""
        self._loading = True
        try:
            self.control("currency").setText(currency or "")
        finally:
            self._loading = False

    def configure_charts(self):
        self.chart("LatencyChart").threshold = self.control("latency_threshold").value()
