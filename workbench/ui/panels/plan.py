from dataclasses import replace

from ...analyses import plan
from .base import AnalysisPanel, Field

#: the form's fields entered in percent / points (the card, the tables and Compare's "difference
#: that matters" show rates in percent and differences in points): field -> Options field
_PERCENT = {"rate_pct": "rate", "discordance_pct": "discordance", "target_difference_pts": "target_difference"}


class PlanPanel(AnalysisPanel):
    """Planning.  Rates are entered in percent and the difference to detect in points, as every
    other screen shows them (one quantity, one format); pass@k stays on its 0-1 scale, as the
    pass@k panel shows it."""

    CHARTS = ("PlanMdeChart",)
    module = plan
    NEEDS_DATA = False
    FIELDS = (
        Field("rate_pct", "Expected success rate (%)", "float", "A rate in percent, e.g. 80.0.",
              minimum=0, maximum=100, decimals=1, step=1, default=80.0),
        Field("n", "Items", "int", "Items in the evaluation set.", minimum=1, maximum=10_000_000,
              step=50, default=200),
        Field("discordance_pct", "Discordance (%)", "float",
              "Share of items on which two systems disagree, (wins + losses) / n, in percent.",
              minimum=0.1, maximum=100, decimals=1, step=1, default=15.0),
        Field("target_difference_pts", "Difference to detect (pts)", "float",
              "A paired difference worth detecting, in percentage points (as Compare's "
              "'difference that matters'): gives the items needed.",
              minimum=0.1, maximum=100, decimals=1, step=0.5, default=2.0),
        Field("pass_at_k", "Observed pass@k", "float",
              "On the 0-1 scale, as the pass@k panel shows it; gives the implied per-try rate.",
              minimum=0, maximum=1, decimals=3, step=0.01, default=0.9),
        Field("k", "k", "int", "The k of that pass@k.", minimum=1, maximum=10_000, default=10),
    )

    def options(self):
        opts = super().options()
        return replace(opts, **{name: round(float(self.control(field).value()) / 100.0, 10)
                                for field, name in _PERCENT.items()})

    def set_options(self, options) -> None:
        super().set_options(options)
        self._loading = True
        try:
            for field, name in _PERCENT.items():
                value = getattr(options, name, None)
                if value is not None:
                    self.control(field).setValue(float(value) * 100.0)
        finally:
            self._loading = False
