from ...analyses import aggregate
from .base import AnalysisPanel, Field
from .engine_field import engine_field

FORMS = (("group", "outcome per group (micro / macro)"), ("ratio", "numerator / denominator"),
         ("unit", "outcome per unit (pooled / mean)"))


class AggregatePanel(AnalysisPanel):
    CHARTS = ("SegmentBarChart", "GroupRateChart", "GroupMeanChart")
    module = aggregate
    FIELDS = (
        Field("form", "Roll-up", "choice",
              "micro = sum/sum, macro = mean of group rates; pooled = sum/sum, mean of ratios = "
              "mean of per-unit ratios.", choices=FORMS),
        Field("outcome", "Outcome", "column", "0/1 per item, a score in [0, 1], or a measure in its own unit.",
              roles=("success",),
              forms=("group", "unit"), optional=False),
        Field("measure", "Own unit", "bool",
              "The outcome is a measure in its own unit (a log-probability, a correlation, a 1-5 rating): "
              "means in that unit, never 0/1 outcomes or percentages. Values outside 0 to 1 are read so anyway.",
              forms=("group", "unit")),
        Field("group", "Group / segment", "column", "Per-group table; macro averages over it. Optional: "
              "without one, the overall rate of each system (micro = macro).",
              roles=("group",), forms=("group",)),
        Field("version", "Version", "column", "Optional: per version, with a Simpson's paradox check.",
              roles=("version",), forms=("group",)),
        Field("numerator", "Numerator", "column", "e.g. correct claims.", roles=("numerator",),
              forms=("ratio",), optional=False),
        Field("denominator", "Denominator", "column", "e.g. claims.", roles=("denominator",),
              forms=("ratio",), optional=False),
        Field("unit", "Unit", "column", "Conversation, user…: the ratio is formed per unit.",
              roles=("unit", "cluster"), forms=("ratio", "unit")),
        engine_field("the counts per group"),
    )

    def refresh_dependent_choices(self) -> None:
        """'Own unit' shows what the reading decides: ticked when the chosen scorer is a measure
        in its own unit (MTEB's correlations, HELM's log-probabilities); a new file unticks it
        unless it is one; a tick the analyst set by hand stays on the same file."""
        super().refresh_dependent_choices()
        ctl = self._controls.get("measure")
        if ctl is None:
            return
        measure = False
        ev = getattr(self.table, "evaluation", None)
        if ev is not None:
            from ...analyses.reading import choose
            from ...io.evaluation import MEASURE

            try:
                scorer = choose(ev, self.reading.scorer, self.table)
            except Exception:  # noqa: BLE001 - an unknown scorer is said by the run itself
                scorer = None
            measure = scorer is not None and scorer.scale == MEASURE
        new_file = getattr(self, "_measure_of", None) is not self.table
        self._measure_of = self.table
        if measure or new_file:
            self._loading = True
            try:
                ctl.widget.setChecked(measure)
            finally:
                self._loading = False

    def form_for_roles(self, roles):
        return "ratio" if "numerator" in set(roles.values()) else "group"

    def form_of(self, options):
        if options.numerator or options.denominator:
            return "ratio"
        return "unit" if options.unit and not options.group else "group"

    def answer_for_card(self, result, sentences, badge, tone):
        """The card names the measure the outcome is (lm-eval's ``acc``, ``exact_match``), and
        says so when stacked files give different measures in different groups: their micro and
        macro pool different metrics."""
        if not sentences or self.table is None or self._current_form() == "ratio":
            return sentences, badge, tone
        try:
            measures = outcome_measures(self.table, self.options().outcome, self.options().group)
        except Exception:  # noqa: BLE001 - a label only; never in the way of the numbers
            return sentences, badge, tone
        names = list(dict.fromkeys(measures.values()))
        if len(names) == 1:
            return ((f"{names[0]}: {sentences[0]}", *sentences[1:]),
                    f"{names[0]} {badge}" if badge else badge, tone)
        if len(names) > 1:
            by = "; ".join(f"{m} in {', '.join(str(g) for g, n in measures.items() if n == m)}"
                           for m in names)
            return ((f"Different measures by group ({by}): {sentences[0]}",
                     "Micro and macro here pool different metrics: read each group's own rate, "
                     "not the pooled one.", *sentences[1:]), "mixed measures", "borderline")
        return sentences, badge, tone


#: outcome column names that say nothing of the measure (the reader's copy of a metric)
GENERIC_OUTCOMES = {"outcome", "success", "correct", "passed", "pass", "result", "label", "score"}


def outcome_measures(table, outcome: str | None, group: str | None) -> dict:
    """{group (or None): the measure the outcome column holds}: the column's own name, or for a
    generic name (``outcome``) the metric column it copies on every row of the group."""
    import numpy as np
    import pandas as pd

    frame = table.frame
    if not outcome or outcome not in frame.columns:
        return {}
    if str(outcome).lower() not in GENERIC_OUTCOMES:
        return {None: str(outcome)}
    values = pd.to_numeric(frame[outcome], errors="coerce").to_numpy(dtype=float)
    others = [c for c in frame.columns if c not in (outcome, group)
              and pd.api.types.is_numeric_dtype(frame[c])][:30]
    if not others:
        return {}
    groups = frame[group].astype(str).to_numpy() if group and group in frame.columns \
        else np.full(len(frame), None, dtype=object)
    if len(pd.unique(groups)) > 50:  # many groups (segments, not stacked tasks): one look
        groups = np.full(len(frame), None, dtype=object)
    out = {}
    for g in dict.fromkeys(groups.tolist()):
        rows = groups == g
        v = values[rows]
        for c in others:
            col = frame[c].to_numpy(dtype=float)[rows]
            if np.all(np.isfinite(col) == np.isfinite(v)) and np.array_equal(col[np.isfinite(v)], v[np.isfinite(v)]):
                out[g] = str(c)
                break
    return out
