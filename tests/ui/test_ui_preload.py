"""Issue 47: TREC runs opened with their qrels get the Ranking panel's answer computed on a thread
of its own right after the load, while the window takes the table in.  The panel takes it only
for exactly its own run; the answer is the one the panel computes itself; a failed or cancelled
computation ahead falls back to the panel's own run (and its error sentence); no thread is left
running when the window closes."""

from __future__ import annotations

import os
import threading
import time

import pandas as pd
import pytest
from PySide6.QtWidgets import QFileDialog

from tests.conftest import wait_result

pytestmark = pytest.mark.gui

TREC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats", "trec"))
FILES = [os.path.join(TREC, "runA.run"), os.path.join(TREC, "qrels.test.txt")]


@pytest.fixture
def claims(monkeypatch):
    """What each Ranking run asked of the computations ahead: True when it took one (the other
    panels' runs ask too, and are not recorded)."""
    from workbench.ui import preload

    seen: list[bool] = []
    real = preload.claim

    def spy(module, *args):
        ahead = real(module, *args)
        if module.NAME == "ranking":
            seen.append(ahead is not None)
        return ahead

    monkeypatch.setattr(preload, "claim", spy)
    yield seen
    preload.stop_all()


def _open_both(qtbot, window, monkeypatch, paths=FILES):
    """File > Open with the run and its qrels chosen; the Ranking panel once it has answered
    (or failed)."""
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: (list(paths), "")))
    panel = window.panels["ranking"]
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.open_action.trigger()
    qtbot.waitUntil(lambda: not panel.runner.busy, timeout=60000)
    return panel


def _same(a, b) -> None:
    assert a.signature == b.signature
    assert a.records == b.records
    assert list(a.notes) == list(b.notes)
    assert [t.name for t in a.tables] == [t.name for t in b.tables]
    for ta, tb in zip(a.tables, b.tables):
        pd.testing.assert_frame_equal(ta.frame, tb.frame)


def test_the_answer_computed_ahead_is_the_panels_own(qtbot, window, monkeypatch, claims):
    from workbench.ui import preload

    threads: list[str] = []
    import workbench.analyses.ranking as ranking

    real_run = ranking.run
    monkeypatch.setattr(ranking, "run", lambda *a, **k: threads.append(threading.current_thread().name)
                        or real_run(*a, **k))
    panel = _open_both(qtbot, window, monkeypatch)
    assert window.current_panel_name() == "ranking"
    ahead_result = wait_result(qtbot, panel)
    assert claims == [True]  # the landing run took the answer computed ahead
    assert threads == ["workbench-ahead"]  # computed once, on its own thread
    assert preload.pending() is None
    assert panel.options().qrels == FILES[1] and "judged:qrels" in ahead_result.signature
    # the panel's own run, same options (nothing ahead any more): the same result
    with qtbot.waitSignal(panel.result_ready, timeout=60000) as blocker:
        panel.run_now()
    assert claims == [True, False] and len(threads) == 2 and threads[1] != "workbench-ahead"
    _same(ahead_result, blocker.args[0])
    assert ahead_result.records and "n" in ahead_result.records[0]


def test_a_run_with_other_options_or_another_table_takes_nothing(qtbot):
    from dataclasses import replace

    from workbench.analyses import ranking
    from workbench.analyses.reading import Reading
    from workbench.io import load_many
    from workbench.ui import preload

    table = load_many(FILES[:1])
    roles = {"query": "query", "doc": "doc", "score": "score", "system": "system"}
    options = preload.ranking_options(roles, FILES[1])
    try:
        preload.offer(ranking, table, options, Reading(), roles)
        assert preload.claim(ranking, table, replace(options, ks="1,5"), Reading(), roles) is None
        assert preload.claim(ranking, table, options, Reading(scorer="x"), roles) is None
        assert preload.claim(ranking, load_many(FILES[:1]), options, Reading(), roles) is None
        ahead = preload.claim(ranking, table, options, Reading(), roles)
        assert ahead is not None and preload.pending() is None
        from workbench.core.progress import Progress

        got = ahead.result(Progress())
        from workbench.analyses.reading import run_read

        _same(got, run_read(ranking, table, options, Reading(), roles))
    finally:
        preload.stop_all()


