"""Rows a panel hands to the data table are named by that panel (not one fixed word)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.conftest import open_example, wait_result

pytestmark = pytest.mark.gui


def test_the_discordant_items_are_named_as_such_in_the_data_table(qtbot, window):
    compare = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, compare)
    qtbot.mouseClick(compare.show_discordant, Qt.MouseButton.LeftButton)
    assert window.current_panel_name() == "data"
    assert window.data.show_all.text() == "Show all rows (discordant items)"
    assert window.data.model.rowCount() == 19  # 14 + 5 discordant pairs (the seed's example)


def test_each_headline_interval_names_its_method_and_the_t_interval_beside_it(qtbot, window):
    panel = open_example(qtbot, window, "text_extraction.csv")
    result = wait_result(qtbot, panel)
    model = panel.headline.frame_model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    with_t = [r for r in result.records if r.get("t_low") is not None and r.get("convention") is None]
    assert with_t, "the example has a bootstrap headline with a t interval beside it"
    shown = [r for r in result.records if r.get("convention") is None]
    row = shown.index(with_t[0])
    col = headers.index("95% CI low")
    tip = model.data(model.index(row, col), Qt.ItemDataRole.ToolTipRole)
    assert with_t[0]["ci_method"] and with_t[0]["ci_method"] in tip and "t interval" in tip
