"""Issue 44 on the charts: an axis or legend names the method of the intervals it draws (it said
"Wilson 95% interval" over Clopper-Pearson bounds), and a zero-width interval draws no bar."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import table_of
from workbench.analyses import aggregate, cost, rubric, runs

pytestmark = pytest.mark.gui


def _axis(chart) -> str:
    return chart.plotItem.getAxis("bottom").labelText


def _small_and_large():
    rng = np.random.default_rng(2)
    rows = [["big", int(rng.random() < 0.7)] for _ in range(400)] + [["small", int(rng.random() < 0.5)] for _ in range(12)]
    return pd.DataFrame(rows, columns=["language", "correct"])


def test_the_axis_names_the_methods_of_the_bounds_it_draws(qtbot):
    from workbench.ui.charts.intervals import GroupRateChart, SystemRateChart

    res = aggregate.run(table_of(_small_and_large()), aggregate.Options(outcome="correct", group="language"))
    methods = set(res.table("groups").frame["ci_method"])
    assert methods == {"wilson-95", "clopper-pearson-95"}
    chart = GroupRateChart()
    qtbot.addWidget(chart)
    chart.update_from(res)
    assert "Wilson or Clopper-Pearson 95% interval" in _axis(chart)
    frame = pd.DataFrame({"system": ["A"] * 12 + ["B"] * 12, "success": [1, 0] * 12, "cost": [0.01] * 24})
    res = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost"))
    chart = SystemRateChart()
    qtbot.addWidget(chart)
    chart.update_from(res)
    assert "Clopper-Pearson 95% interval" in _axis(chart) and "Wilson" not in _axis(chart)


def test_runs_of_scores_name_the_bootstrap_not_a_t_interval(qtbot):
    from workbench.ui.charts.runs_repeats import RunGroupsChart

    rng = np.random.default_rng(3)
    frame = pd.DataFrame([[f"r{r}", f"i{i}", float(rng.random())] for r in range(3) for i in range(40)],
                         columns=["run", "item", "score"])
    res = runs.run(table_of(frame), runs.Options(system="run", item="item", score="score", rounds=1000,
                                                 resamples=1000))
    chart = RunGroupsChart()
    qtbot.addWidget(chart)
    chart.update_from(res)
    assert _axis(chart).startswith("mean score (bootstrap 95% interval")


def test_a_criterion_chart_names_its_rows_methods(qtbot):
    from workbench.ui.charts.judge_rubric import CriterionRateChart

    frame = pd.DataFrame({"item": [f"i{i}" for i in range(20)], "a": ["yes", "no"] * 10, "b": ["yes"] * 20})
    res = rubric.run(table_of(frame), rubric.Options(item="item", criteria="a,b"))
    chart = CriterionRateChart()
    qtbot.addWidget(chart)
    chart.update_from(res)
    assert "Clopper-Pearson 95% interval" in _axis(chart)
