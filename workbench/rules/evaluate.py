"""Evaluating a release rule on loaded tables: the decision card as an ``AnalysisResult``.

Semantics (also in :mod:`workbench.rules`): every condition is judged on an interval at level
``1 - alpha`` (two-sided) and, for paired conditions, a two-sided significance test at
``alpha``; the condition is PASS, FAIL or INCONCLUSIVE; the rule's verdict is FAIL if any
condition fails, else INCONCLUSIVE if any is inconclusive, else PASS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from ..core import numbers
from ..core.errors import DataError
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, guess_column, require_columns, to_binary, to_float, to_text
from .spec import (COST, JUDGE, JUDGE_METRICS, LATENCY, PAIRED, RANKING, TEST_NAMES, Condition, Rule,
                   RuleError, format_amount, format_interval, format_value)

NAME = "gate"
TITLE = "Release gate"
PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
#: exit status of ``workbench gate`` for each verdict (2 is a usage or data error)
EXIT_CODES = {PASS: 0, FAIL: 1, INCONCLUSIVE: 3}
CHANGED_NOTE = "rule changed after results were seen"
MDE_MULTIPLIER = 2.8
_EPS = 1e-12


@dataclass
class Outcome:
    """What was measured for one condition, before it is judged."""

    observed: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    input_index: int
    p_value: float | None = None
    counts: str = ""
    basis: str = ""
    notes: list[str] = field(default_factory=list)
    evalset: dict | None = None
    discordance: float | None = None     # paired binary: discordant / n
    sd: float | None = None              # ranking: sd of the per-query differences
    discordant: int | None = None        # items (or queries) that differ
    unit_word: str = "items"


# --- public entry point ---------------------------------------------------------------------------

def evaluate(rule: Rule, tables: Sequence[LoadedTable], *, rule_changed_after_results: bool = False,
             progress=NULL_PROGRESS) -> AnalysisResult:
    """Judge every condition of ``rule`` on ``tables`` (the INPUT files, in order).

    Returns the decision card: ``analysis="gate"``, a ``verdict`` record, one record per
    condition, and the tables ``card``, ``items`` (eval-set check) and ``rule``.
    ``rule_changed_after_results`` marks the card "rule changed after results were seen".
    """
    tables = list(tables)
    if not tables:
        raise DataError("The gate needs at least one input file with results.")
    alpha = rule.alpha
    outcomes: list[Outcome] = []
    for pos, cond in enumerate(rule.conditions):
        progress.check_cancelled()
        progress.advance(pos / (len(rule.conditions) + 1), f"condition {cond.index}: {cond.metric}")
        idx, how = _pick_input(rule, cond, tables)
        table = tables[idx]
        try:
            if cond.kind == PAIRED:
                out = _eval_paired(cond, table, alpha, progress)
            elif cond.kind == RANKING:
                out = _eval_ranking(cond, table, alpha, progress)
            elif cond.kind == JUDGE:
                out = _eval_judge(cond, table, alpha, progress)
            else:
                out = _eval_cost_latency(cond, table, alpha, progress)
        except DataError as err:  # say which condition needed the data
            msg = str(err)
            raise DataError(f"[[condition]] {cond.index} ({cond.metric}) of rule file '{rule.file_name}' "
                            f"reads input {idx + 1}: {msg[:1].lower()}{msg[1:]}") from None
        out.input_index = idx + 1
        if how:
            out.notes.insert(0, how)
        outcomes.append(out)

    # multiplicity: Holm over the conditions that carry a test
    tested = [i for i, (c, o) in enumerate(zip(rule.conditions, outcomes))
              if c.test != "none" and c.bound != "point" and o.p_value is not None
              and math.isfinite(o.p_value)]
    adjusted: dict[int, float] = {}
    if tested:
        raw = [outcomes[i].p_value for i in tested]
        adj = holm(raw) if rule.multiplicity == "holm" else np.asarray(raw, dtype=float)
        adjusted = {i: float(a) for i, a in zip(tested, adj)}

    rows, records, notes, items_rows = [], [record("verdict", None)], [], []
    if rule_changed_after_results:
        notes.append(f"{CHANGED_NOTE[0].upper()}{CHANGED_NOTE[1:]}: the release rule was edited after "
                     f"the results had been shown, so this card is not a pre-registered decision.")
    statuses = []
    for i, (cond, out) in enumerate(zip(rule.conditions, outcomes)):
        p_adj = adjusted.get(i)
        status, reason = judge(cond, out, p_adj, alpha)
        statuses.append(status)
        row_notes = list(out.notes)
        more = None
        if status == INCONCLUSIVE and cond.paired:
            more, sentence = _more_items(cond, out)
            if sentence:
                row_notes.append(sentence)
        if (status == PASS and cond.threshold_key == "max_drop" and out.observed is not None
                and out.observed > 0 and cond.test != "none" and p_adj is not None and p_adj >= alpha):
            row_notes.append(_gain_not_shown(cond, out, p_adj, len(tested) > 1 and rule.multiplicity == "holm",
                                             alpha))
        if cond.note:
            row_notes.insert(0, f"Rule note: {cond.note}")
        if rule_changed_after_results:
            row_notes.insert(0, CHANGED_NOTE)
        rows.append({
            "index": cond.index,
            "condition": cond.describe(),
            "metric": cond.metric,
            "input": out.input_index,
            "n": out.n,
            "observed": out.observed,
            "ci_low": out.ci_low,
            "ci_high": out.ci_high,
            "threshold": cond.limit,
            "requirement": cond.requirement(),
            "status": status,
            "reason": reason,
            "basis": out.basis,
            "counts": out.counts,
            "p_value": out.p_value if cond.test != "none" else None,
            "p_holm": p_adj,
            "more_items": more,
            "unit": cond.unit,
            "notes": " | ".join(row_notes),
        })
        extra = {"from_": cond.baseline, "to": cond.candidate} if cond.relative else {"system": cond.candidate}
        records.append(record(cond.metric, out.observed, n=out.n, ci_low=out.ci_low,
                              ci_high=out.ci_high, k=cond.k, **extra))
        if out.evalset is not None:
            items_rows.append({"index": cond.index, "condition": cond.describe(), "input": out.input_index,
                               **out.evalset})
        notes += [f"Condition {cond.index} ({cond.metric}): {n}" for n in row_notes
                  if n != CHANGED_NOTE]

    verdict = overall(statuses)
    unmet = [c.index for c, st in zip(rule.conditions, statuses) if c.kind == JUDGE and st != PASS]
    if unmet and verdict == FAIL:
        verdict = INCONCLUSIVE
    if unmet:
        which = ", ".join(map(str, unmet))
        notes.insert(0, f"The judge requirement (condition {which}) is not met, so the judge's numbers are "
                        f"not trusted: the verdict is INCONCLUSIVE whatever the other conditions say "
                        f"until the judge agrees well enough with people.")
    records[0] = record("verdict", verdict)
    records.insert(1, record("rule_changed_after_results", bool(rule_changed_after_results)))

    judged = sum(1 for c in rule.conditions if c.bound != "point")
    if judged >= 2:
        sentence = (f"With {judged} comparisons expect about {judged} x {alpha:g} = "
                    f"{numbers.format_value(judged * alpha, 'count')} false positives by chance alone")
        if len(tested) >= 2 and rule.multiplicity == "holm":
            sentence += (f"; the {len(tested)} test p-values are Holm-adjusted (p_holm) and the "
                         f"verdicts use the adjusted values.")
        elif len(tested) >= 2:
            sentence += "; the rule sets multiplicity = \"none\", so the p-values are not adjusted."
        else:
            sentence += "."
        notes.insert(1 if rule_changed_after_results else 0, sentence)

    card = pd.DataFrame(rows, columns=list(CARD_COLUMNS))
    tables_out = [
        Table("card", f"Decision card: {verdict}", card, columns=dict(CARD_COLUMNS), formats={
            "index": "int", "input": "int", "n": "int", "observed": "float", "ci_low": "float",
            "ci_high": "float", "threshold": "float", "p_value": "p", "p_holm": "p",
            "more_items": "int", "condition": "text", "status": "text", "notes": "text"}),
    ]
    if items_rows:
        tables_out.append(Table("items", "Eval-set check: items scored by each system",
                                pd.DataFrame(items_rows), columns={
                                    "missing": "ids the baseline was scored on and the candidate was not",
                                    "added": "ids the candidate was scored on and the baseline was not",
                                    "common": "ids scored by both: the paired comparison uses these only",
                                }, formats={k: "int" for k in ("index", "input", "baseline_items",
                                                               "candidate_items", "common", "missing",
                                                               "added")}))
    tables_out.append(Table("rule", "The release rule", pd.DataFrame([
        {"field": "name", "value": rule.name},
        {"field": "file", "value": rule.source},
        {"field": "sha256", "value": rule.sha256},
        {"field": "registered", "value": rule.registered or ""},
        {"field": "baseline", "value": rule.baseline},
        {"field": "candidate", "value": rule.candidate},
        {"field": "alpha", "value": f"{alpha:g}"},
        {"field": "multiplicity", "value": rule.multiplicity},
        {"field": "changed after results were seen", "value": "yes" if rule_changed_after_results else "no"},
        {"field": "text", "value": rule.text},
    ]), formats={"field": "text", "value": "text"}))

    from ..analyses._common import base_signature

    sig = base_signature(NAME)
    sig.update({
        "rule-sha256": rule.sha256,
        "alpha": f"{alpha:g}",
        "ci": f"two-sided-{100 * (1 - alpha):g}%",
        "multiplicity": rule.multiplicity,
        "max_drop": "pass=L>=-m,fail=U<-m/sig-worse&x<-m",
        "min_gain": "pass=L>g&sig-better,fail=U<g/sig-worse",
        "max": "pass=U<=c,fail=L>c",
        "verdict": "any-fail>any-inconclusive>pass,unmet-judge->inconclusive",
        "at-limit": "rel-tol-10^-9",
        "evalset": "common-ids",
        "more-items": "n=d(2.8/mde)^2",
        "rule-changed": "yes" if rule_changed_after_results else "no",
    })
    progress.advance(1.0, "done")
    inputs = ", ".join(t.path for t in tables)
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables_out), tuple(notes), inputs)


#: the columns of the ``card`` table and what each means
CARD_COLUMNS = {
    "index": "the condition's position in the rule file",
    "condition": "the condition in words",
    "metric": "the metric judged",
    "input": "which INPUT file it was computed from (1 = the first)",
    "n": "the denominator: paired items, queries, or the candidate's requests",
    "observed": "the observed value (difference, relative change or level; see unit)",
    "ci_low": "low end of the two-sided (1 - alpha) interval",
    "ci_high": "high end of the two-sided (1 - alpha) interval",
    "threshold": "the limit the value is held against (-max_drop, min_gain, max_increase or max)",
    "requirement": "what must hold for PASS",
    "status": "PASS, FAIL or INCONCLUSIVE",
    "reason": "why this status",
    "basis": "the interval and test the status rests on",
    "counts": "wins / losses / ties, or the counts behind the value",
    "p_value": "the rule's test, two-sided",
    "p_holm": "the p-value after Holm's adjustment over the rule's tests (used for the status)",
    "more_items": "inconclusive paired comparison: about how many more items (queries) are needed",
    "unit": "rate_diff (fraction; shown in points), score_diff, relative (fraction; shown in %), value",
    "notes": "eval-set check, input choice, borderline readings, rule changes",
}


# --- verdicts -----------------------------------------------------------------------------------

def overall(statuses: Sequence[str]) -> str:
    """FAIL if any fails, else INCONCLUSIVE if any is inconclusive, else PASS."""
    if any(s == FAIL for s in statuses):
        return FAIL
    if any(s == INCONCLUSIVE for s in statuses):
        return INCONCLUSIVE
    return PASS


#: A value within this share of the magnitudes at hand (limit, value, interval) of the limit is
#: taken to be on it: a cost ratio of exactly +10% computes as 1.1000000000000003, a mean
#: difference of exactly 0 as 1e-17.
LIMIT_REL_TOL = 1e-9


def _at_limit(lim: float, *values):
    """``values`` with those within float noise of ``lim`` replaced by ``lim`` (None stays)."""
    finite = [abs(v) for v in (lim, *values) if v is not None and math.isfinite(v)]
    tol = LIMIT_REL_TOL * max(finite, default=0.0)
    return tuple(lim if v is not None and math.isfinite(v) and abs(v - lim) <= tol else v for v in values)


def judge(cond: Condition, out: Outcome, p_adj: float | None, alpha: float) -> tuple[str, str]:
    """PASS / FAIL / INCONCLUSIVE for one condition, and the reason in words."""
    obs, lo, hi, lim, unit = out.observed, out.ci_low, out.ci_high, cond.limit, cond.unit
    f = lambda v: format_value(v, unit, metric=cond.metric)  # noqa: E731
    fi = lambda a, b: format_interval(a, b, unit, metric=cond.metric)  # noqa: E731
    if obs is None or not math.isfinite(obs):
        return INCONCLUSIVE, "the value cannot be computed from the data (see notes)"
    obs, lo, hi = _at_limit(lim, obs, lo, hi)
    if cond.kind == JUDGE:
        return _judge_requirement(cond, out, obs, lo, lim, f)
    lower_limit = cond.threshold_key in ("max_drop", "min_gain")
    strict = cond.threshold_key == "min_gain"
    if cond.bound == "point":
        ok = (obs > lim if strict else obs >= lim) if lower_limit else obs <= lim
        op = (">" if strict else ">=") if lower_limit else "<="
        return (PASS if ok else FAIL,
                f"observed {f(obs)} {'is' if ok else 'is not'} {op} {f(lim)} (judged on the point "
                f"estimate alone)")
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return INCONCLUSIVE, "the interval cannot be computed from the data (see notes)"
    if not lower_limit:
        if lo > lim:
            return FAIL, f"the whole interval {fi(lo, hi)} lies above {f(lim)}"
        if hi <= lim:
            return PASS, f"the upper bound {f(hi)} is at or below {f(lim)}"
        return INCONCLUSIVE, f"the interval {fi(lo, hi)} contains {f(lim)}: the data cannot tell yet"

    test = TEST_NAMES[cond.test]
    has_test = cond.test != "none" and p_adj is not None and math.isfinite(p_adj)
    sig = has_test and p_adj < alpha
    p_txt = numbers.format_p(p_adj) if has_test else ""
    if hi < lim:
        what = "worse than allowed" if cond.threshold_key == "max_drop" else "short of the required gain"
        return FAIL, f"the whole interval {fi(lo, hi)} lies below {f(lim)}: surely {what}"
    if sig and obs < 0 and obs < lim:
        return FAIL, (f"the {test} finds a significant drop ({p_txt}) and the observed {f(obs)} is "
                      f"beyond {f(lim)}")
    if not strict:
        if lo >= lim:
            return PASS, f"the lower bound {f(lo)} is at or above {f(lim)}"
    else:
        if lo > lim and (cond.test == "none" or (sig and obs > 0)):
            extra = f" and the {test} is significant ({p_txt})" if cond.test != "none" else ""
            return PASS, f"the lower bound {f(lo)} is above {f(lim)}{extra}"
        if lo > lim:
            shown = f"{p_txt} >= {alpha:g}" if has_test else "no p-value"
            return INCONCLUSIVE, (f"the lower bound {f(lo)} is above {f(lim)} but the {test} is not "
                                  f"significant ({shown}): borderline")
    return INCONCLUSIVE, f"the interval {fi(lo, hi)} contains {f(lim)}: the data cannot tell yet"


def _judge_requirement(cond: Condition, out: Outcome, obs, lo, lim, f) -> tuple[str, str]:
    """A judge condition: PASS when the coefficient (or its lower bound) reaches ``min`` on
    enough labelled items; otherwise INCONCLUSIVE (an untrusted judge decides nothing)."""
    need = int(cond.options.get("min_items", 1))
    n = out.n or 0
    if n < need:
        return INCONCLUSIVE, (f"only {n:,} items carry both the judge's and a person's label; the rule asks for "
                              f"at least {need:,} before it trusts the judge")
    value = lo if cond.bound == "lower" else obs
    side = "lower bound" if cond.bound == "lower" else "observed value"
    if value is None or not math.isfinite(value):
        return INCONCLUSIVE, f"the judge's {side} cannot be computed (see notes), so the judge is not trusted"
    if value >= lim:
        return PASS, f"the {side} {f(value)} is at or above {f(lim)} on {n:,} labelled items"
    return INCONCLUSIVE, (f"the {side} {f(value)} is below {f(lim)}: the judge does not agree well enough "
                          f"with people to be trusted")


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (same as statsmodels' ``multipletests(method="holm")``).

    Sorted ascending, the i-th smallest (0-based) is multiplied by ``m - i``; a running maximum
    keeps the order; values are capped at 1.

    >>> [round(float(x), 3) for x in holm([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(np.argsort(p, kind="mergesort")):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _fmt_p(p: float) -> str:
    """``p = 0.0636`` or ``p < 0.001`` (the number-format policy)."""
    return numbers.format_p(p)


def _more_items(cond: Condition, out: Outcome) -> tuple[int | None, str]:
    """About how many more items the rule's minimum difference needs (n = d (2.8 / mde)^2)."""
    obs = out.observed or 0.0
    if cond.threshold > 0:
        target, what = cond.threshold, f"the rule's margin of {format_amount(cond.threshold, cond.unit)}"
    elif abs(obs) > _EPS:
        target, what = abs(obs), f"the observed {format_value(abs(obs), cond.unit, signed=False, metric=cond.metric)}"
    else:
        return None, ("The rule's threshold is 0 and nothing differs, so no set size is enough to "
                      "settle it; a threshold above 0 makes the question answerable.")
    n = out.n or 0
    word = out.unit_word
    if cond.kind == PAIRED:
        d = out.discordance
        if not d:
            return None, ""
        from ..metrics.intervals import items_needed_for_mde

        needed = int(items_needed_for_mde(d, target))
        how = f"at the observed discordance ({numbers.format_value(d, 'rate')} of items differ), n = d (2.8 / mde)^2"
    else:
        sd = out.sd
        if not sd:
            return None, ""
        needed = int(math.ceil((MDE_MULTIPLIER * sd / target) ** 2))
        how = (f"at the observed spread of the per-query differences (sd {numbers.format_value(sd, 'score')}), "
               f"n = (2.8 sd / mde)^2")
    more = max(0, needed - n)
    if more == 0:
        return 0, (f"The {n:,} {word} already suffice to detect {what} ({how} gives {needed:,}); the "
                   f"result is borderline rather than too small: read the {word} that differ.")
    return more, (f"About {more:,} more {word} ({needed:,} in all) would be needed to detect {what} "
                  f"{how}.")


