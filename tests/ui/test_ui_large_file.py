"""A Parquet file over the memory budget opened in the window (issue 29): it is not loaded but
read by DuckDB page by page.  The data view shows every row of the file (pages read on a
worker as they are scrolled to), Ranking computes on the whole file with DuckDB (the same
numbers as the in-memory engine and pytrec_eval), the panels without an engine say why they do
not compute instead of computing on the first rows, and a run can be cancelled.  The budget is
lowered so that a small file counts as large."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import open_file, table_of, wait_result

from workbench.analyses import REGISTRY

pytestmark = pytest.mark.gui
duckdb = pytest.importorskip("duckdb")


def _run_frame(n_queries: int = 300, depth: int = 20, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), depth)
    return pd.DataFrame({
        "query": [f"q{i:04d}" for i in q],
        "doc": [f"{d:05d}" for d in rng.integers(0, 50_000, q.size)],  # digit-only ids
        "score": np.round(rng.random(q.size), 2),  # ties
        "relevance": rng.integers(0, 3, q.size),
    }).drop_duplicates(["query", "doc"], ignore_index=True)


@pytest.fixture
def small_budget(monkeypatch):
    """Every Parquet file counts as over the memory budget."""
    from workbench.engines import budget

    monkeypatch.setattr(budget, "WINDOW_BYTES_PER_ROW", 10**9)


@pytest.fixture
def large_parquet(tmp_path):
    frame = _run_frame()
    path = tmp_path / "run.parquet"
    frame.to_parquet(path, index=False, row_group_size=1000)
    return path, frame


def test_the_data_view_pages_through_every_row(qtbot, window, small_budget, large_parquet):
    path, frame = large_parquet
    open_file(qtbot, window, path)
    table = window.workspace.table
    assert table.large is not None and len(table.frame) == 1000  # the first rows only
    data = window.workspace.data
    model = data.view.model()
    assert model is data.paged_model
    assert model.rowCount() == len(frame)  # every row of the file
    assert f"{len(frame):,} rows" in data.info.text() and "page by page" in data.info.text()
    assert f"{len(frame):,} rows read page by page" in window.statusBar().currentMessage()
    # the first rows are at hand; a row near the end is read on a worker when asked for
    assert model.data(model.index(0, 1)) == frame["doc"].iloc[0]
    last = len(frame) - 1
    first_ask = model.data(model.index(last, 1))
    if first_ask == "…":
        with qtbot.waitSignal(model.dataChanged, timeout=10000):
            pass
    assert model.data(model.index(last, 1)) == frame["doc"].iloc[last]  # '00042' stays text
    assert model.data(model.index(last, 2)) == repr(float(frame["score"].iloc[last]))
    # scrolling the view to the end shows the file's last row
    data.view.scrollToBottom()
    qtbot.waitUntil(lambda: model.data(model.index(last, 0)) == frame["query"].iloc[last],
                    timeout=10000)
    assert model.headerData(last, __import__("PySide6.QtCore").QtCore.Qt.Orientation.Vertical) \
        == str(len(frame))
    # copying rows reads them (full precision); copying more than the cap says so
    text = model.to_tsv(rows=[last], columns=[0, 1])
    assert text.splitlines() == ["query\tdoc", f"{frame['query'].iloc[last]}\t{frame['doc'].iloc[last]}"]
    from workbench.ui import paged_model

    paged_model.COPY_ROWS = 1000
    try:
        with qtbot.waitSignal(model.failed, timeout=5000):
            copied = model.to_tsv()
    finally:
        paged_model.COPY_ROWS = 100_000
    assert len(copied.splitlines()) == 1001
    assert f"copied the first 1,000 of {len(frame):,} rows" in data.info.text()


def test_ranking_computes_the_whole_file_with_duckdb(qtbot, window, small_budget, large_parquet):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    path, frame = large_parquet
    open_file(qtbot, window, path)
    assert window.workspace.lazy()  # only the panel on screen computes
    panel = window.panels["ranking"]
    window.show_panel("ranking")
    result = wait_result(qtbot, panel, timeout=60000)
    assert "engine:duckdb" in result.signature
    assert any("'auto'" in n and "over the budget" in n for n in result.notes)
    memory = REGISTRY["ranking"].run(table_of(frame), REGISTRY["ranking"].Options(
        query="query", doc="doc", score="score", relevance="relevance", ks=panel.options().ks))
    for metric in ("ndcg@10", "p@5", "mrr", "map"):
        assert result.value(metric) == pytest.approx(memory.value(metric), abs=1e-12), metric
    # pytrec_eval on the whole file
    qrel = {q: {d: int(g) for d, g in zip(f["doc"], f["relevance"])} for q, f in frame.groupby("query")}
    run = {q: {d: float(s) for d, s in zip(f["doc"], f["score"])} for q, f in frame.groupby("query")}
    ref = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut_10"}).evaluate(run)
    assert result.value("ndcg@10") == pytest.approx(np.mean([v["ndcg_cut_10"] for v in ref.values()]),
                                                    abs=1e-9)
    assert result.find("ndcg@10")[0]["n"] == frame["query"].nunique()


def test_panels_without_an_engine_say_why_and_do_not_compute(qtbot, window, small_budget,
                                                             large_parquet, tmp_path):
    path, _frame = large_parquet
    open_file(qtbot, window, path)
    for name in ("compare", "text", "repeats"):
        if name not in window.panels:
            continue
        panel = window.panels[name]
        window.show_panel(name)
        qtbot.waitUntil(lambda panel=panel: "page by page" in panel.message.text(), timeout=10000)
        assert panel.last_result is None
        assert "wrong number" in panel.not_applicable
        assert not window.workspace.applies(name)
    # the conventions table and the analyses themselves refuse too (never the first rows)
    from workbench.analyses import conventions
    from workbench.core.errors import DataError

    table = window.workspace.table
    with pytest.raises(DataError, match="page by page"):
        REGISTRY["compare"].run(table, REGISTRY["compare"].Options())
    with pytest.raises(DataError, match="page by page"):
        conventions.evaluate("ranking", table, REGISTRY["ranking"].Options())
    # a small file opened next is loaded as before, and the large one is closed
    small = tmp_path / "small.csv"
    pd.DataFrame({"item": ["a", "b"], "correct": [1, 0]}).to_csv(small, index=False)
    open_file(qtbot, window, small)
    assert window.workspace.table.large is None
    assert table.large.paged.closed
    assert window.workspace.data.view.model() is window.workspace.data.frame_model
    assert window.workspace.data.model.rowCount() == 2


def test_memory_engine_on_a_large_file_is_one_sentence(qtbot, window, small_budget, large_parquet):
    path, _frame = large_parquet
    open_file(qtbot, window, path)
    from dataclasses import replace

    from workbench.core.errors import OptionError

    table = window.workspace.table
    options = replace(window.panels["ranking"].options(), engine="memory")
    with pytest.raises(OptionError, match="would load it all"):
        REGISTRY["ranking"].run(table, options)


def test_a_duckdb_run_is_cancelled_mid_query(small_budget, large_parquet):
    """A cancel interrupts DuckDB's running query (not only the next check between steps)."""
    import threading
    import time

    from workbench.core.errors import Cancelled
    from workbench.core.progress import Progress
    from workbench.ui.loading import large_table, open_large

    path, _frame = large_parquet
    large = open_large(str(path))
    table = large_table(large)
    progress = Progress()
    seen = []

    def cancel_soon():
        time.sleep(0.05)
        progress.cancel()

    threading.Thread(target=cancel_soon).start()
    try:
        with pytest.raises(Cancelled):
            REGISTRY["ranking"].run(table, REGISTRY["ranking"].Options(
                query="query", doc="doc", score="score", relevance="relevance",
                ci_resamples=200_000), progress)
            seen.append("finished")
    finally:
        large.paged.close()
    assert not seen


