"""Spark sessions for the ranking kernels (the ``spark`` engine), in local mode or on a cluster.

pyspark is an optional extra (``pip install eval-workbench[spark]``) and needs Java 17; it is
imported here only, and only when the Spark engine is asked for (``import workbench`` never
loads it).  A missing pyspark or Java is one sentence naming what to install.

A :class:`SparkConnection` answers the kernels of :mod:`workbench.engines.ranking_sql` as the
DuckDB connection does (``dialect``, ``run``, ``rows``, ``frame``); the input relations are
made by :mod:`workbench.engines.spark_input`.  It uses the session already running in this
process (a test's, a notebook's) or starts one on ``master`` and stops it when it closes.
"""

from __future__ import annotations

import os
import shutil

from ..core.errors import OptionError
from .ranking_sql import SPARK

#: The master when none is given: local mode on two cores.
DEFAULT_MASTER = "local[2]"
#: Settings of a session the workbench starts (a local one also gets few shuffle partitions).
SESSION_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.execution.arrow.pyspark.fallback.enabled": "true",
}
#: Settings of every session the kernels run on (Spark 4 turns ANSI mode on by default; the
#: kernels check their numbers themselves), put back as they were when the connection closes on
#: a session it did not start.  A join on (query, document) may use both sides' partitioning by
#: query (``ranking_sql.SPARK.clustered``), which the window by query then reuses: one shuffle
#: of the run instead of two (10M rows with a qrels: the kernel 19 s -> 16 s on ``local[2]``).
#: A CSV's cached columns are kept uncompressed: building the cache is the larger part of
#: reading a CSV (10M rows on ``local[2]``: reading 16.9 s -> 13.7 s, the kernel 21.5 s ->
#: 19.6 s), and a cache that outgrows the memory spills to disk as before.
RUNTIME_CONF = {"spark.sql.ansi.enabled": "false",
                "spark.sql.requireAllClusterKeysForCoPartition": "false",
                "spark.sql.inMemoryColumnarStorage.compressed": "false"}
#: The JVM's log while a session starts: errors only (Spark's default shows warnings such as
#: the host name's address on the terminal of a command that answers in JSON).  The root level
#: stays Spark's shell level (WARN: Spark then says nothing about it) and the console keeps
#: the errors.
LOG4J2 = """rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.filter.threshold.type = ThresholdFilter
appender.console.filter.threshold.level = error
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n
"""
INSTALL_JAVA = ("Java 17 (a JRE: 'apt-get install openjdk-17-jre-headless' on Debian or "
                "Ubuntu, or set JAVA_HOME)")


def java() -> str | None:
    """The ``java`` that pyspark starts: ``$JAVA_HOME/bin/java``, else the one on the PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        path = os.path.join(home, "bin", "java")
        return path if os.path.isfile(path) else None
    return shutil.which("java")


def missing() -> str | None:
    """One sentence naming what the Spark engine needs and is not installed here, or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return ("The Spark engine needs the pyspark package, which is not installed here "
                "(pip install 'eval-workbench[spark]', or pip install 'pyspark>=3.5'); compute "
                "with DuckDB or in memory instead (--engine duckdb or memory).")
    if java() is None:
        where = "in JAVA_HOME" if os.environ.get("JAVA_HOME") else "on the PATH"
        return (f"The Spark engine needs {INSTALL_JAVA}, and no java was found {where}; "
                f"compute with DuckDB or in memory instead (--engine duckdb or memory).")
    return None


