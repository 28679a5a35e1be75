import dataclasses

import numpy as np

from ...analyses import judge
from .base import AnalysisPanel, Field


class JudgePanel(AnalysisPanel):
    """A judge's labels against people's: kappa, AC1, alpha, the corrected pass rate, biases."""

    module = judge
    CHARTS = ("ConfusionChart", "LabelShareChart")
    FIELDS = (
        Field("judge", "Judge's label", "column", "The label the judge (an LLM, a grader) gave each item.",
              roles=("judge",), optional=False),
        Field("human", "People's label", "column",
              "A person's label; blank where nobody labelled the item. Agreement and the corrected pass "
              "rate use this column.", roles=("human",)),
        Field("human2", "Second person", "column",
              "Optional: another person's labels (Krippendorff's alpha over the people, and over the "
              "judge with the people).", roles=("human2",)),
        Field("item", "Item id", "column", "Optional: names the items that disagree.", roles=("item",)),
        Field("positive", "Pass label", "text",
              "The label that means pass (exact text). Empty: guessed from pass/yes/true/1/correct."),
        Field("level", "Labels are", "choice",
              "auto: grades (numbers, more than two) are ordinal, other labels nominal.\n"
              "ordinal: weighted kappa (linear, quadratic) and ordinal alpha.\n"
              "interval: alpha with squared differences.",
              choices=(("auto", "auto"), ("nominal", "nominal"), ("ordinal", "ordinal"),
                       ("interval", "interval"))),
        Field("swap_judge", "Verdict, answers swapped", "column",
              "Optional: the judge's verdicts (A or B) with the two answers shown in the other order "
              "(position bias).", roles=("swap_judge",)),
        Field("length_a", "Length of answer A", "column", "Optional, with the length of B: length bias.",
              roles=("length_a",)),
        Field("length_b", "Length of answer B", "column", "Optional, with the length of A.",
              roles=("length_b",)),
        Field("label_map", "Judge's labels in people's words", "text",
              "When the judge's labels and the people's are different words (C/P/I against correct/partial/"
              "incorrect): JUDGE=PEOPLE pairs, e.g. C=correct,P=partial,I=incorrect. Agreement is never "
              "measured over labels that cannot meet."),
    )

    def current_reading(self):
        """The workspace's reading, with this panel's map of the judge's labels to the people's."""
        from ...analyses.judge_input import parse_label_map

        text = self.value("label_map")
        return dataclasses.replace(self.reading, label_map=parse_label_map(text) if text else ())

    def _people_alone(self) -> bool:
        """The file holds people's labels by several annotators and no judge (a Label Studio
        export, a plain table with an annotator column): the panel measures the people's agreement among themselves, as on the command line."""
        if self.table is None:
            return False
        from ...analyses.reading import evaluation_of  # a log's declaration, or a plain table's roles

        ev = evaluation_of(self.table, self.roles or None)
        return (ev.annotator is not None and not any(s.is_judge for s in ev.scorers)
                and super().options().judge is None)

    def missing_columns(self) -> list[str]:
        if self._people_alone():
            return []
        return super().missing_columns()

    def options(self):
        """The form's options; the two people's columns become the analysis's list."""
        opts = super().options()
        if self._people_alone():
            return dataclasses.replace(opts, human=None)
        second = self.value("human2")
        humans = tuple(c for c in (opts.human, second) if c)
        return dataclasses.replace(opts, human=humans or None)

    # -- the confusion matrix's cells open their items in the data table ------------------------
    def charts_made(self) -> None:
        """Its charts were made (with the first result): the matrix's cells answer clicks."""
        self.chart("ConfusionChart").cell_clicked.connect(self.select_cell)

    def cell_rows(self, judge_label: str, human_label: str):
        """0-based rows of the loaded table of the items the judge labelled ``judge_label`` and
        people ``human_label`` (a disagreeing cell: from the result's disagreements table)."""
        from .compare import rows_for_lines

        if self.last_result is None or self.table is None:
            return np.zeros(0, dtype=np.int64)
        dis = self.last_result.table("disagreements").frame
        pick = dis[(dis["judge"].astype(str) == judge_label) & (dis["human"].astype(str) == human_label)]
        return rows_for_lines(self.table, pick["line"].to_numpy(dtype=np.int64))

    def select_cell(self, judge_label: str, human_label: str) -> None:
        self.rows_label = f"judge {judge_label}, people {human_label}"
        self.select_rows.emit(self.cell_rows(judge_label, human_label))