def test_a_parquet_file_loaded_in_memory_is_previewed_first(monkeypatch, large_parquet):
    """Within the budget a Parquet file is loaded whole; its first rows are shown meanwhile."""
    from workbench.ui import loading

    path, frame = large_parquet
    monkeypatch.setattr(loading, "PREVIEW_PARQUET_BYTES", 0)
    shown, table = loading.preview_job(str(path))
    assert shown == str(path) and table.large is None
    assert len(table.frame) == 1000
    assert table.frame["doc"].tolist() == frame["doc"].iloc[:1000].tolist()
    assert loading.preview_job(str(path) + ".missing.parquet") is None


def test_the_interval_bootstrap_choice_reaches_the_signature(qtbot, window, tmp_path):
    """The Ranking panel's "Interval bootstrap" control: Poisson, hashed weights."""
    frame = _run_frame(n_queries=40, depth=5)
    path = tmp_path / "run.csv"
    frame.to_csv(path, index=False)
    open_file(qtbot, window, path)
    panel = window.panels["ranking"]
    window.show_panel("ranking")
    first = wait_result(qtbot, panel, timeout=60000)
    assert "ci:bootstrap-percentile-95" in first.signature
    combo = panel.control("ci_bootstrap")
    with qtbot.waitSignal(panel.result_ready, timeout=60000) as blocker:
        combo.setCurrentIndex(combo.findData("poisson-hash"))
    result = blocker.args[0]
    assert "ci:poisson-hash-bootstrap-percentile-95" in result.signature
    from workbench.metrics import poisson_bootstrap as pb
    from workbench.metrics.significance import percentile_interval

    per_query = result.table("queries").frame
    counted = per_query[per_query["counted"]]
    means = pb.replicate_means(counted["ndcg@10"].to_numpy(), counted["query"].tolist(),
                               resamples=2000, seed=12345)[:, 0]
    low, high = percentile_interval(means[~np.isnan(means)], 0.95)
    rec = result.find("ndcg@10")[0]
    assert rec["ci_low"] == pytest.approx(low, abs=1e-12) and rec["ci_high"] == pytest.approx(high, abs=1e-12)