def test_a_failed_computation_ahead_falls_back_to_the_panels_own_run(qtbot, window, monkeypatch, claims):
    """The thread ahead fails (here on purpose): the panel computes itself, with the same result
    as without it, and shows no error."""
    import workbench.analyses.reading as reading_mod

    real = reading_mod.run_read

    def failing_ahead(*args, **kwargs):
        if threading.current_thread().name == "workbench-ahead":
            raise MemoryError("no room for the answer ahead")
        return real(*args, **kwargs)

    monkeypatch.setattr(reading_mod, "run_read", failing_ahead)
    panel = _open_both(qtbot, window, monkeypatch)
    result = wait_result(qtbot, panel)
    assert claims == [True] and not window.exceptions and panel.last_error is None
    with qtbot.waitSignal(panel.result_ready, timeout=60000) as blocker:
        panel.run_now()
    _same(result, blocker.args[0])


def _error_shown(qtbot, window, monkeypatch, qrels_path):
    panel = _open_both(qtbot, window, monkeypatch, [FILES[0], str(qrels_path)])
    qtbot.wait(50)
    return panel.message.text(), panel.not_applicable, list(window.exceptions), list(window.warnings)


def test_an_error_of_the_analysis_is_said_as_without_the_computation_ahead(qtbot, window, monkeypatch,
                                                                         claims, tmp_path):
    """A qrels file whose grades are not numbers: the computation ahead fails, the panel's own
    run fails the same way and says the same sentence as a window that computes nothing ahead."""
    import workbench.analyses.ranking as ranking
    import workbench.ui.preload as preload

    bad = tmp_path / "qrels.test.txt"
    bad.write_text("".join(line if i != 3 else line.rsplit(" ", 1)[0] + " high\n"
                           for i, line in enumerate(open(FILES[1]).readlines())))
    errors: list[str] = []
    real_run = ranking.run

    def spy(*a, **k):
        try:
            return real_run(*a, **k)
        except Exception as err:
            errors.append(f"{threading.current_thread().name}: {err}")
            raise

    monkeypatch.setattr(ranking, "run", spy)
    with_ahead = _error_shown(qtbot, window, monkeypatch, bad)
    assert claims[:1] == [True]
    assert errors and errors[0].startswith("workbench-ahead: ")
    assert len(errors) == 2 and errors[1].split(": ", 1)[1] == errors[0].split(": ", 1)[1]
    monkeypatch.setattr(preload, "offer_ranking", lambda *a, **k: None)  # nothing ahead
    window.dirty = False
    without = _error_shown(qtbot, window, monkeypatch, bad)
    assert with_ahead == without
    assert "qrels.test.txt' line 4" in with_ahead[0] and "'high', which is not a number" in with_ahead[0]
    assert not with_ahead[2]  # a sentence in the panel, no exception dialog


def test_closing_the_window_ends_the_thread_ahead(qtbot, window, monkeypatch):
    """The window closes while the answer ahead is still computed: the thread is cancelled and
    ended before the window is gone."""
    import workbench.analyses.reading as reading_mod
    from workbench.ui import preload

    started = threading.Event()
    real = reading_mod.run_read

    def slow(module, table, options, reading, roles, progress):
        if threading.current_thread().name == "workbench-ahead":
            started.set()
            while True:  # as an analysis between its batches
                progress.check_cancelled()
                time.sleep(0.01)
        return real(module, table, options, reading, roles, progress)

    monkeypatch.setattr(reading_mod, "run_read", slow)
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: (list(FILES), "")))
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.open_action.trigger()
    assert started.wait(30)
    threads = [t for t in threading.enumerate() if t.name == "workbench-ahead"]
    assert threads and window.panels["ranking"].runner.busy
    window.dirty = False
    window.close()
    assert window.closed
    assert not any(t.is_alive() for t in threads)
    assert not preload._live and preload.pending() is None
