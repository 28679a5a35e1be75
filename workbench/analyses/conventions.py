"""What changes the number: a panel's headline and its verdict under each alternative convention.

For an analysis, its options and the loaded table, :func:`alternatives` lists the conventions a
reasonable team might use instead, one changed at a time (the current options first), and
:func:`evaluate` recomputes the headline under each by running the analysis itself with the
changed :class:`Options` (so every value equals running the analysis with that option), or, for
a convention the analysis reports side by side (pass@k's plug-in estimator, aggregation's macro
mean, each test of Compare), by reading that record of the same result.  Runs are reused when
two conventions need the same options.  Nothing here runs unless asked (``--conventions``, the
Conventions tab).

The decision: with two or more systems, "the candidate (the second system) is better than the
baseline (the first) and the 95% paired bootstrap interval of the difference excludes 0"
(Compare: each test's p < 0.05, or its interval excluding 0); with one system there is no
verdict, only the value and its interval under each convention.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.progress import NULL_PROGRESS, Scaled
from ..core.result import AnalysisResult, Table, record
from ..metrics import headline_ci as hc
from ..metrics import paired as pm
from ..metrics.significance import percentile_interval

RESAMPLES, SEED, LEVEL, ALPHA = 2000, 12345, 0.95, 0.05
TABLE = "conventions"
BOOTSTRAP = f"bootstrap percentile 95%, {RESAMPLES} resamples, seed {SEED}"

#: Conventions the issue asks for that the analysis does not have (said in the output).
NOT_AVAILABLE = {
    "ranking": (),
    "text": ("BLEU tokenizers that need MeCab or sentencepiece (ja-mecab, ko-mecab, spm, flores)",),
    "passk": (),
    "aggregate": ("a paired verdict between versions (the verdict between versions is unpaired: "
                  "each version's own interval, MOVER)",),
    "cost": (),
    "compare": (),
}


@dataclass(frozen=True)
class Convention:
    """One alternative: ``key`` names what is changed, ``value`` its setting; ``changes`` are the
    (option, value) pairs given to the analysis; ``read`` names the record read instead of the
    headline's own (a convention the analysis reports side by side)."""

    key: str
    value: str
    default: bool = False
    changes: tuple[tuple[str, Any], ...] = ()
    read: str | None = None

    @property
    def name(self) -> str:
        return f"{self.key}: {self.value}" + (" (as set)" if self.default else "")


@dataclass(frozen=True)
class Conventions:
    """The conventions table of one result: one row per (headline metric, convention)."""

    analysis: str
    frame: pd.DataFrame
    not_available: tuple[str, ...]
    has_verdict: bool

    def sentences(self) -> list[str]:
        return verdict_sentences(self.frame) if self.has_verdict else []


# -- the alternatives ------------------------------------------------------------------------

def _others(key: str, current, values, option: str | None = None) -> list[Convention]:
    option = option or key
    return [Convention(key, str(v), changes=((option, v),)) for v in values if v != current]


def alternatives(analysis: str, options, result: AnalysisResult | None = None) -> list[Convention]:
    """The conventions to try, the current options first (``result``: the analysis's result with
    these options, which some lists depend on: Compare's family, Aggregation's form)."""
    fn = _ALTERNATIVES.get(analysis)
    if fn is None:
        raise KeyError(f"no conventions table for {analysis!r}")
    return fn(options, result)


def _ranking_alternatives(options, result) -> list[Convention]:
    from ..metrics.ranking import GAINS
    from . import ranking

    out = [Convention("ties", options.ties, default=True)]
    out += _others("gain", options.gain, GAINS)
    out += _others("ties", options.ties, ranking.TIES)
    out.append(Convention("ties", "expected"))  # over every order of tied documents
    out += _others("unjudged", options.unjudged, ranking.UNJUDGED)
    out += _others("no_relevant", options.no_relevant, ranking.NO_RELEVANT)
    other = 2.0 if options.relevance_threshold != 2.0 else 1.0
    out.append(Convention("relevance_threshold", f"{other:g}",
                          changes=(("relevance_threshold", other),)))
    out.append(Convention("ideal", "retrieved"))  # the ideal DCG of the retrieved list only
    return out


