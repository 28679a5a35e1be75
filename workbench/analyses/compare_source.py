"""Compare on another analysis's per-unit table: the metric of a paired comparison taken from
the Ranking per-query table or the Text per-item table of a result (issue 14: "the Compare
panel lets the analyst choose the metric ... or a per-item/per-query table of another panel").

Nothing is re-implemented here: the chosen column of the source table becomes a long-form
table (system, unit, score) and goes through :func:`workbench.analyses.compare.run`, so the
tests, intervals, effect size, MDE and notes are the Compare analysis's own.  This module only
says which tables can be a source, which of their columns are metrics, and states the source
in the result: a first note ("metric: nDCG@10 from the Ranking per-query table; queries: ...,
n = 25") and signature entries ``metric:``, ``from:`` and ``source:[<the source's signature>]``
(the conventions that produced the per-unit numbers: cut-offs, ties, gain, normalisation...).

Which units are compared:

* **Ranking** (table ``queries``): the queries *counted* in a system's means (trec_eval's query
  set under the source's no-relevant and unjudged policies), paired by query id; a query counted
  for one system only is left out (and counted in a note).  The same set as Ranking's
  "Systems compared".
* **Text** (table ``items``): the items paired by the Text analysis's item id column; a result
  without an id column is no source (its rows cannot be paired), as in Text's "Systems compared".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..core.errors import OptionError
from ..core.numbers import plural
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table
from ..io import LoadedTable
from . import compare


@dataclass(frozen=True)
class Source:
    analysis: str       # the analysis whose result holds the table
    table: str          # its per-unit table
    unit: str           # the table's unit id column
    unit_word: str      # "queries" / "items"
    label: str          # "Ranking per-query table"
    scope: str          # which units count, for the note


SOURCES: dict[str, Source] = {
    "ranking": Source("ranking", "queries", "query", "queries", "Ranking per-query table",
                      "the queries counted in both systems' means (trec_eval's query set under the "
                      "Ranking options), paired by query id"),
    "text": Source("text", "items", "item", "items", "Text per-item table",
                   "the items both systems have, paired by the item id column"),
}

#: per-unit columns that are not metrics
_NOT_METRICS = {"system", "query", "item", "line", "retrieved", "relevant", "counted", "tied"}

#: display names of per-unit metrics that read differently from the corpus/mean ones
_LABELS = {"rr": "Reciprocal rank (per query; its mean is MRR)",
           "ap": "Average precision (per query; its mean is MAP)",
           "bleu": "Sentence BLEU (0-100)", "chrf": "Sentence chrF (0-100)",
           "exact_match": "Exact match (0/1 per item)"}

_ORDER = ("ndcg@", "p@", "r@", "hit@", "rr@", "rr", "ap", "token_f1", "exact_match", "rouge1", "rouge2",
          "rougeL", "bleu", "chrf")


#: the same names as ``workbench.report.present.display_name`` (the analyses may not import the report)
_NAMES = {"token_f1": "Token F1", "rouge1": "ROUGE-1 F", "rouge2": "ROUGE-2 F", "rougeL": "ROUGE-L F"}
_CUTOFF_NAMES = {"ndcg": "nDCG", "p": "P", "r": "R", "hit": "Hit", "rr": "RR", "mrr": "MRR"}


def metric_label(metric: str) -> str:
    """A reader's name for a per-unit column (``ndcg@10`` -> ``nDCG@10``)."""
    if metric in _LABELS or metric in _NAMES:
        return _LABELS.get(metric) or _NAMES[metric]
    head, at, k = metric.partition("@")
    if at and head in _CUTOFF_NAMES:
        return f"{_CUTOFF_NAMES[head]}@{k}"
    return metric


def source_of(result: AnalysisResult | None) -> Source | None:
    """The source this result offers, or None: a Ranking or Text result with two or more
    systems whose units can be paired (its "Systems compared" table has rows)."""
    if result is None or result.analysis not in SOURCES:
        return None
    src = SOURCES[result.analysis]
    try:
        frame = result.table(src.table).frame
        compared = result.table("systems_compared").frame
    except KeyError:
        return None
    if "system" not in frame.columns or frame["system"].nunique() < 2 or len(compared) == 0:
        return None
    return src


def _units(result: AnalysisResult, src: Source) -> pd.DataFrame:
    frame = result.table(src.table).frame
    if "counted" in frame.columns:  # ranking: the queries in each system's means
        frame = frame[frame["counted"].astype(bool)]
    return frame


