"""Compare's general case: any scores or more than two systems, every pair's tests, the
corrections over several comparisons and their tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.numbers import plural
from ..core.progress import Scaled
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable
from ..metrics import significance as sg
from ..metrics.intervals import paired_mde
from ..metrics import paired as pm
from . import _intervals
from . import paired as pt
from ._common import Resolver, base_signature
from ._compare_common import (ALPHA, BOOT_METHOD, NAME, Collected, Options, _system_ci_signature, _system_cis,
                              bootstrap_histogram)


def _cluster_codes(col: Collected):
    if col.cluster is None:
        return None, 0
    codes, labels = pd.factorize(pd.Series(col.cluster), sort=True)
    return codes.astype(np.int64), len(labels)


def _binary_stats(x: np.ndarray, y: np.ndarray, options: Options, codes):
    counts = sg.paired_counts(x, y)
    n, b, c = counts.n, counts.wins, counts.losses
    exact_p, midp = sg.sign_test(b, c)
    _, p_chi2 = sg.mcnemar(b, c, correction=False)
    _, p_cc = sg.mcnemar(b, c, correction=True)
    diff, _, n_low, n_high = sg.paired_normal_interval(b, c, n)
    if codes is not None:
        samples = pm.bootstrap_means(y - x, resamples=options.resamples, seed=options.seed, clusters=codes)
    else:
        samples = sg.bootstrap_paired_counts(b, c, n, resamples=options.resamples, seed=options.seed)
    low, high = sg.percentile_interval(samples)
    d_rate = counts.discordant / n if n else float("nan")
    mde = float(paired_mde(d_rate, n)) if n else float("nan")
    return dict(counts=counts, n=n, diff=diff, p=exact_p, midp=midp, mcnemar_p=p_chi2, mcnemar_cc_p=p_cc,
                normal=(n_low, n_high), boot=(low, high), mde=mde, discordance=d_rate)


def _tukey_hsd(scores: np.ndarray):
    """Tukey's HSD p-values (``scipy.stats.tukey_hsd``) of the systems' scores as independent
    groups; NaN when undefined (fewer than two items, or no spread)."""
    import warnings

    from scipy.stats import tukey_hsd

    k = scores.shape[1]
    if scores.shape[0] < 2 or not np.any(scores.std(axis=0) > 0):
        return np.full((k, k), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(tukey_hsd(*[scores[:, j] for j in range(k)]).pvalue, dtype=float)


def _general(table: LoadedTable, options: Options, progress, res: Resolver, col: Collected,
             unit_word: str = "items") -> AnalysisResult:
    notes = res.notes
    names, S = col.names, col.scores
    k, n = len(names), S.shape[0]
    codes, n_clusters = _cluster_codes(col)
    family = "binary" if col.binary else "continuous"
    unit = f"clusters:{options.cluster}" if codes is not None else "items"
    sign = 1.0 if options.better == "higher" else -1.0
    records: list[dict] = []
    cis, ci_notes = _system_cis(S, names, codes, options)
    notes += ci_notes
    for j, name in enumerate(names):
        metric = "rate" if col.binary else "mean_score"
        records.append(record(metric, float(S[:, j].mean()) if n else float("nan"), system=name, n=n,
                              **_intervals.fields(cis[j])))
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    results = _pairs(S, names, pairs, col, options, codes, progress, unit_word, records, notes)
    if codes is not None:
        notes.append(f"The bootstrap resamples the {plural(n_clusters, 'cluster')} of column '{options.cluster}' "
                     f"whole; the other tests treat the {plural(n, 'item')} as independent and are optimistic if "
                     f"clusters matter.")
    primary = "exact sign test" if col.binary else "randomization test"
    if k == 2:
        tables = _two_systems_tables(results[(0, 1)], S, n, options, unit)
    else:
        tables = _many_systems_tables(results, pairs, names, n, S, col, options, sign, primary, records, notes)
    tables.append(_discordant_table(table, col, S, names, sign))
    sig = _general_signature(options, col, family, unit, k)
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), table.path)


def _pairs(S, names, pairs, col: Collected, options: Options, codes, progress, unit_word: str,
           records: list, notes: list) -> dict:
    """Every pair of systems: its tests and intervals as records, and per pair the difference,
    p-value, interval and its summary row."""
    k, n = len(names), S.shape[0]
    results: dict[tuple[int, int], dict] = {}
    for step, (i, j) in enumerate(pairs):
        progress.check_cancelled()
        progress.advance(0.05 + 0.85 * step / len(pairs), f"'{names[j]}' vs '{names[i]}'")
        x, y = S[:, i], S[:, j]
        a, b = names[i], names[j]
        kw = dict(from_=a, to=b)
        if col.binary:
            st = _binary_stats(x, y, options, codes)
            cnt = st["counts"]
            records += [
                record("wins", cnt.wins, n=n, **kw), record("losses", cnt.losses, n=n, **kw),
                record("ties", cnt.ties, n=n, **kw), record("diff", st["diff"], n=n, **kw),
                record("sign_test_p", st["p"], n=cnt.discordant, **kw),
                record("sign_test_midp", st["midp"], n=cnt.discordant, **kw),
                record("mcnemar_p", st["mcnemar_p"], n=cnt.discordant, **kw),
                record("mcnemar_cc_p", st["mcnemar_cc_p"], n=cnt.discordant, **kw),
                record("normal_ci", st["diff"], n=n, ci_low=st["normal"][0], ci_high=st["normal"][1],
                       ci_method="normal-95", **kw),
                record("bootstrap_ci", st["diff"], n=n, ci_low=st["boot"][0], ci_high=st["boot"][1],
                       ci_method=BOOT_METHOD if codes is None else "paired-cluster-bootstrap-percentile-95", **kw),
                record("mde", st["mde"], n=n, **kw),
                *pt.binary_t_records(x, y, **kw),
            ]
            results[(i, j)] = {"diff": st["diff"], "p": st["p"], "low": st["boot"][0], "high": st["boot"][1],
                               "row": {"baseline": a, "candidate": b, "items": n,
                                       "baseline_rate": float(x.mean()), "candidate_rate": float(y.mean()),
                                       "wins": cnt.wins, "losses": cnt.losses, "ties": cnt.ties,
                                       "discordance": st["discordance"], "diff": st["diff"], "mde": st["mde"]},
                               "mde": st["mde"]}
        else:
            lo = 0.05 + 0.85 * step / len(pairs)
            ps = pm.summarize(x, y, resamples=options.resamples, seed=options.seed, rounds=options.rounds,
                              zero_method=options.zero_method, clusters=codes,
                              progress=Scaled(progress, lo, lo + 0.85 / len(pairs)))
            records += pt.summary_records(ps, a, b)
            results[(i, j)] = {"diff": ps.diff, "p": ps.randomization.p, "low": ps.boot_low,
                               "high": ps.boot_high, "ps": ps, "mde": ps.mde,
                               "row": {"baseline": a, "candidate": b, "items": n,
                                       "baseline_mean": ps.base_mean, "candidate_mean": ps.cand_mean,
                                       "improved": ps.directions.improved, "worse": ps.directions.worse,
                                       "tied": ps.directions.tied, "mean_diff": ps.diff, "sd_diff": ps.sd,
                                       "effect_size": ps.effect, "mde_score": ps.mde}}
        if i == 0 or k == 2:
            if col.binary:
                notes += [f"'{b}' vs '{a}': {s}" if k > 2 else s for s in
                          pt.degenerate_notes(y - x, mde=results[(i, j)]["mde"])]
            else:
                ps = results[(i, j)]["ps"]
                notes += [f"'{b}' vs '{a}': {s}" if k > 2 else s for s in
                          pt.degenerate_notes(pm.paired_differences(x, y), unit=unit_word, mde=ps.mde,
                                              bounded=col.bounded)]
                notes += pt.readings(ps, base=a, cand=b, unit=unit_word, bounded=col.bounded)
    return results


def _two_systems_tables(r: dict, S, n: int, options: Options, unit: str) -> list:
    """Two systems: the paired summary, the tests side by side, the intervals, the bootstrap."""
    tables = []
    summary = pd.DataFrame([r["row"]])
    ps = r.get("ps")
    tables += [
        Table("summary", "Paired comparison", summary, columns={
            "mean_diff": "mean of candidate - baseline over the items",
            "sd_diff": "SD of the per-item differences (n - 1)",
            "effect_size": "mean difference / SD of the differences (d_z)",
            "mde_score": "minimum detectable mean difference 2.8 x SD / sqrt(n)",
            "improved": "items where the candidate scores higher", "worse": "items where it scores lower",
        }, formats={"baseline_mean": "float", "candidate_mean": "float", "mean_diff": "float",
                    "sd_diff": "float", "effect_size": "float", "mde_score": "float", "items": "int",
                    "improved": "int", "worse": "int", "tied": "int"}),
        Table("tests", "Significance tests side by side", pd.DataFrame(pt.tests_rows(ps, options.zero_method)),
              formats={"p_value": "p", "statistic": "float"}),
        Table("intervals", "95% intervals of the mean difference",
              pd.DataFrame(pt.interval_rows(ps, options.resamples, options.seed, unit)),
              formats={"diff": "float", "ci_low": "float", "ci_high": "float"}),
    ]
    # integer per-item differences: resampled means are multiples of 1/n (cluster ratios too
    # when the clusters are equal-sized; bootstrap_histogram checks the samples)
    d01 = pm.paired_differences(S[:, 0], S[:, 1])
    on_lattice = n > 0 and bool(np.all(d01 == np.rint(d01)))
    histogram, hist_columns = bootstrap_histogram(ps.samples, n if on_lattice else None)
    tables.append(Table("bootstrap", "Bootstrap distribution of the mean difference", histogram,
                        columns=hist_columns, formats={"difference": "float", "bin_low": "float",
                                                       "bin_high": "float", "resamples": "int"}))
    return tables


def _many_systems_tables(results: dict, pairs, names, n: int, S, col: Collected, options: Options, sign: float,
                         primary: str, records: list, notes: list) -> list:
    """Three or more systems: each candidate against the baseline, every pair with its
    corrections (and Tukey's HSD for scores), and which beat the baseline."""
    k = len(names)
    tables = []
    base_rows = [results[(0, j)]["row"] for j in range(1, k)]
    tables.append(Table("summary", "Each candidate against the baseline", pd.DataFrame(base_rows),
                        formats={c: "rate" if col.binary and c in ("baseline_rate", "candidate_rate", "diff",
                                                                   "discordance", "mde") else "float"
                                 for c in base_rows[0] if c not in ("baseline", "candidate")}))
    # corrections: candidates vs the baseline (one family), all pairs (another)
    vs_base = [(0, j) for j in range(1, k)]
    adj_base = pm.adjust([results[p]["p"] for p in vs_base], options.correction)
    adj_all = pm.adjust([results[p]["p"] for p in pairs], options.correction)
    adj_all_of = dict(zip(pairs, adj_all))
    rows, answer = [], {"better": [], "worse": [], "unclear": []}
    for (i, j), p_adj in zip(vs_base, adj_base):
        r = results[(i, j)]
        records.append(record("p_adjusted", p_adj, group="vs baseline", from_=names[0], to=names[j], n=n))
        better = bool(np.isfinite(p_adj) and p_adj < ALPHA and sign * r["diff"] > 0)
        worse = bool(np.isfinite(p_adj) and p_adj < ALPHA and sign * r["diff"] < 0)
        records.append(record("beats_baseline", better, from_=names[0], to=names[j], n=n))
        answer["better" if better else "worse" if worse else "unclear"].append(names[j])
    tukey = _tukey_hsd(S) if not col.binary else None
    for (i, j) in pairs:
        r = results[(i, j)]
        rows.append({"from": names[i], "to": names[j], "items": n, "diff": r["diff"],
                     "ci_low": r["low"], "ci_high": r["high"], "p_value": r["p"],
                     "p_adjusted_vs_baseline": dict(zip(vs_base, adj_base)).get((i, j), np.nan),
                     "p_adjusted_all_pairs": adj_all_of[(i, j)],
                     **({"tukey_hsd_p": float(tukey[i, j])} if tukey is not None else {})})
        records.append(record("p_adjusted", adj_all_of[(i, j)], group="all pairs", from_=names[i],
                              to=names[j], n=n))
        if tukey is not None:
            records.append(record("tukey_hsd_p", float(tukey[i, j]), from_=names[i], to=names[j], n=n))
    if tukey is not None:
        notes.append("Tukey's HSD (as ranx offers it) compares all pairs at once with the studentized "
                     "range, treating each system's scores as an independent sample: it ignores the "
                     "pairing by item, so it is conservative next to the paired tests.")
    fmt = "rate" if col.binary else "float"
    tables.append(Table("pairs", f"Every pair: {primary} p-values, adjusted ({options.correction})",
                        pd.DataFrame(rows), columns={
                            "diff": "to - from", "ci_low": "paired bootstrap 95% percentile interval",
                            "p_value": f"{primary}, two-sided",
                            "p_adjusted_vs_baseline": f"{options.correction}-adjusted over the "
                                                      f"{k - 1} candidate-vs-baseline comparisons",
                            "p_adjusted_all_pairs": f"{options.correction}-adjusted over all "
                                                    f"{len(pairs)} pairs"},
                        formats={"diff": fmt, "ci_low": fmt, "ci_high": fmt, "p_value": "p",
                                 "tukey_hsd_p": "p",
                                 "p_adjusted_vs_baseline": "p", "p_adjusted_all_pairs": "p",
                                 "items": "int"}))
    direction = "higher" if options.better == "higher" else "lower"
    parts = [f"Which beat the baseline '{names[0]}' ({options.correction}-adjusted {primary} p < "
             f"{ALPHA} and a {direction} score): "
             f"{', '.join(repr(x) for x in answer['better']) or 'none'}"]
    if answer["worse"]:
        parts.append(f"significantly worse: {', '.join(repr(x) for x in answer['worse'])}")
    if answer["unclear"]:
        parts.append(f"not distinguishable from it: {', '.join(repr(x) for x in answer['unclear'])}")
    notes.insert(0, "; ".join(parts) + ".")
    return tables


def _discordant_table(table: LoadedTable, col: Collected, S, names, sign: float) -> Table:
    """The items that changed against the baseline, with their input row."""
    k = len(names)
    changed = []
    for j in range(1, k):
        dj = pm.paired_differences(S[:, 0], S[:, j])  # a difference of float noise is no change
        idx = np.flatnonzero(dj != 0)
        if not idx.size:
            continue
        label = (np.where(dj[idx] > 0, "win", "loss") if col.binary
                 else np.where(sign * dj[idx] > 0, "improved", "worse"))
        changed.append(pd.concat([pd.DataFrame({
            "item": [col.items[i] for i in idx],
            "line": table.lines_of(col.rows[idx, 0]),
            **({"from": names[0], "to": names[j]} if k > 2 else {}),
            "result": label, "baseline": S[idx, 0], "candidate": S[idx, j], "difference": dj[idx],
        }), table.frame.iloc[col.rows[idx, 0]].reset_index(drop=True).add_prefix("input:")], axis=1))
    return Table("discordant", "Items that changed against the baseline",
                        pd.concat(changed, ignore_index=True) if changed else
                        pd.DataFrame(columns=["item", "line", "result", "baseline", "candidate", "difference"]),
                        formats={} if col.binary else {"baseline": "float", "candidate": "float",
                                                       "difference": "float"})


def _general_signature(options: Options, col: Collected, family: str, unit: str, k: int) -> dict:
    sig = base_signature(NAME)
    sig.update({"family": family, "form": col.form, "pairs": "by-item-id", "systems": str(k)})
    if col.binary:
        sig.update({"sign": "exact-two-sided,mid-p", "mcnemar": "chi2-1df,cc:max(0,|b-c|-1)"})
    else:
        sig.update({"t": "paired,two-sided", "wilcoxon": f"zero:{options.zero_method},scipy-auto,no-cc",
                    "rand": f"sign-flip,exact<=2^{pm.EXACT_MAX},else-mc:{options.rounds},p:(1+hits)/(1+R)",
                    "ties": pm.TIES_SIGNATURE,
                    "bs-ci": "percentile-95,bca-95"})
    sig.update({"bs": f"{options.resamples}", "seed": f"{options.seed}", "bs-unit": unit})
    sig["ci-system"] = _system_ci_signature(options, col.binary)
    if k > 2:
        sig.update({"correction": options.correction, "adjusted": "sign-test" if col.binary else "randomization",
                    "alpha": f"{ALPHA:g}", "better": options.better})
    sig["mde"] = "2.8*sqrt(d/n)" if col.binary else "2.8*sd/sqrt(n)"
    return sig
