import dataclasses

import numpy as np

from ...analyses import runs
from ...io import to_text
from .base import AnalysisPanel, Field
from .runs_grid import RunsGrid


class RunsPanel(AnalysisPanel):
    """Many runs side by side: the item grid, items gained and lost, tie groups."""

    module = runs
    CHARTS = ("RunGroupsChart",)
    FIELDS = (
        Field("system", "Run", "column", "Which run a row belongs to (stacked files: the file).",
              roles=("system", "version")),
        Field("item", "Item id", "column", "One value per run and item (empty: guessed from its name).",
              roles=("item", "task")),
        Field("outcome", "Outcome (0/1)", "column", "Or leave empty and choose a score.", roles=("success",)),
        Field("score", "Score", "column", "Any number (instead of a 0/1 outcome).", roles=("score",)),
        Field("order", "Order by", "column", "Optional: a date or version column; else file order.",
              roles=("order",)),
        Field("baseline_system", "Baseline run", "text", "Empty: the first run."),
        Field("groups", "Tie groups", "choice",
              "tukey: randomised Tukey HSD for paired data (all pairs at once, pairing kept).\n"
              "holm: Holm-adjusted paired tests.",
              choices=(("tukey", "randomised Tukey HSD"), ("holm", "Holm over paired tests"))),
        Field("better", "Better is", "choice", "Which direction of the score is better.",
              choices=(("higher", "higher"), ("lower", "lower"))),
        Field("rounds", "Permutation rounds", "int", "Of the Tukey HSD and randomization tests.",
              minimum=1000, maximum=1_000_000, step=1000),
        Field("resamples", "Bootstrap resamples", "int", "Of the paired differences.",
              minimum=1000, maximum=1_000_000, step=1000),
        Field("seed", "Seed", "int", "Of the bootstrap and the permutations.", minimum=0, maximum=2**31 - 1),
    )

    def options(self):
        opts = super().options()
        # one value column: a chosen score wins over a guessed outcome
        if opts.score and opts.outcome and self._controls["outcome"].widget.currentData() is None:
            opts = dataclasses.replace(opts, outcome=None)
        return dataclasses.replace(opts, baseline_system=opts.baseline_system or None)

    # -- the item grid: filters, heat map, click-through -------------------------------------------
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.grid_view = RunsGrid()
        self.grid_view.items_chosen.connect(self.select_items)
        self.tabs.insertTab(1, self.grid_view, "Item grid")
        self.tabs.setTabVisible(self.tabs.indexOf(self.grid_view), False)
        self._item_text: tuple | None = None  # (table, item column, its cells as text)

    def render(self, result):
        super().render(result)
        self.grid_view.set_result(result)
        self.tabs.setTabVisible(self.tabs.indexOf(self.grid_view), True)
        generic = self._table_views.get("grid")
        if generic is not None:  # the grid is shown with its filters and heat map instead
            self.tabs.setTabVisible(self.tabs.indexOf(generic), False)

    def on_cleared(self):
        self.grid_view.clear()
        self.tabs.setTabVisible(self.tabs.indexOf(self.grid_view), False)

    def item_rows(self, items) -> np.ndarray:
        """0-based rows of the loaded table holding these items (in every run)."""
        if self.table is None:
            return np.zeros(0, dtype=np.int64)
        if self._item_text is None or self._item_text[0] is not self.table:
            _run_col, item_col = runs.run_and_item_columns(self.table, self.options(), [])
            self._item_text = (self.table, item_col, np.asarray(to_text(self.table, item_col), dtype=object))
        return np.flatnonzero(np.isin(self._item_text[2], np.asarray(list(items), dtype=object)))

    def select_items(self, positions) -> None:
        """Rows of the grid table (positions) -> those items' rows in the data table."""
        if self.last_result is None:
            return
        grid = self.last_result.table("grid").frame
        self.rows_label = "items chosen in the grid"
        self.select_rows.emit(self.item_rows(grid["item"].astype(str).iloc[np.asarray(positions)]))