class SparkConnection:
    """A Spark session answering SQL as the kernels ask (a context manager)."""

    dialect = SPARK

    def __init__(self, master: str | None = None) -> None:
        problem = missing()
        if problem:
            raise OptionError(problem)
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException
        from pyspark.sql import SparkSession

        self.error = (PySparkException, Py4JError)
        self.master = master or DEFAULT_MASTER
        active = SparkSession.getActiveSession()
        self.owned = active is None
        self.views: list[str] = []
        self.log_file: str | None = None
        self._restore: dict = {}
        if active is not None:
            self.session = active
            self.master = active.sparkContext.master
        else:
            self.session = self._start(SparkSession)
        try:  # the first calls to the session: a master that gave up fails here
            if self.owned:
                self.session.sparkContext.setLogLevel("ERROR")
            self._restore = {} if self.owned else {
                key: self.session.conf.get(key, None) for key in RUNTIME_CONF}
            for key, value in RUNTIME_CONF.items():
                self.session.conf.set(key, value)
        except self.error as err:
            if self.owned:
                self.close()
            else:
                self._put_back()
            raise self._refused(err) from None

    def _refused(self, err: BaseException) -> OptionError:
        """The sentence for a session that did not start (no JVM, a master that refused)."""
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        return OptionError(f"Spark could not start a session on master '{self.master}' "
                           f"({first}; Spark's own lines above may say why); it needs "
                           f"{INSTALL_JAVA} and a reachable master (--spark-master local[2] "
                           f"runs on this machine).")

    def _start(self, session_class):
        builder = session_class.builder.master(self.master).appName("workbench ranking")
        conf = dict(SESSION_CONF)
        if self.master.startswith("local"):
            conf["spark.sql.shuffle.partitions"] = "4"
            # local mode computes in the driver's JVM: its heap is the engine's memory (Spark's
            # 1 GB default spills and collects garbage most of the time on 10M rows: 69 s
            # against 55 s with 4 GB); the budget DuckDB gets, as a whole number of MB
            from .budget import duckdb_memory_limit

            conf.setdefault("spark.driver.memory", f"{max(1024, duckdb_memory_limit() // 2**20)}m")
        if "SPARK_CONF_DIR" not in os.environ:  # the cluster's own log settings win
            conf["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile={self._log()}"
        for key, value in conf.items():
            builder = builder.config(key, value)
        try:
            session = builder.getOrCreate()
        except Exception as err:  # noqa: BLE001 -- the JVM did not start or the master refused
            if self.log_file:
                os.remove(self.log_file)
            raise self._refused(err) from None
        return session

    def _log(self) -> str:
        """A log4j2 configuration file for the JVM (removed when the connection closes)."""
        import tempfile

        handle, path = tempfile.mkstemp(prefix="workbench-spark-log-", suffix=".properties")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(LOG4J2)
        self.log_file = path
        return path

    # ------------------------------------------------------------------ the kernels' interface

    def run(self, sql: str, params=None) -> None:
        """A statement (CREATE ..., CACHE ...), run now; the views made are dropped on close."""
        words = sql.split(None, 7)
        if words[:1] == ["CREATE"] and "VIEW" in words:
            self.views.append(words[words.index("VIEW") + 1])
        self.session.sql(sql, args=params or None).collect()

    def rows(self, sql: str, params=None) -> list[tuple]:
        """The answer's rows as tuples (``?`` parameters; a collected list as a list)."""
        return [tuple(row) for row in self.session.sql(sql, args=params or None).collect()]

    def frame(self, sql: str):
        """The answer as a pandas frame."""
        return self.session.sql(sql).toPandas()

    def view(self, name: str, frame, *, cache: bool = True) -> None:
        """A DataFrame as the temporary view ``name``; cached (when first read: a file is then
        parsed once for the several kernels that read it)."""
        frame.createOrReplaceTempView(name)
        self.views.append(name)
        if cache:
            self.session.sql(f"CACHE LAZY TABLE {name}").collect()

    def interrupt(self) -> None:
        """Cancel the jobs running (a cancelled run)."""
        self.session.sparkContext.cancelAllJobs()

    def _put_back(self) -> None:
        """The settings of a session of someone else's, as they were before."""
        for key, value in self._restore.items():
            try:
                if value is None:
                    self.session.conf.unset(key)
                else:
                    self.session.conf.set(key, value)
            except self.error:  # noqa: PERF203 -- a session that died: nothing to restore
                pass
        self._restore = {}

    def close(self) -> None:
        try:  # the views last made first (a view may read an earlier one)
            for name in dict.fromkeys(reversed(self.views)):
                try:
                    self.session.sql(f"UNCACHE TABLE IF EXISTS {name}").collect()
                    self.session.catalog.dropTempView(name)
                except self.error:  # noqa: PERF203 -- gone already: nothing to free
                    pass
        finally:
            self._put_back()
            if self.owned:
                try:
                    self.session.stop()
                except self.error:  # noqa: PERF203 -- a context that died: nothing to stop
                    pass
            if self.log_file:
                try:
                    os.remove(self.log_file)
                except OSError:
                    pass

    def __enter__(self) -> "SparkConnection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
