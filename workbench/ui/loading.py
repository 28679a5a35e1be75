"""Opening files, off the GUI thread: the loading jobs a worker runs (one file, several files
stacked, the first rows of a large one) and the names a table's path is shown by.  No widgets."""

from __future__ import annotations

import os


def preview_job(path: str):
    """On a worker: the first rows of a large delimited text file, or of a large Parquet file
    (loaded in memory or read page by page) (``None`` for others)."""
    from ..io import loader

    if path.lower().endswith(loader.PARQUET_EXTENSIONS) and os.path.isfile(path) and \
            os.path.getsize(path) > PREVIEW_PARQUET_BYTES:
        return _parquet_head(path)
    table = loader.load_head(path, loader.HEAD_BYTES)
    return None if table is None else (path, table)


#: A Parquet file above this size is previewed (its first rows) while it is loaded or opened.
PREVIEW_PARQUET_BYTES = 16 << 20


def _parquet_head(path: str):
    """The first rows of a Parquet file read by DuckDB (None without DuckDB or for a file
    DuckDB cannot read: the loader says what is wrong)."""
    from ..io.table import PARQUET, LoadedTable

    try:
        from ..engines.paged import PagedParquet

        paged = PagedParquet(path)
    except Exception:  # noqa: BLE001 - no DuckDB, a damaged file: no preview
        return None
    try:
        return path, LoadedTable(frame=paged.head(), path=os.path.abspath(path), format=PARQUET)
    finally:
        paged.close()


def open_large(path: str, progress=None):
    """A Parquet or CSV file over the memory budget, opened for paging by DuckDB
    (:mod:`workbench.engines.paged`), or None: the file is loaded."""
    try:
        from ..engines.paged import open_if_large
    except ImportError:  # pragma: no cover - the engines are part of the package
        return None
    return open_if_large(path, progress)


def large_table(large, *, hash_now: bool = True):
    """The table of a file read page by page: its first rows stand in for the columns (a
    CSV's as the workbench reads them, with their dialect)."""
    from dataclasses import replace

    from ..io.loader import Digest
    from ..io.table import PARQUET, LoadedTable

    path = large.source.path
    stat = os.stat(path)
    digest = Digest(None, background=hash_now,
                    file=(path, (stat.st_size, stat.st_mtime_ns), f"'{path}'"))
    if large.preview is not None:
        head = large.preview
        return replace(head, digest=digest, size_bytes=stat.st_size,
                       notes=head.notes + (large.sentence(),), large=large)
    return LoadedTable(frame=large.paged.head(), path=path, format=PARQUET, digest=digest,
                       size_bytes=stat.st_size, notes=(large.sentence(),), large=large)


def load_job(path: str, sheet: str | None, saved_roles: dict[str, str], progress):
    """On a worker: load the file, take the saved roles (or guess them), check the data.  A
    Parquet file over the memory budget is not loaded: it is read page by page."""
    from ..io import load_table
    from ..io.roles import guess_roles

    large = open_large(path, progress)
    if large is not None:
        progress.advance(0.5, "reading the first rows (the file is read page by page)")
        table = large_table(large)
    else:
        table = load_table(path, sheet=sheet, progress=progress, hash_now=True)
    table.sha256  # the panels and the session read it on the GUI thread: ready before that
    roles = {c: r for c, r in saved_roles.items() if c in table.frame.columns} or guess_roles(table)
    find_systems(table, roles)
    return checked(table, roles, progress)


def find_systems(table, roles: dict[str, str]) -> None:
    """On the worker: the system columns' distinct names, which the GUI thread asks for when
    the table arrives (colours, the Compare panel's choices), and the evaluation the columns'
    roles make of a plain table (the reading and its card)."""
    from ..analyses.reading import evaluation_of
    from .models import distinct_texts

    evaluation_of(table, roles)

    for col, role in roles.items():
        if role in ("system", "version") and col in table.frame.columns:
            distinct_texts(table, col, 0)


#: Up to this many rows the columns are checked before the table is shown (a tenth of a
#: second); a larger table is shown first and checked on a worker right after.
CHECK_BEFORE_SHOWING_ROWS = 200_000


def checked(table, roles, progress):
    from ..io.roles import find_problems

    progress.check_cancelled()
    if len(table.frame) > CHECK_BEFORE_SHOWING_ROWS:
        return table, roles, None  # None: _on_loaded starts the check
    progress.advance(0.95, "checking the columns")
    return table, roles, find_problems(table, roles)


def load_many_job(paths: list[str], progress, saved_roles: dict[str, str] | None = None):
    """On a worker: several files stacked as the command line stacks them, then the roles
    (the formats' own, else guessed) and the check, as for one file.  A TREC qrels file among
    TREC runs is not stacked: it is the runs' judgments (the Ranking panel's qrels file)."""
    from ..io import load_many
    from ..io.roles import guess_roles
    from ..io.run_files import split_qrels

    from .preload import offer_ranking

    runs, qrels = split_qrels(paths)
    table = load_many(runs, progress=progress)
    roles = {c: r for c, r in (saved_roles or {}).items() if c in table.frame.columns} or guess_roles(table)
    progress.check_cancelled()
    if not saved_roles:  # the Ranking panel's answer, while the window takes the table in
        offer_ranking(table, roles, qrels)
    table.sha256  # computed here, not on the GUI thread (beside the answer ahead: hashing frees the GIL)
    find_systems(table, roles)
    return (*checked(table, roles, progress), qrels)


def opens_at_once(argv: list[str]) -> bool:
    """Whether the files the program was started with can start loading at its first paint,
    before the workspace is built: data files only (a session is applied to the panels, and a
    workbook may ask which sheet)."""
    return bool(argv) and not any(p.lower().endswith((".json", ".xlsx", ".xlsm")) for p in argv)


def paths_of(path: str) -> list[str]:
    """The files of a table's path: one, or those stacked into it ("a.run + b.run")."""
    if " + " in path and not os.path.exists(path):
        return path.split(" + ")
    return [path]


def shown_name(path: str) -> str:
    """A table's name for the title bar: the file's, or every stacked file's (shortened)."""
    names = [os.path.basename(p) for p in paths_of(path)]
    if len(names) <= 3:
        return " + ".join(names)
    return f"{names[0]} + {len(names) - 1} more files"


def recent_label(path: str) -> str:
    parts = paths_of(path)
    if len(parts) == 1:
        return path
    return f"{shown_name(path)}    —    {os.path.dirname(parts[0])}"


def report_name(table) -> str:
    """The proposed report file: beside the (first) file, named after every file opened."""
    if table is None:
        return "workbench-report.xlsx"
    parts = paths_of(table.path)
    stems = [os.path.splitext(os.path.basename(p))[0] for p in parts]
    stem = "+".join(stems) if len(stems) <= 3 else f"{stems[0]}+{len(stems) - 1}-more"
    return os.path.join(os.path.dirname(parts[0]), stem + "-report.xlsx")


def large_file_reason(table, module) -> str:
    """Why a panel does not compute a file read page by page ("" when it can: the file is
    loaded, or the analysis has an engine that reads the whole file)."""
    large = getattr(table, "large", None)
    if large is None or getattr(module, "LARGE_FILES", False):
        return ""
    from ..engines.paged import refusal

    return refusal(module.TITLE, large)