def _text_alternatives(options, result) -> list[Convention]:
    from ..metrics import text as tm
    from ..metrics.text_variants import ROUGE_TOKENIZERS

    out = [Convention("normalize", options.normalize, default=True)]
    out += _others("normalize", options.normalize, ("none", "case_ws", "squad"))
    out.append(Convention("stemmer", "off" if options.stemmer else "on",
                          changes=(("stemmer", not options.stemmer),)))
    out += _others("bleu_tokenize", options.bleu_tokenize, tm.BLEU_TOKENIZERS)
    out += _others("bleu_smooth", options.bleu_smooth, tm.BLEU_SMOOTHING)
    out += _others("chrf_word_order", options.chrf_word_order, tm.CHRF_WORD_ORDERS)
    out += _others("rouge_tokenizer", options.rouge_tokenizer, ROUGE_TOKENIZERS)
    return out


def _passk_alternatives(options, result) -> list[Convention]:
    return [Convention("estimator", "unbiased 1-C(n-c,k)/C(n,k)", default=True),
            Convention("estimator", "plug-in 1-(1-c/n)^k", read="naive_")]


def _aggregate_alternatives(options, result) -> list[Convention]:
    ratio = result is not None and any(r["metric"] == "pooled_ratio" for r in result.records)
    first, second = ("pooled_ratio", "mean_of_ratios") if ratio else ("micro", "macro")
    return [Convention("aggregation", first, default=True, read=first),
            Convention("aggregation", second, read=second)]


def _cost_alternatives(options, result) -> list[Convention]:
    from ..metrics.cost import PERCENTILE_METHODS

    return ([Convention("percentile_method", options.percentile_method, default=True)]
            + _others("percentile_method", options.percentile_method, PERCENTILE_METHODS))


def _compare_alternatives(options, result) -> list[Convention]:
    binary = result is None or any(r["metric"] == "bootstrap_ci" for r in result.records)
    if binary:
        tests = ("bootstrap_ci", "normal_ci", "sign_test_p", "sign_test_midp", "mcnemar_p",
                 "mcnemar_cc_p")
    else:
        tests = ("bootstrap_pct_ci", "bootstrap_bca_ci", "t_test_p", "randomization_p", "wilcoxon_p")
    out = [Convention("test", tests[0], default=True, read=tests[0])]
    out += [Convention("test", t, read=t) for t in tests[1:]]
    if not binary:
        out += [Convention("test", f"wilcoxon_p, zero method {z}", read="wilcoxon_p",
                           changes=(("zero_method", z),))
                for z in ("wilcox", "pratt", "zsplit") if z != options.zero_method]
    several = result is not None and any(r["metric"] == "p_adjusted" for r in result.records)
    if several:  # a correction changes something only with several candidates
        out += [Convention("correction", c, read="p_adjusted", changes=(("correction", c),))
                for c in ("holm", "bonferroni", "none")]
    return out


_ALTERNATIVES: dict[str, Callable] = {
    "ranking": _ranking_alternatives, "text": _text_alternatives, "passk": _passk_alternatives,
    "aggregate": _aggregate_alternatives, "cost": _cost_alternatives,
    "compare": _compare_alternatives,
}
#: The analyses with a conventions table.
ANALYSES = tuple(_ALTERNATIVES)


# -- intervals and verdicts from per-unit values ------------------------------------------

#: Bootstrap intervals already drawn, by the sorted values' bytes: many conventions leave the
#: per-unit values as they are (a tie policy on a run without ties), and the same values give
#: the same seeded interval.
_INTERVALS: dict[bytes, tuple[float, float]] = {}


def _interval(sorted_values: np.ndarray) -> tuple[float, float]:
    """The percentile interval of the values' bootstrap means; NaN bounds when the bootstrap
    has no spread (every value equal, or one: a zero-width interval would claim a certainty
    the data do not give)."""
    import hashlib

    if hc.is_degenerate(sorted_values, float(sorted_values[0])):
        return float("nan"), float("nan")
    key = hashlib.sha1(sorted_values.tobytes()).digest()
    if key not in _INTERVALS:
        if len(_INTERVALS) >= 256:
            _INTERVALS.pop(next(iter(_INTERVALS)))
        _INTERVALS[key] = percentile_interval(
            pm.bootstrap_means(sorted_values, resamples=RESAMPLES, seed=SEED), LEVEL)
    return _INTERVALS[key]


