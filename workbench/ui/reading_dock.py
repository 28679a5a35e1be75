"""The "What this file holds" card: the file's systems or runs, items and repeats, scorers
(kind, scale, scored and unscored records), annotators, errors and limits, usage; and the two
decisions every panel shares, made here once: the scorer and what an errored record counts as.

The description is computed on a worker (:mod:`workbench.analyses.describe`); a change of
either decision is emitted as a :class:`~workbench.analyses.reading.Reading` for the
workspace to hand to every panel (whose cards, signatures and report sheets name it)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHeaderView, QLabel, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from .tasks import TaskRunner

ERROR_CHOICES = (("exclude", "left out (and counted)"), ("fail", "counted as failures"))
#: The description's tables shown, in order, with their columns.
SHOWN = (("systems", ("system", "records", "items", "repeats")),
         ("scorers", ("scorer", "kind", "scale", "scored", "unscored")),
         ("statuses", ("status", "records")),
         ("annotators", ("annotator", "labels")))


class ReadingCard(QWidget):
    """The card (in its dock); ``reading_changed`` when the user changes a decision."""

    reading_changed = Signal(object)
    described = Signal(object)          # the description (an AnalysisResult), when it is in

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("readingCard")
        self.table = None
        self.roles: dict[str, str] = {}
        self.last_result = None
        self._loading = False
        self._errors_value = "exclude"
        self._label_map: tuple = ()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.summary = QLabel("Open a file to see what it holds.")
        self.summary.setObjectName("readingSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        form = QFormLayout()
        self.scorer = QComboBox()
        self.scorer.setObjectName("readingScorer")
        self.scorer.setAccessibleName("Scorer")
        self.scorer.setAccessibleDescription("The scorer whose values every panel reads as the outcome or score")
        self.scorer.setToolTip("The scorer (or recorded metric) every panel reads; the tool's own primary "
                               "scorer by default. Named on every card, signature and report sheet.")
        self.scorer.currentIndexChanged.connect(self._changed)
        self.errors = QComboBox()
        self.errors.setObjectName("readingErrors")
        self.errors.setAccessibleName("Errored records")
        self.errors.setToolTip("Records that ended with an error (and records a scorer left unscored): "
                               "left out of every number and counted, or counted as failures. One choice "
                               "for every panel.")
        for value, label in ERROR_CHOICES:
            self.errors.addItem(label, value)
        self.errors.currentIndexChanged.connect(self._changed)
        form.addRow("Scorer:", self.scorer)
        form.addRow("Errors:", self.errors)
        layout.addLayout(form)
        self.views: dict[str, QTableWidget] = {}
        for name, _cols in SHOWN:
            view = QTableWidget(0, 0)
            view.setObjectName(f"reading:{name}")
            view.setAccessibleName(f"What this file holds: {name}")
            view.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
            view.verticalHeader().setVisible(False)
            view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            view.setVisible(False)
            layout.addWidget(view)
            self.views[name] = view
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setObjectName("readingNotes")
        layout.addWidget(self.notes)
        layout.addStretch(1)
        self.runner = TaskRunner(self)
        self.runner.finished.connect(self._show)
        self.runner.failed.connect(lambda err, _d: self.summary.setText(f"Could not describe the file: {err}"))

    # -- the decisions ------------------------------------------------------------------------
    def reading(self):
        from ..analyses.reading import Reading

        return Reading(scorer=self.scorer.currentData() or None,
                       errors=self.errors.currentData() or "exclude", label_map=self._label_map)

    def set_reading(self, reading) -> None:
        """Show a saved reading (a session's) without emitting a change."""
        self._loading = True
        try:
            if reading.scorer is not None:
                index = self.scorer.findData(reading.scorer)
                if index < 0:
                    self.scorer.addItem(reading.scorer, reading.scorer)
                    index = self.scorer.count() - 1
                self.scorer.setCurrentIndex(index)
            else:
                self.scorer.setCurrentIndex(0)
            self.errors.setCurrentIndex(max(0, self.errors.findData(reading.errors)))
            self._label_map = tuple(reading.label_map)
        finally:
            self._loading = False

    def _changed(self, *_args) -> None:
        if self._loading:
            return
        self.reading_changed.emit(self.reading())
        if self.table is not None:
            self._describe()

    # -- the description ------------------------------------------------------------------------
    def set_table(self, table, roles: dict[str, str], *, describe: bool = True) -> None:
        """A new file: its scorers offered, its description computed on a worker (``describe``
        False: when :meth:`describe_after` says)."""
        from ..analyses.reading import evaluation_of

        self.table, self.roles = table, dict(roles)
        evaluation = evaluation_of(table, roles)
        self._loading = True
        try:
            self.scorer.clear()
            primary = evaluation.scorer()
            self.scorer.addItem(f"{primary.name} (the tool's primary)" if primary is not None
                                else "(none: the panels' columns)", None)
            for s in evaluation.scorers:
                self.scorer.addItem(f"{s.name} ({s.kind}, {s.scale})", s.name)
            self.scorer.setEnabled(bool(evaluation.scorers))
        finally:
            self._loading = False
        if describe:
            self._describe()
        else:
            self.summary.setText(f"Reading {table.name}…")

    def describe_after(self, runner) -> None:
        """Describe the file once ``runner`` (the landing panel's, on a large file) is idle: its
        answer first, the two would share the cores."""
        table = self.table
        if runner is None:
            self._describe()
            return
        runner.when_idle(lambda: self._describe() if self.table is table and table is not None else None)

    def _describe(self) -> None:
        from ..analyses import describe

        table, reading, roles = self.table, self.reading(), dict(self.roles)
        self.summary.setText(f"Reading {table.name}…")
        self.runner.start(lambda _progress: describe.run(table, reading, roles))

    def _show(self, result) -> None:
        self.last_result = result
        counts = {r["metric"]: r["value"] for r in result.records if r.get("system") is None and r.get("group") is None}
        sig = dict(p.split(":", 1) for p in result.signature.split("|") if ":" in p)
        systems = result.table("systems").frame
        parts = [f"{sig.get('tool', 'table')}{' ' + sig['version'] if sig.get('version') else ''}",
                 f"{len(systems)} system{'s' if len(systems) != 1 else ''}",
                 f"{int(counts.get('records', 0)):,} records"]
        if "items" in counts:
            parts.append(f"{int(counts['items']):,} items"
                         + (f" x {int(counts['repeats_max'])} repeats" if counts.get("repeats_max", 1) > 1 else ""))
        if counts.get("error"):
            parts.append(f"{int(counts['error'])} errored")
        limits = {m: v for m, v in counts.items() if str(m).startswith("limit:") and v}
        if limits:
            parts.append(", ".join(f"{int(v)} hit a {m[6:]} limit" for m, v in limits.items()))
        self.summary.setText("What this file holds: " + "; ".join(parts) + ".")
        self.summary.setAccessibleDescription(self.summary.text())
        for name, columns in SHOWN:
            view = self.views[name]
            try:
                frame = result.table(name).frame
            except KeyError:
                view.setVisible(False)
                continue
            cols = [c for c in columns if c in frame.columns]
            view.setColumnCount(len(cols))
            view.setHorizontalHeaderLabels(cols)
            view.setRowCount(len(frame))
            for i, row in enumerate(frame[cols].itertuples(index=False)):
                for j, value in enumerate(row):
                    text = "" if value is None or value != value else (
                        f"{int(value):,}" if isinstance(value, float) and float(value).is_integer() else str(value))
                    item = QTableWidgetItem(text)
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    view.setItem(i, j, item)
            view.setVisible(len(frame) > 0)
            view.setFixedHeight(min(200, view.horizontalHeader().height() + 4
                                    + sum(view.rowHeight(i) for i in range(len(frame)))))
        self.notes.setText("\n".join(n for n in result.notes if n.startswith(("Inspect reduces", "promptfoo's own",
                                                                                 "People's labels"))))
        self.described.emit(result)

    def shutdown(self) -> None:
        self.runner.detach()


__all__ = ["ERROR_CHOICES", "ReadingCard"]
