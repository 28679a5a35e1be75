"""Slices: where does the candidate win, where does it lose, and is that real?

Two systems on the same items (wide: a baseline and a candidate column; long: a system column),
0/1 outcomes or scores, paired by item exactly as Compare pairs them
(:func:`workbench.analyses.compare.paired_input`: the same error policy, the same item ids), and
one or more slice columns (``by``).  For each slice of each column: n, each system's rate or mean
with its interval, the paired difference with its interval and the tests Compare uses for that
data (:mod:`._slice_stats`); p adjusted over the tested slices (Holm, Benjamini-Hochberg or
none); false-coverage-rate intervals for the slices called out (Benjamini and Yekutieli 2005);
Cochran's Q, I^2 and tau^2 (DerSimonian-Laird) with the random-effects pooled difference; each
slice's shrunken difference.  Small slices and slices where no test is possible are listed with
their counts, untested, outside m and Q.  ``clean`` names a contamination flag (1/true/yes =
contaminated): the clean items' difference comes first.  ``discover`` searches slices of one or
two columns on a random half and re-estimates the worst on the other half
(:mod:`.slices_discover`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import format_p, format_value, plural
from ..core.progress import NULL_PROGRESS, Scaled
from ..core.result import AnalysisResult, record, signature
from ..io import LoadedTable, to_text
from ..metrics import paired as pm
from ..metrics import slices as ms
from . import _intervals
from . import _slice_columns as sc
from . import _slice_stats as st
from ._common import base_signature, in_memory, pick_column

NAME = "slices"
TITLE = "Slices"
#: the default false coverage rate q of the intervals of the slices called out, and the adjusted p
#: below which a slice is called out
Q = 0.05
#: contamination flag cells that mean "contaminated" (any case, surrounding spaces ignored)
CONTAMINATED = frozenset({"1", "1.0", "true", "yes", "y", "t"})


@dataclass(frozen=True)
class Options:
    #: the slice column(s), comma-separated: each column's slices are analysed separately
    by: str | None = None
    #: cut numeric slice columns into this many quantile bins (0: their values are the slices)
    bins: int = 0
    item: str | None = None
    baseline: str | None = None
    candidate: str | None = None
    system: str | None = None
    baseline_system: str | None = None
    candidate_system: str | None = None
    outcome: str | None = None
    score: str | None = None
    #: the scorer whose outcome or score is compared (a column of that name; an Inspect scorer)
    scorer: str | None = None
    #: auto (binary when every value is 0/1), binary, continuous
    scores: str = "auto"
    #: correction over the tested slices: holm, bh (Benjamini-Hochberg), none
    correction: str = "holm"
    #: slices with fewer items are listed, not tested
    min_size: int = 20
    #: contamination flag column (1/true/yes = contaminated): the clean items' difference first
    clean: str | None = None
    #: search slices of one or two columns on a random half, re-estimate on the other
    discover: bool = False
    #: discovery: 1 = single columns' slices, 2 = also pairs of columns' values
    depth: int = 2
    #: discovery: how many of the worst slices are re-estimated
    top: int = 5
    #: seed of the randomization tests and of discovery's split
    seed: int = 12345
    #: sign-flip randomization rounds when not enumerated exactly (scores)
    rounds: int = 10_000
    error: str | None = None
    errored: str = "exclude"
    #: a slice is called out when its adjusted p < q; q is also the false coverage rate of the
    #: intervals of the slices called out (a release rule passes its alpha)
    q: float = Q

    #: an eval tool's file: its group column (an lm-eval task, several Inspect tasks) is the slice
    FIELD_ROLES: ClassVar[dict[str, str]] = {"by": "group"}


def check_options(options: Options) -> None:
    """Types and ranges before the input is read."""
    from . import compare
    from ._checks import real, whole

    whole("bins", options.bins, 0, 1000)
    whole("min_size", options.min_size, 1, 10**9)
    whole("depth", options.depth, 1, 2)
    whole("top", options.top, 1, 1000)
    whole("seed", options.seed, 0, 2**32 - 1)
    whole("rounds", options.rounds, 1_000, 1_000_000)
    real("q", options.q, 0.0, 0.5, low_open=True)
    if options.bins == 1:
        raise OptionError("`bins` must be 0 (no bins) or at least 2; got bins=1.")
    if options.correction not in ms.CORRECTIONS:
        raise OptionError(f"`correction` must be one of {', '.join(ms.CORRECTIONS)}; "
                          f"got correction={options.correction!r}.")
    if options.scores not in compare.SCORES:
        raise OptionError(f"`scores` must be one of {', '.join(compare.SCORES)}; got scores={options.scores!r}.")
    from ._rows import check as check_errored

    check_errored(options.errored)


def scorer_column(table: LoadedTable, name: str) -> str:
    """The outcome or score column of scorer ``name``: a column of that name, else the one
    ``name.<key>`` column an Inspect scorer with a dict value gave (its ``.grade`` text left
    aside).  (One small function: the session's shared scorer decision will replace it.)"""
    columns = [str(c) for c in table.frame.columns]
    if name in columns:
        return name
    keyed = [c for c in columns if c.startswith(name + ".") and not c.endswith(".grade")]
    if len(keyed) == 1:
        return keyed[0]
    if keyed:
        raise DataError(f"File '{table.name}': scorer '{name}' gives several columns ({', '.join(keyed)}); "
                        f"name one with --outcome or --score.")
    raise DataError(f"File '{table.name}' has no scorer '{name}' (no column of that name); its columns "
                    f"are: {', '.join(columns)}.")


def _compare_options(options: Options, table: LoadedTable, notes: list[str]):
    from . import compare

    outcome, score = options.outcome, options.score
    if options.scorer:
        column = scorer_column(table, options.scorer)
        outcome, score = None, column
        notes.append(f"Scorer '{options.scorer}': column '{column}' is the outcome compared.")
    return compare.Options(baseline=options.baseline, candidate=options.candidate, item=options.item,
                           system=options.system, outcome=outcome, score=score,
                           baseline_system=options.baseline_system, candidate_system=options.candidate_system,
                           scores=options.scores, error=options.error, errored=options.errored)


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    from . import compare

    in_memory(table, TITLE)
    check_options(options)
    first: list[str] = []
    copts = _compare_options(options, table, first)
    col, used, res, err = compare.paired_input(table, copts)
    notes = first + res.notes
    if len(col.names) != 2:
        raise OptionError(f"File '{table.name}' has {len(col.names)} systems ({', '.join(col.names[:6])}); "
                          f"Slices compares two: name them with --baseline-system and --candidate-system "
                          f"(or --baseline and --candidate).")
    by = sc.split_by(options.by, used.frame.columns)
    if not by:
        by = [pick_column(used, None, "group", "--by", notes)]
    if options.clean and options.clean not in by:
        by.append(options.clean)
    progress.advance(0.05, "slices")
    columns = [sc.read(used, b, col.rows, col.items, options.bins, notes) for b in by]
    base, cand = col.scores[:, 0], col.scores[:, 1]
    bn, cn = col.names
    n = len(col.items)
    binary = col.binary
    quantum = pm.tie_quantum(base, cand)
    d = (cand - base) if binary else pm.paired_differences(base, cand)
    records: list[dict] = []
    overall = _overall(base, cand, d, quantum, binary, bn, cn, records)
    clean_text = None
    if options.clean:
        clean_text = _clean(used, options.clean, col, base, cand, d, quantum, binary, bn, cn, records, notes)
    summaries, all_stats = [], []
    for j, column in enumerate(columns):
        progress.check_cancelled()
        part = Scaled(progress, 0.05 + 0.8 * j / len(columns), 0.05 + 0.8 * (j + 1) / len(columns))
        stats, summary = _column_stats(column, base, cand, d, quantum, binary, options, part)
        summaries.append((column, summary))
        all_stats.append((column, stats))
        _column_records(column, stats, summary, binary, bn, cn, records)
        notes += _column_notes(column, stats, summary, options)
    discovery = None
    if options.discover:
        from . import slices_discover

        discovery = slices_discover.discover(columns, col.items, base, cand, d, quantum, binary, options,
                                             Scaled(progress, 0.85, 0.98), records, notes)
    from .slices_tables import tables_of

    tables = tables_of(all_stats, summaries, discovery, binary, bn, cn, n, overall)
    if clean_text:
        notes.insert(0, clean_text)
    sig = _signature(options, col, by, binary, err)
    progress.advance(1.0, "done")
    result = AnalysisResult(NAME, signature(sig), tuple(records), tables, tuple(notes), table.path,
                            json_tables=tuple(t.name for t in tables))
    if err.active:
        result = replace(result, notes=tuple(err.note(failure_means="scored 0 (a failure)")) + result.notes)
    return result


def _overall(base, cand, d, quantum, binary, bn, cn, records) -> dict:
    """The whole set: each system and the difference over every paired item."""
    from ..metrics import headline_ci as hc

    n = int(d.size)
    metric = "rate" if binary else "mean"
    for name, x, m in ((bn, base, f"baseline_{metric}"), (cn, cand, f"candidate_{metric}")):
        ci = hc.rate_ci(int(np.count_nonzero(x)), n) if binary else st._mean_ci(x)
        records.append(record(m, float(x.mean()) if n else None, system=name, n=n, **_ci_fields(ci, binary)))
    diff, low, high, p, df = st.set_difference(d, quantum, binary, base, cand)
    records.append(record("diff", diff, n=n, ci_low=low, ci_high=high, ci_method=st.ci_words(binary), df=df,
                          from_=bn, to=cn))
    records.append(record("p", p, n=n, df=df, from_=bn, to=cn))
    return {"diff": diff, "low": low, "high": high, "p": p, "n": n}


def _ci_fields(ci, binary: bool) -> dict:
    if binary:
        return _intervals.fields(ci)
    out = {"ci_method": "t-95"}
    if math.isfinite(ci.low) and math.isfinite(ci.high):
        out.update(ci_low=ci.low, ci_high=ci.high)
    return out


def _clean(table, column, col, base, cand, d, quantum, binary, bn, cn, records, notes) -> str:
    """The clean items' difference (and the contaminated ones'), first on the card."""
    text = np.asarray(to_text(table, column), dtype=object)[col.rows[:, 0]]
    flag = pd.Series(text, dtype=object).astype(str).str.strip().str.lower().isin(CONTAMINATED).to_numpy()
    out = []
    for metric, mask in (("clean_diff", ~flag), ("contaminated_diff", flag)):
        k = int(mask.sum())
        if k == 0:
            records.append(record(metric, None, n=0, by=column))
            continue
        diff, low, high, _, df = st.set_difference(d[mask], quantum, binary, base[mask], cand[mask])
        records.append(record(metric, diff, n=k, ci_low=low, ci_high=high, ci_method=st.ci_words(binary),
                              df=df, by=column, from_=bn, to=cn))
        out.append((metric, diff, low, high, k))
    kind = "points" if binary else "score_diff"
    parts = [f"{'clean' if m == 'clean_diff' else 'contaminated'} items {format_value(v, kind)} "
             f"(95% CI {format_value(lo, kind)} to {format_value(hi, kind)}, {plural(k, 'item')})"
             for m, v, lo, hi, k in out]
    return (f"Contamination flag '{column}' (1/true/yes = contaminated; anything else, a blank too, = clean): "
            + "; ".join(parts) + ".")


def _column_stats(column: sc.SliceColumn, base, cand, d, quantum, binary, options: Options, progress):
    """Every slice of one column, the correction, the FCR intervals, Q and the shrinkage."""
    size = column.size
    stats, diffs = [], {}
    if binary:  # counts per slice: no item is moved
        codes = column.codes
        b1, c1 = base > 0, cand > 0
        n = np.bincount(codes, minlength=size)
        sb = np.bincount(codes, weights=b1, minlength=size)
        sc_ = np.bincount(codes, weights=c1, minlength=size)
        wins = np.bincount(codes, weights=c1 & ~b1, minlength=size)
        losses = np.bincount(codes, weights=b1 & ~c1, minlength=size)
        for k, label in enumerate(column.labels):
            stats.append(st.binary_counts(label, int(n[k]), int(sb[k]), int(sc_[k]), int(wins[k]), int(losses[k]),
                                          options.min_size))
    else:
        order = np.argsort(column.codes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(column.codes, minlength=size))])
        for k, label in enumerate(column.labels):
            progress.check_cancelled()
            idx = order[bounds[k]:bounds[k + 1]]
            diffs[label] = d[idx]
            stats.append(st.score_slice(label, base[idx], cand[idx], d[idx], quantum, options.min_size,
                                        options.rounds, options.seed, progress))
            progress.advance((k + 1) / size, f"slice {k + 1} of {size}")
    interval = (st.binary_interval if binary else
                (lambda s, level: st.score_interval(diffs[s.label], quantum, level)))
    summary = st.adjust_and_pool(stats, options.correction, options.q, interval)
    return stats, summary