def _gain_not_shown(cond: Condition, out: Outcome, p_adj: float, adjusted: bool, alpha: float) -> str:
    test = TEST_NAMES[cond.test]
    adj = ", Holm-adjusted" if adjusted else ""
    flips = (f"read the {out.discordant} {out.unit_word} that differ and extend the set"
             if out.discordant else "extend the set")
    hair = ", borderline" if p_adj < 2 * alpha else ""
    return (f"The gain ({format_value(out.observed, cond.unit, metric=cond.metric)}; {out.counts}) is not significant by "
            f"the {test} ({_fmt_p(p_adj)}{adj}{hair}): the rule asks only that {cond.metric} not drop "
            f"by more than {format_amount(cond.threshold, cond.unit)}, which the interval "
            f"{format_interval(out.ci_low, out.ci_high, cond.unit, metric=cond.metric)} rules "
            f"out, so it passes; do not report the gain as an improvement (to claim one, {flips}).")


# --- which input a condition reads --------------------------------------------------------------

def _pick_input(rule: Rule, cond: Condition, tables: list[LoadedTable]) -> tuple[int, str]:
    place = f"[[condition]] {cond.index} ({cond.metric})"
    if cond.input is not None:
        if cond.input > len(tables):
            raise RuleError(f"Rule file '{rule.file_name}', {place}: key 'input' asks for input "
                            f"{cond.input}, but {len(tables)} input file"
                            f"{'s were' if len(tables) != 1 else ' was'} given.")
        return cond.input - 1, ""
    if len(tables) == 1:
        return 0, ""
    fits = [i for i, t in enumerate(tables) if _fits(cond, t)]
    if len(fits) == 1:
        i = fits[0]
        return i, (f"Read from input {i + 1} '{tables[i].name}', the only input with the columns "
                   f"and systems it needs (set input = N in the rule to choose).")
    if not fits:
        raise DataError(f"None of the {len(tables)} inputs has what {place} of rule file "
                        f"'{rule.file_name}' needs ({_needs(cond)}); set input = N in the rule to "
                        f"see what is missing in that file.")
    listed = " and ".join(f"{i + 1} '{tables[i].name}'" for i in fits[:3])
    raise RuleError(f"Rule file '{rule.file_name}', {place}: inputs {listed} all have the columns "
                    f"it needs; choose one with input = {fits[0] + 1} (or another).")


