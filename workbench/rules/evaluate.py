"""Evaluating a release rule on loaded tables: the decision card as an ``AnalysisResult``.

The steps, each in its own module: which input each condition reads and its columns
(:mod:`.inputs`), what each criterion measures (:mod:`.criteria`), how each outcome is judged
and the rule's verdict (:mod:`.verdict`); here they are put together into the card.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np
import pandas as pd

from ..core import numbers
from ..core.errors import DataError
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable
from .criteria import measure
from .inputs import _pick_input
from .outcome import FAIL, INCONCLUSIVE, PASS, Outcome
from .spec import JUDGE, Rule
from ..metrics.paired import TIES_SIGNATURE
from .verdict import _gain_not_shown, _more_items, holm, judge, overall

NAME = "gate"
TITLE = "Release gate"
#: exit status of ``workbench gate`` for each verdict (2 is a usage or data error)
EXIT_CODES = {PASS: 0, FAIL: 1, INCONCLUSIVE: 3}
CHANGED_NOTE = "rule changed after results were seen"


def rule_reading(rule: Rule, reading=None, *, scorer: str | None = None, errors: str | None = None):
    """The reading the rule is judged on, and a note when it is not the one asked for.

    The rule's ``[rule]`` ``scorer`` and ``errors`` (pre-registered with the rule) fill what the
    window's reading (``reading``) leaves at its default and replace what it chose otherwise;
    the command line's ``--scorer`` / ``--errors`` (``scorer``, ``errors``) override the rule's,
    as the run's own decision.  Returns (Reading or None, notes)."""
    from ..analyses.reading import Reading

    notes = []
    base = reading if reading is not None else Reading()
    want_scorer = scorer or rule.scorer or base.scorer
    want_errors = errors or rule.errors or base.errors
    for key, flag, ruled, chosen in (("scorer", scorer, rule.scorer, base.scorer),
                                     ("errors", errors, rule.errors, base.errors)):
        if flag and ruled and flag != ruled:
            notes.append(f"The rule's [rule] {key} = \"{ruled}\" was overridden by --{key} {flag} for this run.")
        elif not flag and ruled and reading is not None and chosen not in (None, "exclude", ruled):
            notes.append(f"The rule states {key} = \"{ruled}\" in its [rule] table: it is judged with it, "
                         f"not with the window's choice ('{chosen}').")
    if reading is None and not (scorer or errors or rule.scorer or rule.errors):
        return None, notes
    return dataclasses.replace(base, scorer=want_scorer, errors=want_errors), notes


def evaluate(rule: Rule, tables: Sequence[LoadedTable], *, rule_changed_after_results: bool = False,
             progress=NULL_PROGRESS, reading=None, reading_from_rule: bool = True) -> AnalysisResult:
    """Judge every condition of ``rule`` on ``tables`` (the INPUT files, in order).

    Returns the decision card: ``analysis="gate"``, a ``verdict`` record, one record per
    condition, and the tables ``card``, ``items`` (eval-set check) and ``rule``.
    ``rule_changed_after_results`` marks the card "rule changed after results were seen".
    ``reading``: the file's reading (scorer, errors); the rule's own ``scorer``/``errors`` apply
    over it (:func:`rule_reading`) unless ``reading_from_rule`` is False (the command line has
    merged them already).
    """
    tables = list(tables)
    if not tables:
        raise DataError("The gate needs at least one input file with results.")
    reading_notes: list[str] = []
    if reading_from_rule:
        reading, reading_notes = rule_reading(rule, reading)
    errors = "exclude"
    if reading is not None:  # the reading every panel uses: the scorer, errored records
        tables = [read_under(t, reading) for t in tables]
        errors = reading.errors
    outcomes = _measure_all(rule, tables, progress, errors)
    tested, adjusted = _adjust(rule, outcomes)
    rows, records, notes, items_rows, statuses = _judge_all(rule, outcomes, tested, adjusted,
                                                            rule_changed_after_results)
    notes[:0] = reading_notes
    verdict = _verdict(rule, statuses, notes)
    records[0] = record("verdict", verdict)
    records.insert(1, record("rule_changed_after_results", bool(rule_changed_after_results)))
    _multiplicity_note(rule, tested, notes, rule_changed_after_results)
    tables_out = _tables(rule, verdict, rows, items_rows, rule_changed_after_results)
    progress.advance(1.0, "done")
    inputs = ", ".join(t.path for t in tables)
    sig = _signature(rule, rule_changed_after_results)
    if errors == "fail":
        sig["errored"] = "failures(success-conditions),excluded(cost-latency)"
    if reading is not None and reading.scorer:  # (the rule's or the run's choice)
        sig["scorer"] = reading.scorer
    units = sorted({o.unit for o in outcomes if o.unit})
    if units:  # a log's repeated tries: the unit is the item
        sig["unit"] = ";".join(units)
    return AnalysisResult(NAME, signature(sig), tuple(records),
                          tuple(tables_out), tuple(notes), inputs)