#: The interval column of a row whose bootstrap has no spread (its bounds are left empty).
DEGENERATE = "none: every resample gives the same value (all units equal, or one unit)"


def _named(method: str, n: int, low: float) -> str:
    """The interval column of a row: ``method``, or :data:`DEGENERATE` for bounds left empty
    because the bootstrap had no spread."""
    return method if n == 0 or np.isfinite(low) else DEGENERATE


def mean_interval(values) -> tuple[float, int, float, float]:
    """Mean of the finite values, their count and the bootstrap percentile interval (NaN
    bounds when the bootstrap has no spread)."""
    v = np.sort(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), 0, float("nan"), float("nan")
    low, high = _interval(v)
    return float(v.mean()), int(v.size), low, high


def paired_interval(base, cand) -> tuple[float, int, float, float]:
    """Mean paired difference (candidate - baseline, as the systems-compared tables round it),
    its count and the paired bootstrap percentile interval (as ``paired.summarize`` draws it)."""
    b, c = np.asarray(base, dtype=float), np.asarray(cand, dtype=float)
    ok = np.isfinite(b) & np.isfinite(c)
    if not ok.any():
        return float("nan"), 0, float("nan"), float("nan")
    d = np.sort(pm.paired_differences(b[ok], c[ok]))
    low, high = _interval(d)
    return float(d.mean()), int(d.size), low, high


def _holds(value, low, high, sign: float = 1.0) -> bool | None:
    if value is None or not np.isfinite(value):
        return None
    if sign > 0:
        return bool(value > 0 and low is not None and np.isfinite(low) and low > 0)
    return bool(value < 0 and high is not None and np.isfinite(high) and high < 0)


def _row(metric, conv: Convention, value, n, low=None, high=None, *, interval="", p=None,
         holds=None, **who) -> dict:
    return {"metric": metric, "convention": conv.name, "changed": conv.key, "setting": conv.value,
            "default": conv.default, "value": value, "ci_low": low, "ci_high": high,
            "interval": interval if (low is not None and np.isfinite(low)) or interval == DEGENERATE else "",
            "p": p, "n": n, "holds": holds, **who}


def _units_reading(metric: str, conv: Convention, units: pd.DataFrame, unit: str,
                   system: str | None, sign: float = 1.0) -> dict:
    """A per-unit table's headline: with 2+ systems the paired difference of the first two (in
    the order the systems-compared tables use) and its verdict, else the mean and interval."""
    names = (sorted(dict.fromkeys(units[system].tolist()), key=str)
             if system and system in units else [])
    if len(names) < 2:
        value, n, low, high = mean_interval(units[metric])
        return _row(metric, conv, value, n, low, high, interval=_named(BOOTSTRAP, n, low),
                    **({"system": names[0]} if names else {}))
    a, b = names[:2]
    by = {s: g.drop_duplicates(unit).set_index(unit)[metric] for s, g in units.groupby(system)}
    common = by[a].index.intersection(by[b].index)
    value, n, low, high = paired_interval(by[a].loc[common], by[b].loc[common])
    return _row(f"diff:{metric}", conv, value, n, low, high,
                interval=_named("paired " + BOOTSTRAP, n, low),
                holds=_holds(value, low, high, sign), **{"from": a, "to": b})


# -- per analysis: the headline metrics and how one convention's result is read ------------

def _ranking_metrics(options, result) -> list[str]:
    ks = sorted({r["k"] for r in result.records if r["metric"].startswith("ndcg@") and "k" in r})
    return [f"ndcg@{ks[-1]}", f"p@{ks[-1]}", "map"] if ks else ["mrr", "map"]


def _ranking_units(result: AnalysisResult) -> pd.DataFrame:
    frame = result.table("queries").frame
    return frame[frame["counted"].astype(bool)].rename(columns={"rr": "mrr", "ap": "map"})


def _ranking_read(metric, conv, result, options, table) -> dict:
    units = _ranking_units(result)
    if conv.value == "expected" and conv.key == "ties":
        units = _with_tie_expectation(units, table, options, metric)
    elif conv.key == "ideal" and conv.value == "retrieved":
        units = _with_retrieved_ideal(units, table, options, metric)
    return _units_reading(metric, conv, units, "query", "system" if "system" in units else None)


