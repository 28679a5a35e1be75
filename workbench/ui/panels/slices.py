import dataclasses

import numpy as np

from ...analyses import slices
from ...analyses._slice_columns import rows_of
from .base import AnalysisPanel, Field
from .compare import ComparePanel

#: the input forms (shorter words than Compare's: this form has more rows, the column stays narrow)
FORMS = (("wide", "a column per system"), ("long", "a system column"))


class SlicesPanel(AnalysisPanel):
    """Two systems slice by slice: where the candidate wins and loses, adjusted, pooled, shrunk."""

    module = slices
    CHARTS = ("ForestChart",)
    FIELDS = (
        Field("form", "Input", "choice", "Wide: a baseline and a candidate outcome column.\n"
              "Long: one row per (system, item).", choices=FORMS),
        Field("baseline", "Baseline", "column", "0/1 per item, or any per-item score.",
              roles=("baseline",), forms=("wide",), optional=False),
        Field("candidate", "Candidate", "column", "0/1 per item, or any per-item score.",
              roles=("candidate",), forms=("wide",), optional=False),
        Field("system", "System", "column", "System name per row.", roles=("system", "version"),
              forms=("long",), optional=False),
        Field("outcome", "Outcome", "column", "0/1 per row, or any numeric per-item score.",
              roles=("success", "score"), forms=("long",), optional=False),
        Field("baseline_system", "Baseline system", "choice", "Which system is the baseline.", forms=("long",)),
        Field("candidate_system", "Candidate system", "choice", "Which system is the candidate.",
              forms=("long",)),
        Field("item", "Item id", "column", "Items are paired by id (exact text), as Compare pairs them.",
              roles=("item",)),
        Field("by", "Slice by", "column",
              "The slice column: each of its values (exact text; an empty cell is '(blank)') is a slice.",
              roles=("group",), optional=False),
        Field("by2", "Also slice by", "column",
              "Optional: another column, analysed separately (discovery also searches the pairs of values).",
              default=None),
        Field("bins", "Bins", "int",
              "0: every value is a slice. N: a numeric slice column is cut into N quantile bins "
              "(numpy's linear quantiles; edges in the 'bins' table).", minimum=0, maximum=100),
        Field("scores", "Tests", "choice",
              "auto: the exact sign test and McNemar for 0/1 outcomes; the paired t-test (df = n - 1) and "
              "the randomization test for other scores.",
              choices=(("auto", "from the data"), ("binary", "0/1 outcomes"), ("continuous", "scores"))),
        Field("correction", "Correction", "choice",
              "Of the adjusted test's p over the tested slices: Holm (family-wise), Benjamini-Hochberg (false "
              "discovery rate) or none. Slices with adjusted p < 0.05 are called out and get false-coverage-"
              "rate intervals at level 1 - R q / m (Benjamini and Yekutieli 2005).",
              choices=(("holm", "Holm"), ("bh", "BH (FDR)"), ("none", "none"))),
        Field("min_size", "Smallest slice", "int",
              "Slices with fewer items are listed with their counts, not tested, and left out of m, Q and tau².",
              minimum=1, maximum=1_000_000),
        Field("clean", "Seen in training", "column",
              "Optional: 1/true/yes = seen in training. The card gives the clean items' difference first."),
        Field("discover", "Discover", "bool",
              "Search slices of the slice columns (and pairs of their values) on a random half for the largest "
              "losses; re-estimate the worst on the other half."),
        Field("depth", "Depth", "choice", "1: single columns' slices; 2: also pairs of two columns' values.",
              choices=(("2", "1 or 2 columns"), ("1", "1 column"))),
        Field("top", "Re-estimate", "int", "How many of the worst slices discovery re-estimates.",
              minimum=1, maximum=100),
        Field("seed", "Seed", "int", "Of the randomization tests and discovery's split (in the signature).",
              minimum=0, maximum=2**31 - 1),
    )

    #: the long form's system choices work as Compare's
    refresh_dependent_choices = ComparePanel.refresh_dependent_choices
    form_for_roles = ComparePanel.form_for_roles
    form_of = ComparePanel.form_of
    on_new_file = ComparePanel.on_new_file

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.control("seed").setGroupSeparatorShown(False)
        self.control("bins").setSpecialValueText("none")

    def charts_made(self) -> None:
        """Its charts were made (with the first result): a slice's row opens its items."""
        self.chart("ForestChart").slice_clicked.connect(self.select_slice)

    def set_options(self, options):
        self._wanted_systems = (options.baseline_system, options.candidate_system)
        by = [b.strip() for b in (options.by or "").split(",") if b.strip()]
        super().set_options(dataclasses.replace(options, by=by[0] if by else None))
        from .fields import set_value

        self._loading = True
        try:
            set_value(self._controls["by"], by[0] if by else None)
            set_value(self._controls["by2"], by[1] if len(by) > 1 else None)
            set_value(self._controls["depth"], str(options.depth))
        finally:
            self._loading = False

    def _changed(self, *args):
        if not self._loading and self.sender() is self.control("system"):
            self.refresh_dependent_choices()
        super()._changed(*args)

    def options(self):
        """The form's options: the two slice columns become ``by``; the depth a number."""
        opts = super().options()
        second = self.value("by2")
        by = ",".join(c for c in dict.fromkeys((opts.by, second)) if c)
        return dataclasses.replace(opts, by=by or None, depth=int(opts.depth or 2))

    # -- a slice of the forest plot shows its items in the data table ---------------------------
    def slice_rows(self, by: str, label: str) -> np.ndarray:
        """0-based rows of the loaded table in slice ``label`` of column ``by`` (every system's rows)."""
        if self.last_result is None or self.table is None:
            return np.zeros(0, dtype=np.int64)
        bins = None
        try:
            frame = self.last_result.table("bins").frame
            part = frame[frame["by"].astype(str) == by]
            bins = [(str(r["slice"]), float(r["low"]), float(r["high"])) for _, r in part.iterrows()] or None
        except KeyError:
            pass
        return rows_of(self.table, by, label, bins)

    def select_slice(self, by: str, label: str) -> None:
        self.rows_label = f"slice {by} = {label}"
        self.select_rows.emit(self.slice_rows(by, label))
