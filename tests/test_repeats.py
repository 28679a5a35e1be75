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
    assert any("narrows the interval of the difference" in n for n in res.notes)
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


def test_seed_spread_beside_one_runs_interval_over_items():
    """Whole runs with a per-seed shift: the run means, their SD (ddof 1) and range, by hand."""
    rng = np.random.default_rng(11)
    n, r = 300, 5
    p = rng.random(n)
    shift = np.array([-0.08, 0.05, 0.0, 0.09, -0.06])  # a seed moves every item
    A = np.clip(p[:, None] * 0.8 + shift[None, :] + rng.normal(0, 0.05, (n, r)), 0, 1).round(3)
    res = repeats.run(table_of(long_frame(A)), repeats.Options(item="sample_id", outcome="score", repeat="epoch"))
    runs = A.mean(axis=0)
    sd = float(np.std(runs, ddof=1))
    assert res.value("seed_sd") == pytest.approx(sd, rel=1e-12)
    assert res.value("seed_min") == pytest.approx(runs.min()) and res.value("seed_max") == pytest.approx(runs.max())
    assert res.find("seed_sd")[0]["n"] == r
    var_e, e_var = eval_arena_single(A)
    se1 = np.sqrt((max(var_e, 0) + e_var) / n)
    rec = res.find("one_run_item_se")[0]
    assert rec["value"] == pytest.approx(se1, rel=1e-12) and rec["n"] == n
    assert rec["ci_low"] == pytest.approx(A.mean() - 1.959964 * se1, rel=1e-6)
    assert sd > se1  # by construction, and so the sentence
    assert any("too narrow for the decision" in note for note in res.notes)
    seeds = res.table("seeds").frame
    assert [seeds[f"run {e}"].iloc[0] for e in range(1, r + 1)] == pytest.approx(runs)
    assert "sd:ddof1" in res.signature and "se_one_repeat" in res.signature


def test_seed_spread_smaller_is_quiet_and_uneven_runs_are_said():
    rng = np.random.default_rng(12)
    A = (rng.random((400, 4)) < rng.random(400)[:, None]).astype(float)  # no seed effect
    res = repeats.run(table_of(long_frame(A)), repeats.Options(item="sample_id", outcome="score", repeat="epoch"))
    sd = float(np.std(A.mean(axis=0), ddof=1))
    var_e, e_var = eval_arena_single(A)
    assert sd < np.sqrt((max(var_e, 0) + e_var) / 400)
    assert res.value("seed_sd") == pytest.approx(sd, rel=1e-12)
    assert not any("too narrow" in note for note in res.notes)
    frame = long_frame(A).iloc[:-1]  # the last item misses its 4th epoch
    res = repeats.run(table_of(frame), repeats.Options(item="sample_id", outcome="score", repeat="epoch"))
    assert not res.find("seed_sd")
    assert any("no seed spread: repeat '4' covers 399 of the 400 items" in note for note in res.notes)
    rows = pd.DataFrame({"item": list("aabb"), "correct": [1, 0, 1, 1]})
    res = repeats.run(table_of(rows), repeats.Options(item="item", outcome="correct"))
    assert not res.find("seed_sd") and any("No seed spread: without a repeat column" in n for n in res.notes)


@pytest.mark.parametrize("within_dominates", [True, False])
def test_paired_answer_says_items_or_repeats(within_dominates):
    rng = np.random.default_rng(7)
    n, k = 2000, 3
    if within_dominates:  # rates near one half, close between the systems: the tries' noise is the bulk
        pa = rng.uniform(0.4, 0.6, n)
        pb = pa + rng.uniform(-0.15, 0.25, n)
    else:  # the systems disagree strongly item by item
        pa = rng.random(n)
        pb = rng.random(n)
    A = (rng.random((n, k)) < pa[:, None]).astype(float)
    B = (rng.random((n, k)) < pb[:, None]).astype(float)
    frame = pd.concat([long_frame(A, "base"), long_frame(B, "cand")], ignore_index=True)
    res = repeats.run(table_of(frame), repeats.Options(item="sample_id", outcome="score", repeat="epoch",
                                                       system="model", baseline_system="base"))
    var_e, e_var = eval_arena_paired(B, A)
    vd = max(var_e, 0.0)
    z = 1.959963984540054
    pair = {"from_": "base", "to": "cand"}
    assert res.value("half_width_twice_items", **pair) == pytest.approx(z * np.sqrt((vd + e_var / k) / (2 * n)))
    assert res.value("half_width_twice_repeats", **pair) == pytest.approx(z * np.sqrt((vd + e_var / (2 * k)) / n))
    assert res.value("half_width_repeats_floor", **pair) == pytest.approx(z * np.sqrt(vd / n), abs=1e-15)
    text = " ".join(answer(res).sentences)
    assert bool(e_var / k > vd) is within_dominates and vd > 0
    if vd > 0:
        assert "Doubling the items narrows the interval of the difference more than doubling the repeats" in text
    else:
        assert "narrow the interval of the difference alike" in text
    if within_dominates and vd > 0:
        assert "more repeats on the same items come close" in text
    if not within_dominates:
        floor = 100 * z * np.sqrt(vd / n)
        assert f"never narrow it below ±{floor:.1f} pts" in text  # in the card's unit (issue 44)