def _prepared(table, options):
    """The run read and coded once per evaluation (:func:`workbench.analyses.ranking.prepare`):
    no convention changes the columns, so every convention reuses it -- the panel's own when
    its last run was on this table object with these columns."""
    from . import ranking as rk

    key = ("prepared", id(table), *rk.prepared_key(options))
    if key not in _EXPECTED:
        panel = rk.LAST.get(table, rk.prepared_key(options))
        # the other tie rules' orders are kept for this evaluation only, not with the panel's
        _EXPECTED[key] = (replace(panel, _orders=dict(panel._orders)) if panel is not None
                          else rk.prepare(table, options, keep_orders=True))
    return _EXPECTED[key]


def _ranking_fast(table, options) -> AnalysisResult | None:
    """The per-query table under ``options`` from the prepared run (no records, intervals or
    paired tests, which the conventions table does not read); None for an engine other than
    memory (the analysis runs as it is)."""
    from . import ranking as rk

    if options.engine not in ("auto", "memory") or getattr(table, "large", None) is not None:
        return None
    frame = rk.per_query_table(table, options, _prepared(table, options))
    return AnalysisResult(rk.NAME, "", (), (Table("queries", "Per-query metrics", frame),), (),
                          table.path)


def _coded_run(table, options):
    """(query labels, per system: the run's query codes, order scores and grades) with the
    judgments' query codes and grades."""
    prep = _prepared(table, options)
    run, coded, judg = prep.run, prep.coded, prep.judg
    per_system = {}
    for code, label in enumerate(run.sys_labels):
        m = prep.system_rows(code) if len(run.sys_labels) > 1 else slice(None)
        per_system[label] = (coded.rq[m], run.order_val[m], judg.grade_for_run[m])
    return pd.Index(coded.q_labels).astype(str), per_system, judg.jq, judg.jgrade


def _replace_per_query(units: pd.DataFrame, metric: str, labels, per_system: dict) -> pd.DataFrame:
    """``units`` with ``metric`` taken from per-system arrays indexed by query code."""
    out = units.copy()
    for label, values in per_system.items():
        values = pd.Series(values, index=labels)
        rows = (out["system"] == label) if label is not None else np.ones(len(out), bool)
        out.loc[rows, metric] = values.reindex(out.loc[rows, "query"].astype(str)).to_numpy()
    return out


def _with_tie_expectation(units: pd.DataFrame, table, options, metric: str) -> pd.DataFrame:
    """The per-query table with ``metric`` (nDCG@k, P@k, recall@k, MRR or MAP) replaced by its
    expectation over every order of the tied documents
    (:func:`workbench.metrics.ranking.tie_expected`)."""
    from ..metrics.ranking import tie_expected
    from . import ranking as rk

    name, _, k = metric.partition("@")
    if name not in ("ndcg", "p", "r", "mrr", "map"):
        return units.assign(**{metric: np.nan})
    labels, runs, jq, jgrade = _coded_run(table, options)
    ks = tuple(rk.parse_ks(options.ks)) or (1,)
    key = ("expected", id(table), options)
    if key not in _EXPECTED:  # one expectation per system for every metric
        _EXPECTED[key] = {label: tie_expected(rq, order_val, grade, jq, jgrade,
                                              n_queries=len(labels), ks=ks, gain=options.gain,
                                              threshold=options.relevance_threshold)
                          for label, (rq, order_val, grade) in runs.items()}
    per_system = {}
    for label, exp in _EXPECTED[key].items():
        per_system[label] = (exp.rr if name == "mrr" else exp.ap if name == "map" else
                             {"ndcg": exp.ndcg, "p": exp.precision, "r": exp.recall}[name][int(k)])
    return _replace_per_query(units, metric, labels, per_system)


