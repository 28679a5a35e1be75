"""The Ranking panel's 'Computed by' option: DuckDB gives the numbers of the in-memory engine,
and the signature says which engine ran (workbench/engines, issue 29)."""

from __future__ import annotations

import pytest

from conftest import open_example, wait_result

pytest.importorskip("duckdb")
pytestmark = pytest.mark.gui


def test_choosing_duckdb_reruns_with_the_same_numbers(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    first = wait_result(qtbot, panel)
    assert "engine:memory" in panel.signature.text()
    engine = panel.control("engine")
    with qtbot.waitSignal(panel.result_ready, timeout=30000) as blocker:
        engine.setCurrentIndex(engine.findData("duckdb"))
    second = blocker.args[0]
    assert "engine:duckdb" in panel.signature.text()
    assert [r["metric"] for r in first.records] == [r["metric"] for r in second.records]
    for a, b in zip(first.records, second.records):
        assert b["value"] == pytest.approx(a["value"], abs=1e-12) and a["n"] == b["n"]
    assert any("computed by DuckDB" in note for note in second.notes)


def test_spark_is_offered_and_without_pyspark_it_is_one_sentence(qtbot, window, monkeypatch):
    """The 'Computed by' option lists Spark; where pyspark is missing, choosing it says what
    to install (in the window's words) instead of failing."""
    import sys

    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    engine = panel.control("engine")
    assert engine.findData("spark") >= 0
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark raises ImportError
    engine.setCurrentIndex(engine.findData("spark"))
    qtbot.waitUntil(lambda: bool(panel.last_error), timeout=30000)
    assert "needs the pyspark package" in panel.last_error
    assert "eval-workbench[spark]" in panel.last_error
    assert "'Computed by' option" in panel.last_error