def _column_records(column, stats, summary, binary, bn, cn, records) -> None:
    """The records of one slice column: its heterogeneity, then each slice."""
    het = summary["het"]
    by = column.by
    k = het.k
    records += [
        record("tested_slices", summary["m"], n=len(stats), by=by),
        record("called_out", summary["selected"], n=summary["m"], by=by),
        record("fcr_level", summary["level"] if summary["selected"] else None, n=summary["m"], by=by),
        record("q", het.q, n=k, df=het.df if k >= 2 else None, by=by),
        record("q_df", het.df if k >= 2 else None, n=k, by=by),
        record("q_p", het.p, n=k, df=het.df if k >= 2 else None, by=by),
        record("i2", het.i2, n=k, by=by),
        record("tau2", het.tau2, n=k, by=by),
        record("re_diff", het.re if k >= 1 else None, n=k, ci_low=het.re_low if k >= 1 else None,
               ci_high=het.re_high if k >= 1 else None, ci_method="random-effects-dl-normal-95", by=by),
    ]
    metric = "rate" if binary else "mean"
    for s in stats:
        kw = dict(group=s.label, by=by)
        records.append(record(f"baseline_{metric}", s.base, system=bn, n=s.n,
                              **(_ci_fields(s.base_ci, binary) if s.base_ci else {}), **kw))
        records.append(record(f"candidate_{metric}", s.cand, system=cn, n=s.n,
                              **(_ci_fields(s.cand_ci, binary) if s.cand_ci else {}), **kw))
        records.append(record("diff", s.diff, n=s.n, ci_low=s.low, ci_high=s.high, ci_method=st.ci_words(binary),
                              df=s.df, from_=bn, to=cn, **kw))
        records.append(record("se", s.se, n=s.n, **kw))
        records.append(record("tested", s.tested, n=s.n, **kw))
        if binary:
            records += [record("wins", s.up, n=s.n, **kw), record("losses", s.down, n=s.n, **kw)]
        else:
            records += [record("improved", s.up, n=s.n, **kw), record("worse", s.down, n=s.n, **kw)]
        if s.tested:
            if binary:
                records += [record("sign_test_p", s.p, n=s.up + s.down, **kw),
                            record("mcnemar_p", s.p2, n=s.up + s.down, **kw)]
            else:
                records += [record("t", s.t, n=s.n, df=s.df, **kw), record("t_test_p", s.p, n=s.n, df=s.df, **kw),
                            record("randomization_p", s.p2, n=s.n, **kw)]
            records.append(record("p", s.p, n=s.n, df=s.df, **kw))
            records.append(record("p_adjusted", s.p_adjusted, n=s.n, **kw))
        if s.called_out:
            records.append(record("fcr_ci", s.diff, n=s.n, ci_low=s.fcr_low, ci_high=s.fcr_high,
                                  ci_method=f"{st.ci_words(binary)[:-3]}-fcr-{100 * summary['level']:.6g}", df=s.df, **kw))
        if math.isfinite(s.shrunk):
            records.append(record("shrunk_diff", s.shrunk, n=s.n, **kw))


