"""The ranking kernels' input views ``run_in`` and ``qrels_in`` on Spark (see
:mod:`workbench.engines.ranking_sql`), from a file Spark reads itself or from arrays already in
memory, with the columns of :mod:`workbench.engines.ranking_input` (the DuckDB engine's).

A CSV whose quoted fields may span lines (as DuckDB and the workbench read them) is read with
``multiLine``, in one task per file; a CSV where no quoted field holds a line break (checked
first: :func:`rows_are_lines`, about 0.5 s per 250 MB) is split between Spark's tasks.  The
multi-line reader is given the file's one line ending (:func:`multi_line_ending`), so that a
break inside a quoted id stays as written.  Ids stay exact text: a CSV/TSV is read with
every column as a string (Spark infers nothing:
``9``, ``10``, ``00042`` and ``42.0`` stay those texts); a Parquet id column typed as a number
is rendered as the in-memory path renders it (``42`` for 42 and 42.0).  A number cell must be
a plain decimal number (the in-memory path's :data:`workbench.io.cells.NUMBER_RE`: ``3``,
``-0.25``, ``1e-3``; not ``inf``, ``1_000`` or Java's ``1.5d``), checked with one sentence
naming the file, column, line and cell.

``rn`` orders the rows as in the file (Spark's ``monotonically_increasing_id``: increasing in
file order for one file, not consecutive); the exact line of a row is counted only on the
error path (:meth:`SparkFile.describe_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError
from .duck import FileSource
from .ranking_input import RunColumns
from .spark import SparkConnection

#: A plain decimal number with optional spaces around (``workbench.io.cells.NUMBER_RE``).
NUMBER = r"^[ \t]*[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?[ \t]*$"


def col(name: str):
    """A column by its exact name (dots and spaces are not paths)."""
    from pyspark.sql import functions as F

    return F.col("`" + str(name).replace("`", "``") + "`")


@dataclass
class SparkFile:
    """A run or qrels file as Spark reads it: the DataFrame of its columns plus ``rn``
    (``lines``: every line of a TREC run, blank ones too, to count a line's number)."""
    source: FileSource
    frame: object  # pyspark DataFrame
    types: dict
    lines: object = None
    #: parsed in one task (a multi-line CSV): dear to read again
    one_task: bool = False
    #: no key is repeated (the qrels' (query, document) pairs, found while reading them)
    unique: bool = False

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def path(self) -> str:
        return self.source.path

    def describe_rows(self, rns) -> str:
        """``line 3`` / ``rows 2, 4``: the rows' positions in the file, counted."""
        from pyspark.sql import functions as F

        rns = [int(r) for r in rns][:5]
        every = self.lines if self.lines is not None else self.frame
        counts = every.select(*[F.sum((F.col("rn") <= r).cast("long")) for r in rns]
                              ).collect()[0]
        return self.source.describe_rows([int(c) for c in counts])


#: the Java name of an encoding whose Python name Java does not know
JAVA_CHARSETS = {"cp1252": "windows-1252", "latin-1": "ISO-8859-1", "utf-16-le": "UTF-16LE",
                 "utf-16-be": "UTF-16BE"}


def read(conn: SparkConnection, source: FileSource) -> SparkFile:
    """The file as a DataFrame (CSV: every column a string; Parquet: its own types)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if source.kind == "trec":
        return _trec(conn, source)
    try:
        if source.kind == "parquet":
            frame = conn.session.read.parquet(source.path)
        else:
            schema = T.StructType([T.StructField(c, T.StringType()) for c in source.columns])
            utf8 = source.encoding in ("utf-8", "utf-8-sig", "ascii")
            encoding = "UTF-8" if utf8 else JAVA_CHARSETS.get(source.encoding, source.encoding)
            reader = (conn.session.read.schema(schema).option("header", True)
                      .option("enforceSchema", True).option("sep", source.delimiter)
                      .option("quote", '"').option("escape", '"').option("encoding", encoding)
                      .option("mode", "PERMISSIVE"))
            # a quoted field may span lines (as DuckDB and the workbench read it): then the
            # file is parsed in one task, with its own line ending, otherwise split between
            # tasks
            multi = not (utf8 and rows_are_lines(source.path))
            reader = reader.option("multiLine", multi)
            if multi:
                ending = multi_line_ending(source.path, source.encoding)
                if ending:
                    reader = reader.option("lineSep", ending)
            frame = reader.csv(source.path)
    except conn.error as err:
        first = (str(err).strip().splitlines() or ["unreadable"])[0]
        raise DataError(f"File '{source.path}' could not be read by Spark: {first}") from None
    types = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
    return SparkFile(source, frame.withColumn("rn", F.monotonically_increasing_id()), types,
                     one_task=source.kind != "parquet" and multi)


#: bytes of the file read at a time by :func:`rows_are_lines`
LINE_CHECK_CHUNK = 1 << 24


def rows_are_lines(path: str, chunk: int = LINE_CHECK_CHUNK) -> bool:
    """Whether no quoted field of a UTF-8 CSV (``"`` quotes, doubled inside a field) holds a
    line break: a break is inside a quoted field exactly when an odd number of quote
    characters precede it in the file, so every ``\n`` and ``\r`` must follow an even
    number of them.  Read in chunks (numpy; no byte of a multi-byte UTF-8 character is a
    quote or a break)."""
    carry = 0
    with open(path, "rb") as handle:
        while True:
            block = handle.read(chunk)
            if not block:
                return True
            data = np.frombuffer(block, dtype=np.uint8)
            quotes = np.flatnonzero(data == 0x22)
            if quotes.size:
                breaks = np.flatnonzero((data == 0x0A) | (data == 0x0D))
                if ((np.searchsorted(quotes, breaks) + carry) & 1).any():
                    return False
                carry = (carry + quotes.size) & 1
            elif carry:  # inside a quoted field since the last chunk
                if ((data == 0x0A) | (data == 0x0D)).any():
                    return False


def multi_line_ending(path: str, encoding: str = "utf-8",
                      chunk: int = LINE_CHECK_CHUNK) -> str | None:
    """The one line ending (``\r\n``, ``\n`` or ``\r``) that ends the records of a CSV whose
    quoted fields hold line breaks, for Spark's ``lineSep``.  Without it, Spark's multi-line
    reader takes the ending of the first line and turns that ending inside a quoted field
    into ``\n`` (an id ``"a\r\nb"`` would become ``"a\nb"``), and a file ending its lines
    with ``\r`` alone loses its rows.  None when the encoding is not one byte per ASCII
    character (Spark then detects the ending itself).  A file whose records end in more than
    one way is refused: Spark would join or cut its rows."""
    import codecs

    name = codecs.lookup(encoding).name
    if name not in ("utf-8", "utf-8-sig", "ascii") and len("\n".encode(name)) != 1:
        return None
    carry, last, crlf, lone_lf, cr = 0, 0, 0, 0, 0
    with open(path, "rb") as handle:
        while True:
            block = handle.read(chunk)
            if not block:
                break
            data = np.frombuffer(block, dtype=np.uint8)
            quotes = np.flatnonzero(data == 0x22)
            breaks = np.flatnonzero((data == 0x0A) | (data == 0x0D))
            inside = ((np.searchsorted(quotes, breaks) + carry) & 1).astype(bool)
            out = breaks[~inside]
            if out.size:
                is_lf = data[out] == 0x0A
                before = np.where(out > 0, data[np.maximum(out - 1, 0)], last)
                after_cr = is_lf & (before == 0x0D)
                crlf += int(after_cr.sum())
                lone_lf += int((is_lf & ~after_cr).sum())
                cr += int((~is_lf).sum())
            carry = (carry + quotes.size) & 1
            last = int(data[-1])
    endings = {"\r\n": crlf, "\n": lone_lf, "\r": cr - crlf}
    used = [e for e, n in endings.items() if n > 0]
    if len(used) > 1:
        shown = {"\r\n": "CRLF", "\n": "LF", "\r": "CR"}
        raise DataError(
            f"File '{path}' ends its lines in more than one way "
            f"({', '.join(f'{endings[e]:,} {shown[e]}' for e in used)}) and has quoted fields "
            f"over several lines: Spark's CSV reader then needs one line ending and would join "
            f"or cut rows. Save the file with one line ending, or use --engine duckdb or "
            f"memory, which read it as it is.")
    return used[0] if used else None


def _trec(conn: SparkConnection, source: FileSource) -> SparkFile:
    """A TREC run (``qid Q0 docno rank score tag``, whitespace-separated, no header) as the
    columns of :data:`workbench.io.formats.trec.RUN_COLUMNS`, every field as text; the first
    line that is not a run line is one sentence, as when the workbench reads the file."""
    from pyspark.sql import functions as F

    from ..io.formats import trec
    from ..io.formats._common import almost, short

    try:
        lines = conn.session.read.text(source.path).withColumn(
            "rn", F.monotonically_increasing_id())
    except conn.error as err:
        first = (str(err).strip().splitlines() or ["unreadable"])[0]
        raise DataError(f"File '{source.path}' could not be read by Spark: {first}") from None
    parts = F.split(F.regexp_replace("value", r"^\s+|\s+$", ""), r"\s+")
    text = lines.where(~F.col("value").rlike(r"^\s*$"))
    wrong = text.where((F.size(parts) != 6) | ~parts[3].rlike(r"^[+-]?[0-9]+$")
                       | ~parts[4].rlike(NUMBER)).orderBy("rn").limit(1).collect()
    spark_file = SparkFile(source, text.select(
        "rn", *[parts[i].alias(name) for i, name in enumerate(trec.RUN_COLUMNS)]),
        {name: "string" for name in trec.RUN_COLUMNS}, lines)
    if wrong:
        where = spark_file.describe_rows([wrong[0]["rn"]]).split()[-1]
        raise almost(f"'{source.path}'", int(where), f"reads {short(wrong[0]['value'].strip())}",
                     trec.RUN_EXPECTED)
    return spark_file


def id_text(name: str, dtype: str):
    """The cells as the exact text the in-memory path uses for ids (missing as ``''``; whole
    floats below 1e16 as integers, as :func:`workbench.io.cells.format_cell`)."""
    from pyspark.sql import functions as F

    c = col(name)
    if dtype == "string":
        text = c
    elif dtype in ("float", "double") or dtype.startswith("decimal"):
        x = c.cast("double")
        text = (F.when(F.isnan(x), F.lit(None))
                .when((F.abs(x) < 1e16) & (x == F.floor(x)), x.cast("long").cast("string"))
                .otherwise(x.cast("string")))
    elif dtype == "boolean":
        text = F.when(c, F.lit("True")).when(~c, F.lit("False"))
    else:
        text = c.cast("string")
    return F.coalesce(text, F.lit(""))


def number(name: str, dtype: str, decimal: str = "."):
    """(the cell as a DOUBLE, NULL when blank or not a number; a condition true for a cell
    that is neither blank nor a finite plain number)."""
    from pyspark.sql import functions as F

    c = col(name)
    inf = float("inf")
    if dtype != "string":
        x = c.cast("double")
        finite = ~F.isnan(x) & (F.abs(x) < inf)
        return F.when(finite, x), c.isNotNull() & ~finite
    text = _decimal_point(name, decimal)
    parsed = F.trim(text).cast("double")
    ok = text.rlike(NUMBER) & (F.abs(parsed) < inf)
    return F.when(ok, parsed), ~blank(name, dtype) & ~F.coalesce(ok, F.lit(False))


def blank(name: str, dtype: str):
    from pyspark.sql import functions as F

    c = col(name)
    return (c.isNull() | (F.trim(c) == "")) if dtype == "string" else c.isNull()


def _value(name: str, dtype: str, decimal: str, *, negate: bool = False):
    """The number; NULL for an empty cell, NaN for a cell that is not a number."""
    from pyspark.sql import functions as F

    if dtype != "string":
        value, bad = number(name, dtype, decimal)
        return F.when(bad, F.lit(float("nan"))).otherwise(-value if negate else value)
    # one CASE, the pattern tried only on a cell the cast read (as number() decides, at about
    # half the cost: number()'s value and condition each cast and match the cell)
    text = _decimal_point(name, decimal)
    parsed = F.trim(text).cast("double")
    ok = parsed.isNotNull() & (F.abs(parsed) < float("inf")) & text.rlike(NUMBER)
    return (F.when(ok, -parsed if negate else parsed).when(blank(name, dtype), F.lit(None))
            .otherwise(F.lit(float("nan"))))


def _plain(name: str, dtype: str, decimal: str = ".", *, negate: bool = False):
    """The number of a cell that :func:`number` passed, by a plain cast: the same DOUBLE
    (NULL for a blank cell), without the pattern."""
    from pyspark.sql import functions as F

    if dtype != "string":
        x = col(name).cast("double")
    else:
        x = F.trim(_decimal_point(name, decimal)).cast("double")
    return -x if negate else x


def _decimal_point(name: str, decimal: str):
    """A text cell of a decimal-comma file with its commas written as points (a cell that
    holds a point already is left as it is)."""
    from pyspark.sql import functions as F

    c = col(name)
    if decimal != ",":
        return c
    return F.when(F.instr(c, ".") == 0, F.translate(c, ",", ".")).otherwise(c)


def _require(spark_file: SparkFile, names) -> None:
    missing = [n for n in names if n and n not in spark_file.types]
    if missing:
        raise DataError(f"File '{spark_file.name}' has no column "
                        f"{', '.join(map(repr, missing))} (its columns are: "
                        f"{', '.join(spark_file.types)}).")


def run_from_file(conn: SparkConnection, source: FileSource, cols: RunColumns) -> SparkFile:
    """``run_in`` from the file, the cells checked.  A run read again by each step (not
    cached) is checked once, and then read with a plain cast of the cells the check passed:
    the pattern of a plain number costs about 2.5 s per reading of 10M rows on ``local[2]``."""
    from pyspark.sql import functions as F

    src = read(conn, source)
    _require(src, [cols.query, cols.doc, cols.order, cols.relevance, cols.system])
    t = src.types

    def frame(value):
        g = (value(cols.relevance, t[cols.relevance], source.decimal) if cols.relevance
             else F.lit(None).cast("double"))
        return src.frame.select(
            F.col("rn"),
            (id_text(cols.system, t[cols.system]) if cols.system else F.lit("")).alias("sys"),
            id_text(cols.query, t[cols.query]).alias("q"),
            id_text(cols.doc, t[cols.doc]).alias("d"),
            value(cols.order, t[cols.order], source.decimal, negate=cols.rank).alias("o"),
            g.alias("g"))

    cache = _cache_run(src, cols)
    checked = frame(_value)
    conn.view("run_in", checked if cache else frame(_plain), cache=cache)
    if not cache:
        conn.view("run_checked", checked, cache=False)
    bad_o, bad_g = conn.rows("SELECT count(*) FILTER (WHERE o IS NULL OR isnan(o)), "
                             "count(*) FILTER (WHERE isnan(g)) FROM "
                             + ("run_in" if cache else "run_checked"))[0]
    if bad_o:
        _diagnose(src, cols.order, allow_blank=False)
    if bad_g:
        _diagnose(src, cols.relevance, allow_blank=True)
    return src


def _cache_run(src: SparkFile, cols: RunColumns) -> bool:
    """Whether the run is parsed once and kept in memory for the steps that read it, or read
    again by each of them.  A Parquet file is read again (a columnar scan is cheaper than
    building the cache).  A CSV split between tasks is read twice (the cells' check and the
    per-query kernel) unless the run's own grades or systems add steps that read it: building
    the cache cost more than a second parse (10M rows, cold, ``local[2]``: check 9.8 s with the
    cache against 3.5 s without, the kernel 14.0 s on the cache against 15.8 s on the file).
    A multi-line CSV (parsed in one task) and a TREC run (split by patterns) are cached."""
    if src.source.kind == "parquet":
        return False
    if src.source.kind == "trec" or src.one_task:
        return True
    return bool(cols.relevance or cols.system)


def qrels_from_file(conn: SparkConnection, source: FileSource, query: str, doc: str,
                    relevance: str) -> SparkFile:
    """``qrels_in`` from the file, the grades checked (none may be empty)."""
    from pyspark.sql import functions as F

    src = read(conn, source)
    _require(src, [query, doc, relevance])
    t = src.types
    conn.view("qrels_in", cache=source.kind != "parquet", frame=src.frame.select(
        F.col("rn"), id_text(query, t[query]).alias("q"), id_text(doc, t[doc]).alias("d"),
        _value(relevance, t[relevance], source.decimal).alias("g")))
    # the grades' check and whether a (query, document) is judged twice, in one pass (two
    # passes of 1.2M judgments, cold: 1.6 + 1.9 s)
    bad, most = conn.rows("SELECT sum(bad), max(n) FROM (SELECT count(*) AS n, count(*) FILTER "
                          "(WHERE g IS NULL OR isnan(g)) AS bad FROM qrels_in GROUP BY q, d)")[0]
    if bad:
        _diagnose(src, relevance, allow_blank=False)
    src.unique = not most or most <= 1
    return src


def _diagnose(src: SparkFile, column: str, *, allow_blank: bool) -> None:
    """Raise the sentence for the column's bad cells (more reads, on the error path only)."""
    dtype = src.types[column]
    _, bad = number(column, dtype, src.source.decimal)
    where = f"Column '{column}' of file '{src.path}'"
    wrong = src.frame.where(bad)
    rows = wrong.orderBy("rn").select("rn", col(column).cast("string")).limit(5).collect()
    if rows:
        count = wrong.count()
        shown = ", ".join(f"'{text}' ({src.describe_rows([rn])})" for rn, text in rows)
        more = f" and {count - len(rows)} more" if count > len(rows) else ""
        raise DataError(f"{where} must hold numbers (like 3, 0.25 or 1e-3), but "
                        f"{count} {'row does' if count == 1 else 'rows do'} not: {shown}{more}.")
    if not allow_blank:
        empty = [r[0] for r in src.frame.where(blank(column, dtype)).orderBy("rn")
                 .select("rn").limit(5).collect()]
        total = src.frame.where(blank(column, dtype)).count()
        cells = "an empty cell" if total == 1 else f"{total} empty cells"
        raise DataError(f"{where} has {cells} ({src.describe_rows(empty)}); expected a "
                        f"number in every row.")


def _frame(conn: SparkConnection, name: str, data: dict, schema: str) -> None:
    """Columns already checked as the view ``name`` (NaN grades as NULL)."""
    frame = conn.session.createDataFrame(pd.DataFrame(data), schema=schema)
    conn.view(f"{name}_frame", frame, cache=False)
    cols = [c.split()[0] for c in schema.split(",")]
    select = ", ".join("CASE WHEN isnan(g) THEN NULL ELSE g END AS g" if c == "g" else c
                       for c in cols)
    conn.view(name, conn.session.sql(f"SELECT {select} FROM {name}_frame"), cache=False)


def run_from_arrays(conn: SparkConnection, q, d, order, grade, system=None) -> None:
    """``run_in`` from arrays already checked (ids as text, the ordering value, grades with
    NaN where unjudged)."""
    n = len(order)
    _frame(conn, "run_in", {
        "rn": np.arange(1, n + 1, dtype=np.int64),
        "sys": np.asarray(system, dtype=object) if system is not None else np.full(n, "", object),
        "q": np.asarray(q, dtype=object), "d": np.asarray(d, dtype=object),
        "o": np.asarray(order, dtype=float), "g": np.asarray(grade, dtype=float)},
        "rn long, sys string, q string, d string, o double, g double")


def qrels_from_arrays(conn: SparkConnection, q, d, grade) -> None:
    """``qrels_in`` from arrays already checked."""
    _frame(conn, "qrels_in", {"rn": np.arange(1, len(grade) + 1, dtype=np.int64),
                              "q": np.asarray(q, dtype=object), "d": np.asarray(d, dtype=object),
                              "g": np.asarray(grade, dtype=float)},
           "rn long, q string, d string, g double")
