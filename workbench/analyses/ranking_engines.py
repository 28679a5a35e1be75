"""The ranking analysis on DuckDB or Spark (:mod:`workbench.engines`): the per-query arrays
from the SQL kernels, for a table already in memory or for a CSV/Parquet file that the engine
reads itself (the command line, before anything is loaded).  The means, notes, tests and report are the
analysis's own (:mod:`workbench.analyses.ranking`)."""

from __future__ import annotations

import os

from ..core.errors import Cancelled, DataError, OptionError
from ..engines import budget
from ..engines.cancel import cancelled as _cancelled
from ..engines.cancel import watch_cancel as _watch_cancel
from ..engines.duck import Connection, FileSource, csv_source
from ..engines.ranking_input import RunColumns
from ..engines.ranking_sql import EngineRanking, check_duplicates, rank_sql

#: The engines' names in sentences.
ENGINE_NAMES = {"duckdb": "DuckDB", "spark": "Spark"}


def connect(engine: str, options):
    """A connection of the engine (DuckDB, or a Spark session on ``options.spark_master``)."""
    if engine == "spark":
        from ..engines.spark import SparkConnection

        return SparkConnection(options.spark_master)
    return Connection()


def _raise_if_cancelled(progress) -> None:
    """An engine's error after a cancel is the cancel (DuckDB raises on an interrupt)."""
    if progress is not None and _cancelled(progress):
        raise Cancelled("the run was cancelled")


def _inputs(conn):
    """The module that makes ``run_in`` and ``qrels_in`` for the connection's engine."""
    if conn.dialect.name == "spark":
        from ..engines import spark_input
        return spark_input
    from ..engines import ranking_input
    return ranking_input
from ..io import LoadedTable, load_table
from ._common import article, check_unique


def engine_note(engine: str, conn: Connection | None, choice: budget.Choice | None,
                what: str = "the per-query table", done: str = "was computed",
                sql: bool = True) -> str:
    """The sentence that says which engine ran, with its memory limit (and why, for auto)."""
    why = f" ('auto': {choice.reason})" if choice is not None else ""
    what = what[:1].upper() + what[1:] + " " + done
    if engine == "duckdb" and conn is not None:
        return (f"{what} by DuckDB with a memory limit of "
                f"{conn.memory_limit / 1e9:.1f} GB and a spill folder in the temporary "
                f"directory{why}.")
    if engine == "spark" and conn is not None:
        return (f"{what} by Spark {conn.session.version} on master "
                f"'{conn.master}'{' (the same SQL definitions as DuckDB)' if sql else ''}{why}.")
    return f"{what} in memory{why}."


def _fit_memory(conn) -> None:
    """DuckDB's memory limit fitted to the run (:func:`workbench.engines.budget.fitted_duckdb_limit`);
    Spark's executors keep their own."""
    fit = getattr(conn, "fit_memory", None)
    if fit is not None:
        rows = int(conn.rows("SELECT count(*) FROM run_in")[0][0])
        fit(rows, budget.DUCKDB_RANKING_BYTES_PER_ROW)


def on_table(table: LoadedTable, run, cols, options, ks, progress,
             engine: str = "duckdb") -> tuple[EngineRanking, Connection]:
    """The engine on a table already loaded (its cells checked by the in-memory reading)."""
    conn = connect(engine, options)
    inputs = _inputs(conn)
    watch = _watch_cancel(conn, progress)
    try:
        system = None
        if cols.system:
            import numpy as np
            system = np.asarray(run.sys_labels, dtype=object)[run.sys_codes]
        inputs.run_from_arrays(conn, table.cell_text(cols.query), table.cell_text(cols.doc),
                               run.order_val, run.run_grade, system)
        qt = None
        if run.qrels:
            qt, q_grade = run.qrels
            qc = run.qrels_cols
            inputs.qrels_from_arrays(conn, qt.cell_text(qc.query), qt.cell_text(qc.doc), q_grade)

        def duplicate(which: str, row) -> None:
            if which == "run":
                check_unique(table, ([cols.system] if cols.system else []) + [cols.query, cols.doc],
                             "(query, document) pair" + (" of a system" if cols.system else ""))
            else:
                check_unique(qt, [run.qrels_cols.query, run.qrels_cols.doc],
                             "(query, document) judgment")

        check_duplicates(conn, duplicate, has_system=bool(cols.system), has_qrels=qt is not None,
                         run=False)
        _fit_memory(conn)
        ranked = rank_sql(conn, ks=ks, gain=options.gain, threshold=options.relevance_threshold,
                          ties=options.ties, has_system=bool(cols.system),
                          has_qrels=qt is not None, has_grade=bool(cols.relevance),
                          progress=progress, duplicate=duplicate)
    except conn.error as err:
        _raise_if_cancelled(progress)
        raise DataError(f"{ENGINE_NAMES[engine]} could not compute the ranking of "
                        f"'{table.path}': "
                        f"{(str(err).strip().splitlines() or [type(err).__name__])[0]}") from None
    finally:
        watch.set()
        conn.close()
    return ranked, conn


#: Bytes of a TREC run read for its preview.
TREC_HEAD = 1 << 20