def test_duckdb_out_of_its_memory_limit_says_so(monkeypatch, large_parquet):
    """A memory limit too small for the file: the sentence names the limit, not the file."""
    from workbench.analyses import ranking as ra
    from workbench.core.errors import DataError
    from workbench.engines import duck

    path, _frame = large_parquet

    monkeypatch.setattr(duck, "duckdb_memory_limit", lambda: 1000)
    with pytest.raises(DataError, match="ran out of its memory limit") as err:
        ra.run_unloaded([str(path)], ra.Options(query="query", doc="doc", score="score",
                                                relevance="relevance", engine="duckdb"))
    assert "could not be read as Parquet" not in str(err.value)


def test_a_table_that_is_not_a_ranking_run_is_loaded_unless_it_cannot_be(monkeypatch, small_budget, tmp_path):
    """Only Ranking computes on DuckDB: over the budget, per-item results are still loaded (their
    panels compute in memory), unless loading them alone would pass half the RAM."""
    from workbench.engines import budget
    from workbench.ui.loading import open_large

    path = tmp_path / "items.parquet"
    pd.DataFrame({"item": [f"i{i}" for i in range(3000)], "system": ["a", "b"] * 1500,
                  "correct": np.arange(3000) % 2, "cost": np.linspace(0, 1, 3000)}).to_parquet(path, index=False)
    assert open_large(str(path)) is None  # over the budget, but loadable: loaded
    monkeypatch.setattr(budget, "LOAD_BYTES_PER_ROW", 10**9)  # its load alone would not fit
    large = open_large(str(path))
    try:
        assert large is not None and large.rows == 3000
    finally:
        large.paged.close()


@pytest.fixture
def large_attempts(tmp_path, monkeypatch):
    """Attempts of two models at tasks, as a Parquet file the window reads page by page."""
    from workbench.engines import budget

    monkeypatch.setattr(budget, "LOAD_BYTES_PER_ROW", 10**12)  # too large to load at all
    rng = np.random.default_rng(11)
    n = 6000
    frame = pd.DataFrame({"model": rng.choice(["base", "cand"], n),
                          "task_id": [f"{t:03d}" for t in rng.integers(0, 200, n)],
                          "segment": rng.choice(["web", "app", "api"], n),
                          "passed": rng.integers(0, 2, n),
                          "cost": np.round(rng.gamma(2.0, 0.001, n), 6),
                          "latency_ms": np.round(rng.lognormal(6, 0.5, n), 1),
                          "prompt": ["a long prompt, never read by the engine"] * n})
    path = tmp_path / "attempts.parquet"
    frame.to_parquet(path, index=False, row_group_size=500)
    return path, frame


