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


def test_runs_give_each_pairs_tests_as_compare_names_them():
    """Per pair of runs: the sign test (sign_test_p, the pair's p_value), McNemar without and with
    correction and the paired t beside it; per pair of the tie groups the randomised Tukey HSD's
    adjusted p (tukey_hsd_p), the p of the groups table."""
    from statsmodels.stats.contingency_tables import mcnemar

    res = run("runs", CARDS / "runs_six_disagree.csv")
    grid = res.table("grid").frame
    pairs = [(r["from"], r["to"]) for r in res.find("diff")]
    assert len(pairs) >= 5
    for a, b in pairs:
        both = grid[[a, b]].dropna()
        x, y = both[a].to_numpy(), both[b].to_numpy()
        table = [[int(((x == 1) & (y == 1)).sum()), int(((x == 1) & (y == 0)).sum())],
                 [int(((x == 0) & (y == 1)).sum()), int(((x == 0) & (y == 0)).sum())]]
        assert res.value("mcnemar_p", from_=a, to=b) == pytest.approx(
            mcnemar(table, exact=False, correction=False).pvalue, abs=1e-12)
        wins, losses = table[1][0], table[0][1]  # Edwards' correction as R's mcnemar.test (never past 0)
        cc = max(0, abs(wins - losses) - 1) ** 2 / (wins + losses)
        assert res.value("mcnemar_cc_p", from_=a, to=b) == pytest.approx(stats.chi2.sf(cc, 1), abs=1e-12)
        ref = stats.ttest_rel(y, x)
        t = res.find("t", from_=a, to=b)[0]
        assert t["value"] == pytest.approx(ref.statistic, abs=1e-9) and t["df"] == len(x) - 1
        assert res.value("t_test_p", from_=a, to=b) == pytest.approx(ref.pvalue, abs=1e-9)
        assert res.value("sign_test_p", from_=a, to=b) == res.value("p_value", from_=a, to=b)
    groups = res.table("groups").frame
    assert len(groups) == 15
    for row in groups.to_dict("records"):
        assert res.value("tukey_hsd_p", from_=row["from"], to=row["to"]) == row["p_value"]


def test_runs_of_scores_give_the_paired_t(tmp_path):
    rng = np.random.default_rng(5)
    rows = ["run,item,score"] + [f"r{r},i{i},{v:.4f}" for r in range(3) for i, v in
                                 enumerate(np.clip(rng.normal(0.5 + 0.03 * r, 0.2, 40), 0, 1))]
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(rows) + "\n")
    res = run("runs", path, score="score", system="run", item="item", groups="holm")
    grid = res.table("grid").frame
    for rec in res.find("mean_diff"):
        a, b = rec["from"], rec["to"]
        ref = stats.ttest_rel(grid[b], grid[a])
        assert res.find("t", from_=a, to=b)[0]["value"] == pytest.approx(ref.statistic, abs=1e-9)
        assert res.value("randomization_p", from_=a, to=b) == res.value("p_value", from_=a, to=b)
    for row in res.table("groups").frame.to_dict("records"):
        assert res.value("p_adjusted", from_=row["from"], to=row["to"], group="all pairs") == row["p_value"]


def test_the_runs_card_gives_one_verdict():
    """Six runs: the last vs the baseline's paired bootstrap interval excludes 0 while the
    randomised Tukey HSD over the 15 pairs keeps them in group a: the card says both in one
    sentence, with the reason, and its tone is not a win."""
    from workbench.report.present import answer

    res = run("runs", CARDS / "runs_six_disagree.csv")
    d = res.find("diff", from_="nightly-2026-11-25", to="nightly-2026-11-30")[0]
    assert d["ci_low"] > 0
    ans = answer(res)
    assert "tied for first with it after correcting for 15 comparisons (randomised Tukey HSD, adjusted p = " in ans.text
    assert ans.tone == "borderline" and ans.badge == "tied after correction"


def test_calls_per_tool_are_records():
    """An agent's calls per tool (the 'Calls per tool' table) as records: calls, their share of
    the system's tool calls, and the median and p95 per request, counted from the log by hand."""
    import glob

    import pandas as pd

    from workbench.analyses import cost
    from workbench.io import load_many
    from workbench.io.formats.combine import with_roles

    table = load_many(sorted(glob.glob(str(ROOT / "tests" / "fixtures" / "formats" / "inspect_agent" / "*.eval"))))
    options, _ = with_roles(cost.Options(), table)
    res = cost.run(table, options)
    frame = table.frame
    tools = [c for c in frame.columns if c.startswith("tool_calls.")]
    for system, rows in frame.groupby("model"):
        counts = {c.split(".", 1)[1]: pd.to_numeric(rows[c]).to_numpy(float) for c in tools}
        total = sum(v.sum() for v in counts.values())
        for tool, v in counts.items():
            assert res.value(f"tool_calls:{tool}", system=system) == v.sum()
            assert res.value(f"tool_share:{tool}", system=system) == pytest.approx(v.sum() / total, abs=1e-12)
            assert res.value(f"tool_calls_p50:{tool}", system=system) == np.percentile(v, 50)
            assert res.value(f"tool_calls_p95:{tool}", system=system) == pytest.approx(np.percentile(v, 95))
            assert res.find(f"tool_calls:{tool}", system=system)[0]["n"] == len(v)