def _column_notes(column, stats, summary, options: Options) -> list[str]:
    """Sentences on the untested slices, the selection and the heterogeneity of one column."""
    by = column.by
    out = []
    small = [s for s in stats if s.status == st.TOO_SMALL]
    if small:
        shown = ", ".join(f"'{s.label}' ({plural(s.n, 'item')})" for s in small[:8])
        more = f" and {len(small) - 8} more" if len(small) > 8 else ""
        out.append(f"Column '{by}': {plural(len(small), 'slice')} with fewer than {options.min_size} items "
                   f"{'is' if len(small) == 1 else 'are'} listed but not tested: {shown}{more}; "
                   f"{'it is' if len(small) == 1 else 'they are'} counted neither in the correction's m nor in Q.")
    none = [s for s in stats if s.status == st.NO_TEST]
    if none:
        shown = ", ".join(f"'{s.label}' ({plural(s.n, 'item')})" for s in none[:8])
        more = f" and {len(none) - 8} more" if len(none) > 8 else ""
        out.append(f"Column '{by}': no test is possible in {plural(len(none), 'slice')} ({shown}{more}): the two "
                   f"systems never differ there (no discordant item, or differences without any spread), so "
                   f"{'it is' if len(none) == 1 else 'they are'} counted neither in m nor in Q.")
    if summary["left_out_of_q"]:
        out.append(f"Column '{by}': {', '.join(repr(x) for x in summary['left_out_of_q'])} tested but left out of Q "
                   "and tau²: every item differs the same way, so the difference has no standard error.")
    m, r = summary["m"], summary["selected"]
    if m and r == 0:
        out.append(f"Column '{by}': no slice is called out (no adjusted p < {options.q:g} among {plural(m, 'tested slice')}), "
                   f"so no false-coverage-rate interval is given (R = 0).")
    elif r:
        out.append(f"Column '{by}': {plural(r, 'slice')} of {m} called out ({_CORRECTION[options.correction]} p < {options.q:g}); "
                   f"their false-coverage-rate intervals are at the {format_value(summary['level'], 'rate')} level "
                   f"(1 - R q / m = 1 - {r} x {options.q:g} / {m}; Benjamini and Yekutieli 2005).")
    het = summary["het"]
    if het.k < 2:
        out.append(f"Column '{by}': fewer than two slices can be pooled, so whether the effect differs across "
                   "its slices cannot be tested.")
    else:
        differs = het.p < options.q
        out.append(f"Column '{by}': the effect {'differs' if differs else 'does not clearly differ'} across its "
                   f"{het.k} slices (Cochran's Q = {het.q:.1f}, df = {het.df}, {format_p(het.p)}, "
                   f"I² = {format_value(het.i2, 'rate')})"
                   + ("." if differs else "; read a single slice's difference with care (Rothwell 2005): the "
                      "shrunken differences say how much of it is chance."))
    return out


