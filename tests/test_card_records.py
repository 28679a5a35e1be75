"""Issue 44: the numbers the cards promise are records in --json (and so cells in the workbook),
named as the other analyses name them; each checked against an independent reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from workbench.analyses import REGISTRY
from workbench.io import load_table

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "resources" / "examples"
CARDS = ROOT / "tests" / "fixtures" / "cards"


def run(analysis, path, **options):
    module = REGISTRY[analysis]
    return module.run(load_table(path), module.Options(**options))


def test_compare_of_outcomes_gives_the_paired_t_with_its_degrees_of_freedom():
    """Compare on 0/1 outcomes: the paired t-test beside the sign test and McNemar (t and df
    as records of their own), as scipy's ttest_rel gives it."""
    res = run("compare", EX / "paired_14_to_5.csv", baseline="baseline", candidate="candidate", item="item_id")
    table = load_table(EX / "paired_14_to_5.csv").frame
    base, cand = table["baseline"].astype(float), table["candidate"].astype(float)
    ref = stats.ttest_rel(cand, base)
    t = res.find("t")[0]
    assert t["value"] == pytest.approx(ref.statistic, abs=1e-9) and t["df"] == len(table) - 1
    assert res.value("t_test_p") == pytest.approx(ref.pvalue, abs=1e-9)
    assert t["from"] == "baseline" and t["to"] == "candidate"


def test_compare_of_many_systems_gives_the_paired_t_per_pair(tmp_path):
    rng = np.random.default_rng(3)
    cells = rng.random((60, 3)) < [0.5, 0.6, 0.7]
    rows = ["item,system,outcome"] + [f"i{i},{s},{int(cells[i, j])}" for i in range(60)
                                      for j, s in enumerate("abc")]
    path = tmp_path / "three.csv"
    path.write_text("\n".join(rows) + "\n")
    res = run("compare", path, item="item", system="system", outcome="outcome")
    for x, y in ((0, 1), (0, 2), (1, 2)):
        ref = stats.ttest_rel(cells[:, y].astype(float), cells[:, x].astype(float))
        t = res.find("t", from_="abc"[x], to="abc"[y])[0]
        assert t["value"] == pytest.approx(ref.statistic, abs=1e-9) and t["df"] == 59
        assert res.value("t_test_p", from_="abc"[x], to="abc"[y]) == pytest.approx(ref.pvalue, abs=1e-9)
