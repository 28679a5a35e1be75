"""Judging a condition's outcome: PASS, FAIL or INCONCLUSIVE and the reason in words; the rule's
verdict; what an inconclusive paired comparison would need.

Semantics (also in :mod:`workbench.rules`): every condition is judged on an interval at level
``1 - alpha`` (two-sided) and, for paired conditions, a two-sided significance test at
``alpha``; the rule's verdict is FAIL if any condition fails, else INCONCLUSIVE if any is
inconclusive, else PASS (and INCONCLUSIVE whenever a judge requirement is unmet).
"""

from __future__ import annotations

import math
from typing import Sequence

from ..core import numbers
from ..metrics.paired import holm  # noqa: F401  (the rules' Holm adjustment, re-exported)
from .outcome import FAIL, INCONCLUSIVE, PASS, Outcome
from .slice_criterion import judge_slices
from .spec import JUDGE, PAIRED, SLICES, TEST_NAMES, Condition, format_amount, format_interval, format_value

MDE_MULTIPLIER = 2.8
_EPS = 1e-12


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
    if cond.kind == SLICES:  # every slice is judged; the card shows the worst
        return judge_slices(cond, out, f, fi)
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
            shown = f"{p_txt} ≥ {alpha:g}" if has_test else "no p-value"
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
    hi = out.ci_high
    if cond.bound == "lower" and hi is not None and math.isfinite(hi) and abs(hi - value) <= 1e-12:
        # kappa 1.000 (1.000 to 1.000) on 5 items: a standard error of 0 is no certainty
        return INCONCLUSIVE, (f"the interval of the judge's coefficient has zero width ({f(value)} to {f(hi)} on "
                              f"{n:,} labelled items: its standard error computes to 0), a certainty no sample "
                              f"gives, so its lower bound cannot vouch for the judge")
    if value >= lim:
        return PASS, f"the {side} {f(value)} is at or above {f(lim)} on {n:,} labelled items"
    return INCONCLUSIVE, (f"the {side} {f(value)} is below {f(lim)}: the judge does not agree well enough "
                          f"with people to be trusted")


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