_CORRECTION = {"holm": "Holm-adjusted", "bh": "Benjamini-Hochberg-adjusted", "none": "unadjusted"}


def _signature(options: Options, col, by: list[str], binary: bool, err) -> dict:
    from . import compare
    from .compare import _system_ci_signature

    sig = base_signature(NAME)
    sig.update({"family": "binary" if binary else "continuous", "form": col.form, "pairs": "by-item-id",
                "by": ",".join(by), "bins": f"{options.bins},quantile-linear,(lo,hi]" if options.bins else "none",
                "blank": sc.BLANK, "labels": "exact-text", "min-size": str(options.min_size)})
    if binary:
        sig.update({"sign": "exact-two-sided", "mcnemar": "chi2-1df", "adjusted": "sign-test",
                    "ci-diff": "normal-paired-95,se:sqrt(b+c-(b-c)^2/n)/n"})
    else:
        sig.update({"t": "paired,two-sided", "adjusted": "paired-t",
                    "rand": f"sign-flip,exact<=2^{pm.EXACT_MAX},else-mc:{options.rounds},p:(1+hits)/(1+R)",
                    "ties": pm.TIES_SIGNATURE, "ci-diff": "paired-t-95"})
    sig["ci-system"] = (_system_ci_signature(compare.Options(), True) if binary else "t-95")
    sig.update({"correction": options.correction, "alpha": f"{options.q:g}",
                "fcr": f"BY2005,q:{options.q:g},select:p-adjusted<{options.q:g},level:1-Rq/m",
                "se": "sd(d,ddof=1)/sqrt(n)", "heterogeneity": "cochran-q,chi2",
                "tau2": "dersimonian-laird,truncated-0", "re-ci": "normal-95",
                "shrink": "d_re+tau2/(tau2+se2)*(d-d_re)"})
    if options.discover:
        sig["discover"] = f"depth:{options.depth},top:{options.top},halves:random"
    sig["seed"] = str(options.seed)  # the randomization tests' (scores) and discovery's split
    sig.update(err.signature())
    return sig
