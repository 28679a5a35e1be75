"""A new run against a blessed baseline: the release rule judged with the baseline as ``baseline``
and the run as ``candidate``, item by item, answered in one of six tiers.  Nothing here
imports Qt.

The tiers (checked in this order; the first that applies is the answer)
========================================================================

1. **baseline unreliable** (exit 3): the stored copy of the baseline is missing or its SHA-256
   is not the one recorded when it was blessed, or the run's conventions (file format, item
   column, outcome column, 0/1 outcomes or scores) differ from the baseline's: different
   conventions cannot be compared.
2. **regression** (exit 1): some criterion of the rule FAILs against the baseline (for a
   ``max_drop`` criterion: the interval's upper bound is below ``-max_drop``, or the rule's test
   finds a significant drop larger than ``max_drop``).
3. **insufficient data** (exit 3): no item is shared, or some criterion is INCONCLUSIVE: its
   interval on the shared items still contains its limit, i.e. the shared items are too few
   to detect the rule's minimum detectable difference (the sentence says about how many more
   items ``n = d (2.8 / mde)^2`` asks for).
4. **improvement** (exit 0): every criterion PASSes and the rule's first paired criterion
   (success or a ranking metric) is significantly better: observed difference > 0 and its test's
   (Holm-adjusted) p < alpha; with ``test = "none"``, the interval's lower bound > 0.
5. **soft regression** (exit 0, printed as a warning): every criterion PASSes but the first paired
   criterion's observed difference is < 0: worse, inside the noise the rule allows (its interval
   rules out a drop beyond ``max_drop``).
6. **stable** (exit 0): every criterion PASSes and the difference is neither a significant gain
   nor a drop (or the rule has no paired criterion).

Items are paired on their id; items in only one of the two runs are counted and named, never
silently dropped, and the comparison uses the shared items only.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import DataError
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, signature
from ..io import LoadedTable, to_text
from .baseline import Baseline, check_integrity, conventions_of, convention_differences
from .card import card_rows, to_json_dict, verdict_of
from .outcome import FAIL, INCONCLUSIVE
from .spec import Rule

UNRELIABLE, REGRESSION, INSUFFICIENT = "baseline unreliable", "regression", "insufficient data"
IMPROVEMENT, SOFT, STABLE = "improvement", "soft regression", "stable"
TIERS = (UNRELIABLE, REGRESSION, INSUFFICIENT, IMPROVEMENT, SOFT, STABLE)
TIER_EXIT = {UNRELIABLE: 3, REGRESSION: 1, INSUFFICIENT: 3, IMPROVEMENT: 0, SOFT: 0, STABLE: 0}
RUN_LABEL = "run"
#: how the tiers are decided, for the signature
TIER_SIGNATURE = ("unreliable=sha256-or-conventions>regression=any-fail>insufficient=no-shared-or-"
                  "any-inconclusive>improvement=first-paired-x>0&p_holm<alpha>soft=x<0&p_holm<alpha>stable")
LISTED = 50


@dataclass
class GateReport:
    """The answer of ``workbench gate RULE RUN --baseline NAME``."""

    tier: str
    sentence: str
    baseline: Baseline
    run_path: str
    result: AnalysisResult | None          # the decision card (None when not evaluated)
    criteria: list[dict[str, Any]]         # index, name, status, message
    items: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return TIER_EXIT[self.tier]

    @property
    def regressions(self) -> list[str]:
        return list(self.items.get("regressions", []))

    def to_json_dict(self) -> dict[str, Any]:
        payload: dict[str, Any] = to_json_dict(self.result) if self.result is not None else {
            "analysis": "gate", "input": self.run_path, "verdict": None, "card": [],
            "notes": list(self.notes)}
        payload.update({
            "tier": self.tier, "tier_sentence": self.sentence, "exit_code": self.exit_code,
            "baseline": self.baseline.to_json_dict(), "run": self.run_path,
            "items": dict(self.items), "regressions": self.regressions,
            "criteria": list(self.criteria),
            "tier_notes": list(self.notes), "signature": self.signature,
        })
        return payload

    @property
    def signature(self) -> str:
        head = self.result.signature if self.result is not None else signature({"analysis": "gate"})
        return head + "|" + signature({"baseline": self.baseline.name,
                                       "baseline-sha256": self.baseline.sha256[:16],
                                       "pairing": "item-id,shared-only", "tiers": TIER_SIGNATURE})


def gate_against(rule: Rule, baseline: Baseline, run: LoadedTable, *, rule_changed_after_results=False,
                 progress=NULL_PROGRESS, reading=None) -> GateReport:
    """Judge ``rule`` with the blessed ``baseline`` as its baseline and ``run`` as candidate.

    ``reading``: the scorer and the errored records both sides are read with (the command
    line's ``--scorer``/``--errors`` merged over the rule's own by
    :func:`~workbench.rules.evaluate.rule_reading`); None: the rule's own ``[rule]`` scorer and
    errors, if any.  The same reading gives the criteria, the conventions compared and the
    items that changed."""
    from ..io import load_table
    from .evaluate import read_under, rule_reading

    broken = check_integrity(baseline)
    if broken:
        return _unreliable(rule, baseline, run, broken[:1].upper() + broken[1:])
    if reading is None:
        reading, _notes = rule_reading(rule)
    notes = _source_note(baseline, run)
    base_table = load_table(baseline.path)
    if reading is not None:  # a log's chosen scorer is the outcome on both sides
        run, base_table = read_under(run, reading), read_under(base_table, reading)
    run_conv, _ = conventions_of(run, rule.data)
    base_conv, _ = conventions_of(base_table, rule.data)
    # both sides as this program reads them with this reading: the stored copy is the blessed
    # file byte for byte (checked above); the conventions stored at blessing are those of the
    # log's primary scorer as the program of that day read it, and only said when they differ
    diffs = convention_differences(base_conv, run_conv)
    then = convention_differences(baseline.conventions or base_conv, base_conv)
    if then:
        said = "; ".join(then).replace(" in the baseline but ", " at blessing but ").replace(" in the run", " now")
        notes.append(f"Baseline '{baseline.name}' was blessed with other conventions than its stored "
                     f"copy is read with now ({said}); both files are compared as read now.")
    if diffs:
        return _unreliable(rule, baseline, run, f"The run's conventions differ from those of baseline "
                           f"'{baseline.name}' ({'; '.join(diffs)}): different conventions cannot be compared")
    stacked, relabelled, sys_col = stack(rule, baseline, base_table, run)
    items = item_changes(stacked, relabelled, sys_col, base_label(baseline),
                         reading.errors if reading is not None else "exclude")
    if items.get("shared") == 0:
        crit = [_criterion(c, INCONCLUSIVE, "not evaluated: the run shares no item with the baseline")
                for c in rule.conditions]
        sentence = (f"Insufficient data: the run '{run.name}' shares no item with baseline "
                    f"'{baseline.name}' ({items['baseline_items']:,} items in the baseline, "
                    f"{items['run_items']:,} in the run), so nothing can be compared.")
        return GateReport(INSUFFICIENT, sentence, baseline, run.path, None, crit, items, notes)
    from .evaluate import evaluate

    result = evaluate(relabelled, [stacked], rule_changed_after_results=rule_changed_after_results,
                      progress=progress, reading=reading, reading_from_rule=False)
    result = dataclasses.replace(result, input=f"{baseline.path} (baseline '{baseline.name}') + {run.path}")
    rows = card_rows(result)
    crit = [{"index": int(r["index"]), "name": f"{r['index']}. {r['condition']}", "status": r["status"],
             "message": f"{r['status']}: {r['reason']} (observed {r['observed']}, interval {r['interval']}, "
                        f"n {r['n']})"} for r in rows]
    tier, sentence = decide(relabelled, result, baseline, items)
    result = dataclasses.replace(result, records=result.records + tuple(item_records(items, baseline.name, run.name)))
    return GateReport(tier, sentence, baseline, run.path, result, crit, items, notes)


def item_records(items: dict[str, Any], baseline: str, run: str) -> list[dict]:
    """The item-by-item counts as records (named as the runs analysis names them): the items
    right before and wrong now (``regressions``, the runs' ``lost``), those gained, and those
    only the baseline or only the run has; n = the shared items."""
    from ..core.result import record

    if "shared" not in items:
        return []
    kw = dict(from_=f"baseline:{baseline}", to=run, n=items["shared"])
    out = []
    if "regressions_count" in items:
        out += [record("regressions", items["regressions_count"], **kw),
                record("lost", items["regressions_count"], **kw),
                record("gained", items["gained_count"], **kw)]
    out += [record("only_from", items["only_in_baseline_count"], **kw),
            record("only_to", items["only_in_run_count"], **kw)]
    return out


def _source_note(baseline: Baseline, run: LoadedTable) -> list[str]:
    """A note when the file the baseline was blessed from has changed since (the stored copy,
    checked by its SHA-256, is what the gate reads)."""
    import os

    from .baseline import file_sha256

    try:
        if not os.path.isfile(baseline.source) or file_sha256(baseline.source) == baseline.sha256:
            return []
    except OSError:
        return []
    same = " (it is the run given now)" if os.path.abspath(run.path) == baseline.source else ""
    return [f"The file baseline '{baseline.name}' was blessed from, '{baseline.source}', has changed since it "
            f"was blessed{same}; the gate reads the stored copy, whose SHA-256 is the one recorded."]


def _criterion(cond, status: str, message: str) -> dict[str, Any]:
    return {"index": cond.index, "name": f"{cond.index}. {cond.describe()}", "status": status,
            "message": message}


def _unreliable(rule: Rule, baseline: Baseline, run: LoadedTable, why: str) -> GateReport:
    crit = [_criterion(c, INCONCLUSIVE, "not evaluated: the baseline is unreliable") for c in rule.conditions]
    sentence = f"Baseline unreliable: {why}; bless a baseline again before gating on it."
    return GateReport(UNRELIABLE, sentence, baseline, run.path, None, crit, {})


def base_label(baseline: Baseline) -> str:
    return f"baseline:{baseline.name}"


# --- putting the two runs into one table ---------------------------------------------------------

def _side(rule: Rule, table: LoadedTable, system: str, what: str) -> tuple[pd.DataFrame, str | None]:
    """The rows of one side: a file holding several systems gives those of ``system`` (the
    rule's baseline or candidate); a wide file gives its column ``system`` as the outcome."""
    from .inputs import _Cols

    cols = _Cols(table, rule.data)
    frame = table.frame
    sys_col = cols.get("system", required=False)
    if sys_col is not None:
        values = pd.Series(to_text(table, sys_col), index=frame.index)
        present = list(dict.fromkeys(values))
        if len(present) > 1:
            if system not in present:
                raise DataError(f"File '{table.name}' ({what}) holds {len(present)} systems in column "
                                f"'{sys_col}' ({', '.join(present[:6])}) and none is '{system}'; a run for "
                                f"the gate is one system's results (or name the system in the rule).")
            return frame[values == system].reset_index(drop=True), sys_col
        return frame.copy(), sys_col
    outcome = rule.data.get("outcome") or "outcome"
    if system in map(str, frame.columns) and outcome not in frame.columns:  # the wide form
        return frame.assign(**{outcome: frame[system]}), None
    return frame.copy(), None


def stack(rule: Rule, baseline: Baseline, base_table: LoadedTable, run: LoadedTable):
    """One long table (the baseline's rows, then the run's, column ``system`` naming each side)
    and the rule rewritten so that every criterion compares the two."""
    base_frame, c1 = _side(rule, base_table, rule.baseline, f"baseline '{baseline.name}'")
    run_frame, c2 = _side(rule, run, rule.candidate, "the run")
    sys_col = rule.data.get("system") or c2 or c1 or "system"
    blabel = base_label(baseline)
    frame = pd.concat([base_frame.assign(**{sys_col: blabel}), run_frame.assign(**{sys_col: RUN_LABEL})],
                      ignore_index=True, sort=False)
    if c1 and c1 != sys_col and c1 in frame.columns:
        frame = frame.drop(columns=[c1])
    stacked = dataclasses.replace(run, frame=frame, row_lines=None, cell_source=None, row_names=None,
                                  notes=(), digest=run.digest,
                                  roles={c: r for c, r in run.roles.items() if r != "system" and c in frame.columns})
    data = {**rule.data, "system": sys_col}
    conds = tuple(dataclasses.replace(c, baseline=blabel, candidate=RUN_LABEL,
                                      data={**c.data, "system": sys_col}) for c in rule.conditions)
    relabelled = dataclasses.replace(rule, baseline=blabel, candidate=RUN_LABEL, data=data, conditions=conds)
    return stacked, relabelled, sys_col


# --- item by item --------------------------------------------------------------------------------

def item_changes(stacked: LoadedTable, rule: Rule, sys_col: str, blabel: str,
                 errors: str = "exclude") -> dict[str, Any]:
    """Counts and ids: shared items, items only in the baseline or only in the run, and on the
    shared items those right before and wrong now (``regressions``) and the reverse
    (``gained``); for scores, lower now / higher now.  An item tried several times (a log's
    epochs or repeats) is compared by its share of tries; an errored try is left out of it, or
    counted as a failure with ``errors="fail"`` (as the criteria read it)."""
    from .baseline import unit_columns

    item, outcome = unit_columns(stacked, rule.data)
    if item == sys_col:
        item = None
    if item is None:
        return {"note": "no item column: items cannot be paired one by one"}
    ids = np.asarray(to_text(stacked, item), dtype=object)
    side = np.asarray(to_text(stacked, sys_col), dtype=object)
    b_ids, r_ids = pd.Index(ids[side == blabel]).unique(), pd.Index(ids[side == RUN_LABEL]).unique()
    shared = b_ids.intersection(r_ids, sort=False)
    out: dict[str, Any] = {
        "item_column": item, "baseline_items": len(b_ids), "run_items": len(r_ids), "shared": len(shared),
        "only_in_baseline": [str(x) for x in b_ids.difference(r_ids, sort=False)],
        "only_in_run": [str(x) for x in r_ids.difference(b_ids, sort=False)],
    }
    out["only_in_baseline_count"] = len(out["only_in_baseline"])
    out["only_in_run_count"] = len(out["only_in_run"])
    if outcome is None:
        out["note"] = (f"the runs are paired on column '{item}', which has no per-row outcome (a ranking "
                       f"run's per-query scores are on the card): the units that changed are not listed")
        return out
    from ..analyses import _rows

    errored = _rows.find(stacked, rule.data.get("error"), "failure" if errors == "fail" else "exclude")
    if errored.count:  # an errored try has no outcome (an empty cell): read the others
        kept = np.flatnonzero(~errored.mask)
        values = np.full(len(stacked.frame), 0.0 if errors == "fail" else np.nan)
        values[kept] = _values(stacked.take(kept), outcome)
    else:
        values = _values(stacked, outcome)
    frame = pd.DataFrame({"item": ids, "side": side, "v": values})
    means = frame[frame["item"].isin(shared)].groupby(["item", "side"], sort=False)["v"].mean().unstack()
    if blabel not in means or RUN_LABEL not in means:
        return out
    means = means.reindex(list(shared))
    before, now = means[blabel].to_numpy(float), means[RUN_LABEL].to_numpy(float)
    ok = np.isfinite(before) & np.isfinite(now)
    worse, better = ok & (now < before), ok & (now > before)
    names = np.asarray([str(x) for x in means.index], dtype=object)
    out["outcome_column"] = outcome
    out["regressions"] = list(names[worse])
    out["gained"] = list(names[better])
    out["regressions_count"], out["gained_count"] = int(worse.sum()), int(better.sum())
    out["unchanged_count"] = int((ok & (now == before)).sum())
    return out


def _values(table: LoadedTable, column: str) -> np.ndarray:
    from ..io import to_binary, to_float

    try:
        return to_binary(table, column).astype(float)
    except DataError:
        try:
            return to_float(table, column)
        except DataError:
            return np.full(len(table.frame), np.nan)


# --- the tier ------------------------------------------------------------------------------------

def decide(rule: Rule, result: AnalysisResult, baseline: Baseline, items: dict[str, Any]) -> tuple[str, str]:
    """The tier (2-6 of the module's list) and its sentence from a decision card."""
    card = result.table("card").frame.to_dict("records")
    rows = {int(r["index"]): r for r in card_rows(result)}
    name = baseline.name
    lost, won = items.get("regressions_count"), items.get("gained_count")
    flips = f"; {lost:,} items right before and wrong now, {won:,} gained" if lost is not None else ""
    verdict = verdict_of(result)  # an unmet judge requirement makes it INCONCLUSIVE, as the gate does
    failed = [r for r in card if r["status"] == FAIL]
    if verdict == FAIL:
        r = rows[int(failed[0]["index"])]
        more = f" (and {len(failed) - 1} more failing)" if len(failed) > 1 else ""
        return REGRESSION, (f"Regression against baseline '{name}': criterion {r['index']} ({r['condition']}) "
                            f"fails{more}: {r['reason']}{flips}.")
    unsure = [r for r in card if r["status"] == INCONCLUSIVE]
    if verdict == INCONCLUSIVE:
        r = rows[int(unsure[0]["index"])]
        word = _unit_word(rule, r)
        more = f" About {r['more_items']} more {word} would be needed." if r["more_items"] else ""
        return INSUFFICIENT, (f"Insufficient data against baseline '{name}': on {r['n']} shared {word} "
                              f"criterion {r['index']} ({r['condition']}) cannot be settled: {r['reason']}."
                              f"{more}")
    conds = {c.index: c for c in rule.conditions}
    paired = [r for r in card if conds[int(r["index"])].paired]
    if not paired:
        return STABLE, (f"Stable against baseline '{name}': every criterion passes (the rule has no "
                        f"paired criterion, so no direction is judged){flips}.")
    row, cond = paired[0], conds[int(paired[0]["index"])]
    shown = rows[int(row["index"])]
    x, lo = _f(row["observed"]), _f(row["ci_low"])
    p = _f(row["p_holm"])
    what = (f"{cond.metric} {shown['observed']} (interval {shown['interval']}, n {shown['n']} shared "
            f"{_unit_word(rule, shown)})")
    hi = _f(row["ci_high"])
    # a change in either direction counts only when significant: the test (Holm-adjusted), or
    # with test = "none" the interval on one side of 0; a drop inside the noise is stable
    significant = p is not None and p < rule.alpha
    if x is not None and x > 0 and (lo is not None and lo > 0 if cond.test == "none" else significant):
        test = "its interval is above 0" if cond.test == "none" else f"p (Holm) {shown['p_holm']} < {rule.alpha:g}"
        return IMPROVEMENT, f"Improvement over baseline '{name}': {what}, significant ({test}){flips}."
    if x is not None and x < 0 and (hi is not None and hi < 0 if cond.test == "none" else significant):
        test = "its interval is below 0" if cond.test == "none" else f"p (Holm) {shown['p_holm']} < {rule.alpha:g}"
        return SOFT, (f"Soft regression against baseline '{name}': {what} is significantly worse ({test}), but "
                      f"inside the margin the rule allows ({shown['requirement']} holds){flips}.")
    return STABLE, f"Stable against baseline '{name}': {what}, no significant change{flips}."


def _unit_word(rule: Rule, row: dict) -> str:
    """What a criterion's n counts: queries for a ranking metric, else items."""
    from .spec import RANKING

    cond = next((c for c in rule.conditions if str(c.index) == str(row["index"])), None)
    return "queries" if cond is not None and cond.kind == RANKING else "items"


def _f(v) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None
