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
