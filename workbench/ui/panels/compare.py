import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QPushButton

from ...analyses import compare
from ..models import distinct_texts
from .base import AnalysisPanel, Field

FORMS = (("wide", "one column per system"), ("long", "system, item, outcome rows"))
FILE = "file"
#: the panels whose per-unit tables can be Compare's metric (workbench/analyses/compare_source.py)
SOURCE_PANELS = ("ranking", "text")
#: controls of the file-columns source only
FILE_ONLY = ("form", "baseline", "candidate", "system", "outcome", "baseline_system", "candidate_system",
             "item", "cluster")


class ComparePanel(AnalysisPanel):
    CHARTS = ("CompareIntervalChart", "BootstrapChart")
    module = compare
    FIELDS = (
        Field("source", "Metric from", "choice",
              "Where the compared metric comes from: the columns of the opened file, or the per-query "
              "table of the Ranking panel / the per-item table of the Text panel when that panel has a "
              "result with two or more systems (listed here as soon as it has one).",
              choices=((FILE, "the file's columns"),), default=FILE),
        Field("metric", "Metric", "choice",
              "A numeric column of the chosen table: each query's (or item's) score for each system.",
              forms=("@source",)),
        Field("source_baseline", "Baseline system", "choice", "Which system of the table is the baseline.",
              forms=("@source",)),
        Field("source_candidate", "Candidate system", "choice", "Which system of the table is the candidate.",
              forms=("@source",)),
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

    def __init__(self, parent=None):
        super().__init__(parent)
        # a seed is an identifier, not a quantity: 12345, as the signature and the rule file write it
        self.control("seed").setGroupSeparatorShown(False)
        # 0 draws no band: the box says "none" rather than a difference of 0.0 points
        self.control("margin").setSpecialValueText("none")
        #: panel name -> its result with a per-unit table Compare can use (same file only)
        self._sources: dict = {}
        self._running_source = None
        #: (panel name, source result, metric) of the result on screen; None: the file's columns
        self.shown_source = None
        self._source_note = ""
        #: a saved choice (session) to make once its source's result on this file is in
        self._wanted_source: dict | None = None

    # -- the metric from another panel's per-query / per-item table ---------------------------
    def source_key(self) -> str:
        return self.control("source").currentData() or FILE

    def source_names(self) -> list[str]:
        """The sources offered, in the combo's order ("file" first)."""
        combo = self.control("source")
        return [combo.itemData(i) for i in range(combo.count())]

    def set_source_result(self, name: str, result, sha256=None) -> None:
        """The ``name`` panel has a new result (or none: ``result`` None).  It becomes a source
        when it has a per-unit table of two or more systems that can be paired, computed from
        the file this panel has open; a source that goes away takes its numbers off this panel,
        and a chosen source that changes is re-run (the message says so)."""
        from ...analyses import compare_source as cs

        if result is not None and (cs.source_of(result) is None or self.table is None
                                   or sha256 != getattr(self.table, "sha256", None)):
            result = None
        old = self._sources.get(name)
        if result is old:
            return
        if result is None:
            self._sources.pop(name, None)
        else:
            self._sources[name] = result
        chosen = self.source_key() == name
        shown = self.shown_source is not None and self.shown_source[0] == name
        running = self._running_source is not None and self._running_source[0] == name and self.runner.busy
        self._refresh_sources(fill=False)
        label = cs.SOURCES[name].label
        if not chosen:
            if result is not None and self._wanted_source and self._wanted_source.get("source") == name:
                self._apply_wanted(name)  # a session's choice, on this file's result
            elif result is not None:
                self._offer_sources_in_message()
            return
        if result is None:  # the chosen source is gone: nothing of it stays on screen
            if running:
                self.runner.cancel()
            self._running_source = None
            self.clear_results()
            self._show_message(f"The {label} is gone (its panel was cleared, or its new result has fewer than "
                               f"two systems to pair); its comparison was taken off. Compare is back on the "
                               f"file's columns: choose a source under 'Metric from'.")
            self._update_visibility()
            return
        metric = self.control("metric").currentData()
        kept = self._fill_source_choices()
        if not kept:
            self.runner.cancel()
            self._running_source = None
            self.clear_results()
            self._show_message(f"The {label} changed and no longer has '{metric}' or the chosen systems: "
                               f"the previous comparison was taken off; choose the metric and systems again.")
            return
        if shown or running:
            self._source_note = (f"The {label} changed (its panel re-ran with other options or data): this "
                                 f"comparison was re-run on the new table.")
        self.run_now()

    def source_setting(self) -> dict | None:
        """The chosen source, metric and systems (saved in a session); None: the file's columns."""
        key = self.source_key()
        if key == FILE:
            return self._wanted_source  # a saved choice still waiting for its source is kept
        return {"source": key, "metric": self.control("metric").currentData() or "",
                "baseline": self.control("source_baseline").currentData() or "",
                "candidate": self.control("source_candidate").currentData() or ""}

    def set_source_setting(self, setting: dict | None) -> None:
        """A session's choice: made as soon as that panel has its result on the new file."""
        self._wanted_source = dict(setting) if setting and setting.get("source") in SOURCE_PANELS else None

    def _apply_wanted(self, name: str) -> bool:
        wanted, self._wanted_source = self._wanted_source, None
        combo = self.control("source")
        self._loading = True
        try:
            combo.setCurrentIndex(combo.findData(name))
        finally:
            self._loading = False
        self._fill_source_choices()
        self._loading = True
        try:
            for key, field in (("metric", "metric"), ("baseline", "source_baseline"),
                               ("candidate", "source_candidate")):
                idx = self.control(field).findData(wanted.get(key))
                if idx >= 0:
                    self.control(field).setCurrentIndex(idx)
        finally:
            self._loading = False
        self._update_visibility()
        self.run_now()
        return True

    def source_options_changed(self, name: str) -> None:
        """The ``name`` panel's options changed: until its new result is in, say that the
        comparison shown comes from its previous table (it is re-run then)."""
        from ...analyses import compare_source as cs

        if self.source_key() == name and self.shown_source is not None and self.shown_source[0] == name:
            self._show_message(f"The {cs.SOURCES[name].label}'s options changed: the numbers below are from its "
                               f"previous table until it has re-run; this comparison is then re-run on the new one.")

    def source_failed(self, name: str) -> None:
        """The ``name`` panel's re-run failed: it still shows its previous result, and so does this
        comparison; the message says which table the numbers are from."""
        from ...analyses import compare_source as cs

        if self.source_key() == name and self.shown_source is not None and self.shown_source[0] == name:
            self._show_message(f"The {cs.SOURCES[name].label}'s panel could not re-run (see its message): the "
                               f"numbers below are from its previous table, which that panel still shows.")

    def _refresh_sources(self, fill: bool = True) -> None:
        """The 'Metric from' list: the file's columns, then every panel table on offer."""
        from ...analyses import compare_source as cs

        combo: QComboBox = self.control("source")
        current = self.source_key()
        self._loading = True
        try:
            combo.clear()
            combo.addItem("the file's columns", FILE)
            for name in SOURCE_PANELS:
                result = self._sources.get(name)
                if result is None:
                    continue
                src = cs.SOURCES[name]
                units = cs._units(result, src)[src.unit].nunique()
                combo.addItem(f"{src.label}, {units:,} {src.unit_word}", name)
                combo.setItemData(combo.count() - 1, f"The {src.label} of the {src.analysis.capitalize()} panel's "
                                  f"result: {len(cs.systems(result))} systems, {units:,} {src.unit_word}.",
                                  Qt.ItemDataRole.ToolTipRole)
            idx = combo.findData(current)
            combo.setCurrentIndex(idx if idx >= 0 else 0)
        finally:
            self._loading = False
        if fill and current != FILE and combo.findData(current) >= 0:
            self._fill_source_choices()
        self._update_visibility()

    def _fill_source_choices(self) -> bool:
        """Fill the metric and system choices from the chosen source's table, keeping the
        current choices when the table still has them.  False when a choice had to change."""
        from ...analyses import compare_source as cs

        result = self._sources.get(self.source_key())
        metrics = cs.metrics(result) if result is not None else []
        names = cs.systems(result) if result is not None else []
        kept = True
        self._loading = True
        try:
            combo: QComboBox = self.control("metric")
            previous = combo.currentData()
            combo.clear()
            for m in metrics:
                combo.addItem(cs.metric_label(m), m)
            if previous is not None and previous in metrics:
                combo.setCurrentIndex(combo.findData(previous))
            else:
                kept = kept and previous is None
                default = cs.default_metric(result) if result is not None else None
                combo.setCurrentIndex(max(0, combo.findData(default)))
            for i, key in enumerate(("source_baseline", "source_candidate")):
                combo = self.control(key)
                previous = combo.currentData()
                combo.clear()
                for name in names:
                    combo.addItem(name, name)
                if previous is not None and previous in names:
                    combo.setCurrentIndex(combo.findData(previous))
                else:
                    kept = kept and previous is None
                    combo.setCurrentIndex(min(i, len(names) - 1))
        finally:
            self._loading = False
        return kept

    def source_options(self) -> compare.Options:
        """The Compare options of a run on a panel's table: its systems, and this form's test
        family, resamples and seed."""
        return compare.Options(baseline_system=self.control("source_baseline").currentData(),
                               candidate_system=self.control("source_candidate").currentData(),
                               scores=self.control("scores").currentData(),
                               resamples=int(self.control("resamples").value()),
                               seed=int(self.control("seed").value()))

    def _update_visibility(self):
        super()._update_visibility()
        derived = self.source_key() != FILE
        form = self._current_form()
        for ctl in self._controls.values():
            if "@source" in ctl.spec.forms:
                visible = derived
            elif ctl.spec.name in FILE_ONLY:
                visible = not derived and (not ctl.spec.forms or form in ctl.spec.forms)
            else:
                continue
            ctl.widget.setVisible(visible)
            ctl.row_label.setVisible(visible)

    def set_data(self, table, roles, *, run: bool = True):
        if table is not self.table and self._sources:  # another file: no table of the previous one
            self._sources.clear()
            self._refresh_sources()
        super().set_data(table, roles, run=run)

    def missing_columns(self):
        return [] if self.source_key() != FILE else super().missing_columns()

    def precheck(self):
        """Two systems to compare, in the long form: one is said, not tried."""
        if self.source_key() != FILE or self._current_form() != "long" or self.table is None:
            return ""
        col = self.value("system")
        if col is None or col not in self.table.frame.columns:
            return ""
        names = distinct_texts(self.table, col, 200)
        if len(names) >= 2:
            return ""
        which = f" ('{names[0]}' in column '{col}')" if names else f" in column '{col}'"
        return (f"This data has one system{which}: a comparison needs two. Open the runs to "
                f"compare together (File > Open, choose several files), or a file with a row "
                f"per system and item.")

    def _source_hint(self) -> str:
        from ...analyses import compare_source as cs

        if not getattr(self, "_sources", None):
            return ""
        labels = " or ".join(cs.SOURCES[n].label for n in SOURCE_PANELS if n in self._sources)
        return f" Or take the metric from the {labels} under 'Metric from'."

    def reason_not_applicable(self, missing):
        reason = super().reason_not_applicable(missing)
        return reason + self._source_hint() if reason else reason

    def _on_failed(self, error, details):
        super()._on_failed(error, details)
        if self.source_key() == FILE and self.last_error and self._source_hint():
            self._show_error(self.last_error + self._source_hint())

    def _offer_sources_in_message(self) -> None:
        """A new source while the file's columns cannot be compared: the sentence says so."""
        if self.source_key() != FILE or self.last_result is not None:
            return
        hint = self._source_hint()
        if self.last_error and hint and hint not in self.last_error:
            self._show_error(self.last_error + hint)
        elif self.not_applicable and self.missing_columns():
            self._set_applicable(self.reason_not_applicable(self.missing_columns()))
            self._show_message(self.not_applicable + " Choose the column on the left, or set its role in the "
                               "Columns list.")

    def run_now(self):
        from ...analyses import compare_source as cs
        from ...core.errors import WorkbenchError

        key = self.source_key()
        if key == FILE:
            self._running_source = None
            return super().run_now()
        self._debounce.stop()
        if self.closed:
            return
        result = self._sources.get(key)
        if self.table is None or result is None:
            return
        self._set_applicable("")
        metric = self.control("metric").currentData()
        try:
            options = self.source_options()
            compare.check_options(options)
        except WorkbenchError as err:
            self._show_error(str(err))
            return
        self._running_sha256 = getattr(self.table, "sha256", None)
        self._running_source = (key, result, metric)
        if not self._source_note:
            self._show_message("")
        self.busy.start(f"Comparing {cs.metric_label(metric)} from the {cs.SOURCES[key].label}…")
        self.runner.start(lambda progress: cs.run(result, metric, options, progress))

    def _on_result(self, result):
        self.shown_source = self._running_source
        super()._on_result(result)
        if self._source_note:
            self._show_message(self._source_note)
            self._source_note = ""

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

    def on_new_file(self):
        """The previous file's systems decide nothing: the first two of the new file are the
        baseline and the candidate (a session's saved pair is kept, see set_options)."""
        self._wanted_systems = None
        self._loading = True
        try:
            for key in ("baseline_system", "candidate_system"):
                self.control(key).clear()
        finally:
            self._loading = False

    def set_options(self, options):
        # the saved systems are chosen once the session's file has filled the choices
        self._wanted_systems = (options.baseline_system, options.candidate_system)
        super().set_options(options)

    def refresh_dependent_choices(self):
        names = []
        col = self.value("system")
        if self.table is not None and col in self.table.frame.columns:
            names = distinct_texts(self.table, col, 200)
        wanted = getattr(self, "_wanted_systems", None)
        if names and wanted is not None:
            self._wanted_systems = None
        chosen = []
        self._loading = True
        try:
            for i, key in enumerate(("baseline_system", "candidate_system")):
                combo: QComboBox = self.control(key)
                previous = wanted[i] if names and wanted is not None and wanted[i] in names \
                    else combo.currentData()
                combo.clear()
                for name in names:
                    combo.addItem(name, name)
                if previous in names and previous not in chosen:
                    combo.setCurrentIndex(combo.findData(previous))
                else:  # the first system not already the baseline
                    free = [j for j, name in enumerate(names) if name not in chosen]
                    if free:
                        combo.setCurrentIndex(free[0])
                chosen.append(combo.currentData())
        finally:
            self._loading = False

    def _changed(self, *args):
        if not self._loading and self.sender() is self.control("system"):
            self.refresh_dependent_choices()
        if not self._loading and self.sender() is self.control("source"):
            self._fill_source_choices()
            self._source_note = ""
            self._wanted_source = None  # the analyst's choice wins over a session's pending one
        super()._changed(*args)

    def form_of(self, options):
        return "long" if options.system else "wide"

    def render(self, result):
        super().render(result)
        changed = result.table("discordant").frame
        source = getattr(self, "shown_source", None)
        if source is not None and "line" not in changed.columns:  # a query spans many rows of the file
            self.show_discordant.setEnabled(False)
            self.show_discordant.setText(f"{len(changed)} queries changed (listed in a tab)")
            self.show_discordant.setToolTip("A query is many rows of the file (one per document), so they "
                                            "are listed in the result's tab instead of the data table.")
            return
        self.show_discordant.setToolTip("Filters the data table to the discordant items (wins and losses)"
                                        + ("; the baseline's rows." if source is not None else "."))
        self.show_discordant.setEnabled(len(changed) > 0)
        self.show_discordant.setText(f"Show the {len(changed)} items that flipped in the data table")

    def on_cleared(self):
        self.shown_source = None
        self.show_discordant.setEnabled(False)
        self.show_discordant.setText("Show the items that flipped in the data table")

    def discordant_rows(self) -> np.ndarray:
        """0-based rows of the loaded table holding the discordant items."""
        if self.last_result is None or self.table is None:
            return np.zeros(0, dtype=np.int64)
        frame = self.last_result.table("discordant").frame
        if "line" not in frame.columns:
            return np.zeros(0, dtype=np.int64)
        lines = frame["line"].to_numpy(dtype=np.int64)
        return rows_for_lines(self.table, lines)

    def _select_discordant(self):
        self.rows_label = "discordant items"
        self.select_rows.emit(self.discordant_rows())


def rows_for_lines(table, lines) -> np.ndarray:
    """Invert ``table.line_of`` for many lines at once."""
    lines = np.asarray(lines, dtype=np.int64)
    if table.row_lines is not None:
        return np.searchsorted(np.asarray(table.row_lines), lines).astype(np.int64)
    offset = 1 if table.format == "parquet" else 2
    return lines - offset
