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
