"""The DataFrame table model: Qt's model contract, numeric sorting, filtering, 1M rows."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from workbench.ui.models import SORT_ROLE, FrameModel, format_value, full_precision

pytestmark = pytest.mark.gui


def _frame(n=50):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"id": [f"i{k}" for k in range(n)], "score": rng.random(n),
                         "count": rng.integers(0, 20, n), "label": rng.choice(["NA", "None", "", "x"], n)})


def test_model_passes_qtmodeltester(qtmodeltester):
    model = FrameModel(_frame())
    qtmodeltester.check(model)
    model.sort(1, Qt.SortOrder.DescendingOrder)
    model.set_filter("i1")
    qtmodeltester.check(model)


def test_numbers_sort_as_numbers_and_blanks_last():
    frame = pd.DataFrame({"v": [10.0, 9.0, np.nan, 100.0], "t": ["10", "9", "x", "100"]})
    model = FrameModel(frame)
    model.sort(0, Qt.SortOrder.AscendingOrder)
    assert [model.data(model.index(r, 0), SORT_ROLE) for r in range(3)] == [9.0, 10.0, 100.0]
    assert np.isnan(model.data(model.index(3, 0), SORT_ROLE))
    model.sort(1, Qt.SortOrder.AscendingOrder)  # mixed text sorts as text
    assert [model.data(model.index(r, 1)) for r in range(4)] == ["10", "100", "9", "x"]


def test_literal_na_text_is_shown_as_text():
    model = FrameModel(pd.DataFrame({"label": ["NA", "None", "", "nan"]}))
    assert [model.data(model.index(r, 0)) for r in range(4)] == ["NA", "None", "", "nan"]


def test_filter_and_row_filter():
    model = FrameModel(_frame(30))
    model.set_filter("i2")
    assert all("i2" in model.data(model.index(r, 0)) for r in range(model.rowCount()))
    model.set_filter("")
    model.set_row_filter([3, 5, 7])
    assert [model.source_row(r) for r in range(model.rowCount())] == [3, 5, 7]


def test_tsv_has_full_precision_and_no_tabs_in_cells():
    frame = pd.DataFrame({"a": [1 / 3], "b": ["x\ty"]})
    text = FrameModel(frame).to_tsv()
    assert text.splitlines() == ["a\tb", f"{1 / 3!r}\tx y"]


def test_formats():
    assert format_value(0.0414, "rate") == "4.1%"
    assert format_value(0.06357, "p") == "0.0636"
    assert format_value(0.045, "points") == "+4.5 pts"
    assert format_value(5.905e-06, "p") == "< 0.001"
    assert format_value(0.5992539325984954, "score") == "0.599"
    assert format_value(0.5992539325984954) == "0.5993"
    assert format_value(True) == "yes"
    assert full_precision(0.1 + 0.2) == "0.30000000000000004"


def test_million_rows_sort_and_filter_quickly():
    n = 1_000_000
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"id": np.arange(n), "score": rng.random(n)})
    model = FrameModel(frame)
    start = time.perf_counter()
    model.sort(1, Qt.SortOrder.DescendingOrder)
    elapsed = time.perf_counter() - start
    top = model.data(model.index(0, 1), SORT_ROLE)
    assert top == pytest.approx(frame["score"].max())
    assert model.rowCount() == n
    assert elapsed < 10  # generous: a proxy model sorting in Python would take minutes


# -- large frames: sorting and text filtering on a worker ------------------------------------

def _rows(model):
    return [model.source_row(r) for r in range(model.rowCount())]


def _next_rows(qtbot, model):
    """Wait for the rows a worker is computing."""
    with qtbot.waitSignal(model.rows_ready, timeout=30000):
        pass


def _wait_rows(qtbot, model, action):
    """Do ``action``; it must return before the rows are ready, which come with rows_ready."""
    with qtbot.waitSignal(model.rows_ready, timeout=30000):
        action()
        assert model.busy  # the GUI thread did not compute it
    assert not model.busy


def test_large_frames_sort_and_filter_on_a_worker_with_the_same_rows(qtbot):
    frame = _frame(3000)
    small = FrameModel(frame)                       # everything at once
    large = FrameModel(frame, background_rows=1000)  # the data view's way
    assert _rows(large) == list(range(3000))
    for model in (small, large):
        model.sort(3, Qt.SortOrder.DescendingOrder)  # text column: the slow kind
    assert _rows(large) == list(range(3000))  # unchanged until the worker is done
    _next_rows(qtbot, large)
    assert _rows(large) == _rows(small)
    _wait_rows(qtbot, large, lambda: large.set_filter("I1"))
    small.set_filter("I1")
    assert _rows(large) == _rows(small) and 0 < large.rowCount() < 3000
    # the row filter and a known sort compose at once, no worker needed
    large.set_row_filter([5, 10, 15, 2999])
    small.set_row_filter([5, 10, 15, 2999])
    assert not large.busy and _rows(large) == _rows(small)
    # a column sorted once is kept: sorting it again is immediate
    large.set_row_filter(None)
    large.set_filter("")
    large.sort(1, Qt.SortOrder.AscendingOrder)
    _next_rows(qtbot, large)
    large.sort(3, Qt.SortOrder.AscendingOrder)
    assert not large.busy
    small.set_row_filter(None)
    small.set_filter("")
    small.sort(3, Qt.SortOrder.AscendingOrder)
    assert _rows(large) == _rows(small)


def test_a_worker_result_for_a_replaced_frame_is_dropped(qtbot):
    model = FrameModel(_frame(3000), background_rows=1000)
    model.set_filter("i2")
    assert model.busy
    model.set_frame(_frame(20))  # the table changed before the filter was done
    assert not model.busy and model.rowCount() == 20
    model.wait()
    qtbot.wait(50)
    assert model.rowCount() == 20 and _rows(model) == list(range(20))


def test_selection_follows_rows_through_an_asynchronous_sort(qtbot):
    from PySide6.QtCore import QPersistentModelIndex

    frame = _frame(3000)
    model = FrameModel(frame, background_rows=1000)
    kept = QPersistentModelIndex(model.index(7, 0))  # source row 7
    _wait_rows(qtbot, model, lambda: model.sort(1, Qt.SortOrder.AscendingOrder))
    assert model.source_row(kept.row()) == 7
    assert model.data(model.index(kept.row(), 0)) == "i7"


def test_async_model_passes_qtmodeltester(qtbot, qtmodeltester):
    model = FrameModel(_frame(3000), background_rows=1000)
    qtmodeltester.check(model)
    _wait_rows(qtbot, model, lambda: model.sort(3, Qt.SortOrder.DescendingOrder))
    _wait_rows(qtbot, model, lambda: model.set_filter("i1"))
    qtmodeltester.check(model)


def test_cells_of_any_kind_sort_as_text_and_a_failed_worker_shows_the_rows(qtbot, monkeypatch):
    """Mixed cells (numbers, text, missing, lists) sort as text, on the GUI thread or a worker;
    if a worker fails anyway, the view drops that sort, says so and is usable."""
    frame = pd.DataFrame({"mixed": [1, "a", None, [1, 2], 2.5] * 400, "n": range(2000)})
    small = FrameModel(frame)
    small.sort(0, Qt.SortOrder.AscendingOrder)
    large = FrameModel(frame, background_rows=1000)
    _wait_rows(qtbot, large, lambda: large.sort(0, Qt.SortOrder.AscendingOrder))
    assert _rows(large) == _rows(small)

    import workbench.ui.models as models

    def broken(_values):
        raise TypeError("cannot order these cells")

    monkeypatch.setattr(models, "_argsort", broken)
    model = FrameModel(frame, background_rows=1000)
    with qtbot.waitSignal(model.failed, timeout=30000) as blocker:
        model.sort(1, Qt.SortOrder.DescendingOrder)
    assert "cannot order these cells" in blocker.args[0]
    assert not model.busy and _rows(model) == list(range(2000))  # unsorted, not frozen
    model.set_filter("a")  # and it still filters
    _next_rows(qtbot, model)
    assert model.rowCount() == 400


def test_view_row_of_ignores_rows_that_are_not_there():
    model = FrameModel(_frame(5))
    assert model.view_row_of([1, 250_000, -3]).tolist() == [1]


def test_distinct_texts_are_the_files_own_in_order_and_per_table():
    import pandas as pd

    from workbench.io import LoadedTable
    from workbench.ui.models import distinct_texts

    a = LoadedTable(frame=pd.DataFrame({"system": ["b", "a", "b", "c"]}), path="a.csv")
    assert distinct_texts(a, "system", 10) == ["b", "a", "c"]
    assert distinct_texts(a, "system", 2) == ["b", "a"]
    b = LoadedTable(frame=pd.DataFrame({"system": ["x", "x", "y"]}), path="a.csv")
    assert distinct_texts(b, "system", 10) == ["x", "y"]  # another table, not the first's names
    assert distinct_texts(a, "system", 10) == ["b", "a", "c"]


def test_the_sample_a_column_is_fitted_by_is_what_the_cells_show():
    """fit_columns measures a column through display_sample (issue 47's render speed): the same
    texts and the same right alignment as data() gives cell by cell, sorted and filtered, with
    per-column and per-row formats, labels, missing values, booleans and mixed objects."""
    n = 80
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({
        "id": [f"q{k}" for k in range(n)],
        "rate": rng.random(n),
        "p": np.where(rng.random(n) < 0.2, np.nan, rng.random(n) / 100),
        "mixed": [1, "x", None, 2.5, True] * (n // 5),
        "flag": rng.random(n) < 0.5,
        "metric": rng.choice(["ndcg@10", "recall@100"], n),
        "cost": rng.random(n) * 3,
    })
    formats = {"rate": "rate", "p": "p", "cost": ["cost", "int"] * (n // 2)}
    labels = {"metric": [f"shown {k}" for k in range(n)]}
    model = FrameModel(frame)
    model.set_frame(frame, formats, None, None, labels)
    model.currency = "$"
    model.sort(1, Qt.SortOrder.DescendingOrder)
    model.set_filter("q1")
    right = int(Qt.AlignmentFlag.AlignRight)
    for c in range(model.columnCount()):
        rows = min(model.rowCount(), 60)
        texts, numeric = model.display_sample(c, 60)
        assert texts == [str(model.data(model.index(r, c)) or "") for r in range(rows)], frame.columns[c]
        assert numeric == any(int(model.data(model.index(r, c), Qt.ItemDataRole.TextAlignmentRole)) & right
                              for r in range(rows))
    assert model.display_sample(1, 60)[1] is True and model.display_sample(0, 60)[1] is False
