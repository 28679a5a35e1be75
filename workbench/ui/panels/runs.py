import dataclasses

from ...analyses import runs
from .base import AnalysisPanel, Field


class RunsPanel(AnalysisPanel):
    """Many runs side by side: the item grid, items gained and lost, tie groups."""

    module = runs
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