def _needs(cond: Condition) -> str:
    systems = (f"systems '{cond.baseline}' and '{cond.candidate}'" if cond.relative
               else f"system '{cond.candidate}'")
    if cond.kind == PAIRED:
        return (f"columns '{cond.baseline}' and '{cond.candidate}', or item, system and outcome "
                f"columns with {systems}")
    if cond.kind == RANKING:
        return f"query, doc, score or rank, relevance and system columns with {systems}"
    if cond.kind == COST:
        return f"system, outcome and cost columns with {systems}"
    if cond.kind == JUDGE:
        return "a judge label column and a human label column"
    return f"a latency column and a system column with {systems}"


def _fits(cond: Condition, table: LoadedTable) -> bool:
    cols = _Cols(table, cond.data)
    try:
        if cond.kind == PAIRED:
            present = set(map(str, table.frame.columns))
            if cond.baseline in present and cond.candidate in present:
                return True
            for role in ("item", "outcome"):
                cols.get(role)
            needed_systems = [cond.baseline, cond.candidate]
            sys_col = cols.get("system")
        elif cond.kind == RANKING:
            for role in ("query", "doc"):
                cols.get(role)
            if not (cond.data.get("score") or cond.data.get("rank")):
                if cols.get("score", required=False) is None:
                    cols.get("rank")
            if not cond.data.get("qrels"):
                cols.get("relevance")
            sys_col = cols.get("system")
            needed_systems = [cond.baseline, cond.candidate]
        elif cond.kind == JUDGE:
            cols.get("judge")
            cols.get("human")
            return True
        elif cond.kind == COST:
            cols.get("cost")
            if cond.metric == "cost_per_success":
                cols.get("outcome")
            sys_col = cols.get("system", required=cond.relative)
            needed_systems = [cond.baseline, cond.candidate] if cond.relative else [cond.candidate]
        else:
            cols.get("latency")
            sys_col = cols.get("system", required=cond.relative)
            needed_systems = [cond.baseline, cond.candidate] if cond.relative else [cond.candidate]
        if sys_col is not None:
            names = set(to_text(table, sys_col))
            return all(s in names for s in needed_systems)
        return True
    except DataError:
        return False


