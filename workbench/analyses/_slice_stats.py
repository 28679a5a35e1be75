"""The per-slice numbers of the Slices analysis: each slice's two systems and their paired
difference with the tests and intervals Compare uses for that kind of data, from the shared
functions of :mod:`workbench.metrics` (nothing here re-derives a test).

0/1 outcomes: each system's rate with its proportion interval (Wilson; Clopper-Pearson below 30
items or at 0% / 100%, as Compare), the difference (b - c) / n with the paired normal interval
(SE = sqrt(b + c - (b - c)^2 / n) / n, Compare's), the exact two-sided sign test on the b + c
discordant items (the adjusted one) and McNemar's chi-square.  Scores: each system's mean with
its t interval, the mean difference with the paired t interval (df = n - 1), the paired t-test
(the adjusted one) and the sign-flip randomization test (seeded).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..metrics import headline_ci as hc
from ..metrics import paired as pm
from ..metrics import significance as sg
from ..metrics import slices as ms
from ..metrics.intervals import Z95

#: why a slice is not tested
TOO_SMALL, NO_TEST = "too small", "no test possible"


@dataclass
class SliceStats:
    """One slice's numbers (NaN where undefined)."""

    label: str
    n: int
    base: float
    cand: float
    base_ci: hc.MeanCI | None
    cand_ci: hc.MeanCI | None
    diff: float
    low: float
    high: float
    se: float
    p: float
    #: 0/1: wins, losses; scores: improved, worse
    up: int = 0
    down: int = 0
    #: 0/1: McNemar's p; scores: the randomization test's p
    p2: float = float("nan")
    #: scores: the t statistic and its df
    t: float = float("nan")
    df: int | None = None
    #: "" when tested, else TOO_SMALL or NO_TEST
    status: str = ""
    p_adjusted: float = float("nan")
    called_out: bool = False
    fcr_low: float = float("nan")
    fcr_high: float = float("nan")
    shrunk: float = float("nan")
    in_q: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def tested(self) -> bool:
        return self.status == ""


def binary_counts(label: str, n: int, sb: int, sc: int, b: int, c: int, min_size: int) -> SliceStats:
    """0/1 outcomes of one slice from its counts: ``n`` items, ``sb`` and ``sc`` successes of
    the baseline and the candidate, ``b`` wins and ``c`` losses of the candidate."""
    diff, _, low, high = sg.paired_normal_interval(b, c, n)
    p = sg.sign_test(b, c)[0] if b + c else float("nan")
    p2 = sg.mcnemar(b, c, correction=False)[1]
    status = TOO_SMALL if n < min_size else NO_TEST if b + c == 0 else ""
    return SliceStats(label, n, sb / n if n else math.nan, sc / n if n else math.nan,
                      hc.rate_ci(sb, n) if n else None, hc.rate_ci(sc, n) if n else None,
                      diff, low, high, ms.binary_paired_se(b, c, n), p, up=b, down=c, p2=p2, status=status)


def binary_interval(s: SliceStats, level: float) -> tuple[float, float]:
    """The slice's paired normal interval at ``level`` (Compare's SE, clipped to [-1, 1])."""
    from scipy.special import ndtri  # norm.ppf, without importing scipy.stats

    z = -float(ndtri((1.0 - level) / 2.0)) if level != 0.95 else Z95
    _, _, low, high = sg.paired_normal_interval(s.up, s.down, s.n, z=z)
    return low, high


def score_slice(label: str, base: np.ndarray, cand: np.ndarray, d: np.ndarray, quantum: float,
                min_size: int, rounds: int, seed: int, progress) -> SliceStats:
    """Scores of one slice; ``d`` the settled differences (:func:`metrics.paired.paired_differences`
    over all items) and ``quantum`` their tie step."""
    n = int(d.size)
    t = pm.paired_t(d, quantum=quantum)
    dirs = pm.direction_counts(d, quantum=quantum)
    zero_var = not (n >= 2 and t.sd > 0)
    status = TOO_SMALL if n < min_size else NO_TEST if zero_var else ""
    rand = float("nan")
    if status == "":
        rand = pm.sign_flip_test(np.sort(d), rounds=rounds, seed=seed, quantum=quantum, progress=progress).p
    nan = float("nan")
    bmean, cmean = (float(base.mean()), float(cand.mean())) if n else (nan, nan)
    bci = _mean_ci(base) if n else None
    cci = _mean_ci(cand) if n else None
    p = t.p if not zero_var else nan
    return SliceStats(label, n, bmean, cmean, bci, cci, t.mean, t.ci_low if not zero_var else nan,
                      t.ci_high if not zero_var else nan, t.se if n >= 2 else nan, p,
                      up=dirs.improved, down=dirs.worse, p2=rand, t=t.t if not zero_var else nan,
                      df=t.df if n >= 2 else None, status=status)


def _mean_ci(x: np.ndarray) -> hc.MeanCI:
    """A mean with its t interval (mean +- t(n-1) SD / sqrt(n); none below 2 items or at SD 0)."""
    low, high = hc.t_interval(x)
    return hc.MeanCI(float(x.mean()), int(x.size), low, high, low, high, False, "t")


def score_interval(d: np.ndarray, quantum: float, level: float) -> tuple[float, float]:
    t = pm.paired_t(d, level=level, quantum=quantum)
    return t.ci_low, t.ci_high


def adjust_and_pool(stats: list[SliceStats], correction: str, q: float, interval) -> dict:
    """The multiple-comparison step over the tested slices of one column, the false-coverage
    intervals of the slices called out, Cochran's Q and tau^2 over the slices with a standard
    error above 0, and every slice's shrunken difference.  ``interval(stats, level)`` gives a
    slice's interval at another level.  Returns the column's summary."""
    tested = [s for s in stats if s.tested]
    m = len(tested)
    adj = ms.adjust([s.p for s in tested], correction) if m else np.zeros(0)
    for s, a in zip(tested, adj):
        s.p_adjusted = float(a)
        s.called_out = bool(math.isfinite(a) and a < q)
    selected = [s for s in tested if s.called_out]
    level = ms.fcr_level(len(selected), m, q)
    for s in selected:
        s.fcr_low, s.fcr_high = interval(s, level)
    pooled = [s for s in tested if math.isfinite(s.se) and s.se > 0]
    for s in pooled:
        s.in_q = True
    het = ms.dersimonian_laird([s.diff for s in pooled], [s.se ** 2 for s in pooled])
    if het.k >= 2:
        for s in stats:
            if math.isfinite(s.se) and s.se > 0 and math.isfinite(s.diff):
                s.shrunk = float(ms.shrunken([s.diff], [s.se ** 2], het.re, het.tau2)[0])
    return {"m": m, "selected": len(selected), "level": level, "het": het,
            "left_out_of_q": [s.label for s in tested if not s.in_q]}


def set_difference(d, quantum, binary, base, cand, level: float = 0.95):
    """A set of items' difference, interval and test p: 0/1 by Compare's paired normal interval
    and exact sign test, scores by the paired t interval and t-test."""
    n = int(d.size)
    if binary:
        counts = sg.paired_counts(base, cand)
        diff, _, low, high = sg.paired_normal_interval(counts.wins, counts.losses, n)
        p = sg.sign_test(counts.wins, counts.losses)[0] if n else float("nan")
        return diff, low, high, p, None
    t = pm.paired_t(d, level=level, quantum=quantum)
    return t.mean, t.ci_low, t.ci_high, t.p, (t.df if n > 1 else None)


def ci_words(binary: bool) -> str:
    return "normal-paired-95" if binary else "paired-t-95"