def _with_retrieved_ideal(units: pd.DataFrame, table, options, metric: str) -> pd.DataFrame:
    """The per-query table with nDCG@k normalised by the ideal DCG of the retrieved list only
    (the query's retrieved documents' gains sorted descending) instead of all judged documents;
    the DCG is the one of the ties option as set.  Other metrics are unchanged."""
    from ..metrics.ranking import ideal_dcg

    name, _, k = metric.partition("@")
    if name != "ndcg":
        return units
    k = int(k)
    labels, runs, jq, jgrade = _coded_run(table, options)
    Q = len(labels)
    judged = pd.Series(ideal_dcg(jq, jgrade, Q, (k,), options.gain)[k], index=labels)
    out = units.copy()
    for label, (rq, _order, grade) in runs.items():
        retrieved = pd.Series(ideal_dcg(rq, grade, Q, (k,), options.gain)[k], index=labels)
        rows = (out["system"] == label) if label is not None else np.ones(len(out), bool)
        queries = out.loc[rows, "query"].astype(str)
        dcg = out.loc[rows, metric].to_numpy(float) * judged.reindex(queries).to_numpy()
        ideal = retrieved.reindex(queries).to_numpy()
        with np.errstate(invalid="ignore", divide="ignore"):
            out.loc[rows, metric] = np.where(ideal > 0, dcg / ideal, 0.0)
    return out


#: What one evaluation computes once for every convention: the prepared run, the tie
#: expectations (cleared when an evaluation starts).
_EXPECTED: dict = {}


def _text_metrics(options, result) -> list[str]:
    # with a group column the metrics are per group, never pooled: no single headline to vary
    return [] if options.group else ["exact_match", "token_f1", "rougeL", "bleu", "chrf"]


#: The corpus metrics of Text: read from the analysis's records (their sacrebleu intervals).
_TEXT_CORPUS = ("bleu", "chrf")


def _text_corpus_read(metric, conv, result) -> dict:
    """Corpus BLEU or chrF: with 2+ systems the first two's difference with sacrebleu's paired
    bootstrap interval (the systems-compared record), else the corpus score with its sacrebleu
    ``--confidence`` interval."""
    units = result.table("items").frame
    names = sorted(dict.fromkeys(units["system"].tolist()), key=str) if "system" in units else []
    if len(names) >= 2:
        a, b = names[:2]
        found = result.find(f"diff:{metric}", from_=a, to=b)
        if not found:  # no item ids: no paired test
            return _row(f"diff:{metric}", conv, None, 0, **{"from": a, "to": b})
        rec = found[0]
        return _row(rec["metric"], conv, rec["value"], rec.get("n"), rec.get("ci_low"),
                    rec.get("ci_high"), interval="sacrebleu paired bootstrap, percentile 95% of "
                    "the resampled difference", holds=_holds(rec["value"], rec.get("ci_low"),
                                                             rec.get("ci_high")),
                    **{"from": a, "to": b})
    rec = result.find(metric)[0]
    return _row(metric, conv, rec["value"], rec.get("n"), rec.get("ci_low"), rec.get("ci_high"),
                interval="sacrebleu bootstrap (--confidence), as the analysis states it",
                **({"system": names[0]} if names else {}))


def _text_read(metric, conv, result, options, table) -> dict:
    if metric in _TEXT_CORPUS:
        return _text_corpus_read(metric, conv, result)
    units = result.table("items").frame
    unit = "item" if "item" in units else None
    if "system" in units and units["system"].nunique() > 1 and unit is None:
        value = None
        return _row(f"diff:{metric}", conv, value, 0)
    return _units_reading(metric, conv, units, unit or "line", "system" if "system" in units else None)


def _passk_metrics(options, result) -> list[str]:
    ks = sorted({r["k"] for r in result.records if r["metric"].startswith("pass@")})
    return [f"pass@{ks[-1]}", f"pass^{ks[-1]}"]


def _passk_read(metric, conv, result, options, table) -> dict:
    from ..metrics import passk as pk

    units = result.table("tasks").frame.copy()
    k = int(metric[5:])
    if conv.read == "naive_":
        fn = pk.naive_pass_at_k if metric.startswith("pass@") else pk.naive_pass_hat_k
        n, c = units["n"].to_numpy(), units["c"].to_numpy()
        units[metric] = np.where(n >= k, fn(n, c, k), np.nan)
    return _units_reading(metric, conv, units, "task", "system" if "system" in units else None)


def _aggregate_metrics(options, result) -> list[str]:
    if any(r["metric"] == "pooled_ratio" for r in result.records):
        return ["ratio"]
    versions = {r.get("version") for r in result.records if r["metric"] == "micro"}
    return ["rate", "diff:rate"] if len(versions) >= 2 else ["rate"]


