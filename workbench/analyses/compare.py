"""Paired comparison of two systems on the same items (binary outcomes).

Wide input: one row per item with a baseline and a candidate outcome column.  Long input:
one row per (system, item) with an outcome column.  Items are matched by id; duplicated ids
are refused; in the long form, items scored by only one system are reported and left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, guess_column, to_binary, to_text
from ..metrics import significance as sg
from ..metrics.intervals import Z95, paired_mde
from ._common import ROLE_NAMES, Resolver, base_signature, check_unique

NAME = "compare"
TITLE = "Paired comparison"
ALPHA = 0.05


@dataclass(frozen=True)
class Options:
    baseline: str | None = None
    candidate: str | None = None
    item: str | None = None
    cluster: str | None = None
    system: str | None = None
    outcome: str | None = None
    baseline_system: str | None = None
    candidate_system: str | None = None
    resamples: int = 10_000
    seed: int = 12345


@dataclass(frozen=True)
class Paired:
    item: list[str]
    base: np.ndarray
    cand: np.ndarray
    cluster: list[str] | None
    rows: np.ndarray            # row index in the input of each paired item (baseline row)
    base_name: str
    cand_name: str
    form: str


def pair_up(table: LoadedTable, options: Options, res: Resolver) -> Paired:
    """Match the two systems' outcomes item by item (wide or long input)."""
    long_form = options.system is not None or options.baseline_system is not None
    if not long_form and options.baseline is None and options.candidate is None:
        def has(role: str) -> bool:
            return guess_column(table, role, ROLE_NAMES[role]) is not None

        long_form = has("system") and has("outcome") and not (has("baseline") and has("candidate"))
    if long_form:
        return _pair_long(table, options, res)
    base_col = res.required(options.baseline, "baseline", "--baseline")
    cand_col = res.required(options.candidate, "candidate", "--candidate")
    if base_col == cand_col:
        raise OptionError("The baseline and candidate columns must differ.")
    item_col = res.optional(options.item, "item", "--item")
    if item_col in (base_col, cand_col):
        item_col = None
    n = len(table.frame)
    if item_col:
        check_unique(table, [item_col], "item id")
        items = to_text(table, item_col)
    else:
        items = [f"line {table.line_of(i)}" for i in range(n)]
    cluster = to_text(table, options.cluster) if options.cluster else None
    return Paired(items, to_binary(table, base_col), to_binary(table, cand_col), cluster,
                  np.arange(n), base_col, cand_col, "wide")


def _pair_long(table: LoadedTable, options: Options, res: Resolver) -> Paired:
    sys_col = res.required(options.system, "system", "--system")
    item_col = res.required(options.item, "item", "--item")
    out_col = res.required(options.outcome, "outcome", "--outcome")
    check_unique(table, [sys_col, item_col], "(system, item) pair")
    systems = pd.Series(to_text(table, sys_col))
    names = list(dict.fromkeys(systems))
    base, cand = options.baseline_system, options.candidate_system
    if base is None or cand is None:
        if len(names) != 2:
            raise OptionError(f"File '{table.name}' has {len(names)} systems in column "
                              f"'{sys_col}' ({', '.join(names[:6])}); name the two to compare with "
                              f"--baseline-system and --candidate-system.")
        base = base or (names[0] if cand != names[0] else names[1])
        cand = cand or (names[1] if base == names[0] else names[0])
        res.notes.append(f"Baseline '{base}' and candidate '{cand}' were taken in file order "
                         f"(set --baseline-system and --candidate-system to choose).")
    for name in (base, cand):
        if name not in names:
            raise DataError(f"File '{table.name}', column '{sys_col}' has no system '{name}'; "
                            f"its systems are: {', '.join(names)}.")
    if base == cand:
        raise OptionError("The baseline and candidate systems must differ.")
    y = to_binary(table, out_col)
    items = pd.Series(to_text(table, item_col))
    frame = pd.DataFrame({"item": items, "system": systems, "y": y, "row": np.arange(len(y))})
    if options.cluster:
        frame["cluster"] = to_text(table, options.cluster)
    b = frame[frame["system"] == base].set_index("item")
    c = frame[frame["system"] == cand].set_index("item")
    common = b.index.intersection(c.index, sort=False)
    only_b = b.index.difference(c.index, sort=False)
    only_c = c.index.difference(b.index, sort=False)
    for name, only in ((base, only_b), (cand, only_c)):
        if len(only):
            res.notes.append(f"{len(only)} items were scored only by '{name}' (for example "
                             f"{', '.join(map(str, only[:3]))}); they are left out of the paired "
                             f"comparison, which uses the {len(common)} common items.")
    if len(common) == 0:
        raise DataError(f"File '{table.name}': systems '{base}' and '{cand}' share no item id "
                        f"in column '{item_col}', so nothing can be paired.")
    b, c = b.loc[common], c.loc[common]
    cluster = None
    if options.cluster:
        mismatch = (b["cluster"].to_numpy() != c["cluster"].to_numpy())
        if mismatch.any():
            item = common[int(np.flatnonzero(mismatch)[0])]
            raise DataError(f"File '{table.name}': item '{item}' has a different cluster "
                            f"for '{base}' and '{cand}' in column '{options.cluster}'.")
        cluster = b["cluster"].tolist()
    return Paired([str(i) for i in common], b["y"].to_numpy(), c["y"].to_numpy(), cluster,
                  b["row"].to_numpy(), base, cand, "long")