def test_pass_at_k_aggregation_and_cost_compute_the_whole_file_with_duckdb(qtbot, window, small_budget,
                                                                      large_attempts):
    path, frame = large_attempts
    open_file(qtbot, window, path)
    table = window.workspace.table
    assert table.large is not None and len(table.frame) == 1000  # the first rows stand in
    for name in ("passk", "aggregate", "cost"):
        assert window.workspace.applies(name), name
    panel = window.panels["passk"]
    window.show_panel("passk")
    result = wait_result(qtbot, panel, timeout=60000)
    assert "engine:duckdb" in result.signature
    options = panel.options()
    memory = REGISTRY["passk"].run(table_of(frame), options)  # the whole frame, in memory
    assert "engine:memory" in memory.signature
    assert [r for r in result.records] == [r for r in memory.records]
    assert result.value("pass@1", system="cand") == pytest.approx(
        frame[frame["model"] == "cand"].groupby("task_id")["passed"].mean().mean(), abs=1e-12)
    panel = window.panels["aggregate"]
    window.show_panel("aggregate")
    result = wait_result(qtbot, panel, timeout=60000)
    assert "engine:duckdb" in result.signature
    from workbench.analyses import reading

    # the same reading in memory: the models are read on their own (as versions), never pooled
    memory = reading.run("aggregate", table_of(frame), panel.options())
    assert result.records == memory.records
    assert {r.get("version") for r in result.records if r["metric"] == "micro"} == set(frame["model"])
    assert any("computed by DuckDB" in n for n in result.notes)
    # cost and latency: DuckDB reads only the columns used, every row
    panel = window.panels["cost"]
    window.show_panel("cost")
    result = wait_result(qtbot, panel, timeout=60000)
    assert "engine:duckdb" in result.signature
    memory = REGISTRY["cost"].run(table_of(frame), panel.options())
    assert result.records == memory.records
    assert any("Only the columns used" in n and "'prompt'" not in n for n in result.notes)


def test_computed_by_of_pass_at_k_aggregation_and_cost(qtbot, window, small_budget, large_attempts):
    """Their 'Computed by' option: on a file read page by page, 'in memory' is the sentence that
    it would load it all, and DuckDB computes it again (the signature says so)."""
    path, _frame = large_attempts
    open_file(qtbot, window, path)
    for name in ("passk", "aggregate", "cost"):
        panel = window.panels[name]
        window.show_panel(name)
        assert "engine:duckdb" in wait_result(qtbot, panel, timeout=60000).signature
        combo = panel.control("engine")
        assert [combo.itemData(i) for i in range(combo.count())] == ["auto", "memory", "duckdb", "spark"]
        combo.setCurrentIndex(combo.findData("memory"))
        qtbot.waitUntil(lambda: bool(panel.last_error), timeout=60000)
        assert "would load it all" in panel.last_error, name
        with qtbot.waitSignal(panel.result_ready, timeout=60000) as blocker:
            combo.setCurrentIndex(combo.findData("duckdb"))
        assert "engine:duckdb" in blocker.args[0].signature, name


def test_computed_by_duckdb_on_a_loaded_file_says_it_computed_in_memory(qtbot, window):
    from conftest import open_example

    panel = open_example(qtbot, window, "passk_counts.csv")
    wait_result(qtbot, panel)
    combo = panel.control("engine")
    with qtbot.waitSignal(panel.result_ready, timeout=30000) as blocker:
        combo.setCurrentIndex(combo.findData("duckdb"))
    result = blocker.args[0]
    assert "engine:memory" in result.signature
    assert any("was loaded, so it was computed in memory" in n for n in result.notes)