# --- column resolution --------------------------------------------------------------------------

class _Cols:
    """The rule's [data] column names, else guesses from common names (with a note)."""

    def __init__(self, table: LoadedTable, data: dict[str, str]) -> None:
        self.table, self.data, self.notes = table, data, []

    def get(self, role: str, *, required: bool = True) -> str | None:
        from ..analyses._common import ROLE_NAMES

        given = self.data.get(role)
        if given:
            require_columns(self.table, [given])
            return given
        guess = guess_column(self.table, role, ROLE_NAMES.get(role, [role]))
        if guess is None:
            if required:
                cols = ", ".join(map(str, self.table.frame.columns))
                raise DataError(f"File '{self.table.name}' needs a{'n' if role[0] in 'aeiou' else ''} "
                                f"{role} column and none of its columns looks like one; name it in "
                                f"the rule's [data] table ({role} = \"...\"; its columns are: {cols}).")
            return None
        self.notes.append(f"Column '{guess}' of '{self.table.name}' was taken as the {role} column "
                          f"(guessed from its name; set {role} in the rule's [data] table to choose).")
        return guess


def _subset(table: LoadedTable, keep: np.ndarray) -> LoadedTable:
    """The rows ``keep`` of ``table``, keeping their line numbers for messages."""
    if len(keep) == len(table.frame) and (len(keep) == 0 or (keep == np.arange(len(keep))).all()):
        return table
    return table.take(keep)


