"""Compare's two systems with binary outcomes: the exact sign test, McNemar and the cell
bootstrap, with their tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.numbers import format_p, format_value, plural
from ..core.progress import Scaled
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable
from ..metrics import significance as sg
from ..metrics.intervals import Z95, paired_mde
from . import _intervals
from . import paired as pt
from ._common import Resolver, base_signature
from ._compare_common import (ALPHA, BOOT_METHOD, NAME, Options, Paired, _system_ci_signature, _system_cis,
                              _with_family, bootstrap_histogram)


def _binary_pair(table: LoadedTable, options: Options, progress, res: Resolver, pair: Paired) -> AnalysisResult:
    """Two systems, binary outcomes: the exact and McNemar tests and the cell bootstrap."""
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
                                         progress=Scaled(progress, 0.2, 0.9))
        boot_unit = f"clusters:{options.cluster}"
        notes.append(f"The bootstrap resamples the {plural(len(cl_labels), 'cluster')} of column "
                     f"'{options.cluster}' whole; the exact, McNemar and normal results treat the "
                     f"{plural(n, 'item')} as independent and are optimistic if clusters matter.")
    else:
        samples = sg.bootstrap_paired_counts(b, c, n, resamples=options.resamples, seed=options.seed,
                                             progress=Scaled(progress, 0.2, 0.9))
        boot_unit = "items"
    b_low, b_high = sg.percentile_interval(samples)
    t_low, t_high = sg.tango_interval(b, c, n)  # a score interval: it does not collapse at b = c = 0
    d_rate = counts.discordant / n if n else float("nan")
    mde = float(paired_mde(d_rate, n)) if n else float("nan")

    base_rate = float(pair.base.mean())
    cand_rate = float(pair.cand.mean())
    bn, cn = pair.base_name, pair.cand_name
    codes = (pd.factorize(pd.Series(pair.cluster), sort=True)[0].astype(np.int64)
             if pair.cluster is not None else None)
    cis, ci_notes = _system_cis(np.column_stack([pair.base, pair.cand]).astype(float), [bn, cn], codes, options)
    notes += ci_notes
    records = [
        record("rate", base_rate, system=bn, n=n, **_intervals.fields(cis[0])),
        record("rate", cand_rate, system=cn, n=n, **_intervals.fields(cis[1])),
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
        record("normal_ci", diff, n=n, ci_low=n_low, ci_high=n_high, from_=bn, to=cn, ci_method="normal-95"),
        record("score_ci", diff, n=n, ci_low=t_low, ci_high=t_high, from_=bn, to=cn, ci_method="tango-score-95"),
        record("bootstrap_ci", diff, n=n, ci_low=b_low, ci_high=b_high, from_=bn, to=cn,
               ci_method=BOOT_METHOD if pair.cluster is None else "paired-cluster-bootstrap-percentile-95"),
        record("mde", mde, n=n),
        *pt.binary_t_records(pair.base, pair.cand, from_=bn, to=cn),
    ]
    if counts.discordant == 0:
        notes.append("No item differs between the two systems; McNemar is undefined (shown empty) "
                     "and the sign test p is 1. The card gives Tango's score interval "
                     f"({format_value(t_low, 'points')} to {format_value(t_high, 'points')}), which, unlike the "
                     "normal one, does not collapse to a point when no item differs.")
    ps = {"exact sign test": exact_p, "McNemar": p_chi2, "McNemar (corrected)": p_cc}
    finite = {k: v for k, v in ps.items() if np.isfinite(v)}
    below = [k for k, v in finite.items() if v < ALPHA]
    above = [k for k, v in finite.items() if v >= ALPHA]
    if below and above:
        notes.append(
            f"The tests disagree at alpha {ALPHA}: significant by {', '.join(below)}; "
            f"not significant by {', '.join(above)}. With {plural(counts.discordant, 'discordant item')} the "
            f"exact sign test ({format_p(exact_p)}) does not rely on a large-sample approximation; treat the "
            f"result as borderline: read the {plural(counts.discordant, 'item')} that flipped and extend the set.")
    notes += pt.degenerate_notes(pair.cand.astype(float) - pair.base, mde=mde)
    notes += pt.binary_readings(b, c, n, exact_p=exact_p, midp=midp, p_chi2=p_chi2, p_cc=p_cc,
                                normal=(n_low, n_high), boot=(b_low, b_high))
    if n and abs(diff) < mde and mde <= 1 and counts.discordant:
        notes.append(f"The observed difference ({format_value(diff, 'points')}) is smaller than the minimum "
                     f"detectable difference at this size and discordance ({format_value(mde, 'margin')} = "
                     f"2.8 x sqrt(d/n), with discordance d = {format_value(d_rate, 'rate')} of n = "
                     f"{plural(n, 'item')}).")

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
         "basis": f"SE = sqrt(b + c - (b - c)^2 / n) / n = {format_value(se, 'margin')}"},
        {"interval": "Tango score (paired)", "diff": diff, "ci_low": t_low, "ci_high": t_high,
         "basis": "Tango (1998): the differences whose score test is not rejected at 5%"},
        {"interval": f"bootstrap percentile ({boot_unit})", "diff": diff, "ci_low": b_low,
         "ci_high": b_high, "basis": f"{options.resamples:,} resamples, seed {options.seed}"},
    ])
    summary = pd.DataFrame([{
        "baseline": bn, "candidate": cn, "items": n, "baseline_rate": base_rate,
        "candidate_rate": cand_rate, "wins": b, "losses": c, "ties": counts.ties,
        "discordance": d_rate, "diff": diff, "mde": mde,
    }])
    # item resampling: (b* - c*) / n, multiples of 1/n; the cluster bootstrap's ratios are too when
    # every cluster has the same size (else the samples are off the lattice and get equal bins)
    histogram, hist_columns = bootstrap_histogram(samples, n)
    disc = np.flatnonzero(pair.base != pair.cand)
    original = table.frame.iloc[pair.rows[disc]].reset_index(drop=True)
    discordant = pd.concat([pd.DataFrame({
        "item": [pair.item[i] for i in disc],
        "line": table.lines_of(pair.rows[disc]),
        "result": np.where(pair.cand[disc] > pair.base[disc], "win", "loss"),
        "baseline": pair.base[disc], "candidate": pair.cand[disc],
    }), original.add_prefix("input:")], axis=1)
    sig = base_signature(NAME)
    sig.update({
        "form": pair.form, "pairs": "by-item-id", "sign": "exact-two-sided,mid-p",
        "mcnemar": "chi2-1df,cc:max(0,|b-c|-1)", "normal-se": "sqrt(b+c-(b-c)^2/n)/n,clip[-1,1]",
        "z": f"{Z95:.6f}", "bs": f"{options.resamples}", "seed": f"{options.seed}",
        "bs-unit": boot_unit, "bs-ci": "percentile-95", "mde": "2.8*sqrt(d/n)",
        "ci-system": _system_ci_signature(options, True),
    })
    sig = _with_family(sig, "binary")
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
        Table("bootstrap", "Bootstrap distribution of the difference", histogram, columns=hist_columns,
              formats={"difference": "points", "bin_low": "rate", "bin_high": "rate", "resamples": "int"}),
        Table("discordant", "Items that flipped", discordant),
    )
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tables, tuple(notes), table.path)
