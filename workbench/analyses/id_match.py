"""Whether a run's ids meet its qrels' ids: the note that explains a ranking of zeros.

Ids are compared as exact text, as trec_eval compares them, so a run naming its queries ``7``
and a qrels naming them ``007`` share no query, and every number comes out 0 or empty without
an error.  These notes say so at the top of the answer:

* queries of the run left unjudged that match a judged query once leading zeros, letter case,
  spaces or a trailing ``.0`` are ignored (:func:`id_key`), with examples;
* no query shared at all (the qrels may belong to another run);
* queries shared but not one retrieved row judged (the document ids differ in form).

The numbers are left as the references compute them; only the reader is told.
"""

from __future__ import annotations

import re

import numpy as np

from ..core.numbers import plural

_INTEGER = re.compile(r"[+-]?[0-9]+(?:\.0*)?")


def id_key(text) -> str:
    """The id with the differences that usually come from a tool's formatting removed:
    spaces around it, letter case, and for a whole number its leading zeros, sign ``+`` and
    trailing ``.0`` (``' Q07 '`` -> ``'q07'``, ``'007'`` -> ``'7'``, ``'7.0'`` -> ``'7'``)."""
    t = str(text).strip().casefold()
    if _INTEGER.fullmatch(t):
        return str(int(t.split(".")[0]))
    return t


def _examples(pairs, limit: int = 3) -> str:
    return ", ".join(f"run '{a}' and qrels '{b}'" for a, b in pairs[:limit])


def _shown(labels, limit: int = 3) -> str:
    return ", ".join(f"'{x}'" for x in labels[:limit])


def id_notes(q_labels, any_run: np.ndarray, judged: np.ndarray, rows_judged_queries: int,
             judged_rows: int) -> list[str]:
    """The notes (none when the ids meet).  ``q_labels``: every query (the run's and the
    qrels'); ``any_run``/``judged``: which of them the run retrieves for and the qrels judge;
    ``rows_judged_queries``: the run's rows (every system) of queries the qrels judge;
    ``judged_rows``: how many of those rows have a judgment."""
    labels = np.asarray(q_labels, dtype=object)
    run_only = labels[any_run & ~judged]
    qrels_only = labels[judged & ~any_run]
    shared = int((any_run & judged).sum())
    if run_only.size and qrels_only.size:
        by_key = {}
        for label in qrels_only:
            by_key.setdefault(id_key(label), label)
        pairs = [(a, by_key[id_key(a)]) for a in run_only if id_key(a) in by_key]
        if pairs:
            return [f"{plural(len(pairs), 'query', 'queries')} of the run "
                    f"{'has' if len(pairs) == 1 else 'have'} no judgment under "
                    f"{'its' if len(pairs) == 1 else 'their'} exact id but "
                    f"{'matches' if len(pairs) == 1 else 'match'} a judged query once leading "
                    f"zeros, letter case, spaces or a trailing '.0' are ignored "
                    f"({_examples(pairs)}): ids are compared as exact text, as trec_eval "
                    f"does, so those judgments are not used; write the ids the same way in "
                    f"the run and the qrels."]
    if not shared and run_only.size and qrels_only.size:
        return [f"No query of the run has a judgment in the qrels (the run's ids are like "
                f"{_shown(run_only)}, the qrels' like {_shown(qrels_only)}): every number here "
                f"is 0 or left out; check that the qrels belong to this run and that both "
                f"files write the query ids the same way."]
    if shared and rows_judged_queries and not judged_rows:
        return [f"None of the {rows_judged_queries:,} retrieved rows of the "
                f"{plural(shared, 'query', 'queries')} the qrels judge is a judged document: "
                f"every number here is 0; document ids are compared as exact text, so check "
                f"that both files write them the same way (leading zeros, prefixes, letter "
                f"case)."]
    return []


def empty_id_notes(q_labels, any_run: np.ndarray, judged: np.ndarray, rows: int,
                   query_column: str, qrels: bool) -> list[str]:
    """A query whose id is empty (a missing cell, most often): its rows are scored as one
    query named ``''``, which no reader expects; said with the run's rows it holds
    (``rows``, every system) and whether the judgments name it too."""
    labels = np.asarray(q_labels, dtype=object)
    empty = np.flatnonzero(labels == "")
    if not empty.size:
        return []
    i = int(empty[0])
    where = []
    if any_run[i]:
        where.append(f"{rows:,} {'row' if rows == 1 else 'rows'} of the run (column "
                     f"'{query_column}')")
    if judged[i] and qrels:
        where.append("the judgments of the qrels")
    if not where:
        return []
    return [f"The query id is empty in {' and in '.join(where)}: those rows are scored as one "
            f"query with an empty id, counted in n like any other; fill the ids in, or remove "
            f"the rows."]
