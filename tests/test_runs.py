"""Runs side by side (issue 27): paired differences against scipy, items gained/lost/missing
counted by hand, tie groups from the randomised Tukey HSD and from Holm (statsmodels)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import table_of
from workbench.analyses import runs
from workbench.report.present import answer

multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests


def long_runs(k=4, n=120, seed=1, lifts=(0.0, 0.03, 0.25, 0.25), missing=()):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    rows = []
    for r in range(k):
        ok = (rng.random(n) < np.clip(p + lifts[r], 0, 1)).astype(int)
        for i in range(n):
            if (r, i) in missing:
                continue
            rows.append({"run": f"r{r + 1}", "item": f"q{i:03d}", "correct": int(ok[i])})
    return pd.DataFrame(rows)


def opts(**kw):
    kw.setdefault("resamples", 2000)
    kw.setdefault("rounds", 4000)
    return runs.Options(**kw)


def test_binary_runs_against_references():
    frame = long_runs(missing={(1, 5), (1, 6), (3, 9)})
    res = runs.run(table_of(frame), opts(item="item", outcome="correct", system="run"))
    wide = frame.pivot(index="item", columns="run", values="correct")
    for name in wide.columns:
        col = wide[name].dropna()
        assert res.value("run_rate", system=name) == pytest.approx(col.mean())
    # consecutive pair r1 -> r2 on the common items: exact sign test = scipy's binomtest
    both = wide[["r1", "r2"]].dropna()
    wins = int(((both.r2 == 1) & (both.r1 == 0)).sum())
    losses = int(((both.r2 == 0) & (both.r1 == 1)).sum())
    assert res.value("gained", from_="r1", to="r2") == wins and res.value("lost", from_="r1", to="r2") == losses
    assert res.value("p_value", from_="r1", to="r2") == pytest.approx(stats.binomtest(wins, wins + losses).pvalue)
    assert res.value("diff", from_="r1", to="r2") == pytest.approx((wins - losses) / len(both))
    assert res.value("only_from", from_="r1", to="r2") == 2 and res.value("only_to", from_="r1", to="r2") == 0
    # r4 against the baseline r1 (not consecutive)
    assert res.find("diff", from_="r1", to="r4")
    grid = res.table("grid").frame.set_index("item")
    assert grid.loc["q005", "missing_in"] == "r2" and np.isnan(grid.loc["q005", "r2"])
    assert "items-in-every-run" in res.signature


def test_tie_groups_separate_what_the_tukey_test_separates():
    frame = long_runs(n=300, lifts=(0.0, 0.01, 0.3, 0.31))
    res = runs.run(table_of(frame), opts(item="item", outcome="correct", system="run", rounds=6000))
    letters = {r["system"]: r["groups"] for r in res.records if r["metric"] == "run_rate"}
    pairs = res.table("groups").frame
    for _, row in pairs.iterrows():
        share = bool(set(letters[row["from"]]) & set(letters[row["to"]]))
        assert share == (row["p_value"] >= 0.05)
    # the two strong runs are first (group a), the two weak ones are not
    assert "a" in letters["r3"] and "a" in letters["r4"] and "a" not in letters["r1"]
    text = answer(res).text
    assert "vs baseline 'r1'" in text and "tie for first (group a)" in text


def test_holm_groups_equal_statsmodels_over_the_paired_sign_tests():
    frame = long_runs(n=200, lifts=(0.0, 0.1, 0.2, 0.3))
    res = runs.run(table_of(frame), opts(item="item", outcome="correct", system="run", groups="holm"))
    wide = frame.pivot(index="item", columns="run", values="correct")
    names = list(wide.columns)
    raw = []
    for i in range(4):
        for j in range(i + 1, 4):
            a, b = wide[names[i]], wide[names[j]]
            w, lo = int(((b == 1) & (a == 0)).sum()), int(((b == 0) & (a == 1)).sum())
            raw.append(stats.binomtest(w, w + lo).pvalue if w + lo else 1.0)
    adj = multipletests(raw, method="holm")[1]
    got = res.table("groups").frame["p_value"].to_numpy()
    assert got == pytest.approx(adj)
    assert "groups:holm-over-paired-sign-tests" in res.signature


def test_scores_use_the_randomization_test_and_json_has_the_grid(tmp_path, cli):
    rng = np.random.default_rng(5)
    base = np.round(rng.random(12), 1)
    paths = []
    for r, shift in enumerate((0.0, 0.1)):
        path = tmp_path / f"run{r + 1}.csv"
        pd.DataFrame({"item": [f"i{i}" for i in range(12)],
                      "score": np.clip(np.round(base + shift * (rng.random(12) > 0.3), 1), 0, 1)}).to_csv(path, index=False)
        paths.append(str(path))
    out = cli("runs", *paths, "--item", "item", "--score", "score", "--rounds", "2000", "--resamples", "1000")
    a = pd.read_csv(paths[0])["score"].to_numpy()
    b = pd.read_csv(paths[1])["score"].to_numpy()
    k = np.rint((b - a) * 10).astype(int)
    nz = k[k != 0]
    import itertools

    obs = abs(nz.sum())
    exact = sum(abs(sum(s * abs(x) for s, x in zip(signs, nz))) >= obs
                for signs in itertools.product((1, -1), repeat=len(nz))) / 2 ** len(nz)
    rec = [r for r in out["results"] if r["metric"] == "p_value"][0]
    assert rec["value"] == pytest.approx(exact)
    assert {r["system"] for r in out["results"] if r["metric"] == "run_mean" and r.get("groups")} == \
        {"run1.csv", "run2.csv"}
    assert len(out["tables"]["grid"]) == 12


def _names(res):
    return [r["system"] for r in res.records if r["metric"] in ("run_rate", "run_mean")]


def test_runs_are_ordered_by_a_time_or_version_column_found_by_its_name():
    frame = long_runs(k=3, n=20)
    dates = {"r1": "2026-11-30", "r2": "2026-09-01", "r3": "2026-10-15"}
    frame["date"] = frame["run"].map(dates)
    res = runs.run(table_of(frame), opts(item="item", outcome="correct", system="run"))
    assert _names(res) == ["r2", "r3", "r1"] and "order:column:date" in res.signature
    frame = frame.drop(columns="date")
    frame["version"] = frame["run"].map({"r1": "v1.10", "r2": "v1.9", "r3": "v1.2"})
    res = runs.run(table_of(frame), opts(item="item", outcome="correct", system="run"))
    assert _names(res) == ["r3", "r2", "r1"]  # 1.2 < 1.9 < 1.10: versions, not text


def test_one_file_per_run_is_ordered_by_file_time_and_the_baseline_named_by_its_stem(tmp_path, cli):
    import os

    frame = long_runs(k=3, n=30)
    paths = []
    for r, stamp in zip(("r1", "r2", "r3"), (300, 100, 200)):  # r2 is the oldest file
        path = tmp_path / f"{r}.csv"
        frame[frame["run"] == r].drop(columns="run").to_csv(path, index=False)
        os.utime(path, (1_700_000_000 + stamp, 1_700_000_000 + stamp))
        paths.append(str(path))
    out = cli("runs", *paths, "--item", "item", "--outcome", "correct", "--rounds", "2000", "--resamples", "1000")
    shown = [r["system"] for r in out["results"] if r["metric"] == "run_rate"]
    assert shown == ["r2.csv", "r3.csv", "r1.csv"] and "order:file-mtime" in out["signature"]
    out = cli("runs", *paths, "--item", "item", "--outcome", "correct", "--baseline-system", "r1",
              "--rounds", "2000", "--resamples", "1000")
    assert "baseline:r1.csv" in out["signature"]


def test_the_grid_carries_each_items_cost_steps_and_latency_per_run(qtbot):
    from workbench.ui.charts.runs_repeats import RunsHeatmap

    rng = np.random.default_rng(4)
    rows = []
    for run in ("r1", "r2", "r3"):
        for i in range(12):
            if run == "r3" and i == 0:
                continue  # an item missing in a run: blank cost there
            rows.append({"run": run, "item": f"i{i}", "correct": int(rng.random() < 0.6),
                         "cost": round(float(rng.random()), 4), "steps": int(rng.integers(1, 9)),
                         "latency_s": round(float(rng.random() * 3), 3)})
    frame = pd.DataFrame(rows)
    result = runs.run(table_of(frame), runs.Options(system="run", item="item", outcome="correct"))
    details = result.table("grid_details").frame
    for measure, col in (("cost", "cost"), ("steps", "steps"), ("latency", "latency_s")):
        want = frame.pivot(index="item", columns="run", values=col).reindex(details["item"])
        for run in ("r1", "r2", "r3"):
            np.testing.assert_array_equal(details[f"{measure}: {run}"].to_numpy(), want[run].to_numpy())
    assert np.isnan(details.loc[details["item"] == "i0", "cost: r3"]).all()
    # the heat map's hover names them beside the outcome
    heat = RunsHeatmap()
    qtbot.addWidget(heat)
    heat.update_from(result)
    grid = result.table("grid").frame
    top = heat.tooltip_row(len(grid) - 1)        # the first item, on top
    first = frame[(frame["item"] == grid["item"].iloc[0]) & (frame["run"] == "r1")].iloc[0]
    assert f"cost {first['cost']:g}" in top and f"steps {int(first['steps'])}" in top
