"""The landing panel's first answer computed ahead, beside the building of the window (no Qt).

A TREC run opened together with its qrels lands on the Ranking panel.  When the program is
started with such files, the loading job starts that analysis on a thread of its own right after
the table is read, while the GUI thread is still building the landing panel (the other panels,
and pyqtgraph for their charts, wait until the answer is shown: ``defer_panels`` in ``app.run``).
The panel later asks for its run with :func:`claim`: only when its module, table (the same
object), options, reading and roles are *equal* to those the answer was computed with does it
take that answer (it waits for it on its own worker); otherwise it computes as always.  So the
answer shown is the one the panel would have computed, never a guess.  A failed or cancelled
computation ahead is not reported: the panel's run then calls :func:`run_read` itself, and says
its error as it always does.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ..core.progress import Progress

#: the computation waiting for its panel (at most one: the file the program was started with)
_pending: "Ahead | None" = None
#: every computation whose thread may still run (a claimed one too): ended by :func:`stop_all`
_live: "set[Ahead]" = set()
_lock = threading.Lock()


@dataclass(frozen=True)
class Key:
    module: str
    options: object
    reading: object
    roles: tuple


def key_of(module, options, reading, roles: dict[str, str]) -> Key:
    return Key(module.NAME, options, reading, tuple(sorted(dict(roles).items())))


class Ahead:
    """One analysis computed on its own thread; :meth:`result` waits for it on a worker."""

    def __init__(self, module, table, options, reading, roles: dict[str, str]) -> None:
        self.module, self.table, self.key = module, table, key_of(module, options, reading, roles)
        self.options, self.reading, self.roles = options, reading, dict(roles)
        self.progress = Progress()
        self.done = threading.Event()
        self.value = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._work, name="workbench-ahead", daemon=True)

    def start(self) -> "Ahead":
        with _lock:
            _live.add(self)
        self.thread.start()
        return self

    def _work(self) -> None:
        from ..analyses.reading import run_read

        try:
            self.value = run_read(self.module, self.table, self.options, self.reading, self.roles,
                                  self.progress)
        except BaseException as err:  # noqa: BLE001 - the panel's own run reports it
            self.error = err
        finally:
            self.done.set()
            with _lock:
                _live.discard(self)

    def result(self, progress):
        """On the panel's worker: the answer once computed (cancellable while waiting); when the
        computation ahead failed or was cancelled, the panel's own run (its error, if any)."""
        while not self.done.wait(0.01):
            if progress.cancelled:
                self.cancel()
                progress.check_cancelled()
        if self.error is None:
            return self.value
        from ..analyses.reading import run_read

        return run_read(self.module, self.table, self.options, self.reading, self.roles, progress)

    def cancel(self) -> None:
        self.progress.cancel()

    def stop(self, timeout: float = 30.0) -> None:
        """Cancel and wait for the thread (the window closes)."""
        self.cancel()
        if self.thread.is_alive():
            self.thread.join(timeout)


def offer(module, table, options, reading, roles: dict[str, str]) -> Ahead:
    """Start computing ``module`` on ``table`` ahead of its panel (replaces any pending one)."""
    global _pending
    ahead = Ahead(module, table, options, reading, roles)
    with _lock:
        old, _pending = _pending, ahead
    if old is not None:
        old.cancel()
    return ahead.start()


def claim(module, table, options, reading, roles: dict[str, str]) -> Ahead | None:
    """The computation ahead for exactly this run (then no longer pending), else None."""
    global _pending
    with _lock:
        ahead = _pending
        if ahead is None or ahead.table is not table or ahead.key != key_of(module, options, reading, roles):
            return None
        _pending = None
    return ahead


def discard(table=None) -> None:
    """Cancel the pending computation (of ``table``, or any): no panel will take it."""
    global _pending
    with _lock:
        ahead = _pending
        if ahead is None or (table is not None and ahead.table is not table):
            return
        _pending = None
    ahead.cancel()


def stop_all(timeout: float = 30.0) -> None:
    """The window closes: every computation ahead (pending or claimed) is cancelled and its
    thread ended (no thread is left running)."""
    global _pending
    with _lock:
        _pending = None
        live = list(_live)
    for ahead in live:
        ahead.cancel()
    for ahead in live:
        ahead.stop(timeout)


def pending() -> Ahead | None:
    return _pending


def ranking_options(roles: dict[str, str], qrels: str):
    """The Ranking panel's options for a file it has just been given, as its form makes them
    (every column automatic, the qrels file opened with the runs, the other fields at their
    defaults).  Only a guess: :func:`claim` compares it with the form's own options."""
    from ..analyses import ranking

    first: dict[str, str] = {}
    for col, role in roles.items():
        first.setdefault(role, col)
    score = first.get("score")
    ks = ",".join(map(str, ranking.Options().ks))  # the form's text field holds the cut-offs as text
    return ranking.Options(ks=ks, query=first.get("query"), doc=first.get("doc"), score=score,
                           rank=None if score is not None else first.get("rank"),
                           relevance=first.get("relevance"), system=first.get("system"), qrels=qrels)


def offer_ranking(table, roles: dict[str, str], qrels: str | None) -> Ahead | None:
    """On the loading worker: TREC runs opened with their qrels land on the Ranking panel;
    start its analysis now (under the reading a new file starts with)."""
    if not qrels or getattr(table, "large", None) is not None or table.format not in ("trec_run", "msmarco_run"):
        return None
    from ..analyses import ranking
    from ..analyses.reading import Reading, roles_for

    reading = Reading()
    roles = roles_for(table, roles, reading)
    return offer(ranking, table, ranking_options(roles, qrels), reading, roles)
