"""How :mod:`workbench.analyses.conventions` reads a headline under one convention: the
interval and verdict from per-unit values, and each analysis's reader (the record read side by
side, or a quicker run of what the convention changes)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from ..core.result import AnalysisResult, Table
from ..metrics import headline_ci as hc
from ..metrics import paired as pm
from ..metrics.significance import percentile_interval
from ._conventions_alternatives import ALPHA, BOOTSTRAP, Convention, LEVEL, RESAMPLES, SEED


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