def _blank(series: pd.Series) -> np.ndarray:
    blank = series.isna().to_numpy()
    if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
        text = series.astype(str).str.strip()
        blank = blank | (text == "").to_numpy()
    return blank


def _systems_present(table: LoadedTable, sys_col: str, systems: np.ndarray, wanted: list[str]) -> None:
    names = list(dict.fromkeys(systems.tolist()))
    for s in wanted:
        if s not in names:
            shown = ", ".join(names[:10]) + (" ..." if len(names) > 10 else "")
            raise DataError(f"File '{table.name}', column '{sys_col}' has no system '{s}' (named in the "
                            f"rule); its systems are: {shown}.")


def _evalset(base: str, cand: str, b_ids: pd.Index, c_ids: pd.Index, word: str, table: LoadedTable,
             notes: list[str]) -> tuple[dict, pd.Index]:
    common = b_ids.intersection(c_ids, sort=False)
    missing = b_ids.difference(c_ids, sort=False)
    added = c_ids.difference(b_ids, sort=False)
    info = {"baseline_items": len(b_ids), "candidate_items": len(c_ids), "common": len(common),
            "missing": len(missing), "added": len(added),
            "examples_missing": ", ".join(map(str, missing[:5])),
            "examples_added": ", ".join(map(str, added[:5]))}
    if len(missing) or len(added):
        parts = []
        if len(missing):
            parts.append(f"{len(missing)} {word} scored for the baseline are missing for the candidate "
                         f"(e.g. {', '.join(map(str, missing[:3]))})")
        if len(added):
            parts.append(f"{len(added)} {word} were added for the candidate "
                         f"(e.g. {', '.join(map(str, added[:3]))})")
        notes.append(f"Eval-set check: '{base}' and '{cand}' were scored on different {word} in "
                     f"'{table.name}': {' and '.join(parts)}; the comparison uses the {len(common)} "
                     f"common {word} only.")
    return info, common


def _level(alpha: float) -> str:
    return f"{100 * (1 - alpha):g}%"


def _z(alpha: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(1 - alpha / 2))


# --- success: paired binary outcomes -----------------------------------------------------------

