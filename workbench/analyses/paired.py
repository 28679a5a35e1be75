"""Paired comparisons of systems, shared by Compare, Ranking, Text and Cost.

The numbers come from :mod:`workbench.metrics.paired` (per-item scores) and
:mod:`workbench.metrics.corpus_paired` (corpus BLEU/chrF); this module turns them into result
records, table rows, plain-language readings and the notes of degenerate cases.

Record ids (``metric`` of a record; ``from`` = baseline, ``to`` = candidate):

* Compare, continuous scores: ``mean_score`` (per system), ``improved``, ``worse``, ``tied``,
  ``mean_diff`` (with the paired t interval), ``t_test_p``, ``wilcoxon_p``,
  ``randomization_p``, ``bootstrap_pct_ci``, ``bootstrap_bca_ci``, ``effect_size``,
  ``mde_score``; with several candidates also ``p_adjusted`` (``group`` = the family,
  ``vs baseline`` or ``all pairs``) and ``beats_baseline``.
* Ranking / Text "Systems compared": ``diff:<metric>`` (mean difference over the common
  queries/items, with the paired bootstrap percentile interval), ``t_test_p:<metric>``,
  ``wilcoxon_p:<metric>``, ``randomization_p:<metric>``, ``p_adjusted:<metric>``; corpus
  BLEU/chrF: ``diff:bleu`` (interval of the resampled difference), ``paired_bs_p:bleu``,
  ``paired_ar_p:bleu`` (and ``:chrf``).
* Cost: ``diff:cost_per_request``, ``diff:latency_p50`` / ``p95`` / ``p99`` (bootstrap intervals).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.numbers import format_p, format_value, plural
from ..core.result import record
from ..metrics import paired as pm

ALPHA = 0.05
PRIMARY = "randomization"   # the test whose p-values are corrected for several comparisons


def natural_key(value) -> tuple:
    """Sort key of an id in natural order ("q2" before "q10"), then by its exact text: the
    order in which the common units are resampled (so that results do not depend on the row
    order, and ids written in sequence keep the file's order, as sacrebleu would see it)."""
    import re

    text = str(value)
    parts = re.split(r"(\d+)", text)
    return tuple((0, int(p), "") if i % 2 else (1, 0, p) for i, p in enumerate(parts)), text


def _one(word: str) -> str:
    return {"queries": "query"}.get(word, word[:-1])


def fmt_p(p: float) -> str:
    """A p-value under the policy (3 significant digits, ``< 0.001``), ``undefined`` if missing."""
    if p is None or not math.isfinite(p):
        return "undefined"
    return format_value(p, "p")


def _p(p: float) -> str:
    """``p = 0.0636``, ``p < 0.001`` or ``p undefined``."""
    return "p undefined" if p is None or not math.isfinite(p) else format_p(p)


def _num(x: float, *, signed: bool = True) -> str:
    """A difference of scores (``+0.013``), or an unsigned score-scale size."""
    if x is None or not math.isfinite(x):
        return "undefined"
    return format_value(x, "score_diff" if signed else "score")


def _pts(x: float) -> str:
    """A difference of rates in points without its unit (the first number of a range)."""
    return format_value(x, "points").removesuffix(" pts")


def t_record(metric: str, ps: pm.PairedSummary, **kw) -> dict:
    """The paired t statistic as a record of its own, with its degrees of freedom (n - 1)."""
    kw.setdefault("n", ps.n)
    return record(metric, ps.t.t, df=ps.t.df if ps.n > 1 else None, **kw)


def binary_t_records(base, cand, **kw) -> list[dict]:
    """The paired t-test of two 0/1 outcome columns (candidate - base per item) beside the sign
    test and McNemar, as records: ``t_test_p`` and ``t`` with its degrees of freedom."""
    d = np.asarray(cand, dtype=float) - np.asarray(base, dtype=float)
    t = pm.paired_t(d)
    kw.setdefault("n", int(d.size))
    return [record("t_test_p", t.p, **kw), record("t", t.t, df=t.df if d.size > 1 else None, **kw)]


def summary_records(ps: pm.PairedSummary, base: str, cand: str) -> list[dict]:
    """The records of one continuous pair (Compare)."""
    n = ps.n
    kw = dict(from_=base, to=cand)
    return [
        record("improved", ps.directions.improved, n=n, **kw),
        record("worse", ps.directions.worse, n=n, **kw),
        record("tied", ps.directions.tied, n=n, **kw),
        record("mean_diff", ps.diff, n=n, ci_low=ps.t.ci_low, ci_high=ps.t.ci_high, ci_method="paired-t-95", **kw),
        record("t_test_p", ps.t.p, n=n, **kw),
        t_record("t", ps, **kw),
        record("wilcoxon_p", ps.wilcoxon.p, n=ps.wilcoxon.n_used, **kw),
        record("randomization_p", ps.randomization.p, n=n, **kw),
        record("bootstrap_pct_ci", ps.diff, n=n, ci_low=ps.boot_low, ci_high=ps.boot_high,
               ci_method="paired-bootstrap-percentile-95", **kw),
        record("bootstrap_bca_ci", ps.diff, n=n, ci_low=ps.bca_low, ci_high=ps.bca_high,
               ci_method="paired-bca-bootstrap-95", **kw),
        record("effect_size", ps.effect, n=n, **kw),
        record("mde_score", ps.mde, n=n, **kw),
    ]


def tests_rows(ps: pm.PairedSummary, zero_method: str) -> list[dict]:
    r = ps.randomization
    how = ("no item differs" if r.method == "none" else
           f"exact: all 2^{r.nonzero} sign patterns" if r.method == "exact" else
           f"Monte Carlo: {r.rounds} random sign patterns, p = (1 + hits) / (1 + rounds), "
           f"Monte Carlo SE {r.mc_se:.2g}")
    return [
        {"test": "randomization (sign-flip permutation), two-sided", "statistic": ps.diff,
         "p_value": r.p, "basis": f"mean difference; {how}"},
        {"test": "paired t-test, two-sided", "statistic": ps.t.t, "p_value": ps.t.p,
         "basis": f"t = mean / (SD / sqrt(n)), {ps.t.df} df"},
        {"test": "Wilcoxon signed-rank, two-sided", "statistic": ps.wilcoxon.statistic,
         "p_value": ps.wilcoxon.p,
         "basis": f"zero handling '{zero_method}', {ps.wilcoxon.n_used} differences ranked, "
                  f"p by {ps.wilcoxon.method}"},
    ]


def interval_rows(ps: pm.PairedSummary, resamples: int, seed: int, unit: str) -> list[dict]:
    return [
        {"interval": "paired t", "diff": ps.diff, "ci_low": ps.t.ci_low, "ci_high": ps.t.ci_high,
         "basis": f"mean +- t(0.975, {ps.t.df}) x SD / sqrt(n), SD = {_num(ps.sd, signed=False)}"},
        {"interval": f"bootstrap percentile ({unit})", "diff": ps.diff, "ci_low": ps.boot_low,
         "ci_high": ps.boot_high, "basis": f"{resamples:,} resamples, seed {seed}"},
        {"interval": f"bootstrap BCa ({unit})", "diff": ps.diff, "ci_low": ps.bca_low,
         "ci_high": ps.bca_high, "basis": f"{resamples:,} resamples, seed {seed}, jackknife acceleration"},
    ]


def readings(ps: pm.PairedSummary, *, base: str, cand: str, unit: str = "items",
             bounded: bool = True, what: str = "score") -> list[str]:
    """Plain-language readings of every test (one note) and of the intervals, effect size,
    counts and MDE (a second note)."""
    n = ps.n
    pair = f"'{cand}' vs '{base}'"
    tests = []
    r = ps.randomization
    if r.method != "none":
        how = (f"exact over all {r.rounds:,} sign patterns" if r.method == "exact" else
               f"Monte Carlo with {r.rounds:,} rounds, +- {r.mc_se:.2g}")
        sig = "unlikely" if r.p < ALPHA else "not unlikely"
        tests.append(f"the randomization test (the recommended one for per-query IR metrics, Smucker et al. "
                     f"2007; it only assumes that without a real difference each {_one(unit)}'s difference "
                     f"is as likely to be positive as negative) gives {_p(r.p)} ({how}): a mean "
                     f"difference as large as {_num(ps.diff)} is {sig} by chance alone")
    if math.isfinite(ps.t.p):
        tests.append(f"the paired t-test gives {_p(ps.t.p)}; it assumes the mean difference is close "
                     f"to normal, which holds for many {unit} ({n:,} here) unless a few extreme differences "
                     f"dominate")
    if ps.wilcoxon.method != "none":
        tests.append(f"the Wilcoxon signed-rank test ({_p(ps.wilcoxon.p)}) asks whether the "
                     f"improvements outweigh the declines once ranked by size, a shift of the typical "
                     f"{_one(unit)} rather than of the mean ({ps.directions.tied:,} tied {unit if ps.directions.tied != 1 else _one(unit)} left out)")
    out = [f"{pair}: " + "; ".join(tests) + "."] if tests else []
    more = []
    if math.isfinite(ps.boot_low) and ps.boot_high > ps.boot_low:
        excl = "excludes 0" if (ps.boot_low > 0 or ps.boot_high < 0) else "includes 0"
        more.append(f"the mean difference is plausibly between {_num(ps.boot_low)} and {_num(ps.boot_high)} "
                    f"(paired bootstrap, 95% percentile; BCa {_num(ps.bca_low)} to {_num(ps.bca_high)}; t "
                    f"{_num(ps.t.ci_low)} to {_num(ps.t.ci_high)}), an interval that {excl}")
    if math.isfinite(ps.effect):
        size = abs(ps.effect)
        word = "negligible" if size < 0.2 else "small" if size < 0.5 else "medium" if size < 0.8 else "large"
        more.append(f"effect size d_z = {format_value(ps.effect, 'score_diff')} (mean difference / SD of the differences), {word} "
                    f"by Cohen's rule of thumb")
    more.append(f"of {n:,} {unit if n != 1 else _one(unit)}, {ps.directions.improved:,} improved, "
                f"{ps.directions.worse:,} got worse and {ps.directions.tied:,} tied")
    if math.isfinite(ps.mde) and ps.mde > 0:  # an MDE of 0 (SD 0) has its own note
        if bounded and ps.mde > 1:
            more.append(f"minimum detectable difference: not detectable at this size (2.8 x SD / sqrt(n) = "
                        f"{_num(ps.mde, signed=False)}, more than the whole 0-1 range)")
        else:
            more.append(f"a mean difference smaller than {_num(ps.mde, signed=False)} (the minimum detectable difference "
                        f"2.8 x SD / sqrt(n), 80% power at alpha 0.05) would usually be missed")
    out.append(f"{pair}: " + "; ".join(more) + ".")
    return out


def binary_readings(b: int, c: int, n: int, *, exact_p, midp, p_chi2, p_cc, normal, boot) -> list[str]:
    """A plain-language reading of the binary family's tests and intervals (one note)."""
    d = b + c
    if d == 0:
        return []
    text = (f"Reading: the exact sign test ({_p(exact_p)}, mid-p {fmt_p(midp)}) is the chance of a "
            f"{b}-{c} split or a more uneven one among the {plural(d, 'item')} that differ if neither system were "
            f"better")
    if math.isfinite(p_chi2):
        text += (f"; McNemar ({_p(p_chi2)}, corrected {fmt_p(p_cc)}) is its large-sample version, "
                 f"trustworthy from about 25 differing items")
    if all(math.isfinite(x) for x in (*normal, *boot)) and n > 1:
        text += (f"; the difference is plausibly between {_pts(normal[0])} and {format_value(normal[1], 'points')} "
                 f"(normal) or {_pts(boot[0])} and {format_value(boot[1], 'points')} (bootstrap)")
    return [text + "."]


def degenerate_notes(d, *, unit: str = "items", mde: float | None = None, bounded: bool = True) -> list[str]:
    """Notes for comparisons whose intervals and tests say nothing (issue: one item, all ties,
    every item the same difference) and for an MDE of 0 or above the 0-1 range."""
    d = np.asarray(d, dtype=float)
    n = d.size
    out = []
    if n == 0:
        return [f"No {unit} could be paired: nothing can be compared."]
    if n == 1:
        out.append(f"Only 1 {_one(unit)} is paired: no test or interval can say anything about the "
                   f"difference (the bootstrap interval has zero width, the t interval is undefined).")
    elif not np.any(d):
        out.append(f"All {n:,} {unit} tie: the interval has zero width and says nothing about the "
                   f"difference; no test can find one.")
    elif np.ptp(d) == 0:
        word = "wins" if d[0] > 0 else "losses"
        if set(np.unique(d)) <= {1.0, -1.0}:
            out.append(f"All {n:,} {unit} are {word} ({n:,}/{n:,}): the bootstrap interval has zero width "
                       f"and says nothing about the uncertainty; rely on the exact test and extend the set.")
        else:
            out.append(f"All {n:,} {unit} differ by exactly {_num(float(d[0]))}: the intervals have zero width and "
                       f"say nothing about the uncertainty; extend the set.")
    if mde is not None and math.isfinite(mde):
        if mde == 0 and n > 1:
            why = ("no item differs" if not np.any(d) else
                   f"every {_one(unit)} differs by the same amount (SD 0)")
            out.append(f"The minimum detectable difference is 0 only because {why}; it says "
                       f"nothing about what this set could detect.")
        elif bounded and mde > 1:
            size = (format_value(mde, "margin") + ", more than 100 points" if np.isin(d, (-1.0, 0.0, 1.0)).all()
                    else _num(mde, signed=False) + ", more than the whole 0-1 range")
            out.append(f"Minimum detectable difference: not detectable at this size ({size}; "
                       f"{plural(n, _one(unit), unit)} {'is' if n == 1 else 'are'} far too few).")
    return out


# ------------------------------------------------------------------------- systems compared


def systems_compared(per_unit: pd.DataFrame, *, system: str, unit: str, metrics: list[str],
                     unit_word: str = "items", resamples: int = 2000, seed: int = 12345,
                     rounds: int = 10_000, correction: str = "holm", extra=None, progress=None):
    """Paired tests of every pair of systems on every metric, over the units both systems have.

    ``per_unit``: one row per (system, unit) with the metric columns.  Pairs are taken in the
    order the systems first appear (first = baseline of the pair).  Returns (table frame,
    records, notes).  ``extra(base, cand, common_units)`` may return more rows/records
    and notes (corpus tests).  p-values are corrected per metric across the pairs (``correction``).
    """
    names = sorted(dict.fromkeys(per_unit[system].tolist()), key=str)  # canonical: row order is irrelevant
    by_sys = {s: g.drop_duplicates(unit).set_index(unit) for s, g in per_unit.groupby(system, sort=False)}
    rows, records, notes = [], [], []
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    for a, b in pairs:
        ga, gb = by_sys[a], by_sys[b]
        common = ga.index.intersection(gb.index, sort=False)
        common = pd.Index(sorted(common, key=natural_key))
        left_out = len(ga) + len(gb) - 2 * len(common)
        if left_out:
            notes.append(f"Systems compared '{b}' vs '{a}': over the {len(common)} {unit_word} both were "
                         f"evaluated on; {left_out} {unit_word} of only one of them are left out.")
        for metric in metrics:
            x = ga.loc[common, metric].to_numpy(dtype=float)
            y = gb.loc[common, metric].to_numpy(dtype=float)
            ok = np.isfinite(x) & np.isfinite(y)
            x, y = x[ok], y[ok]
            if x.size == 0:
                continue
            ps = pm.summarize(x, y, resamples=resamples, seed=seed, rounds=rounds)
            rows.append({"from": a, "to": b, "metric": metric, unit_word: int(x.size),
                         "baseline": ps.base_mean, "candidate": ps.cand_mean, "diff": ps.diff,
                         "ci_low": ps.boot_low, "ci_high": ps.boot_high,
                         "bca_low": ps.bca_low, "bca_high": ps.bca_high,
                         "t_ci_low": ps.t.ci_low, "t_ci_high": ps.t.ci_high,
                         "improved": ps.directions.improved, "worse": ps.directions.worse,
                         "tied": ps.directions.tied, "effect_size": ps.effect,
                         "t_test_p": ps.t.p, "wilcoxon_p": ps.wilcoxon.p,
                         "randomization_p": ps.randomization.p, "paired_bs_p": np.nan,
                         "paired_ar_p": np.nan, "p_adjusted": np.nan})
            kw = dict(from_=a, to=b, n=int(x.size))
            records += [record(f"diff:{metric}", ps.diff, ci_low=ps.boot_low, ci_high=ps.boot_high,
                               ci_method="paired-bootstrap-percentile-95", **kw),
                        record(f"t_test_p:{metric}", ps.t.p, **kw),
                        t_record(f"t:{metric}", ps, **kw),
                        record(f"effect_size:{metric}", ps.effect, **kw),
                        record(f"wilcoxon_p:{metric}", ps.wilcoxon.p, **kw),
                        record(f"randomization_p:{metric}", ps.randomization.p, **kw)]
            d = pm.paired_differences(x, y)  # float noise settled, as the tests see it
            if x.size <= 1 or np.ptp(d) == 0:
                notes += [f"Systems compared '{b}' vs '{a}', {metric}: {s[0].lower()}{s[1:]}"
                          for s in degenerate_notes(d, unit=unit_word)]
        if extra is not None:
            more_rows, more_records, more_notes = extra(a, b, common)
            rows += more_rows
            records += more_records
            notes += more_notes
    frame = pd.DataFrame(rows)
    if len(frame):
        primary = np.where(frame["paired_bs_p"].notna(), frame["paired_bs_p"], frame["randomization_p"])
        frame["p_adjusted"] = np.nan
        for metric, idx in frame.groupby("metric", sort=False).groups.items():
            adj = pm.adjust(primary[np.asarray([frame.index.get_loc(i) for i in idx])], correction)
            frame.loc[idx, "p_adjusted"] = adj
            for i, p in zip(idx, adj):
                row = frame.loc[i]
                records.append(record(f"p_adjusted:{metric}", p, from_=row["from"], to=row["to"],
                                      n=int(row[unit_word])))
        if len(pairs) > 1:
            notes.append(f"Systems compared: {len(pairs)} pairs per metric; the adjusted p-values "
                         f"({correction}) correct the randomization test's p (the paired bootstrap's for "
                         f"corpus BLEU/chrF) across the pairs of each metric.")
    return frame, records, notes


SYSTEMS_COMPARED_COLUMNS = {
    "from": "baseline of the pair (the earlier system name in sorted order)",
    "to": "candidate of the pair",
    "diff": "candidate - baseline: mean of the per-unit differences (corpus BLEU/chrF: difference of "
            "the corpus scores)",
    "ci_low": "paired bootstrap 95% percentile interval of the difference, low",
    "ci_high": "paired bootstrap 95% percentile interval of the difference, high",
    "bca_low": "paired bootstrap BCa 95% interval, low", "bca_high": "paired bootstrap BCa 95% interval, high",
    "t_ci_low": "paired t 95% interval, low", "t_ci_high": "paired t 95% interval, high",
    "randomization_p": "sign-flip randomization test (exact when <= 20 differences are non-zero)",
    "t_test_p": "paired t-test", "wilcoxon_p": "Wilcoxon signed-rank test (zeros dropped)",
    "paired_bs_p": "sacrebleu's paired bootstrap test (corpus BLEU/chrF)",
    "paired_ar_p": "sacrebleu's approximate randomization test (corpus BLEU/chrF)",
    "p_adjusted": "the randomization (or paired bootstrap) p corrected across the pairs of the metric",
    "effect_size": "mean difference / SD of the differences (d_z)",
}

SYSTEMS_COMPARED_FORMATS = {
    "diff": "float", "ci_low": "float", "ci_high": "float", "bca_low": "float", "bca_high": "float",
    "t_ci_low": "float", "t_ci_high": "float", "baseline": "float", "candidate": "float",
    "t_test_p": "p", "wilcoxon_p": "p", "randomization_p": "p", "paired_bs_p": "p", "paired_ar_p": "p",
    "p_adjusted": "p", "effect_size": "float", "improved": "int", "worse": "int", "tied": "int",
}


#: Defaults of the "Systems compared" tables (stated in the signature).
SC_RESAMPLES, SC_ROUNDS, SC_SEED, SC_CORRECTION = 2000, 10_000, 12345, "holm"
CORPUS_RESAMPLES, CORPUS_TRIALS = 1000, 10_000


def systems_compared_result(per_unit: pd.DataFrame, *, system: str, unit: str, metrics: list[str],
                            unit_word: str, scope: str, extra=None, extra_sig: str = ""):
    """The "Systems compared" table, its records and notes, and the signature entry.

    ``scope`` says which units count (stated in the notes).  Returns (Table, records, notes, sig)."""
    from ..core.result import Table

    frame, records, notes = systems_compared(
        per_unit, system=system, unit=unit, metrics=metrics, unit_word=unit_word,
        resamples=SC_RESAMPLES, seed=SC_SEED, rounds=SC_ROUNDS, correction=SC_CORRECTION, extra=extra)
    notes.insert(0, f"Systems compared: every pair of systems on every metric, over the {unit_word} both "
                    f"systems were evaluated on ({scope}); the randomization test is the recommended one "
                    f"for per-{unit} metrics (Smucker et al. 2007), p-values adjusted "
                    f"({SC_CORRECTION}) across the pairs of each metric; intervals are paired bootstrap "
                    f"95% percentile intervals ({SC_RESAMPLES:,} resamples, seed {SC_SEED}).")
    table = Table("systems_compared", "Systems compared (paired, per metric)", frame,
                  columns=SYSTEMS_COMPARED_COLUMNS, formats={**SYSTEMS_COMPARED_FORMATS, unit_word: "int"})
    sig = (f"[{unit_word}:common,order:natural-ids,pairs:sorted-names,bs:{SC_RESAMPLES},seed:{SC_SEED},"
           f"rand:{SC_ROUNDS},tests:rand+t+wilcoxon,ties:{pm.TIES_SIGNATURE},adjust:{SC_CORRECTION}"
           f"{extra_sig}]")
    return table, records, notes, sig


def corpus_extra(items: pd.DataFrame, *, system: str, unit: str, metrics=("bleu", "chrf"),
                 objects: dict | None = None, stats: dict | None = None):
    """A ``systems_compared`` ``extra`` callback: sacrebleu's paired bootstrap and approximate
    randomization of corpus BLEU/chrF over the common items, from per-sentence statistics
    extracted once per system (``objects``: the sacrebleu metric object of each metric, for a
    tokenizer, smoothing or word order other than sacrebleu's defaults; ``stats``: each metric's
    per-item statistics already extracted, one row per row label of ``items``, used instead of
    extracting them again)."""
    from ..metrics import corpus_paired as cp

    cache: dict = {}

    def stats_of(name: str, metric: str):
        key = (name, metric)
        if key not in cache:
            g = items[items[system] == name].drop_duplicates(unit)
            if stats is not None and metric in stats:
                m = (objects or {}).get(metric) or cp._metric(metric)
                st = np.asarray(stats[metric])[g.index.to_numpy()]
            else:
                m, st = cp.sentence_statistics(metric, g["prediction"].tolist(), g["reference"].tolist(),
                                               metric=(objects or {}).get(metric))
            cache[key] = (m, st, pd.Index(g[unit]))
        return cache[key]

    def extra(a, b, common):
        rows, recs = [], []
        if len(common) == 0:
            return rows, recs, []
        notes = []
        for metric in metrics:
            m, sa, ia = stats_of(a, metric)
            _, sb, ib = stats_of(b, metric)
            xa, xb = sa[ia.get_indexer(common)], sb[ib.get_indexer(common)]
            res = cp.compare_corpus(metric, None, None, None, resamples=CORPUS_RESAMPLES,
                                    trials=CORPUS_TRIALS, seed=SC_SEED, stats=(m, xa, xb))
            rows.append({"from": a, "to": b, "metric": metric, "items": res.n, "baseline": res.base_score,
                         "candidate": res.cand_score, "diff": res.diff, "ci_low": res.diff_low,
                         "ci_high": res.diff_high, "paired_bs_p": res.bs_p, "paired_ar_p": res.ar_p})
            kw = dict(from_=a, to=b, n=res.n)
            recs += [record(f"diff:{metric}", res.diff, ci_low=res.diff_low, ci_high=res.diff_high,
                            ci_method="paired-bootstrap-percentile-95(sacrebleu)", **kw),
                     record(f"paired_bs_p:{metric}", res.bs_p, **kw),
                     record(f"paired_ar_p:{metric}", res.ar_p, **kw)]
            if res.zero_diff:
                notes.append(f"Systems compared '{b}' vs '{a}', corpus {metric.upper() if metric == 'bleu' else 'chrF'}: "
                             f"the two corpus scores are equal, so the paired bootstrap and approximate "
                             f"randomization p-values are 1 (sacrebleu reports 1/(R+1), "
                             f"{1 / (CORPUS_RESAMPLES + 1):.4f} and {1 / (CORPUS_TRIALS + 1):.4f}, because "
                             f"it counts only resamples strictly more extreme than the observed 0).")
        return rows, recs, notes

    return extra


def ranking_systems_compared(queries: pd.DataFrame, ks, no_relevant: str):
    """Ranking: paired per-query tests of every metric, over the queries counted for both systems."""
    frame = queries[queries["counted"].astype(bool)].rename(
        columns={"rr": "mrr", "ap": "map", **{f"rr@{k}": f"mrr@{k}" for k in ks}})
    metrics = [f"{m}@{k}" for m in ("ndcg", "p", "r", "hit", "mrr") for k in ks] + ["mrr", "map"]
    return systems_compared_result(
        frame, system="system", unit="query", metrics=metrics, unit_word="queries",
        scope=f"the queries counted in both systems' means under the no-relevant policy '{no_relevant}'")


def text_systems_compared(items: pd.DataFrame, *, has_ids: bool, objects: dict | None = None,
                          stats: dict | None = None):
    """Text: paired per-item tests (exact match, token F1, ROUGE, sentence BLEU) and sacrebleu's
    paired tests of corpus BLEU and chrF, over the items (by id) both systems have
    (``objects``: the sacrebleu metric objects of BLEU and chrF; ``stats``: their per-item
    statistics by row label of ``items``; see :func:`corpus_extra`)."""
    frame = items.rename(columns={"bleu": "sentence_bleu", "chrf": "sentence_chrf"})
    if not has_ids:
        frame = frame.iloc[0:0]
    metrics = ["exact_match", "token_f1", "rouge1", "rouge2", "rougeL", "sentence_bleu"]
    table, records, notes, sig = systems_compared_result(
        frame, system="system", unit="item", metrics=metrics, unit_word="items",
        scope="matched by item id", extra=corpus_extra(frame, system="system", unit="item", objects=objects,
                                                         stats=stats),
        extra_sig=f",corpus:sacrebleu-paired-bs:{CORPUS_RESAMPLES}+ar:{CORPUS_TRIALS},corpus-zero-diff:p=1")
    if not has_ids:
        notes = ["Systems compared needs an item id column (--id) to pair the systems' items; without "
                 "one no paired test is made."]
    return table, records, notes, sig


def cost_differences(cost, latency, codes, labels, order, percentile_method: str):
    """Cost: bootstrap 95% intervals of the difference in cost per request and in latency p50/p95/p99
    for every cheaper -> dearer pair of systems (``order``: system indices, cheapest first).

    Requests are not paired across systems, so each system's requests are resampled on their own
    (``SC_RESAMPLES`` resamples, fewer -- at least 200 -- when a system has more than 100,000
    requests, so the work of the mean stays near 2e8 draws; system i uses seed ``SC_SEED + i`` in
    sorted order of the names).  The mean cost per request: the item bootstrap of
    :func:`~workbench.metrics.paired.bootstrap_means` over the sorted costs; the latency
    percentiles: :func:`~workbench.metrics.paired.bootstrap_quantiles`, which draws the
    resample's order statistics directly (the same law as sorting n drawn values)."""
    from ..core.result import Table
    from ..metrics.cost import PERCENTILE_METHODS

    qs = (50, 95, 99) if latency is not None else ()
    names = sorted(labels, key=str)
    largest = int(np.bincount(codes).max()) if len(codes) else 0
    # bounded work: at most about 2e8 resampled requests per system (then fewer resamples, stated)
    resamples = int(min(SC_RESAMPLES, max(200, 200_000_000 // max(largest, 1))))
    boots, observed = {}, {}
    for s, label in enumerate(labels):
        m = codes == s
        seed = SC_SEED + names.index(label)
        c = pm.bootstrap_means(np.sort(cost[m]), resamples=resamples, seed=seed)
        obs = [float(np.mean(cost[m]))]
        cols = [c]
        if qs:
            lb = pm.bootstrap_quantiles(latency[m], qs, resamples=resamples, seed=seed + 10_000,
                                        method=PERCENTILE_METHODS[percentile_method])
            cols += [lb[:, i] for i in range(len(qs))]
            obs += list(np.percentile(latency[m], qs, method=PERCENTILE_METHODS[percentile_method]))
        boots[s], observed[s] = cols, obs
    stats_ = ["cost_per_request"] + [f"latency_p{q}" for q in qs]
    rows, records = [], []
    for pos, a in enumerate(order):
        for b in order[pos + 1:]:
            for i, stat in enumerate(stats_):
                delta = boots[b][i] - boots[a][i]
                low, high = pm.percentile_interval(delta)
                diff = observed[b][i] - observed[a][i]
                rows.append({"from": labels[a], "to": labels[b], "statistic": stat, "from_value": observed[a][i],
                             "to_value": observed[b][i], "diff": diff, "ci_low": low, "ci_high": high})
                records.append(record(f"diff:{stat}", diff, from_=labels[a], to=labels[b], ci_low=low,
                                      ci_high=high, ci_method="bootstrap-percentile-95,unpaired",
                                      n=int((codes == a).sum() + (codes == b).sum())))
    table = Table("differences", "Cost and latency differences (cheaper -> dearer) with bootstrap 95% intervals",
                  pd.DataFrame(rows), columns={
                      "diff": "to - from", "ci_low": "bootstrap 95% percentile interval, low (each system's "
                                                     "requests resampled on their own)"},
                  formats={"from_value": "float", "to_value": "float", "diff": "float", "ci_low": "float",
                           "ci_high": "float"})
    sig = f"[bs:{resamples},seed:{SC_SEED}+rank,unpaired,percentile-95]"
    return table, records, sig