def test_passk_curve_from_the_same_tries_equals_chen_formula():
    from math import comb

    rng = np.random.default_rng(4)
    tries = rng.integers(3, 7, 80)  # unequal K: the curve runs to K_min = 3
    p = rng.random(80)
    rows = [(f"s{i}", e, int(rng.random() < p[i])) for i in range(80) for e in range(1, tries[i] + 1)]
    frame = pd.DataFrame(rows, columns=["item", "epoch", "correct"])
    res = repeats.run(table_of(frame), repeats.Options(item="item", outcome="correct", repeat="epoch"))
    curve = res.table("passk").frame
    nn = frame.groupby("item", sort=False)["correct"].size().to_numpy()
    cc = frame.groupby("item", sort=False)["correct"].sum().to_numpy()
    assert list(curve["k"]) == [1, 2, 3] and (curve["items"] == 80).all()
    for k in (1, 2, 3):
        at = np.mean([1 - comb(n - c, k) / comb(n, k) for n, c in zip(nn, cc)])
        hat = np.mean([comb(c, k) / comb(n, k) for n, c in zip(nn, cc)])
        row = curve[curve["k"] == k].iloc[0]
        assert row["pass@k"] == pytest.approx(at, rel=1e-12) and row["pass^k"] == pytest.approx(hat, rel=1e-12)
    assert "passk:unbiased" in res.signature


def test_scores_have_no_passk_curve_and_say_why():
    frame = pd.DataFrame({"item": list("aabb"), "epoch": [1, 2, 1, 2], "score": [0.5, 0.7, 0.2, 0.2]})
    res = repeats.run(table_of(frame), repeats.Options(item="item", outcome="score", repeat="epoch"))
    assert "passk" not in [t.name for t in res.tables]
    assert any("No pass@k curve" in n for n in res.notes)


def test_json_rows_column_by_column_equal_pandas_records():
    """The JSON tables are built column by column (speed); the rows equal pandas' own records
    cleaned value by value (NaN and inf -> null, numpy scalars -> Python, pandas' NA -> null)."""
    from workbench.core.result import _clean, _json_rows

    frame = pd.DataFrame({"a": [1, 2], "b": [np.nan, 1.5], "c": ["x", None],
                          "d": pd.array([1, None], dtype="Int64"), "e": [True, False],
                          "s": pd.array(["u", None], dtype="string"), "i": [np.inf, 2.0],
                          "f32": np.array([1.5, np.nan], dtype=np.float32)})
    expected = [{k: _clean(v) for k, v in row.items()} for row in frame.to_dict("records")]
    assert _json_rows(frame) == expected
    assert _json_rows(frame)[1] == {"a": 2, "b": 1.5, "c": None, "d": None, "e": False, "s": None, "i": 2.0,
                                    "f32": None}


def test_json_output_puts_a_table_row_per_line_and_parses_back():
    import json

    from workbench.cli.main import dumps_result

    doc = {"analysis": "x", "results": [{"metric": "m", "value": 1.5}],
           "tables": {"items": [{"item": "é", "k": 2, "share": None}, {"item": "b", "k": 1, "share": 0.5}],
                      "empty": []}}
    text = dumps_result(doc)
    assert json.loads(text) == doc
    assert '      {"item": "é", "k": 2, "share": null},\n' in text  # one line per row, UTF-8 kept
    assert json.loads(dumps_result({"a": 1})) == {"a": 1} and json.loads(dumps_result({"a": 1, "tables": {}})) == {
        "a": 1, "tables": {}}
