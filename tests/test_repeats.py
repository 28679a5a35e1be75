"""Repeats (issue 26): Miller's noise split against eval-arena's published estimators (written
out here from their formulas: Unpaired/Paired ``from_samples_unbiasedK``), the clustered standard
error against statsmodels' cluster-robust OLS, and the planning numbers against their formulas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import table_of
from workbench.analyses import repeats
from workbench.metrics import repeats as rp
from workbench.report.present import answer

sm = pytest.importorskip("statsmodels.api")


def eval_arena_single(A: np.ndarray):
    """var_E = var(mean_i) - bias, E_var = mean(var_i) + bias, bias = mean(var_i) / (K - 1);
    numpy var (divisor N over items, K within)."""
    k = A.shape[1]
    bias = np.mean(np.var(A, axis=1)) / (k - 1)
    return np.var(A.mean(axis=1)) - bias, np.mean(np.var(A, axis=1)) + bias


def eval_arena_paired(A: np.ndarray, B: np.ndarray):
    ka, kb = A.shape[1], B.shape[1]
    bias = np.mean(np.var(A, axis=1)) / (ka - 1) + np.mean(np.var(B, axis=1)) / (kb - 1)
    return (np.var(A.mean(axis=1) - B.mean(axis=1)) - bias,
            np.mean(np.var(A, axis=1)) + np.mean(np.var(B, axis=1)) + bias)


def long_frame(A: np.ndarray, system: str = "m1") -> pd.DataFrame:
    n, k = A.shape
    return pd.DataFrame({"model": system, "sample_id": np.repeat([f"s{i}" for i in range(n)], k),
                         "epoch": np.tile(np.arange(1, k + 1), n), "score": A.ravel()})


@pytest.mark.parametrize("binary", [True, False])
def test_single_split_equals_eval_arena(binary):
    rng = np.random.default_rng(3)
    p = rng.beta(0.7, 0.6, 150)
    A = (rng.random((150, 4)) < p[:, None]).astype(float) if binary else np.round(rng.random((150, 4)) * p[:, None], 2)
    res = repeats.run(table_of(long_frame(A)), repeats.Options(item="sample_id", outcome="score", repeat="epoch"))
    var_e, e_var = eval_arena_single(A)
    assert res.value("var_data") == pytest.approx(max(var_e, 0.0), rel=1e-12, abs=1e-15)
    assert res.value("var_within") == pytest.approx(e_var, rel=1e-12)
    se = np.sqrt((max(var_e, 0) + e_var / 4) / 150)
    assert res.value("se_repeats") == pytest.approx(se, rel=1e-12)
    assert res.value("se_one_repeat") == pytest.approx(np.sqrt((max(var_e, 0) + e_var) / 150), rel=1e-12)
    # with equal K the SE with repeats is the plain SE of the item means (divisor N)
    assert res.value("se_repeats") == pytest.approx(np.sqrt(np.var(A.mean(1)) / 150), rel=1e-9)
    metric = "repeats_rate" if binary else "repeats_mean"
    rec = res.find(metric)[0]
    assert rec["value"] == pytest.approx(A.mean()) and rec["ci_low"] == pytest.approx(A.mean() - 1.959964 * se, rel=1e-6)
    flips = int(((A.min(1) < A.max(1))).sum())
    assert res.value("flipping_items") == flips
    items = res.table("items").frame
    assert items["flips"].iloc[:flips].all() and not items["flips"].iloc[flips:].any()


def test_clustered_se_equals_statsmodels():
    rng = np.random.default_rng(9)
    A = (rng.random((60, 3)) < rng.random(60)[:, None]).astype(float)
    frame = long_frame(A)
    res = repeats.run(table_of(frame), repeats.Options(item="sample_id", outcome="score", repeat="epoch"))
    y = frame["score"].to_numpy()
    groups = pd.factorize(frame["sample_id"])[0]
    ols = sm.OLS(y, np.ones((y.size, 1))).fit().get_robustcov_results(cov_type="cluster", groups=groups)
    assert res.value("clustered_se") == pytest.approx(float(ols.bse[0]), rel=1e-10)


def test_paired_split_equals_eval_arena_and_says_items_or_repeats():
    rng = np.random.default_rng(5)
    p = rng.beta(0.6, 0.6, 120)
    A = (rng.random((120, 5)) < p[:, None]).astype(float)
    B = (rng.random((120, 5)) < np.clip(p + 0.05, 0, 1)[:, None]).astype(float)
    frame = pd.concat([long_frame(A, "base"), long_frame(B, "cand")], ignore_index=True)
    res = repeats.run(table_of(frame), repeats.Options(item="sample_id", outcome="score", repeat="epoch",
                                                       system="model", baseline_system="base"))
    var_e, e_var = eval_arena_paired(B, A)
    assert res.value("var_data", from_="base", to="cand") == pytest.approx(max(var_e, 0), abs=1e-15, rel=1e-12)
    assert res.value("var_within", from_="base", to="cand") == pytest.approx(e_var, rel=1e-12)
    assert res.value("repeats_rate_diff", from_="base", to="cand") == pytest.approx(B.mean() - A.mean())
    assert any("narrow the interval more" in n for n in res.notes)
    assert "'base'" in answer(res).text


def test_unequal_repeats_and_single_tries_are_said():
    rows = [("a", 1, 1), ("a", 2, 0), ("a", 3, 1), ("b", 1, 1), ("b", 2, 1), ("c", 1, 0), ("d", 1, 1), ("d", 2, 0)]
    frame = pd.DataFrame(rows, columns=["item", "epoch", "correct"])
    res = repeats.run(table_of(frame), repeats.Options(item="item", outcome="correct", repeat="epoch"))
    assert any("between 1 and 3 tries" in n for n in res.notes)
    assert any("single try" in n for n in res.notes)
    # by hand: item means 2/3, 1, 0, 1/2; corrected within part over a, b, d (K >= 2)
    s2 = np.array([np.var([1, 0, 1]), 0.0, np.var([1, 0])])
    kk = np.array([3, 2, 2])
    within = s2.mean() + np.mean(s2 / (kk - 1))
    assert res.value("var_within") == pytest.approx(within)
    data = np.var([2 / 3, 1, 0, 0.5]) - np.mean(s2 / (kk - 1))
    assert res.value("var_data") == pytest.approx(max(data, 0))


def test_planning_numbers():
    split = rp.NoiseSplit(200, 5, 5, 5.0, 0.5, 0.04, 0.2, 0.04, 0.2, np.sqrt((0.04 + 0.04) / 200),
                          np.sqrt(0.24 / 200), 0.0, False, 0)
    z = 1.959963984540054
    assert rp.items_needed(split, 0.02, 5) == int(np.ceil(z * z * (0.04 + 0.2 / 5) / 0.02 ** 2))
    # with 200 items the data part alone gives sqrt(0.04/200)*1.96 = 0.0277 > 0.02: never
    assert rp.repeats_needed(split, 0.02) == float("inf")
    assert rp.repeats_needed(split, 0.05) == int(np.ceil(0.2 / (200 * 0.05 ** 2 / z ** 2 - 0.04)))


def test_bad_values_are_a_sentence():
    frame = pd.DataFrame({"item": ["a", "a"], "epoch": [1, 1], "correct": [1, 0]})
    from workbench.core.errors import DataError

    with pytest.raises(DataError, match="item 'a' has two rows for repeat '1'"):
        repeats.run(table_of(frame), repeats.Options(item="item", outcome="correct", repeat="epoch"))
    frame = pd.DataFrame({"item": ["a", "a"], "epoch": [1, 2], "correct": [1, 3]})
    with pytest.raises(DataError, match=r"0/1 or a score in \[0, 1\]; line 3 holds 3"):
        repeats.run(table_of(frame), repeats.Options(item="item", outcome="correct", repeat="epoch"))


def test_an_inspect_log_with_epochs_needs_no_flags(cli):
    from pathlib import Path

    folder = Path(__file__).resolve().parent / "fixtures" / "formats" / "inspect"
    paths = [str(folder / f) for f in ("arith_alpha.eval", "arith_beta.eval")]
    out = cli("repeats", *paths)
    rates = {r["system"]: r for r in out["results"] if r["metric"] == "repeats_rate"}
    assert set(rates) == {"mockllm/alpha", "mockllm/beta"} and all(r["n"] == 4 for r in rates.values())
    assert any("each sample's epochs are its tries" in n for n in out["notes"])
    assert "repeat:column:epoch" in out["signature"]


def test_the_per_item_tries_are_in_the_json_flipping_items_first():
    import json

    rows = [("a", 1, 1), ("a", 2, 0), ("a", 3, 1), ("b", 1, 1), ("b", 2, 1), ("c", 1, 0), ("c", 2, 0)]
    frame = pd.DataFrame(rows, columns=["item", "epoch", "correct"])
    res = repeats.run(table_of(frame), repeats.Options(item="item", outcome="correct", repeat="epoch"))
    items = json.loads(json.dumps(res.to_json_dict()))["tables"]["items"]
    assert items[0]["item"] == "a"  # the only item that flips: 2 of 3 (by hand)
    assert {r["item"] for r in items} == {"a", "b", "c"}
    assert "split" in json.loads(json.dumps(res.to_json_dict()))["tables"]
