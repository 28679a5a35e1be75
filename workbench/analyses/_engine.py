"""pass@k and aggregation on DuckDB or Spark: the engine counts the file's rows per task or per
group (:mod:`workbench.engines.tally`), and the analysis computes its numbers from those counts
as it does in memory (so every engine gives the same numbers).

``unloaded(paths, options)`` is the command line's decision before any file is loaded (as for
the ranking): ``None`` when the file is loaded into memory (``--engine memory``, ``auto`` within
the memory budget, or a file the engines do not read themselves); otherwise the file's
:class:`~workbench.engines.duck.FileSource`, a table of its first rows (for the columns' names
and guesses), the engine and ``auto``'s choice.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..io.columns import BINARY_EXPECTED, _binary_value
from . import _rows


@dataclass(frozen=True)
class Unloaded:
    source: object
    preview: object
    engine: str
    choice: object


def check_engine(options) -> None:
    from ..engines import ENGINES

    if options.engine not in ENGINES:
        raise OptionError(f"`engine` must be one of {', '.join(ENGINES)}; "
                          f"got engine={options.engine!r}.")


def unloaded(paths, options, *, spark_trec: bool = False) -> Unloaded | None:
    """The file an engine reads itself, or None (see the module's text); ``spark_trec``: a
    TREC run is read by Spark itself too (the ranking)."""
    from ..engines import budget

    check_engine(options)
    kind = budget.file_kind(paths[0]) if len(paths) == 1 else None
    if kind != "parquet" and options.engine != "memory" and len(paths) == 1 \
            and os.path.isfile(paths[0]):
        run_format = _headerless_run(paths[0])  # whatever its name (a .tsv too)
        if run_format == "trec":
            if spark_trec:  # Spark reads a TREC run itself
                kind = "trec" if options.engine == "spark" else None
        elif run_format is not None:  # compressed, or no header for an engine to read
            return None  # loaded, then computed by the engine asked for
    if options.engine == "memory" or kind is None or not os.path.isfile(paths[0]):
        return None  # the loader reads it (and says what is wrong with a path)
    choice = budget.choose_for_file(paths[0], kind) if options.engine == "auto" else None
    if choice is not None and choice.engine != "duckdb":
        return None
    if options.engine == "spark":
        from ..engines import spark

        if spark.missing():  # before the file is looked at
            raise OptionError(spark.missing())
    elif not budget.duckdb_available():  # asked for by name (auto chose memory above)
        from ..engines.duck import MISSING

        raise OptionError(MISSING)
    from .ranking_engines import file_source

    engine = "spark" if options.engine == "spark" else "duckdb"
    source, preview = file_source(paths[0], kind, engine)
    return Unloaded(source, preview, engine, choice)


def _headerless_run(path: str) -> str | None:
    """What keeps an engine from reading the file as a CSV with a header, from its first bytes
    (read once): ``"compressed"`` (the loader decompresses it), ``"msmarco"`` (``qid pid
    rank`` lines), ``"trec"`` (a TREC run, by its first line or its name), or None."""
    from ..io.formats import msmarco, trec
    from ..io.loader import compression

    try:
        with open(path, "rb") as handle:
            raw = handle.read(200_000)
    except OSError:
        return None
    if compression(raw) is not None:
        return "compressed"
    head = raw.decode("utf-8", errors="replace")
    if msmarco.sniff(head) is not None:
        return "msmarco"
    return "trec" if (trec.sniff(head, path) or trec.announced(path)) == trec.RUN else None


def memory_notes(table, options) -> list[str]:
    """A note when an engine was asked for but the table was loaded (an input that is not one
    CSV or Parquet file: the engines read those themselves)."""
    if getattr(options, "engine", "auto") not in ("duckdb", "spark"):
        return []
    name = "DuckDB" if options.engine == "duckdb" else "Spark"
    return [f"{name} reads a CSV or Parquet file itself; this input ('{table.name}') was loaded, "
            f"so it was computed in memory (the signature says engine:memory)."]


def with_memory_notes(result, table, options):
    """``result`` with :func:`memory_notes` after its own notes."""
    from dataclasses import replace

    extra = memory_notes(table, options)
    return replace(result, notes=result.notes + tuple(extra)) if extra else result


def of_large(table, options, title: str) -> Unloaded:
    """A file the window reads page by page: the engine reads it whole (``auto``: DuckDB)."""
    large = table.large
    if options.engine == "memory":
        raise OptionError(f"File '{table.name}' has {large.rows:,} rows, over the memory budget "
                          f"({large.choice.reason}): {title} in memory would load it all. "
                          f"Compute it with DuckDB (the engine 'automatic' or 'DuckDB').")
    check_engine(options)
    engine = "spark" if options.engine == "spark" else "duckdb"
    return Unloaded(large.source, table, engine,
                    large.choice if options.engine == "auto" else None)


def tally(got: Unloaded, options, keys, sums=(), progress=None, what: str = "the counts",
          then=None):
    """The engine's counts (:func:`workbench.engines.tally.tally`), with progress, a cancel
    that interrupts the engine, and one sentence for the engine's own errors; returns
    ``then(tallied)`` (called while the engine is open: Spark counts a row's line when a
    sentence names it) and the note naming the engine."""
    from ..engines.tally import tally as count

    def work(conn):
        tallied = count(conn, got.source, [k for k in keys if k], [s for s in sums if s])
        return then(tallied) if then is not None else tallied

    answer, note = _on_engine(got, options, progress, "counting the rows", work)
    return answer, note(what=what)


def _on_engine(got: Unloaded, options, progress, doing: str, work):
    """``work(conn)`` on a connection of the engine, with progress, a cancel that interrupts
    the engine, and one sentence for the engine's own errors; returns its answer and the
    engine's note (``note(what=..., done=...)``)."""
    from functools import partial

    from . import ranking_engines as eng

    conn = eng.connect(got.engine, options)
    watch = eng._watch_cancel(conn, progress)
    name = eng.ENGINE_NAMES[got.engine]
    try:
        if progress is not None:
            progress.advance(0.1, f"{doing} with {name}")
        answer = work(conn)
    except conn.error as err:
        eng._raise_if_cancelled(progress)
        raise DataError(f"{name} could not read '{got.source.path}': "
                        f"{(str(err).strip().splitlines() or [type(err).__name__])[0]}") from None
    finally:
        watch.set()
        conn.close()
    if progress is not None:
        progress.check_cancelled()
    return answer, partial(eng.engine_note, got.engine, conn, got.choice, sql=False)


def project(got: Unloaded, options, columns: dict, progress=None):
    """The file's ``columns`` read by the engine (:func:`workbench.engines.project.project`),
    as a table the analysis computes on as on a loaded file (rows numbered as the file's
    lines), and the note naming the engine."""
    from ..engines.project import project as read
    from ..io import LoadedTable

    frame, note = _on_engine(got, options, progress, f"reading {len(columns)} columns",
                             lambda conn: read(conn, got.source, columns))
    preview = got.preview
    table = LoadedTable(frame=frame, path=got.source.path, format=preview.format,
                        roles={c: r for c, r in (preview.roles or {}).items() if c in columns},
                        encoding=preview.encoding, delimiter=preview.delimiter,
                        decimal=preview.decimal)
    names = ", ".join(f"'{c}'" for c in columns)
    return table, note(what=f"only the columns used ({names})", done="were read")


def decode_binary(tallied, column: str, keep: np.ndarray | None = None) -> np.ndarray:
    """The column's cells (one per tally row) as 0/1, as :func:`workbench.io.to_binary`
    decodes them; a cell that is not binary (among the rows ``keep``) is one sentence naming
    up to five values with their first line and how many rows hold such values."""
    cells = tallied.frame[column].to_numpy(dtype=object)
    codes, uniques = pd.factorize(cells)
    lookup = np.array([_binary_value(u) for u in uniques], dtype=np.int8)
    values = lookup[codes] if len(lookup) else np.zeros(0, dtype=np.int8)
    bad = values < 0
    if keep is not None:
        bad &= keep
    if bad.any():
        rows = tallied.frame[bad]
        firsts = rows.groupby(column, sort=False)["first_rn"].min().sort_values()
        count = int(rows["w"].sum())
        shown = ", ".join(f"'{value}' ({tallied.describe_rows([rn])})"
                          for value, rn in list(firsts.items())[:5])
        more = f" and {len(firsts) - 5} more values" if len(firsts) > 5 else ""
        raise DataError(f"Column '{column}' of file '{tallied.path}' must hold binary values "
                        f"({BINARY_EXPECTED}), but {count} {'row does' if count == 1 else 'rows do'}"
                        f" not: {shown}{more}.")
    return values.astype(np.int64)


class TalliedErrored(_rows.Errored):
    """The errored rows of a tally: the count and the total come from the counts (no mask of
    every row), the names are the first errored rows' lines."""

    def __init__(self, column, mode, count: int, total: int, names) -> None:
        super().__init__(column, mode, np.zeros(0, dtype=bool), list(names))
        self._count, self._total = int(count), int(total)

    @property
    def count(self) -> int:
        return self._count

    @property
    def total(self) -> int:
        return self._total


def errored(tallied, column: str | None, mode: str) -> tuple[np.ndarray, TalliedErrored]:
    """Which tally rows are errored (the error column's cells as :func:`_rows.find` reads
    them), and the notes' :class:`TalliedErrored`."""
    frame = tallied.frame
    if column is None:
        return np.zeros(len(frame), dtype=bool), TalliedErrored(None, mode, 0, tallied.rows, [])
    text = pd.Series(frame[column].to_numpy(dtype=object)).fillna("").astype(str).str.strip()
    mask = ((text != "") & ~text.str.lower().isin(_rows._NOT_AN_ERROR)).to_numpy()
    count = int(frame["w"].to_numpy()[mask].sum())
    firsts = tallied.first_rows(column, sorted(set(frame[column].to_numpy(dtype=object)[mask])),
                                5) if count else []
    if mode == "exclude" and count and count == tallied.rows:
        raise DataError(f"Every row of file '{os.path.basename(tallied.path)}' ended with an "
                        f"error (column '{column}'); there is no measurement to analyse (set "
                        f"--errors fail to count them as failures).")
    return mask, TalliedErrored(column, mode, count, tallied.rows, tallied.lines(firsts))


def error_column(preview, options) -> str | None:
    """The error column: the option, else the reader's ``error`` role."""
    if options.error:
        from ..io import require_columns

        require_columns(preview, [options.error])
        return options.error
    return _rows.role_column(preview, "error")
