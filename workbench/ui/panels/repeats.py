import dataclasses

import numpy as np
from PySide6.QtWidgets import QPushButton

from ...analyses import repeats
from ...io import to_text
from .base import AnalysisPanel, Field


class RepeatsPanel(AnalysisPanel):
    """Repeated tries of the same items: the items that flip and the noise split."""

    module = repeats
    CHARTS = ("ItemShareChart", "NoiseSplitChart", "RepeatsPassKChart")
    FIELDS = (
        Field("item", "Item id", "column", "The item (an Inspect sample); its rows are its tries.",
              roles=("task", "item")),
        Field("outcome", "Outcome", "column", "0/1, or a score in [0, 1].", roles=("success",), optional=False),
        Field("repeat", "Repeat", "column", "Optional: the epoch or seed column.", roles=("epoch", "repeat")),
        Field("system", "System", "column", "Optional: a split per system, and paired against the baseline.",
              roles=("system",)),
        Field("baseline_system", "Baseline system", "text", "Empty: the first system."),
        Field("target_pts", "Target half-width (pts)", "float",
              "The 95% half-width to plan items and repeats for, in points as the card gives it "
              "(2.0 = ±2.0 pts of a success rate; for 0-1 scores the same number in hundredths, "
              "2.0 = ±0.020).",
              minimum=0.1, maximum=50.0, decimals=1, step=0.5, default=2.0),
    )

    def options(self):
        opts = super().options()
        # entered in the card's unit (points), held by the analysis as a fraction
        target = round(float(self.control("target_pts").value()) / 100.0, 10)
        return dataclasses.replace(opts, baseline_system=opts.baseline_system or None, target=target)

    def set_options(self, options) -> None:
        super().set_options(options)
        self._loading = True
        try:
            self.control("target_pts").setValue(float(options.target) * 100.0)
        finally:
            self._loading = False

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


    # -- the items that flip: click-through to the data table ---------------------------------
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._item_text: tuple | None = None  # (table, item column, system column, their cells as text)

    def charts_made(self) -> None:
        """Its charts were made (with the first result): a dot opens its item in the data table."""
        self.chart("ItemShareChart").item_clicked.connect(lambda system, item: self.select_items([(system, item)]))

    def extra_actions(self):
        self.show_flipping = QPushButton("Show the items that flip in the data table")
        self.show_flipping.setToolTip("Filters the data table to every try of the items that are neither "
                                      "always right nor always wrong.")
        self.show_flipping.setEnabled(False)
        self.show_flipping.clicked.connect(self._select_flipping)
        return [self.show_flipping]

    def render(self, result):
        super().render(result)
        flips = self.flipping_items()
        self.show_flipping.setEnabled(bool(flips))
        self.show_flipping.setText(f"Show the {len(flips):,} items that flip in the data table")

    def on_cleared(self):
        self.show_flipping.setEnabled(False)
        self.show_flipping.setText("Show the items that flip in the data table")

    def flipping_items(self) -> list[tuple[str, str]]:
        """(system, item) of the items that flip ('' as the system without a system column)."""
        if self.last_result is None:
            return []
        frame = self.last_result.table("items").frame
        frame = frame[frame["flips"].astype(bool)]
        systems = frame["system"].astype(str) if "system" in frame else [""] * len(frame)
        return list(zip(systems, frame["item"].astype(str)))

    def item_rows(self, pairs) -> np.ndarray:
        """0-based rows of the loaded table holding the tries of these (system, item) pairs."""
        if self.table is None or not pairs:
            return np.zeros(0, dtype=np.int64)
        opts = self.options()
        if self._item_text is None or self._item_text[0] is not self.table or self._item_text[1:3] != (
                repeats.item_column(self.table, opts, []), opts.system):
            item_col = repeats.item_column(self.table, opts, [])
            sys_text = to_text(self.table, opts.system) if opts.system else [""] * len(self.table.frame)
            keys = np.array([f"{s}\x1f{i}" for s, i in zip(sys_text, to_text(self.table, item_col))], dtype=object)
            self._item_text = (self.table, item_col, opts.system, keys)
        wanted = np.array([f"{s}\x1f{i}" for s, i in pairs], dtype=object)
        return np.flatnonzero(np.isin(self._item_text[3], wanted))

    def select_items(self, pairs) -> None:
        pairs = list(pairs)
        self.rows_label = "the item's tries" if len(pairs) == 1 else "items that flip"
        self.select_rows.emit(self.item_rows(pairs))

    def _select_flipping(self) -> None:
        self.select_items(self.flipping_items())
