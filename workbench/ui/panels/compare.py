import numpy as np
from PySide6.QtWidgets import QComboBox, QPushButton

from ...analyses import compare
from ..charts import CompareIntervalChart, BootstrapChart
from ..models import distinct_texts
from .base import AnalysisPanel, Field

FORMS = (("wide", "one column per system"), ("long", "system, item, outcome rows"))


class ComparePanel(AnalysisPanel):
    CHARTS = (CompareIntervalChart, BootstrapChart,)
    module = compare
    FIELDS = (
        Field("form", "Input", "choice", "Wide: a baseline and a candidate outcome column.\n"
              "Long: one row per (system, item).", choices=FORMS),
        Field("baseline", "Baseline outcome", "column", "0/1 per item, or any per-item score (nDCG, F1...).",
              roles=("baseline",),
              forms=("wide",), optional=False),
        Field("candidate", "Candidate outcome", "column", "0/1 per item, or any per-item score.",
              roles=("candidate",),
              forms=("wide",), optional=False),
        Field("system", "System", "column", "System name per row.", roles=("system", "version"),
              forms=("long",), optional=False),
        Field("outcome", "Outcome or score", "column",
              "0/1 per row, or any numeric per-item score (nDCG, F1, latency...): the metric compared.",
              roles=("success", "score"), forms=("long",), optional=False),
        Field("scores", "Test family", "choice",
              "auto: exact tests for 0/1 outcomes, paired t / Wilcoxon / randomization / bootstrap "
              "(percentile and BCa) for other scores.",
              choices=(("auto", "from the data"), ("binary", "binary outcomes"), ("continuous", "scores"))),
        Field("baseline_system", "Baseline system", "choice", "Which system is the baseline.", forms=("long",)),
        Field("candidate_system", "Candidate system", "choice", "Which system is the candidate.",
              forms=("long",)),
        Field("item", "Item id", "column", "Items are paired by id; duplicates are refused.", roles=("item",)),
        Field("cluster", "Cluster", "column",
              "Optional: the bootstrap resamples whole clusters (conversations, users).", roles=("cluster",)),
        Field("resamples", "Bootstrap resamples", "int", "Percentile bootstrap of the paired difference.",
              minimum=1000, maximum=1_000_000, step=1000),
        Field("seed", "Bootstrap seed", "int", "Recorded in the signature.", minimum=0, maximum=2**31 - 1),
        Field("margin", "Difference that matters (pts)", "float",
              "Drawn as a band around zero on the interval chart (a release rule's minimum difference); "
              "0 draws none. Not part of the computation.",
              minimum=0, maximum=100, decimals=1, step=0.5, default=0.0),
    )

    def configure_charts(self):
        self.chart("CompareIntervalChart").margin = self.control("margin").value() / 100.0

    def extra_actions(self):
        self.show_discordant = QPushButton("Show the items that flipped in the data table")
        self.show_discordant.setToolTip("Filters the data table to the discordant items (wins and losses).")
        self.show_discordant.setEnabled(False)
        self.show_discordant.clicked.connect(self._select_discordant)
        return [self.show_discordant]

    def form_for_roles(self, roles):
        values = set(roles.values())
        if {"baseline", "candidate"} <= values:
            return "wide"
        return "long" if "system" in values or "version" in values else "wide"

    def refresh_dependent_choices(self):
        names = []
        col = self._value_of(self._controls["system"])
        if self.table is not None and col in self.table.frame.columns:
            names = distinct_texts(self.table, col, 200)
        self._loading = True
        try:
            for i, key in enumerate(("baseline_system", "candidate_system")):
                combo: QComboBox = self.control(key)
                previous = combo.currentData()
                combo.clear()
                for name in names:
                    combo.addItem(name, name)
                if previous in names:
                    combo.setCurrentIndex(combo.findData(previous))
                elif len(names) > i:
                    combo.setCurrentIndex(i)
        finally:
            self._loading = False

    def _changed(self, *args):
        if not self._loading and self.sender() is self.control("system"):
            self.refresh_dependent_choices()
        super()._changed(*args)

    def form_of(self, options):
        return "long" if options.system else "wide"

    def render(self, result):
        super().render(result)
        self.show_discordant.setEnabled(len(result.table("discordant").frame) > 0)
        self.show_discordant.setText(
            f"Show the {len(result.table('discordant').frame)} items that flipped in the data table")

    def on_cleared(self):
        self.show_discordant.setEnabled(False)
        self.show_discordant.setText("Show the items that flipped in the data table")

    def discordant_rows(self) -> np.ndarray:
        """0-based rows of the loaded table holding the discordant items."""
        if self.last_result is None or self.table is None:
            return np.zeros(0, dtype=np.int64)
        lines = self.last_result.table("discordant").frame["line"].to_numpy(dtype=np.int64)
        return rows_for_lines(self.table, lines)

    def _select_discordant(self):
        self.select_rows.emit(self.discordant_rows())


def rows_for_lines(table, lines) -> np.ndarray:
    """Invert ``table.line_of`` for many lines at once."""
    lines = np.asarray(lines, dtype=np.int64)
    if table.row_lines is not None:
        return np.searchsorted(np.asarray(table.row_lines), lines).astype(np.int64)
    offset = 1 if table.format == "parquet" else 2
    return lines - offset