def _aggregate_read(metric, conv, result, options, table) -> dict:
    if metric == "diff:rate":
        return _versions_read(conv, result)
    recs = [r for r in result.records if r["metric"] == conv.read]
    rec = recs[-1]  # with versions: the last version's
    return _row(metric, conv, rec.get("value"), rec.get("n"), rec.get("ci_low"),
                rec.get("ci_high"), interval="as the analysis states it",
                **({"version": rec["version"]} if rec.get("version") is not None else {}))


def _versions_read(conv, result) -> dict:
    """The last version against the first under one aggregation: the difference of the two
    (independent) rates with the MOVER interval built from each rate's own interval (Zou and
    Donner 2008; with Wilson intervals Newcombe's hybrid score interval), and whether the later
    version is better with the interval excluding 0 (the verdict the conventions count)."""
    recs = [r for r in result.records if r["metric"] == conv.read and r.get("version") is not None]
    if len(recs) < 2:
        return _row("diff:rate", conv, None, 0)
    a, b = recs[0], recs[-1]
    diff = b["value"] - a["value"]
    low = high = None
    if all(r.get("ci_low") is not None and r.get("ci_high") is not None for r in (a, b)):
        low = diff - math.sqrt((b["value"] - b["ci_low"]) ** 2 + (a["ci_high"] - a["value"]) ** 2)
        high = diff + math.sqrt((b["ci_high"] - b["value"]) ** 2 + (a["value"] - a["ci_low"]) ** 2)
    return _row("diff:rate", conv, diff, (a.get("n") or 0) + (b.get("n") or 0), low, high,
                interval="MOVER from each version's own interval (unpaired)",
                holds=_holds(diff, low, high), **{"from": a["version"], "to": b["version"]})


def _cost_metrics(options, result) -> list[str]:
    return ["latency_p95"] if any(r["metric"] == "latency_p95" for r in result.records) else []


def _cost_read(metric, conv, result, options, table) -> dict:
    diffs = result.find(f"diff:{metric}")
    if diffs:  # lower latency is better
        rec = diffs[0]
        return _row(rec["metric"], conv, rec.get("value"), rec.get("n"), rec.get("ci_low"),
                    rec.get("ci_high"), interval="bootstrap percentile 95% (unpaired, as the "
                    "analysis draws it)", holds=_holds(rec.get("value"), rec.get("ci_low"),
                                                       rec.get("ci_high"), -1.0),
                    **{"from": rec["from"], "to": rec["to"]})
    rec = result.find(metric)[0]
    return _row(metric, conv, rec.get("value"), rec.get("n"), rec.get("ci_low"), rec.get("ci_high"),
                interval="as the analysis states it", system=rec.get("system"))


def _compare_metrics(options, result) -> list[str]:
    return ["diff"]


def _compare_read(metric, conv, result, options, table) -> dict:
    names = [r["system"] for r in result.records if r["metric"] in ("rate", "mean_score")]
    a, b = names[0], names[1]
    sign = 1.0 if getattr(options, "better", "higher") == "higher" else -1.0
    find = lambda m, **kw: (result.find(m, from_=a, to=b, **kw) or result.find(m, **kw))
    diff_rec = (find("diff") or find("mean_diff"))[0]
    diff = diff_rec["value"]
    kw = {"from": a, "to": b}
    if conv.read.endswith("_ci"):
        rec = find(conv.read)[0]
        return _row("diff", conv, diff, rec.get("n"), rec.get("ci_low"), rec.get("ci_high"),
                    interval=conv.read, holds=_holds(diff, rec.get("ci_low"), rec.get("ci_high"), sign), **kw)
    rec = find(conv.read, group="vs baseline")[0] if conv.read == "p_adjusted" else find(conv.read)[0]
    p = rec.get("value")
    holds = None if p is None or diff is None else bool(sign * diff > 0 and p < ALPHA)
    return _row("diff", conv, diff, diff_rec.get("n"), p=p, holds=holds, **kw)


_READERS = {
    "ranking": (_ranking_metrics, _ranking_read), "text": (_text_metrics, _text_read),
    "passk": (_passk_metrics, _passk_read), "aggregate": (_aggregate_metrics, _aggregate_read),
    "cost": (_cost_metrics, _cost_read), "compare": (_compare_metrics, _compare_read),
}

#: A quicker run for the conventions that reads only the per-unit table (None: run the analysis).
_FAST = {"ranking": _ranking_fast}


def _text_reusing():
    from . import text

    return text.reusing_scores()


