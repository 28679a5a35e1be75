import dataclasses

from ...analyses import rubric
from .base import AnalysisPanel, Field

FORMS = (("wide", "one column per criterion"), ("long", "criterion and verdict columns"))


class RubricPanel(AnalysisPanel):
    """Weighted yes/no criteria: the score, each criterion's pass rate, what moved the score."""

    module = rubric
    CHARTS = ("CriterionRateChart", "ContributionChart")
    FIELDS = (
        Field("form", "Input", "choice", "How the file holds the verdicts.", choices=FORMS),
        Field("item", "Item id", "column", "Pairs the systems' verdicts; duplicates are refused.",
              roles=("item",)),
        Field("system", "System", "column", "Optional: a score per system, paired against the baseline.",
              roles=("system", "version")),
        Field("baseline_system", "Baseline system", "text", "Empty: the first system in the file."),
        Field("criteria", "Criteria", "text",
              "The criterion columns, comma-separated, in the rubric's order. Empty: every column holding "
              "only yes/no verdicts.", forms=("wide",)),
        Field("criterion", "Criterion", "column", "The criterion's name.", roles=("criterion",),
              forms=("long",), optional=False),
        Field("verdict", "Verdict", "column", "yes/no, 1/0, pass/fail per item and criterion.",
              roles=("verdict",), forms=("long",), optional=False),
        Field("weights", "Weights", "text",
              "Comma-separated, in the order of the criteria. Empty: equal weights (or the rubric file's)."),
        Field("rubric", "Rubric file", "file",
              "Optional: a CSV with criterion, weight and description (instead of the weights)."),
        Field("missing", "Blank verdict", "choice",
              "skip: that criterion is left out for that item and the other weights renormalised.\n"
              "fail: a blank verdict counts as a fail.",
              choices=(("skip", "skip, renormalise"), ("fail", "count as fail"))),
        Field("resamples", "Bootstrap resamples", "int", "Of the paired score difference.",
              minimum=1000, maximum=1_000_000, step=1000),
        Field("seed", "Seed", "int", "Of the bootstrap.", minimum=0, maximum=2**31 - 1),
    )

    def options(self):
        opts = super().options()
        return dataclasses.replace(opts, baseline_system=opts.baseline_system or None)

    def form_for_roles(self, roles):
        return "long" if "verdict" in set(roles.values()) else "wide"

    def form_of(self, options):
        return "long" if options.criterion else "wide"

    def precheck(self):
        """A rubric needs criteria: two or more yes/no columns (or the long form's columns)."""
        if self.table is None or self._current_form() != "wide" or self.value("criteria"):
            return ""
        from ...analyses._common import verdict_columns

        skip = {c for c in (self.value("item"), self.value("system")) if c}
        found = verdict_columns(self.table, skip, rows=2000)
        if len(found) >= 2:
            return ""
        return ("A rubric needs two or more criterion columns of yes/no verdicts; this data has "
                f"{len(found) or 'no'} such column{'' if len(found) == 1 else 's'}. Name the criteria in "
                "'Criteria', or choose the long form (criterion and verdict columns).")

