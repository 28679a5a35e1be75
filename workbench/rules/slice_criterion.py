"""The ``slice_regression`` criterion of a release rule: the Slices analysis on the condition's
data, and the slices that lose more than the rule allows with the upper bound of their adjusted
interval below zero."""

from __future__ import annotations

import math

from ..core import numbers
from .inputs import _Cols
from .outcome import Outcome
from .spec import Condition


def _options(cond: Condition, table, alpha: float):
    """The Slices options of the condition: wide when the rule's baseline and candidate are
    columns, else long (item, system and outcome or score columns)."""
    from ..analyses import slices

    cols = _Cols(table, cond.data)
    present = set(map(str, table.frame.columns))
    base, cand = cond.baseline, cond.candidate
    common = dict(by=cond.options.get("by"), bins=int(cond.options.get("bins", 0)),
                  min_size=int(cond.options.get("min_items", 20)), q=alpha,
                  scores=cond.options.get("scores", "binary"), error=cond.data.get("error"))
    if base in present and cand in present:
        item = cols.get("item", required=False)
        return slices.Options(baseline=base, candidate=cand, item=None if item in (base, cand) else item,
                              **common), cols
    score = cond.data.get("score") if cond.options.get("scores") == "continuous" else None
    return slices.Options(system=cols.get("system"), item=cols.get("item"), baseline_system=base,
                          candidate_system=cand, outcome=None if score else cols.get("outcome"), score=score,
                          **common), cols


def eval_slices(cond: Condition, table, alpha: float, progress) -> Outcome:
    from ..analyses import slices

    options, cols = _options(cond, table, alpha)
    result = slices.run(table, options, progress)
    need = int(cond.options.get("min_items", 20))
    limit = cond.limit
    eligible, failing = [], []
    for diff in result.find("diff"):
        if diff.get("group") is None or diff.get("value") is None or (diff.get("n") or 0) < need:
            continue
        key = dict(group=diff["group"], by=diff.get("by"))
        tested = result.find("tested", **key)
        if not tested or not tested[0]["value"]:
            continue
        fcr = result.find("fcr_ci", **key)
        low, high = (fcr[0]["ci_low"], fcr[0]["ci_high"]) if fcr else (diff.get("ci_low"), diff.get("ci_high"))
        row = {"name": f"{diff.get('by')} = {diff['group']}", "diff": diff["value"], "n": diff["n"],
               "ci_low": low, "ci_high": high, "adjusted": bool(fcr)}
        eligible.append(row)
        below = diff["value"] < limit and not math.isclose(diff["value"], limit, rel_tol=1e-9, abs_tol=1e-12)
        if below and (cond.bound == "point" or (fcr and high is not None and high < 0)):
            failing.append(row)
    failing.sort(key=lambda r: r["diff"])
    shown = failing[0] if failing else min(eligible, key=lambda r: r["diff"]) if eligible else None
    level = result.find("fcr_level")
    level_text = ", ".join(f"{r.get('by')}: {numbers.format_value(r['value'], 'rate')}" for r in level
                           if r.get("value") is not None)
    by = ", ".join(dict.fromkeys(str(r.get("by")) for r in result.find("q")))
    side = "each slice's difference" if cond.bound == "point" else (
        "the upper bound of each called-out slice's false-coverage-rate interval (Benjamini and Yekutieli "
        f"2005, q = {alpha:g}" + (f"; levels {level_text}" if level_text else "") + ")")
    basis = (f"{side}, over the slices of {by} with at least {need:,} items; slices called out by the "
             f"Holm-adjusted {'exact sign test' if 'family:binary' in result.signature else 'paired t-test'}")
    if shown is None:
        notes = cols.notes + [n for n in result.notes if "guessed" not in n]
        return Outcome(observed=None, ci_low=None, ci_high=None, n=0, input_index=0, counts="no slice to judge",
                       basis=basis, notes=notes + [f"No slice of {by} with at least {need:,} items could be tested."],
                       unit_word="items", eligible=0)
    counts = (f"{numbers.plural(len(eligible), 'slice')} of at least {need:,} items; "
              f"{numbers.plural(len(failing), 'slice')} over the limit")
    notes = cols.notes + [n for n in result.notes if "guessed" not in n]
    if not shown["adjusted"] and cond.bound != "point":
        notes.append(f"The slice shown ({shown['name']}) is not called out, so its interval is the plain 95% one.")
    return Outcome(observed=shown["diff"], ci_low=shown["ci_low"], ci_high=shown["ci_high"], n=shown["n"],
                   input_index=0, counts=counts, basis=basis, notes=notes, unit_word="items",
                   slice=shown["name"], failing=failing, eligible=len(eligible))


def judge_slices(cond: Condition, out: Outcome, f, fi) -> tuple[str, str]:
    """FAIL naming the slices that lose more than allowed with the adjusted interval below zero;
    PASS naming the worst slice; INCONCLUSIVE when no slice of min_items items was tested."""
    from .outcome import FAIL, INCONCLUSIVE, PASS

    need = int(cond.options.get("min_items", 20))
    if not out.eligible:
        return INCONCLUSIVE, f"no slice of at least {need:,} items could be tested"
    if out.failing:
        shown = "; ".join(f"{r['name']}: {f(r['diff'])} "
                          + (f"(adjusted interval {fi(r['ci_low'], r['ci_high'])}, " if cond.bound != "point" else "(")
                          + f"{numbers.plural(r['n'], 'item')})" for r in out.failing[:3])
        more = f" and {len(out.failing) - 3} more" if len(out.failing) > 3 else ""
        why = "" if cond.bound == "point" else " with the upper bound of its adjusted interval below zero"
        return FAIL, (f"{numbers.plural(len(out.failing), 'slice')} of at least {need:,} items "
                      f"{'loses' if len(out.failing) == 1 else 'lose'} more than {f(-cond.limit).lstrip('+')}{why}: "
                      f"{shown}{more}")
    return PASS, (f"no slice of at least {need:,} items loses more than {f(-cond.limit).lstrip('+')}"
                  + ("" if cond.bound == "point" else " with its adjusted interval below zero")
                  + f" (the worst: {out.slice}, {f(out.observed)})")