def metrics(result: AnalysisResult) -> list[str]:
    """The numeric per-unit columns of the source table, nDCG first (ranking), token F1 first (text)."""
    src = source_of(result)
    if src is None:
        return []
    frame = result.table(src.table).frame
    cols = [str(c) for c in frame.columns if str(c) not in _NOT_METRICS
            and pd.api.types.is_numeric_dtype(frame[c].dtype) and not pd.api.types.is_bool_dtype(frame[c].dtype)]

    def rank(col: str) -> tuple:
        for i, prefix in enumerate(_ORDER):
            if col == prefix or (prefix.endswith("@") and col.startswith(prefix)):
                return (i, int(col.split("@")[1]) if "@" in col else 0)
        return (len(_ORDER), 0)

    return sorted(cols, key=rank)


def default_metric(result: AnalysisResult) -> str | None:
    """nDCG@10 (else the deepest nDCG cut-off) for ranking, token F1 for text."""
    names = metrics(result)
    if "ndcg@10" in names:
        return "ndcg@10"
    ndcg = [m for m in names if m.startswith("ndcg@")]
    if ndcg:
        return ndcg[-1]
    return "token_f1" if "token_f1" in names else (names[0] if names else None)


def systems(result: AnalysisResult) -> list[str]:
    """The source table's systems, in their order of appearance (the file's order)."""
    src = source_of(result)
    if src is None:
        return []
    return list(dict.fromkeys(str(s) for s in result.table(src.table).frame["system"]))


def run(result: AnalysisResult, metric: str, options: compare.Options = compare.Options(),
        progress=NULL_PROGRESS) -> AnalysisResult:
    """The Compare analysis of ``metric`` of ``result``'s per-unit table, with ``options``'
    baseline/candidate systems, test family, resamples, seed, rounds, zero handling and
    correction (its column options are replaced by the table's)."""
    compare.check_options(options)
    src = source_of(result)
    if src is None:
        what = SOURCES[result.analysis].label if result is not None and result.analysis in SOURCES else "result"
        raise OptionError(f"The {what} has fewer than two systems that can be paired: nothing to compare.")
    names = metrics(result)
    if metric not in names:
        raise OptionError(f"The {src.label} has no metric '{metric}'; its metrics are: {', '.join(names)}.")
    units = _units(result, src)
    frame = pd.DataFrame({
        "system": units["system"].astype(str).to_numpy(dtype=object),
        src.unit: units[src.unit].astype(str).to_numpy(dtype=object),
        metric: units[metric].to_numpy(dtype=float),
    })
    # text: each item's line in the file (the baseline's row is the one a changed item points to)
    row_lines = units["line"].to_numpy(dtype=np.int64) if "line" in units.columns else None
    table = LoadedTable(frame=frame, path=result.input or src.label, row_lines=row_lines,
                        row_word=None if row_lines is not None else f"row of the {src.label}")
    opts = replace(options, system="system", item=src.unit, score=metric, outcome=None, baseline=None,
                   candidate=None, cluster=None)
    out = compare.run(table, opts, progress, unit=src.unit_word)
    n = next((r["n"] for r in out.records if r.get("n") is not None), 0)
    label = metric_label(metric)
    lead = (f"Metric: {label} from the {src.label} (column '{metric}'); {src.unit_word}: {src.scope}; "
            f"n = {plural(n, src.unit)} paired (the denominator of every number here).")
    notes = [lead]
    if result.analysis == "text" and metric in ("bleu", "chrf"):
        notes.append(f"{label} is a per-sentence score: its mean difference is not the difference in "
                     f"corpus {metric.upper() if metric == 'bleu' else 'chrF'}, which the Text panel's "
                     f"'Systems compared' tests with sacrebleu's paired bootstrap and approximate "
                     f"randomization.")
    notes += list(out.notes)
    tables = []
    for tab in out.tables:
        if tab.name == "discordant":  # the derived table's own columns say nothing new
            frame_ = tab.frame.drop(columns=[c for c in tab.frame.columns if str(c).startswith("input:")])
            if row_lines is None:
                frame_ = frame_.drop(columns=["line"], errors="ignore")
            frame_ = frame_.rename(columns={"item": src.unit})
            tab = Table(tab.name, tab.title.replace("Items", src.unit_word.capitalize()), frame_,
                        tab.columns, tab.formats)
        tables.append(tab)
    return replace(out, signature=_with_source(out.signature, src, metric, result.signature),
                   notes=tuple(notes), tables=tuple(tables))


def _with_source(sig: str, src: Source, metric: str, source_sig: str) -> str:
    """``...|analysis:compare|metric:ndcg@10|from:ranking.queries|units:queries-in-both|source:[...]|...``"""
    extra = (f"metric:{metric}|from:{src.analysis}.{src.table}|units:{src.unit_word}-in-both"
             f"|source:[{source_sig}]")
    head, sep, tail = sig.partition("analysis:compare")
    if not sep:
        return f"{sig}|{extra}"
    return f"{head}{sep}|{extra}{tail}"


__all__ = ["SOURCES", "Source", "default_metric", "metric_label", "metrics", "run", "source_of", "systems"]
