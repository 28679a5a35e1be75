"""Which columns of a qrels file hold the query ids, the document ids and the grades.

A qrels file written by another tool rarely uses the run's own column names: ir_datasets and
Hugging Face qrels say ``query_id, doc_id, relevance``, a TREC qrels read by the workbench says
``query, iter, doc, relevance``, others say ``qid, docno, rel`` or ``label``.  Each role takes,
in this order: the run's own column name when the qrels has it (``--relevance`` for the
grades when given), then the common names of the role (:data:`workbench.core.role_names.
ROLE_NAMES`, ignoring case, spaces, ``_`` and ``-``), then, for the grades only, the one column
left besides the ids and a TREC iteration column.  A role taken by another name is said in one
note, so the reader sees which columns were judged.  One rule for every engine: the in-memory
path, DuckDB and Spark all read the qrels through :func:`qrels_columns`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import DataError
from ..core.role_names import ROLE_NAMES, find

#: Names of a TREC qrels' second column (the iteration, ignored), compared ignoring case.
ITERATION_NAMES = ("iter", "iteration", "q0", "0")


@dataclass(frozen=True)
class QrelsColumns:
    """The qrels file's query, document and grade columns, and the roles whose column was
    found by another name than the run's (``(role, column), ...``)."""
    query: str
    doc: str
    relevance: str
    renamed: tuple[tuple[str, str], ...] = ()

    def note(self, name: str) -> str | None:
        """One sentence naming the qrels' columns when any was found by another name."""
        if not self.renamed:
            return None
        said = ", ".join(f"'{column}' as the {role}" for role, column in self.renamed)
        return f"The judgments of '{name}' were read from its columns {said} (their names " \
               f"differ from the run's)."


def qrels_columns(names, path: str, *, query: str, doc: str,
                  relevance: str | None = None, relevance_given: bool = False) -> QrelsColumns:
    """The qrels' columns among ``names`` for the run's ``query`` and ``doc`` columns and its
    grade column ``relevance`` (None when the run has none; ``relevance_given``: named by
    ``--relevance``, which must then be in the qrels or the run)."""
    names = [str(n) for n in names]
    listed = ", ".join(names) if names else "none"
    renamed = []

    def role(what: str, own: str, taken: tuple[str, ...]) -> str:
        if own in names and own not in taken:
            return own
        hit = find(names, what, taken)
        if hit is None:
            usual = ", ".join(ROLE_NAMES[what][:5])
            raise DataError(f"File '{path}' (the qrels) has no column for the {_ROLE[what]}: "
                            f"neither '{own}' (the run's) nor a usual name ({usual}); its "
                            f"columns are: {listed}.")
        renamed.append((_ROLE[what], hit))
        return hit

    q = role("query", query, ())
    d = role("doc", doc, (q,))
    taken = (q, d)
    own = relevance if relevance not in (None, "") else None
    if own is not None and own in names and own not in taken:
        rel = own
    elif relevance_given and own is not None:
        raise DataError(f"File '{path}' (the qrels) has no column '{own}' (named by "
                        f"--relevance); its columns are: {listed}.")
    elif "relevance" in names and "relevance" not in taken:
        rel = "relevance"
    else:
        rel = find(names, "relevance", taken)
        if rel is None:
            rest = [n for n in names if n not in taken
                    and n.strip().lower() not in ITERATION_NAMES]
            if len(rest) != 1:
                raise DataError(f"File '{path}' (the qrels) has no relevance column (relevance, "
                                f"rel, grade, label, judgment) and not one other column to take "
                                f"as the grades; its columns are: {listed}. Name it with "
                                f"--relevance.")
            rel = rest[0]
    if rel != (own or "relevance"):
        renamed.append((_ROLE["relevance"], rel))
    return QrelsColumns(q, d, rel, tuple(renamed))


_ROLE = {"query": "query ids", "doc": "document ids", "relevance": "grades"}
