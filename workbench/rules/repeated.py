"""A success condition on a log whose items were tried several times (Inspect's epochs,
promptfoo's ``--repeat``, HELM's train trials): the unit is the item, as on every panel.

Each system's tries of an item are reduced to the item's share of successful tries (errored
tries already left out, or counted as failures, by the gate's error policy); the two systems are
paired by item; the observed value is the mean over the common items of the candidate's share
minus the baseline's (Compare's mean difference on the same file); the interval is a percentile
bootstrap over items (or a t interval with ``interval = "normal"``); the test is the exact sign
test over the items whose shares differ (McNemar needs one 0/1 verdict per item, so a rule asking
for it is read with the sign test, and the card says so).  Tries are never counted as items.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core import numbers
from ..core.errors import DataError
from ..io import LoadedTable, to_float, to_text
from ..io.evaluation import item_column
from .outcome import Outcome
from .spec import TEST_NAMES, Condition

#: a difference of shares smaller than this is a tie (shares are ratios of small counts)
TIE = 1e-12


def repeated_item(table: LoadedTable) -> str | None:
    """The item column of a log whose reader declared repeats (None: one try per item)."""
    ev = getattr(table, "evaluation", None)
    if ev is None or not ev.repeat or ev.repeat not in table.frame.columns:
        return None
    item = item_column(table.frame.columns, ev)
    if item is None or item not in table.frame.columns:
        return None
    return item


def eval_repeated(cond: Condition, table: LoadedTable, alpha: float, sys_col: str, out_col: str,
                  item_col: str, notes: list[str], evalset) -> Outcome:
    """The outcome of a success condition over items whose tries are reduced to shares."""
    from ..metrics import headline_ci as hc
    from ..metrics import significance as sg

    base, cand = cond.baseline, cond.candidate
    frame = pd.DataFrame({"system": to_text(table, sys_col), "item": to_text(table, item_col),
                          "y": to_float(table, out_col)})
    frame = frame[frame["system"].isin([base, cand]) & frame["y"].notna()]
    shares = frame.groupby(["system", "item"], sort=False)["y"].mean().unstack("system")
    tries = frame.groupby(["system", "item"], sort=False)["y"].size()
    if base not in shares.columns or cand not in shares.columns:
        raise DataError(f"File '{table.name}': '{base}' and '{cand}' do not both have scored tries, so "
                        f"nothing can be paired for [[condition]] {cond.index} ({cond.metric}).")
    both = shares[[base, cand]].dropna()
    info = evalset(pd.Index(shares[base].dropna().index), pd.Index(shares[cand].dropna().index))
    if both.empty:
        raise DataError(f"File '{table.name}': '{base}' and '{cand}' share no scored item, so nothing "
                        f"can be paired for [[condition]] {cond.index} ({cond.metric}).")
    d = (both[cand] - both[base]).to_numpy(dtype=float)
    n = len(d)
    wins, losses = int((d > TIE).sum()), int((d < -TIE).sum())
    ties = n - wins - losses
    observed = float(d.mean())
    level = f"{100 * (1 - alpha):g}%"
    if cond.interval == "normal":
        from scipy.stats import t as t_dist

        se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
        half = float(t_dist.ppf(1 - alpha / 2, n - 1)) * se if n > 1 else float("nan")
        lo, hi = observed - half, observed + half
        how = (f"{level} t interval over the {n} items (SE = sd of the item differences / sqrt(n) = "
               f"{numbers.format_value(se, 'margin')})")
    elif np.ptp(d) > 0:
        samples = hc.bootstrap_means(d, resamples=cond.resamples, seed=cond.seed)
        lo, hi = hc.percentile_interval(samples, level=1 - alpha)
        how = f"{level} bootstrap interval ({cond.resamples:,} resamples of items, seed {cond.seed})"
    else:
        lo = hi = observed
        how = f"{level} bootstrap interval (every item differs by the same amount: no spread)"
    p_sign = sg.sign_test(wins, losses)[0]
    test = cond.test
    if test in ("mcnemar", "mcnemar_cc"):
        notes.append(f"{TEST_NAMES[test]} needs one 0/1 verdict per item; here each item's tries are "
                     "reduced to a share of successes, so the rule's test is read as the exact sign test "
                     "over the items whose shares differ.")
        test = "sign"
    p = None if test == "none" else p_sign
    side = {"lower": "lower bound", "point": "observed value"}[cond.bound]
    basis = f"{side} of the {how}"
    if test != "none":
        basis += f"; {TEST_NAMES['sign']} over items (two-sided, alpha {alpha:g})"
    per_item = tries.groupby(level="system").mean()
    notes.insert(0, f"Each item was tried several times ({_tries_word(per_item, base, cand)}): each system's "
                    f"tries of an item are reduced to the item's share of successes, and the two systems "
                    f"are compared over the {numbers.plural(n, 'item')} both were scored on (mean of the "
                    f"candidate's share minus the baseline's; tries are never counted as items).")
    return Outcome(observed=observed, ci_low=float(lo), ci_high=float(hi), n=n, input_index=0, p_value=p,
                   counts=f"{wins:,} improved / {losses:,} got worse / {ties:,} tied of "
                          f"{numbers.plural(n, 'item')}",
                   basis=basis, notes=notes, evalset=info,
                   discordance=(wins + losses) / n if n else None, discordant=wins + losses,
                   unit_word="items", unit="item(share-of-tries),pairs:by-item,test:sign-over-items")


def _tries_word(per_item: pd.Series, base: str, cand: str) -> str:
    parts = []
    for name in (base, cand):
        if name in per_item.index:
            mean = float(per_item[name])
            parts.append(f"'{name}' {mean:.3g} tries per item" if abs(mean - round(mean)) > 1e-9
                         else f"'{name}' {int(round(mean))} tries per item")
    return ", ".join(parts)


__all__ = ["eval_repeated", "repeated_item"]