def _trec_preview(path: str) -> tuple[FileSource, LoadedTable]:
    """A TREC run's first lines, read by the workbench (its sentences for a file that is not
    one), and the file as Spark reads it."""
    from ..io.formats import trec

    with open(path, "rb") as handle:
        data = handle.read(TREC_HEAD)
    if len(data) == TREC_HEAD and b"\n" in data:
        data = data[:data.rfind(b"\n") + 1]
    shown = f"'{os.path.abspath(path)}'"
    preview = trec.load(data.decode("utf-8", errors="replace"), os.path.abspath(path), shown,
                        trec.RUN)
    return FileSource(os.path.abspath(path), "trec", trec.RUN_COLUMNS), preview


def file_source(path: str, kind: str, engine: str = "duckdb") -> tuple[FileSource, LoadedTable]:
    """The file as DuckDB reads it, and a table of its first rows (for the columns' names,
    their roles and the CSV dialect, read by the workbench's own sniffing)."""
    if kind == "trec":
        return _trec_preview(path)
    if kind == "parquet":
        import duckdb

        con = duckdb.connect()
        try:
            head = con.execute("SELECT * FROM read_parquet(?) LIMIT 1000", [path]).df()
        except duckdb.Error as err:
            raise DataError(f"File '{path}' could not be read as Parquet: "
                            f"{str(err).splitlines()[0]}") from None
        finally:
            con.close()
        preview = LoadedTable(frame=head, path=os.path.abspath(path), format="parquet")
        return FileSource(os.path.abspath(path), "parquet", tuple(map(str, head.columns))), preview
    return csv_source(path, engine)


def qrels_source(path: str) -> FileSource | None:
    """The qrels file as the engine reads it, or None when the workbench loads it (qrels are
    small): a format the engine does not read (a TREC qrels, whatever its extension; xlsx,
    JSON) or an encoding it does not read."""
    kind = budget.file_kind(path)
    if kind is None:
        return None
    try:
        return file_source(path, kind)[0]
    except OptionError:
        return None


def qrels_names(path: str) -> list[str]:
    """The column names of a qrels file as the engine reads it (a CSV's or Parquet's first
    rows; another format loaded by the workbench, as the engine does)."""
    source = qrels_source(path)
    if source is None:
        return [str(c) for c in load_table(path).frame.columns]
    return list(source.columns)


def on_file(source: FileSource, cols, options, ks, progress, engine: str = "duckdb",
            qcols=None) -> tuple[EngineRanking, Connection]:
    """The engine reading the run file (and the qrels file) itself; ``qcols``: the qrels'
    columns (:class:`workbench.analyses.qrels_columns.QrelsColumns`)."""
    conn = connect(engine, options)
    inputs, name = _inputs(conn), ENGINE_NAMES[engine]
    watch = _watch_cancel(conn, progress)
    try:
        if progress is not None:
            progress.advance(0.1, f"reading the run with {name}")
        order = cols.rank or cols.score
        read = inputs.run_from_file(conn, source, RunColumns(
            cols.query, cols.doc, order, bool(cols.rank), cols.relevance, cols.system))
        source = read or source  # Spark's file counts its rows on the error path
        has_qrels = bool(options.qrels)
        if has_qrels:
            qsource = qrels_source(options.qrels)
            if qsource is not None:
                qsource = inputs.qrels_from_file(conn, qsource, qcols.query, qcols.doc,
                                                 qcols.relevance) or qsource
            else:  # a format the engine does not read: the qrels (small) are read in memory
                from ..io import require_columns, to_float

                qt = load_table(options.qrels)
                require_columns(qt, [qcols.query, qcols.doc, qcols.relevance])
                inputs.qrels_from_arrays(conn, qt.cell_text(qcols.query),
                                         qt.cell_text(qcols.doc), to_float(qt, qcols.relevance))
                qsource = FileSource(qt.path, "csv", ())

        def duplicate(which: str, row) -> None:
            where = source if which == "run" else qsource
            *keys, count, rns = row
            names = (["system"] if which == "run" and cols.system else []) + ["query", "doc"]
            what = ("(query, document) pair" + (" of a system" if cols.system else "")
                    if which == "run" else "(query, document) judgment")
            value = ", ".join(f"{k}={v}" for k, v in zip(names, keys))
            raise DataError(f"File '{where.name}' has {count} rows that repeat {article(what)} "
                            f"({value} appears on {where.describe_rows(rns)}); each {what} "
                            f"must appear once.")

        check_duplicates(conn, duplicate, has_system=bool(cols.system), run=False,
                         has_qrels=has_qrels and not getattr(qsource, "unique", False))
        _fit_memory(conn)
        ranked = rank_sql(conn, ks=ks, gain=options.gain, threshold=options.relevance_threshold,
                          ties=options.ties, has_system=bool(cols.system), has_qrels=has_qrels,
                          has_grade=bool(cols.relevance), progress=progress, duplicate=duplicate)
    except conn.error as err:
        _raise_if_cancelled(progress)
        raise DataError(f"{name} could not compute the ranking of '{source.path}': "
                        f"{(str(err).strip().splitlines() or [type(err).__name__])[0]}") from None
    finally:
        watch.set()
        conn.close()
    return ranked, conn