#: A context within which the analysis reuses what no convention changes.
_REUSING = {"text": _text_reusing}


# -- evaluation ---------------------------------------------------------------------------

def evaluate(analysis: str, table, options, *, result: AnalysisResult | None = None,
             progress=NULL_PROGRESS) -> Conventions:
    """Recompute the headline under every alternative convention (``result``: the analysis's
    result with ``options``, reused when given)."""
    from . import REGISTRY

    large = getattr(table, "large", None)
    if large is not None:
        from ..core.errors import DataError

        raise DataError(f"The conventions table recomputes the analysis a dozen times and reads "
                        f"the rows in memory; file '{table.name}' ({large.rows:,} rows) is read "
                        f"by DuckDB page by page. Open an extract of it to see the conventions.")
    module = REGISTRY[analysis]
    _EXPECTED.clear()  # a cache of this evaluation only
    runs: dict[tuple, AnalysisResult] = {}
    if result is not None:
        runs[()] = result
    else:
        runs[()] = module.run(table, options)
    convs = alternatives(analysis, options, runs[()])
    try:
        with _REUSING.get(analysis, nullcontext)():
            rows = _evaluate_each(analysis, module, table, options, convs, runs, progress)
    finally:
        _EXPECTED.clear()  # (the prepared run and the orders: not held after the table)
    progress.advance(1.0, "conventions")
    frame = pd.DataFrame(rows, columns=list(dict.fromkeys(k for r in rows for k in r)) if rows else list(EMPTY_COLUMNS))
    has_verdict = bool(len(frame)) and frame["holds"].notna().any()
    return Conventions(analysis, frame, NOT_AVAILABLE.get(analysis, ()), has_verdict)


def _evaluate_each(analysis, module, table, options, convs, runs, progress) -> list[dict]:
    metrics_of, read = _READERS[analysis]
    rows = []
    for i, conv in enumerate(convs):
        progress.check_cancelled()
        progress.advance(i / len(convs), f"convention {conv.name}")
        if conv.changes not in runs:
            changed = replace(options, **dict(conv.changes))
            fast = _FAST.get(analysis)
            res = fast(table, changed) if fast is not None else None
            runs[conv.changes] = res if res is not None else module.run(
                table, changed, Scaled(progress, i / len(convs), (i + 1) / len(convs)))
        res = runs[conv.changes]
        for metric in metrics_of(options, runs[()]):
            rows.append(read(metric, conv, res, options, table))
    return rows


#: The columns of a conventions table without a row (an analysis without its headline, such
#: as Cost without a latency column).
EMPTY_COLUMNS = ("metric", "convention", "changed", "setting", "default", "value", "ci_low",
                 "ci_high", "interval", "p", "n", "holds")


def verdict_sentences(frame: pd.DataFrame, fmt: Callable[[str, Any], str] | None = None) -> list[str]:
    """Per headline metric: "The verdict holds under N of M conventions; with X it does not
    (value, CI)"; ``fmt(metric, number)`` formats a number (default: 4 significant digits)."""
    num = (lambda metric, x: _num(x)) if fmt is None else (
        lambda metric, x: fmt(metric, x) if _finite(x) else "n/a")
    out = []
    for metric, rows in frame.groupby("metric", sort=False):
        judged = rows[rows["holds"].notna()]
        if judged.empty:
            continue
        holds = judged["holds"].astype(bool)
        as_set = judged[judged["default"].astype(bool)] if "default" in judged else judged.iloc[:0]
        if len(as_set) and not bool(as_set["holds"].astype(bool).iloc[0]):
            # the candidate is not better as set: say so first, then where it would be
            better = judged[holds]
            sentence = (f"On {metric} the candidate is not better (interval excluding 0) under the conventions "
                        f"as set, and is under {int(holds.sum())} of the {len(judged)} conventions")
            if len(better):
                sentence += "; " + "; ".join(
                    f"with {r['convention']} it is ({num(metric, r['value'])}"
                    + (f", CI {num(metric, r['ci_low'])} to {num(metric, r['ci_high'])}" if _finite(r["ci_low"]) else "")
                    + ")" for _, r in better.head(3).iterrows())
            out.append(sentence + ".")
            continue
        sentence = (f"The verdict on {metric} (candidate better, interval excluding 0) holds under "
                    f"{int(holds.sum())} of {len(judged)} conventions")
        failing = judged[~holds]
        if len(failing) and len(failing) < len(judged):
            parts = [f"with {r['convention']} it does not ({num(metric, r['value'])}"
                     + (f", CI {num(metric, r['ci_low'])} to {num(metric, r['ci_high'])}"
                        if _finite(r["ci_low"]) else "")
                     + (f", p {float(r['p']):.3g}" if _finite(r.get("p")) else "") + ")"
                     for _, r in failing.head(3).iterrows()]
            more = f"; and {len(failing) - 3} more" if len(failing) > 3 else ""
            sentence += "; " + "; ".join(parts) + more
        out.append(sentence + ".")
    return out


