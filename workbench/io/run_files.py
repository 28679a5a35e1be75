"""Runs and their judgments among files opened together: which file is the qrels.

trec_eval takes the qrels and the run as two files; the workbench's window and command line
take several files at once and stack them (several runs as systems).  A qrels among them is
not stacked: it is the runs' judgments.  A TREC qrels is known by its lines; a table (CSV/TSV,
compressed or not, or Parquet) by its header: a query, a document and a grade, but no score or
rank (a run has one).
"""

from __future__ import annotations

from ..core.role_names import header_names

#: A CSV/TSV whose header names a query, a document and a score or rank (a run), or a query, a
#: document and a grade but no score or rank (its judgments).
RUN_TABLE, QRELS_TABLE = "run table", "qrels table"


def _header(path: str, head: str) -> list[str] | None:
    """The column names of a table from its first bytes (decompressed): a Parquet file's
    schema, or a delimited file's first line (tab, comma or semicolon)."""
    if head.startswith("PAR1"):
        from .parquet import column_names

        return column_names(path)
    if "\x00" in head or head.startswith("PK"):  # binary (a workbook is a zip): no text header
        return None
    line = head.lstrip("\ufeff").splitlines()[0] if head.strip() else ""
    return header_names(line, ",\t;")


def table_kind(path: str, head: str) -> str | None:
    """:data:`RUN_TABLE`, :data:`QRELS_TABLE` or None, from a table's header (``head``: the
    file's first bytes, decompressed, as text)."""
    from ..core.role_names import find

    names = _header(path, head)
    if not names:
        return None
    query = find(names, "query")
    doc = find(names, "doc", (query,)) if query else None
    if not doc:
        return None
    if find(names, "score", (query, doc)) or find(names, "rank", (query, doc)):
        return RUN_TABLE
    return QRELS_TABLE if find(names, "relevance", (query, doc)) else None


def split_qrels(paths: list[str]) -> tuple[list[str], str | None]:
    """(the files to stack, the one qrels file opened with its runs, or None).  The runs are
    TREC or MS MARCO runs or tables with a score or rank column; the qrels a TREC qrels or a
    table of (query, document, grade) with no score or rank."""
    from .formats import msmarco, trec
    from .loader import head_bytes

    def kind(path: str):
        try:  # a compressed file: the start of the file inside
            head = head_bytes(path).decode("utf-8", "replace")
        except OSError:
            return None
        return (trec.sniff(head, path) or msmarco.sniff(head) or trec.announced(path)
                or table_kind(path, head))

    kinds = {p: kind(p) for p in paths}
    qrels = [p for p in paths if kinds[p] in (trec.QRELS, QRELS_TABLE)]
    runs = [p for p in paths if p not in qrels]
    if len(qrels) == 1 and runs and all(kinds[p] in (trec.RUN, msmarco.RUN, RUN_TABLE)
                                        for p in runs):
        return runs, qrels[0]
    return list(paths), None