def _eval_paired(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    from ..analyses import compare
    from ..analyses._common import Resolver
    from ..metrics import significance as sg

    cols = _Cols(table, cond.data)
    frame = table.frame
    base, cand = cond.baseline, cond.candidate
    present = set(map(str, frame.columns))
    cluster = cond.data.get("cluster")
    if cluster:
        require_columns(table, [cluster])
    notes: list[str] = []
    if base in present and cand in present:
        item = cols.get("item", required=False)
        if item in (base, cand):
            item = None
        b_blank, c_blank = _blank(frame[base]), _blank(frame[cand])
        ids = np.asarray(to_text(table, item) if item else
                         [f"line {x}" for x in table.lines_of(range(len(frame)))], dtype=object)
        info, _ = _evalset(base, cand, pd.Index(ids[~b_blank]), pd.Index(ids[~c_blank]),
                           "items", table, notes)
        keep = np.flatnonzero(~b_blank & ~c_blank)
        options = compare.Options(baseline=base, candidate=cand, item=item, cluster=cluster)
    else:
        if cols.get("system", required=False) is None and not cond.data.get("system"):
            one = base if base in present else cand if cand in present else None
            has = f"has column '{one}' but not '{cand if one == base else base}'" if one else \
                f"has no columns '{base}' and '{cand}'"
            raise DataError(f"File '{table.name}' {has} (the wide form: one 0/1 column per system) and no "
                            f"system column (the long form); name the columns in the rule's [data] "
                            f"table or its baseline and candidate (its columns are: "
                            f"{', '.join(map(str, frame.columns))}).")
        cols.notes.clear()
        sys_col, item_col, out_col = cols.get("system"), cols.get("item"), cols.get("outcome")
        systems = np.asarray(to_text(table, sys_col), dtype=object)
        _systems_present(table, sys_col, systems, [base, cand])
        items = np.asarray(to_text(table, item_col), dtype=object)
        info, common = _evalset(base, cand, pd.Index(items[systems == base]).unique(),
                                pd.Index(items[systems == cand]).unique(), "items", table, notes)
        keep = np.flatnonzero(np.isin(systems, [base, cand]) & pd.Index(items).isin(common))
        options = compare.Options(system=sys_col, item=item_col, outcome=out_col, baseline_system=base,
                                  candidate_system=cand, cluster=cluster)
    if len(keep) == 0:
        raise DataError(f"File '{table.name}': '{base}' and '{cand}' share no scored item, so nothing "
                        f"can be paired for [[condition]] {cond.index} ({cond.metric}).")
    sub = _subset(table, keep)
    res = Resolver(sub)
    pair = compare.pair_up(sub, options, res)
    counts = sg.paired_counts(pair.base, pair.cand)
    n, b, c = counts.n, counts.wins, counts.losses
    diff = (b - c) / n
    level = _level(alpha)
    if cond.interval == "normal":
        _, se, lo, hi = sg.paired_normal_interval(b, c, n, z=_z(alpha))
        how = f"{level} normal interval (SE = sqrt(b + c - (b - c)^2 / n) / n = {numbers.format_value(se, 'margin')})"
        if pair.cluster is not None:
            notes.append(f"The normal interval treats the {n} items as independent; clusters in "
                         f"'{cluster}' would make it optimistic (the bootstrap interval resamples them).")
    else:
        if pair.cluster is not None:
            codes, labels = pd.factorize(pd.Series(pair.cluster), sort=True)
            net = np.bincount(codes, weights=pair.cand.astype(float) - pair.base, minlength=len(labels))
            size = np.bincount(codes, minlength=len(labels))
            samples = sg.bootstrap_clustered(net, size, resamples=cond.resamples, seed=cond.seed)
            unit = f"the {len(labels)} clusters of '{cluster}'"
        else:
            samples = sg.bootstrap_paired_counts(b, c, n, resamples=cond.resamples, seed=cond.seed)
            unit = "items"
        lo, hi = sg.percentile_interval(samples, level=1 - alpha)
        how = f"{level} bootstrap interval ({cond.resamples:,} resamples of {unit}, seed {cond.seed})"
    p_sign = sg.sign_test(b, c)[0]
    p_mc = sg.mcnemar(b, c, correction=False)[1]
    p_cc = sg.mcnemar(b, c, correction=True)[1]
    ps = {"sign": p_sign, "mcnemar": p_mc, "mcnemar_cc": p_cc}
    p = ps.get(cond.test) if cond.test != "none" else None
    if p is not None and not math.isfinite(p):  # McNemar with no discordant item
        p = 1.0
        notes.append("No item differs between the two systems; McNemar is undefined and is read as p = 1.")
    side = {"lower": "lower bound", "point": "observed value"}[cond.bound]
    basis = f"{side} of the {how}"
    if cond.test != "none":
        basis += f"; {TEST_NAMES[cond.test]} (two-sided, alpha {alpha:g})"
        chosen_sig = p < alpha
        others = [f"{TEST_NAMES[k]} {_fmt_p(v)}" for k, v in ps.items()
                  if k != cond.test and math.isfinite(v) and (v < alpha) != chosen_sig]
        if others:
            notes.append(f"Other tests read this split differently ({'; '.join(others)}); the rule's "
                         f"{TEST_NAMES[cond.test]} ({_fmt_p(p)}) was chosen in advance and decides.")
    notes += cols.notes + res.notes
    return Outcome(observed=diff, ci_low=lo, ci_high=hi, n=n, input_index=0, p_value=p,
                   counts=f"{b:,} wins / {c:,} losses / {counts.ties:,} ties of {numbers.plural(n, 'item')}",
                   basis=basis, notes=notes, evalset=info,
                   discordance=counts.discordant / n if n else None, discordant=counts.discordant,
                   unit_word="items")


# --- ranking metrics: paired per-query differences ------------------------------------------------

def _eval_ranking(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    from ..analyses import ranking
    from ..metrics import significance as sg

    cols = _Cols(table, cond.data)
    q_col, d_col = cols.get("query"), cols.get("doc")
    score, rank = cond.data.get("score"), cond.data.get("rank")
    if not score and not rank:
        score = cols.get("score", required=False)
        if score is None:
            rank = cols.get("rank", required=False)
        if score is None and rank is None:
            raise DataError(f"File '{table.name}' needs a score or a rank column to order the documents; "
                            f"name one in the rule's [data] table (its columns are: "
                            f"{', '.join(map(str, table.frame.columns))}).")
    qrels = cond.data.get("qrels")
    rel = cond.data.get("relevance") or (None if qrels else cols.get("relevance"))
    sys_col = cols.get("system")
    base, cand = cond.baseline, cond.candidate
    systems = np.asarray(to_text(table, sys_col), dtype=object)
    _systems_present(table, sys_col, systems, [base, cand])
    opts = ranking.Options(query=q_col, doc=d_col, score=score or None, rank=rank or None, relevance=rel,
                           system=sys_col, qrels=qrels, ks=(cond.k or 1,), **cond.options)
    result = ranking.run(table, opts, NULL_PROGRESS)
    column = {"mrr": "rr", "map": "ap"}.get(cond.metric, cond.metric)
    per_query = result.table("queries").frame
    per_query = per_query.assign(system=per_query["system"].astype(str), query=per_query["query"].astype(str))
    bq = per_query[per_query["system"] == base].set_index("query")
    cq = per_query[per_query["system"] == cand].set_index("query")
    notes: list[str] = []
    scored_b = bq.index[(bq["retrieved"] > 0).to_numpy()]
    scored_c = cq.index[(cq["retrieved"] > 0).to_numpy()]
    info, common = _evalset(base, cand, scored_b, scored_c, "queries", table, notes)
    if info["missing"] or info["added"]:
        notes.append("The ranking analysis scores a query a system did not retrieve for as 0 "
                     "(trec_eval -c); the gate leaves such queries out of the paired comparison instead.")
    counted = bq.loc[common, "counted"].to_numpy(dtype=bool) & cq.loc[common, "counted"].to_numpy(dtype=bool)
    common = common[counted]
    if len(common) == 0:
        raise DataError(f"File '{table.name}': '{base}' and '{cand}' share no scored query, so nothing "
                        f"can be paired for [[condition]] {cond.index} ({cond.metric}).")
    from ..metrics import paired as pm

    base_scores = bq.loc[common, column].to_numpy(dtype=float)
    cand_scores = cq.loc[common, column].to_numpy(dtype=float)
    # ties and zeros decided on differences rounded to the scores' scale (pm.TIES_SIGNATURE)
    quantum = pm.tie_quantum(base_scores, cand_scores)
    diffs = pm.paired_differences(base_scores, cand_scores)
    n = diffs.size
    obs = float(diffs.mean())
    directions = pm.direction_counts(diffs, quantum=quantum)
    wins, losses = directions.improved, directions.worse
    sd = pm.paired_t(diffs, quantum=quantum).sd if n > 1 else 0.0
    level = _level(alpha)
    if cond.interval == "normal":
        se = sd / math.sqrt(n)
        z = _z(alpha)
        lo, hi = obs - z * se, obs + z * se
        how = f"{level} normal interval (mean difference +- z sd / sqrt(n), sd {numbers.format_value(sd, 'score')})"
    else:
        samples = _bootstrap_mean(diffs, cond.resamples, cond.seed, progress)
        lo, hi = sg.percentile_interval(samples, level=1 - alpha)
        how = f"{level} bootstrap interval ({cond.resamples:,} resamples of queries, seed {cond.seed})"
    p = None
    if cond.test == "sign":
        p = sg.sign_test(wins, losses)[0]
    elif cond.test == "t":
        if sd == 0:
            p = 1.0 if obs == 0 else 0.0
        else:
            from scipy.stats import ttest_1samp

            p = float(ttest_1samp(diffs, 0.0).pvalue)
    elif cond.test in ("randomization", "wilcoxon"):  # workbench/metrics/paired.py
        p = (pm.sign_flip_test(diffs, rounds=10_000, seed=cond.seed, quantum=quantum).p
             if cond.test == "randomization" else pm.wilcoxon(diffs, quantum=quantum).p)
    side = {"lower": "lower bound", "point": "observed value"}[cond.bound]
    basis = f"{side} of the {how}"
    if cond.test != "none":
        basis += f"; {TEST_NAMES[cond.test]} on the per-query differences (two-sided, alpha {alpha:g})"
    ranking_notes = [x for x in result.notes if "guessed" not in x]
    notes += cols.notes + ranking_notes
    return Outcome(observed=obs, ci_low=lo, ci_high=hi, n=n, input_index=0, p_value=p,
                   counts=(f"better on {wins:,} / worse on {losses:,} / same on {n - wins - losses:,} of "
                           f"{numbers.plural(n, 'query')}"),
                   basis=basis, notes=notes, evalset=info, sd=sd, discordant=wins + losses,
                   unit_word="queries")


def _eval_judge(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    """The Judge analysis on the condition's judge and human columns; the coefficient it names."""
    from ..analyses import judge as judge_analysis

    cols = _Cols(table, cond.data)
    judge_col = cols.get("judge")
    human_col = cols.get("human")
    opts = judge_analysis.Options(judge=judge_col, human=(human_col,), item=cond.data.get("item"),
                                  positive=cond.options.get("positive"), level=cond.options.get("level", "auto"))
    result = judge_analysis.run(table, opts, progress)
    recs = result.find(JUDGE_METRICS[cond.metric])
    rec = recs[0] if recs else {"value": None, "n": 0}
    level = _level(alpha)
    lo, hi = rec.get("ci_low"), rec.get("ci_high")
    if JUDGE_METRICS[cond.metric] == "kappa" and rec.get("value") is not None and alpha != 0.05:
        from ..metrics.agreement import cohens_kappa

        tab = result.table("confusion").frame.drop(columns="judge").to_numpy()
        k = cohens_kappa(tab, level=1 - alpha)
        lo, hi = k.low, k.high
    how = {"kappa": f"Cohen's kappa with its {level} asymptotic normal interval",
           "ac1": "Gwet's AC1 with its 95% t interval",
           "agreement": "the share of labelled items on which the judge and the person agree, Wilson 95% interval"}
    dis = result.find("disagreements")
    counts = (f"{rec.get('n') or 0:,} labelled items; {dis[0]['value']:,} disagreements" if dis else "")
    notes = cols.notes + [n for n in result.notes if "guessed" not in n]
    return Outcome(observed=rec.get("value"), ci_low=lo, ci_high=hi, n=rec.get("n"), input_index=0,
                   counts=counts, basis=how[JUDGE_METRICS[cond.metric]] + f" (judge '{judge_col}', people "
                   f"'{human_col}')", notes=notes, unit_word="labelled items")


def _bootstrap_mean(diffs: np.ndarray, resamples: int, seed: int, progress) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = diffs.size
    out = np.empty(resamples)
    batch = max(1, min(resamples, 4_000_000 // max(n, 1)))
    for start in range(0, resamples, batch):
        progress.check_cancelled()
        rows = min(batch, resamples - start)
        idx = rng.integers(0, n, size=(rows, n))
        out[start:start + rows] = diffs[idx].mean(axis=1)
    return out


# --- cost and latency -----------------------------------------------------------------------------

def _eval_cost_latency(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    from ..analyses._common import check_unique
    from ..metrics import significance as sg
    from ..metrics.cost import PERCENTILE_METHODS

    cols = _Cols(table, cond.data)
    notes: list[str] = []
    sys_col = cols.get("system", required=cond.relative)
    base, cand = cond.baseline, cond.candidate
    if cond.kind == COST:
        cost = to_float(table, cols.get("cost"), min_value=0)
        y = (to_binary(table, cols.get("outcome")).astype(float) if cond.metric == "cost_per_success"
             else None)
    else:
        lat = to_float(table, cols.get("latency"), min_value=0)
        method = PERCENTILE_METHODS[cond.options.get("percentile_method", "linear")]
    n_rows = len(table.frame)
    if cond.kind == LATENCY:
        y = None
    if sys_col is not None:
        systems = np.asarray(to_text(table, sys_col), dtype=object)
        _systems_present(table, sys_col, systems, [base, cand] if cond.relative else [cand])
        c_rows = np.flatnonzero(systems == cand)
        b_rows = np.flatnonzero(systems == base) if cond.relative else None
    else:
        c_rows, b_rows = np.arange(n_rows), None
        notes.append(f"'{table.name}' has no system column: all its {n_rows} rows are taken as the "
                     f"candidate '{cand}'.")

    def stat(rows_idx: np.ndarray) -> np.ndarray:
        """The metric for each row of a 2-d array of row indices (one resample per row)."""
        if cond.kind == COST:
            total = cost[rows_idx].sum(axis=-1)
            if cond.metric == "cost_per_request":
                return total / rows_idx.shape[-1]
            succ = y[rows_idx].sum(axis=-1)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(succ > 0, total / np.where(succ > 0, succ, 1), np.nan)
        return np.percentile(lat[rows_idx], cond.percentile, axis=-1, method=method)

    info, paired = None, False
    if cond.relative:
        item_col = cols.get("item", required=False)
        if item_col is not None:
            check_unique(table, [sys_col, item_col], "(system, item) pair")
            items = np.asarray(to_text(table, item_col), dtype=object)
            b_ids, c_ids = pd.Index(items[b_rows]), pd.Index(items[c_rows])
            info, common = _evalset(base, cand, b_ids, c_ids, "items", table, notes)
            if len(common) == 0:
                raise DataError(f"File '{table.name}': '{base}' and '{cand}' share no item id in column "
                                f"'{item_col}', so [[condition]] {cond.index} ({cond.metric}) cannot "
                                f"compare them.")
            b_rows = b_rows[b_ids.get_indexer(common)]
            c_rows = c_rows[c_ids.get_indexer(common)]
            paired = True
        else:
            notes.append("No item column: the bootstrap resamples each system's requests "
                         "independently (not paired).")
    obs_c = float(stat(c_rows[None, :])[0])
    if cond.relative:
        obs_b = float(stat(b_rows[None, :])[0])
        observed = obs_c / obs_b - 1 if (math.isfinite(obs_b) and obs_b > 0 and math.isfinite(obs_c)) \
            else float("nan")
        if not math.isfinite(observed):
            notes.append(f"The relative change is undefined: {cond.metric} is "
                         f"{_num(obs_b, cond)} for '{base}' and {_num(obs_c, cond)} for '{cand}'.")
    else:
        obs_b, observed = None, obs_c
        if not math.isfinite(observed):
            notes.append(f"{cond.metric} of '{cand}' is undefined (no success in {numbers.plural(c_rows.size, 'request')}).")

    # bootstrap
    rng = np.random.default_rng(cond.seed)
    samples = np.empty(cond.resamples)
    m_c = c_rows.size
    m_b = b_rows.size if b_rows is not None else 0
    batch = max(1, min(cond.resamples, 4_000_000 // max(m_c + m_b, 1)))
    for start in range(0, cond.resamples, batch):
        progress.check_cancelled()
        rows = min(batch, cond.resamples - start)
        idx_c = rng.integers(0, m_c, size=(rows, m_c))
        s_c = stat(c_rows[idx_c])
        if cond.relative:
            idx_b = idx_c if paired else rng.integers(0, m_b, size=(rows, m_b))
            s_b = stat(b_rows[idx_b])
            with np.errstate(divide="ignore", invalid="ignore"):
                s = np.where(s_b > 0, s_c / np.where(s_b > 0, s_b, 1) - 1, np.nan)
        else:
            s = s_c
        samples[start:start + rows] = s
    bad = int((~np.isfinite(samples)).sum())
    if bad and bad < cond.resamples:
        notes.append(f"{bad:,} of {cond.resamples:,} resamples had no success for a system and are left "
                     f"out of the interval.")
    lo, hi = sg.percentile_interval(samples, level=1 - alpha)
    unit = "items, paired" if paired else "requests"
    side = {"upper": "upper bound", "point": "observed value"}[cond.bound]
    basis = (f"{side} of the {_level(alpha)} bootstrap interval ({cond.resamples:,} resamples of "
             f"{unit}, seed {cond.seed})")
    if cond.kind == LATENCY:
        basis += f"; percentile method {cond.options.get('percentile_method', 'linear')}"
    label = cond.metric if cond.kind == COST else f"p{cond.percentile:g}"
    if cond.relative:
        counts = f"'{cand}' {label} {_num(obs_c, cond)} vs '{base}' {_num(obs_b, cond)}"
    else:
        counts = f"'{cand}' {label} {_num(obs_c, cond)}"
    counts += f" over {numbers.plural(m_c, 'request')}"
    if y is not None:
        counts += f" ({numbers.plural(int(y[c_rows].sum()), 'success')})"
    notes += cols.notes
    return Outcome(observed=observed, ci_low=lo, ci_high=hi, n=int(m_c), input_index=0, p_value=None,
                   counts=counts, basis=basis, notes=notes, evalset=info, unit_word="requests")


def _num(v, cond: Condition) -> str:
    """A cost (in the file's units) or a latency under the number-format policy."""
    if v is None or not math.isfinite(v):
        return "undefined"
    return numbers.format_value(v, "cost" if cond.kind == COST else "latency")