def read_under(table: LoadedTable, reading) -> LoadedTable:
    """A log's table under the reading: the chosen scorer's column is the outcome."""
    import dataclasses

    from ..analyses.reading import roles_for

    if getattr(table, "evaluation", None) is None and reading.scorer is None:
        return table
    roles = roles_for(table, dict(table.roles or {}), reading)
    return dataclasses.replace(table, roles=roles) if roles != (table.roles or {}) else table


def _measure_all(rule: Rule, tables: list[LoadedTable], progress, errors: str = "exclude") -> list[Outcome]:
    """Each condition's outcome on the input it reads (a data error names the condition)."""
    outcomes: list[Outcome] = []
    for pos, cond in enumerate(rule.conditions):
        progress.check_cancelled()
        progress.advance(pos / (len(rule.conditions) + 1), f"condition {cond.index}: {cond.metric}")
        idx, how = _pick_input(rule, cond, tables)
        table, errored = _measurements(tables[idx], cond, errors)
        try:
            out = measure(cond, table, rule.alpha, progress)
        except DataError as err:  # say which condition needed the data
            msg = str(err)
            raise DataError(f"[[condition]] {cond.index} ({cond.metric}) of rule file '{rule.file_name}' "
                            f"reads input {idx + 1}: {msg[:1].lower()}{msg[1:]}") from None
        out.input_index = idx + 1
        out.notes[:0] = ([how] if how else []) + errored
        outcomes.append(out)
    return outcomes


def _measurements(table: LoadedTable, cond, errors: str = "exclude") -> tuple[LoadedTable, list[str]]:
    """The input without its errored rows (an Inspect sample that ended with an error, a
    promptfoo request whose provider failed: not measurements), and the note naming them; with
    ``errors = "fail"`` a success condition counts them as failures (a cost or latency condition
    still leaves them out: their cost and latency measure no answer)."""
    from ..analyses import _rows
    from .spec import PAIRED, SLICES

    fail = errors == "fail" and cond.kind in (PAIRED, SLICES)
    err = _rows.find(table, cond.data.get("error"), "failure" if fail else "exclude")
    if not err.count:
        return table, []
    if fail:
        outcome = cond.data.get("outcome") or _rows.role_column(table, "success") \
            or _rows.role_column(table, "outcome")
        return _rows.apply(table, err, [outcome]), _gate_words(err.note())
    return _rows.apply(table, err, []), _gate_words(err.note())


def _gate_words(notes: list[str]) -> list[str]:
    """The error note in the gate's own flag (``--errors fail``)."""
    return [n.replace("--errored failure", "--errors fail") for n in notes]


def _adjust(rule: Rule, outcomes: list[Outcome]) -> tuple[list[int], dict[int, float]]:
    """Multiplicity: Holm over the conditions that carry a test (or none); the positions of
    those conditions and their adjusted p-values."""
    tested = [i for i, (c, o) in enumerate(zip(rule.conditions, outcomes))
              if c.test != "none" and c.bound != "point" and o.p_value is not None
              and math.isfinite(o.p_value)]
    adjusted: dict[int, float] = {}
    if tested:
        raw = [outcomes[i].p_value for i in tested]
        adj = holm(raw) if rule.multiplicity == "holm" else np.asarray(raw, dtype=float)
        adjusted = {i: float(a) for i, a in zip(tested, adj)}
    return tested, adjusted


def _judge_all(rule: Rule, outcomes: list[Outcome], tested: list[int], adjusted: dict[int, float],
               changed: bool):
    """The card's rows, the records, the notes, the eval-set rows and each condition's status."""
    alpha = rule.alpha
    rows, records, notes, items_rows = [], [record("verdict", None)], [], []
    if changed:
        notes.append(f"{CHANGED_NOTE[0].upper()}{CHANGED_NOTE[1:]}: the release rule was edited after "
                     f"the results had been shown, so this card is not a pre-registered decision.")
    statuses = []
    for i, (cond, out) in enumerate(zip(rule.conditions, outcomes)):
        p_adj = adjusted.get(i)
        status, reason = judge(cond, out, p_adj, alpha)
        statuses.append(status)
        row_notes, more = _row_notes(rule, cond, out, status, p_adj, len(tested), changed)
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
                              ci_high=out.ci_high, k=cond.k, group=out.slice, **extra))
        if out.evalset is not None:
            items_rows.append({"index": cond.index, "condition": cond.describe(), "input": out.input_index,
                               **out.evalset})
        notes += [f"Condition {cond.index} ({cond.metric}): {n}" for n in row_notes
                  if n != CHANGED_NOTE]
    return rows, records, notes, items_rows, statuses


