"""The "Systems compared" interval chart of the Ranking and Text panels: drawn from the table,
the same numbers, a zero line, hover texts by the presentation policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import open_file, wait_result

pytestmark = pytest.mark.gui


def _ranking_csv(path):
    rng = np.random.default_rng(7)
    rows = []
    for system, lift in (("bm25", 0.0), ("dense", 0.4)):
        for q in range(25):
            for d in range(8):
                rel = int(d < 3) + int(d == 0)
                rows.append((system, f"q{q}", f"d{d}", round(float(rng.random() + lift * rel), 4), rel))
    pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"]).to_csv(path, index=False)


def _text_csv(path):
    rows = []
    for s in ("A", "B"):
        for i in range(24):
            good = (i + (s == "B")) % 3 != 0
            rows.append((s, f"i{i}", "the cat sat on the mat" if good else "a dog ran", "the cat sat on the mat"))
    pd.DataFrame(rows, columns=["system", "id", "prediction", "reference"]).to_csv(path, index=False)


def _shown(panel, name):
    chart = panel.chart(name)
    assert panel.tabs.isTabVisible(panel.tabs.indexOf(chart)), f"{name} is hidden"
    return chart


def _zero_lines(chart):
    import pyqtgraph as pg

    return [i for i in chart.plotItem.items if isinstance(i, pg.InfiniteLine) and i.value() == 0]


def _run_panel(qtbot, window, path, name):
    open_file(qtbot, window, path)
    panel = window.panels[name]
    if panel.last_result is None or panel.runner.busy:
        return panel, wait_result(qtbot, panel, timeout=60000)
    return panel, panel.last_result


def test_ranking_two_systems_draws_the_differences_of_the_table(qtbot, window, tmp_path):
    from workbench.report import present

    path = tmp_path / "runs.csv"
    _ranking_csv(path)
    panel, result = _run_panel(qtbot, window, path, "ranking")
    table = result.table("systems_compared").frame
    assert len(table) >= 10
    chart = _shown(panel, "SystemsDiffChart")
    drawn = chart.plotted()["intervals"]
    assert list(drawn["metric"]) == list(table["metric"])
    np.testing.assert_array_equal(drawn["est"], table["diff"].to_numpy(float))
    np.testing.assert_array_equal(drawn["low"], table["ci_low"].to_numpy(float))
    np.testing.assert_array_equal(drawn["high"], table["ci_high"].to_numpy(float))
    np.testing.assert_array_equal(drawn["n"], table["queries"].to_numpy(float))
    assert set(drawn["from"]) == {"bm25"} and set(drawn["to"]) == {"dense"}
    assert len(_zero_lines(chart)) == 1
    # hover: the nDCG@10 row, formatted as a score difference by the policy, with its n
    i = list(table["metric"]).index("ndcg@10")
    row = table.iloc[i]
    tip = chart.tooltip_at(float(row["diff"]), float(len(table) - 1 - i))
    assert tip.startswith("nDCG@10: " + present.format_value(row["diff"], "score_diff"))
    assert present.format_value(row["ci_low"], "score_diff") in tip and "n = 25" in tip
    assert "0.4224" not in tip and str(row["diff"]) not in tip  # no raw float
    # one system only: no "Systems compared" table, so no chart
    one = tmp_path / "one.csv"
    pd.read_csv(path).query("system == 'bm25'").to_csv(one, index=False)
    panel, result = _run_panel(qtbot, window, one, "ranking")
    wait_result(qtbot, panel, timeout=60000)
    assert not panel.tabs.isTabVisible(panel.tabs.indexOf(panel.chart("SystemsDiffChart")))


def test_text_two_systems_draws_item_and_corpus_differences(qtbot, window, tmp_path):
    from workbench.report import present

    path = tmp_path / "answers.csv"
    _text_csv(path)
    panel, result = _run_panel(qtbot, window, path, "text")
    table = result.table("systems_compared").frame
    small = table[~table["metric"].isin(["sentence_bleu", "bleu", "chrf"])]
    big = table[table["metric"].isin(["sentence_bleu", "bleu", "chrf"])]
    assert len(small) and len(big)
    for name, part in (("SystemsDiffChart", small), ("CorpusDiffChart", big)):
        chart = _shown(panel, name)
        drawn = chart.plotted()["intervals"]
        assert list(drawn["metric"]) == list(part["metric"])
        np.testing.assert_array_equal(drawn["est"], part["diff"].to_numpy(float))
        np.testing.assert_array_equal(drawn["low"], part["ci_low"].to_numpy(float))
        np.testing.assert_array_equal(drawn["high"], part["ci_high"].to_numpy(float))
        np.testing.assert_array_equal(drawn["n"], part["items"].to_numpy(float))
        assert len(_zero_lines(chart)) == 1
    # exact match is a rate: its difference reads in points; corpus BLEU on its 0-100 scale
    texts = dict(zip(panel.chart("SystemsDiffChart").plotted()["intervals"]["metric"],
                     panel.chart("SystemsDiffChart").plotted()["intervals"]["text"]))
    em = small[small["metric"] == "exact_match"].iloc[0]
    assert present.format_value(em["diff"], "points") in texts["exact_match"]
    btexts = dict(zip(panel.chart("CorpusDiffChart").plotted()["intervals"]["metric"],
                      panel.chart("CorpusDiffChart").plotted()["intervals"]["text"]))
    bleu = big[big["metric"] == "bleu"].iloc[0]
    assert present.format_value(abs(bleu["diff"]), "bleu") in btexts["bleu"]