def check_options(options: Options) -> None:
    """Before any work: 1,000 to 1,000,000 resamples (fewer give a noisy interval; the samples
    are kept, so more would size memory by an option), a seed from 0 to 2^32 - 1."""
    from ._checks import whole

    whole("resamples", options.resamples, 1_000, 1_000_000)
    whole("seed", options.seed, 0, 2**32 - 1)


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    check_options(options)
    res = Resolver(table)
    pair = pair_up(table, options, res)
    notes = res.notes
    counts = sg.paired_counts(pair.base, pair.cand)
    n, b, c = counts.n, counts.wins, counts.losses
    progress.advance(0.1, "tests")
    exact_p, midp = sg.sign_test(b, c)
    chi2, p_chi2 = sg.mcnemar(b, c, correction=False)
    chi2_cc, p_cc = sg.mcnemar(b, c, correction=True)
    diff, se, n_low, n_high = sg.paired_normal_interval(b, c, n)
    progress.check_cancelled()
    if pair.cluster is not None:
        cl_codes, cl_labels = pd.factorize(pd.Series(pair.cluster), sort=True)  # order-free
        net = np.bincount(cl_codes, weights=pair.cand.astype(float) - pair.base, minlength=len(cl_labels))
        size = np.bincount(cl_codes, minlength=len(cl_labels))
        samples = sg.bootstrap_clustered(net, size, resamples=options.resamples, seed=options.seed,
                                         progress=_Scaled(progress, 0.2, 0.9))
        boot_unit = f"clusters:{options.cluster}"
        notes.append(f"The bootstrap resamples the {len(cl_labels)} clusters of column "
                     f"'{options.cluster}' whole; the exact, McNemar and normal results treat the "
                     f"{n} items as independent and are optimistic if clusters matter.")
    else:
        samples = sg.bootstrap_paired_counts(b, c, n, resamples=options.resamples, seed=options.seed,
                                             progress=_Scaled(progress, 0.2, 0.9))
        boot_unit = "items"
    b_low, b_high = sg.percentile_interval(samples)
    d_rate = counts.discordant / n if n else float("nan")
    mde = float(paired_mde(d_rate, n)) if n else float("nan")

    base_rate = float(pair.base.mean())
    cand_rate = float(pair.cand.mean())
    bn, cn = pair.base_name, pair.cand_name
    records = [
        record("rate", base_rate, system=bn, n=n),
        record("rate", cand_rate, system=cn, n=n),
        record("wins", b, n=n, from_=bn, to=cn),
        record("losses", c, n=n, from_=bn, to=cn),
        record("ties", counts.ties, n=n, from_=bn, to=cn),
        record("diff", diff, n=n, from_=bn, to=cn),
        record("sign_test_p", exact_p, n=counts.discordant),
        record("sign_test_midp", midp, n=counts.discordant),
        record("mcnemar_chi2", chi2, n=counts.discordant),
        record("mcnemar_p", p_chi2, n=counts.discordant),
        record("mcnemar_cc_chi2", chi2_cc, n=counts.discordant),
        record("mcnemar_cc_p", p_cc, n=counts.discordant),
        record("normal_ci", diff, n=n, ci_low=n_low, ci_high=n_high, from_=bn, to=cn),
        record("bootstrap_ci", diff, n=n, ci_low=b_low, ci_high=b_high, from_=bn, to=cn),
        record("mde", mde, n=n),
    ]
    if counts.discordant == 0:
        notes.append("No item differs between the two systems; McNemar is undefined (shown empty) "
                     "and the sign test p is 1.")
    ps = {"exact sign test": exact_p, "McNemar": p_chi2, "McNemar (corrected)": p_cc}
    finite = {k: v for k, v in ps.items() if np.isfinite(v)}
    below = [k for k, v in finite.items() if v < ALPHA]
    above = [k for k, v in finite.items() if v >= ALPHA]
    if below and above:
        notes.append(
            f"The tests disagree at alpha {ALPHA}: significant by {', '.join(below)}; "
            f"not significant by {', '.join(above)}. With {counts.discordant} discordant items the exact sign "
            f"test (p = {exact_p:.3f}) does not rely on a large-sample approximation; treat the result "
            f"as borderline: read the {counts.discordant} items that flipped and extend the set.")
    if n and abs(diff) < mde:
        notes.append(f"The observed difference ({diff:+.1%}) is smaller than the minimum detectable "
                     f"difference at this size and discordance ({mde:.1%} = 2.8 x sqrt({d_rate:.3f}/"
                     f"{n})).")

    tests = pd.DataFrame([
        {"test": "exact sign test (two-sided)", "statistic": float(b), "p_value": exact_p,
         "basis": f"Binomial({counts.discordant}, 1/2) on the discordant items"},
        {"test": "sign test mid-p", "statistic": float(b), "p_value": midp,
         "basis": "exact p minus the probability of the observed split"},
        {"test": "McNemar chi-square", "statistic": chi2, "p_value": p_chi2,
         "basis": "(b - c)^2 / (b + c), 1 df"},
        {"test": "McNemar chi-square, continuity corrected", "statistic": chi2_cc, "p_value": p_cc,
         "basis": "max(0, |b - c| - 1)^2 / (b + c), 1 df"},
    ])
    intervals = pd.DataFrame([
        {"interval": "normal (paired)", "diff": diff, "ci_low": n_low, "ci_high": n_high,
         "basis": f"SE = sqrt(b + c - (b - c)^2 / n) / n = {se:.4f}"},
        {"interval": f"bootstrap percentile ({boot_unit})", "diff": diff, "ci_low": b_low,
         "ci_high": b_high, "basis": f"{options.resamples} resamples, seed {options.seed}"},
    ])
    summary = pd.DataFrame([{
        "baseline": bn, "candidate": cn, "items": n, "baseline_rate": base_rate,
        "candidate_rate": cand_rate, "wins": b, "losses": c, "ties": counts.ties,
        "discordance": d_rate, "diff": diff, "mde": mde,
    }])
    hist_counts, edges = np.histogram(samples[np.isfinite(samples)], bins=40) if np.isfinite(samples).any() \
        else (np.zeros(0), np.zeros(1))
    histogram = pd.DataFrame({"bin_low": edges[:-1], "bin_high": edges[1:], "resamples": hist_counts})
    disc = np.flatnonzero(pair.base != pair.cand)
    original = table.frame.iloc[pair.rows[disc]].reset_index(drop=True)
    discordant = pd.concat([pd.DataFrame({
        "item": [pair.item[i] for i in disc],
        "line": [table.line_of(int(pair.rows[i])) for i in disc],
        "result": np.where(pair.cand[disc] > pair.base[disc], "win", "loss"),
        "baseline": pair.base[disc], "candidate": pair.cand[disc],
    }), original.add_prefix("input:")], axis=1)
    sig = base_signature(NAME)
    sig.update({
        "form": pair.form, "pairs": "by-item-id", "sign": "exact-two-sided,mid-p",
        "mcnemar": "chi2-1df,cc:max(0,|b-c|-1)", "normal-se": "sqrt(b+c-(b-c)^2/n)/n,clip[-1,1]",
        "z": f"{Z95:.6f}", "bs": f"{options.resamples}", "seed": f"{options.seed}",
        "bs-unit": boot_unit, "bs-ci": "percentile-95", "mde": "2.8*sqrt(d/n)",
    })
    tables = (
        Table("summary", "Paired comparison", summary, columns={
            "wins": "items the candidate passes and the baseline fails (b)",
            "losses": "items the baseline passes and the candidate fails (c)",
            "diff": "(b - c) / items", "discordance": "(b + c) / items",
            "mde": "minimum detectable difference 2.8 x sqrt(discordance / items)",
        }, formats={"baseline_rate": "rate", "candidate_rate": "rate", "discordance": "rate",
                    "diff": "rate", "mde": "rate", "items": "int", "wins": "int", "losses": "int",
                    "ties": "int"}),
        Table("tests", "Significance tests side by side", tests,
              formats={"p_value": "p", "statistic": "float"}),
        Table("intervals", "95% intervals of the difference", intervals,
              formats={"diff": "rate", "ci_low": "rate", "ci_high": "rate"}),
        Table("bootstrap", "Bootstrap distribution of the difference", histogram,
              formats={"bin_low": "rate", "bin_high": "rate", "resamples": "int"}),
        Table("discordant", "Items that flipped", discordant),
    )
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tables, tuple(notes), table.path)


class _Scaled:
    """Maps a sub-task's 0..1 progress onto [start, stop] of the parent's."""

    def __init__(self, parent, start: float, stop: float) -> None:
        self._p, self._a, self._b = parent, start, stop

    def advance(self, fraction: float, message: str = "") -> None:
        self._p.advance(self._a + (self._b - self._a) * fraction, message)

    def check_cancelled(self) -> None:
        self._p.check_cancelled()