def _finite(x) -> bool:
    try:
        return x is not None and bool(np.isfinite(float(x)))
    except (TypeError, ValueError):
        return False


def _num(x) -> str:
    return f"{float(x):+.4g}" if _finite(x) else "n/a"


# -- the result with its conventions ------------------------------------------------------

COLUMNS = {
    "metric": "the headline metric (diff: = candidate minus baseline)",
    "convention": "the convention changed (one at a time; 'as set' = the options used)",
    "value": "the headline under that convention",
    "ci_low": "lower end of the 95% interval", "ci_high": "upper end of the 95% interval",
    "interval": "how the interval is computed",
    "p": "the test's p-value (Compare)",
    "n": "the denominator",
    "holds": "whether the verdict holds (candidate better, interval excluding 0 or p < 0.05)",
}


def with_conventions(result: AnalysisResult, table, options, progress=NULL_PROGRESS) -> AnalysisResult:
    """``result`` with the conventions table, one record per convention and headline metric
    (the convention in the record's group and its ``convention`` field), one
    ``verdict_holds:METRIC`` record per headline metric (value N, n = M conventions), and a
    note per headline naming the conventions that change the verdict."""
    conv = evaluate(result.analysis, table, options, result=result, progress=progress)
    frame = conv.frame
    records = []
    for _, r in frame.iterrows():
        who = {k: r[k] for k in ("system", "from", "to", "version") if k in r and _present(r[k])}
        records.append(record(r["metric"], r["value"], n=r["n"], ci_low=_opt(r["ci_low"]),
                              ci_high=_opt(r["ci_high"]), group=f"convention: {r['convention']}",
                              convention=r["convention"], holds=_opt(r["holds"]),
                              **({"degenerate": True} if r.get("interval") == DEGENERATE else {}),
                              **{("from_" if k == "from" else k): v for k, v in who.items()}))
    for metric, rows in frame.groupby("metric", sort=False):
        judged = rows[rows["holds"].notna()]
        if len(judged):
            records.append(record(f"verdict_holds:{metric}", int(judged["holds"].astype(bool).sum()),
                                  n=len(judged), group="conventions"))
    notes = []
    if conv.not_available:
        notes.append("Conventions not available in this analysis: " + "; ".join(conv.not_available) + ".")
    if not len(frame):
        notes.append("Conventions: this result has no single headline that a convention changes "
                     "(Cost: the latency percentiles need a latency column; Text: with a group "
                     "column the metrics are per group and are not varied).")
    elif not conv.has_verdict:
        notes.append("Conventions: with one system there is no verdict to hold; the table gives the "
                     "headline and its interval under each convention.")
    flat = frame[frame["interval"] == DEGENERATE]
    if len(flat):
        names = ", ".join(dict.fromkeys(flat["metric"]))
        notes.append(f"Conventions: no interval in {len(flat)} of {len(frame)} rows ({names}): "
                     "every bootstrap resample gives the same value (all the units have the same "
                     "value, or there is only one), and a zero-width interval would claim a "
                     "certainty the data do not give.")
    fmt = {"value": "float", "ci_low": "float", "ci_high": "float", "p": "p", "n": "int", "holds": "text"}
    tab = Table(TABLE, "What changes the number: the headline under each convention", frame,
                columns={k: v for k, v in COLUMNS.items() if k in frame}, formats=fmt)
    return replace(result, records=result.records + tuple(records), tables=result.tables + (tab,),
                   notes=result.notes + tuple(notes))


def _present(x) -> bool:
    return x is not None and not (isinstance(x, float) and np.isnan(x))


def _opt(x):
    return x if _present(x) else None
