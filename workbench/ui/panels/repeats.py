import dataclasses

from ...analyses import repeats
from .base import AnalysisPanel, Field


class RepeatsPanel(AnalysisPanel):
    """Repeated tries of the same items: the items that flip and the noise split."""

    module = repeats
    FIELDS = (
        Field("item", "Item id", "column", "The item (an Inspect sample); its rows are its tries.",
              roles=("task", "item")),
        Field("outcome", "Outcome", "column", "0/1, or a score in [0, 1].", roles=("success",), optional=False),
        Field("repeat", "Repeat", "column", "Optional: the epoch or seed column.", roles=("epoch", "repeat")),
        Field("system", "System", "column", "Optional: a split per system, and paired against the baseline.",
              roles=("system",)),
        Field("baseline_system", "Baseline system", "text", "Empty: the first system."),
        Field("target", "Target half-width", "float",
              "The 95% half-width to plan items and repeats for, as a fraction (0.02 = 2 points).",
              minimum=0.001, maximum=0.5, decimals=3, step=0.005),
    )

    def options(self):
        opts = super().options()
        return dataclasses.replace(opts, baseline_system=opts.baseline_system or None)

    def precheck(self):
        """Repeats need tries: a repeat column, or items with several rows."""
        if self.table is None or self.value("repeat"):
            return ""
        item = self.value("item")
        system = self.value("system")
        if not item or item not in self.table.frame.columns:
            return ""
        keys = [c for c in (item, system) if c and c in self.table.frame.columns]
        if self.table.frame.duplicated(subset=keys).any():
            return ""
        return ("Each item has one row here: repeats need several tries per item (a repeat, epoch or "
                "seed column, or an item's rows repeated).")