def _row_notes(rule: Rule, cond, out: Outcome, status: str, p_adj, n_tested: int,
               changed: bool) -> tuple[list[str], int | None]:
    """A card row's notes, and how many more items an inconclusive paired comparison needs."""
    row_notes = list(out.notes)
    more = None
    if status == INCONCLUSIVE and cond.paired:
        more, sentence = _more_items(cond, out)
        if sentence:
            row_notes.append(sentence)
    if (status == PASS and cond.threshold_key == "max_drop" and out.observed is not None
            and out.observed > 0 and cond.test != "none" and p_adj is not None and p_adj >= rule.alpha):
        row_notes.append(_gain_not_shown(cond, out, p_adj, n_tested > 1 and rule.multiplicity == "holm",
                                         rule.alpha))
    if cond.note:
        row_notes.insert(0, f"Rule note: {cond.note}")
    if changed:
        row_notes.insert(0, CHANGED_NOTE)
    return row_notes, more


def _verdict(rule: Rule, statuses: list[str], notes: list[str]) -> str:
    """The rule's verdict; an unmet judge requirement makes it INCONCLUSIVE (said in a note)."""
    verdict = overall(statuses)
    unmet = [c.index for c, st in zip(rule.conditions, statuses) if c.kind == JUDGE and st != PASS]
    if unmet and verdict == FAIL:
        verdict = INCONCLUSIVE
    if unmet:
        which = ", ".join(map(str, unmet))
        notes.insert(0, f"The judge requirement (condition {which}) is not met, so the judge's numbers are "
                        f"not trusted: the verdict is INCONCLUSIVE whatever the other conditions say "
                        f"until the judge agrees well enough with people.")
    return verdict


def _multiplicity_note(rule: Rule, tested: list[int], notes: list[str], changed: bool) -> None:
    judged = sum(1 for c in rule.conditions if c.bound != "point")
    if judged < 2:
        return
    alpha = rule.alpha
    sentence = (f"With {judged} comparisons expect about {judged} x {alpha:g} = "
                f"{numbers.format_value(judged * alpha, 'count')} false positives by chance alone")
    if len(tested) >= 2 and rule.multiplicity == "holm":
        sentence += (f"; the {len(tested)} test p-values are Holm-adjusted (p_holm) and the "
                     f"verdicts use the adjusted values.")
    elif len(tested) >= 2:
        sentence += "; the rule sets multiplicity = \"none\", so the p-values are not adjusted."
    else:
        sentence += "."
    notes.insert(1 if changed else 0, sentence)


def _tables(rule: Rule, verdict: str, rows: list[dict], items_rows: list[dict], changed: bool) -> list[Table]:
    card = pd.DataFrame(rows, columns=list(CARD_COLUMNS))
    out = [
        Table("card", f"Decision card: {verdict}", card, columns=dict(CARD_COLUMNS), formats={
            "index": "int", "input": "int", "n": "int", "observed": "float", "ci_low": "float",
            "ci_high": "float", "threshold": "float", "p_value": "p", "p_holm": "p",
            "more_items": "int", "condition": "text", "status": "text", "notes": "text"}),
    ]
    if items_rows:
        out.append(Table("items", "Eval-set check: items scored by each system",
                         pd.DataFrame(items_rows), columns={
                             "missing": "ids the baseline was scored on and the candidate was not",
                             "added": "ids the candidate was scored on and the baseline was not",
                             "common": "ids scored by both: the paired comparison uses these only",
                         }, formats={k: "int" for k in ("index", "input", "baseline_items",
                                                        "candidate_items", "common", "missing",
                                                        "added")}))
    out.append(Table("rule", "The release rule", pd.DataFrame([
        {"field": "name", "value": rule.name},
        {"field": "file", "value": rule.source},
        {"field": "sha256", "value": rule.sha256},
        {"field": "registered", "value": rule.registered or ""},
        {"field": "baseline", "value": rule.baseline},
        {"field": "candidate", "value": rule.candidate},
        {"field": "alpha", "value": f"{rule.alpha:g}"},
        {"field": "multiplicity", "value": rule.multiplicity},
        {"field": "changed after results were seen", "value": "yes" if changed else "no"},
        {"field": "text", "value": rule.text},
    ]), formats={"field": "text", "value": "text"}))
    return out


def _signature(rule: Rule, changed: bool) -> dict:
    from ..analyses._common import base_signature

    sig = base_signature(NAME)
    sig.update({
        "rule-sha256": rule.sha256,
        "alpha": f"{rule.alpha:g}",
        "ci": f"two-sided-{100 * (1 - rule.alpha):g}%",
        "multiplicity": rule.multiplicity,
        "max_drop": "pass=L>=-m,fail=U<-m/sig-worse&x<-m",
        "min_gain": "pass=L>g&sig-better,fail=U<g/sig-worse",
        "max": "pass=U<=c,fail=L>c",
        "max_loss": "fail=any-slice(n>=min_items):d<-m&U_fcr<0",
        "verdict": "any-fail>any-inconclusive>pass,unmet-judge->inconclusive",
        "at-limit": "rel-tol-10^-9",
        "ties": TIES_SIGNATURE,
        "evalset": "common-ids",
        "errored": "excluded",
        "more-items": "n=d(2.8/mde)^2",
        "rule-changed": "yes" if changed else "no",
    })
    return sig


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
