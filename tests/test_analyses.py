"""Behaviour of each analysis on hand-made cases: conventions, policies, notes and refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import table_of
from workbench.analyses import aggregate, compare, cost, passk, ranking, text
from workbench.core.errors import DataError, OptionError


# --- ranking ----------------------------------------------------------------------------------

def _run(rows, **opts):
    frame = pd.DataFrame(rows, columns=["query", "doc", "score", "relevance"])
    return ranking.run(table_of(frame), ranking.Options(**opts))


def test_tie_policy_trec_eval_sorts_doc_id_descending_and_stable_keeps_file_order():
    rows = [["q", "a", 1.0, 1], ["q", "b", 1.0, 0]]
    trec = _run(rows, ks=(1,), ties="trec_eval")
    stable = _run(rows, ks=(1,), ties="stable")
    assert trec.value("mrr") == pytest.approx(0.5)  # "b" > "a", so b ranks first
    assert stable.value("mrr") == pytest.approx(1.0)
    assert any("1 query has tied scores" in n for n in trec.notes)
    assert "ties:stable" in stable.signature


def test_no_relevant_policy_zero_keeps_and_skip_leaves_out():
    rows = [["q1", "a", 2, 1], ["q1", "b", 1, 0], ["q2", "c", 2, 0], ["q2", "d", 1, 0]]
    zero = _run(rows, ks=(1,), no_relevant="zero")
    skip = _run(rows, ks=(1,), no_relevant="skip")
    assert zero.value("p@1") == pytest.approx(0.5) and zero.find("p@1")[0]["n"] == 2
    assert skip.value("p@1") == pytest.approx(1.0) and skip.find("p@1")[0]["n"] == 1
    assert any("left out" in n for n in skip.notes)
    assert any("scored 0" in n for n in zero.notes)


def test_qrels_add_unretrieved_relevant_documents(tmp_path):
    run = pd.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2, 1]})
    qrels = tmp_path / "qrels.csv"
    pd.DataFrame({"query": ["q", "q", "q"], "doc": ["a", "z", "b"],
                  "relevance": [1, 1, 0]}).to_csv(qrels, index=False)
    res = ranking.run(table_of(run), ranking.Options(query="query", doc="doc", score="score",
                                                     qrels=str(qrels), ks=(2,)))
    assert res.value("r@2") == pytest.approx(0.5)  # z was never retrieved
    assert res.value("map") == pytest.approx(0.5)
    assert res.value("ndcg@2") == pytest.approx(1 / (1 + 1 / np.log2(3)))
    assert any("never retrieved" in n for n in res.notes)


def test_qrels_only_query_scores_zero(tmp_path):
    run = pd.DataFrame({"query": ["q1"], "doc": ["a"], "score": [1.0]})
    qrels = tmp_path / "qrels.csv"
    pd.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "relevance": [1, 1]}).to_csv(qrels, index=False)
    res = ranking.run(table_of(run), ranking.Options(query="query", doc="doc", score="score",
                                                     qrels=str(qrels), ks=(1,)))
    assert res.value("p@1") == pytest.approx(0.5) and res.find("p@1")[0]["n"] == 2


def test_rank_column_orders_ascending():
    frame = pd.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "rank": [3, 1, 2],
                          "relevance": [1, 0, 0]})
    res = ranking.run(table_of(frame), ranking.Options(rank="rank", ks=(1, 3)))
    assert res.value("mrr") == pytest.approx(1 / 3)
    assert "order:rank-asc" in res.signature


def test_relevance_threshold_affects_binary_metrics_only():
    rows = [["q", "a", 3, 1], ["q", "b", 2, 2]]
    res = _run(rows, ks=(1,), relevance_threshold=2)
    assert res.value("p@1") == 0.0 and res.value("mrr") == pytest.approx(0.5)
    assert res.value("ndcg@1") == pytest.approx(1 / 2)  # grades still count as gains
    assert "rel:>=2" in res.signature


def test_duplicate_query_doc_is_refused_with_lines():
    with pytest.raises(DataError, match=r"lines 2, 3"):
        _run([["q", "a", 1, 1], ["q", "a", 0.5, 1]], ks=(1,))


def test_per_system_metrics_and_pooled_judgments():
    frame = pd.DataFrame({
        "system": ["A", "A", "B", "B"], "query": ["q"] * 4, "doc": ["x", "y", "y", "z"],
        "score": [2, 1, 2, 1], "relevance": [1, 0, 0, 1],
    })
    res = ranking.run(table_of(frame), ranking.Options(system="system", ks=(2,)))
    # two relevant documents are known (x and z); each system found one of them
    assert res.value("r@2", system="A") == pytest.approx(0.5)
    assert res.value("r@2", system="B") == pytest.approx(0.5)
    assert res.value("mrr", system="A") == pytest.approx(1.0)
    assert res.value("mrr", system="B") == pytest.approx(0.5)


def test_conflicting_grades_are_refused():
    frame = pd.DataFrame({"system": ["A", "B"], "query": ["q", "q"], "doc": ["x", "x"],
                          "score": [1, 1], "relevance": [1, 0]})
    with pytest.raises(DataError, match="different relevance grades"):
        ranking.run(table_of(frame), ranking.Options(system="system", ks=(1,)))


def test_bad_options_are_refused():
    rows = [["q", "a", 1, 1]]
    with pytest.raises(OptionError, match="gain"):
        _run(rows, gain="cubic")
    with pytest.raises(OptionError, match="k"):
        _run(rows, ks=(0,))


# --- pass@k -----------------------------------------------------------------------------------

def test_task_with_fewer_attempts_than_k_is_left_out_and_counted():
    frame = pd.DataFrame({"task": ["t1", "t2"], "n": [10, 3], "c": [3, 3]})
    res = passk.run(table_of(frame), passk.Options(n="n", correct="c", ks=(5,)))
    assert res.value("pass@5") == pytest.approx(1 - 21 / 252)  # t2 (n=3 < 5) is not a 1.0
    assert res.find("pass@5")[0]["n"] == 1
    assert any("fewer than 5 attempts" in n for n in res.notes)


def test_pass_at_k_with_thousands_of_attempts_is_finite():
    frame = pd.DataFrame({"task": ["t"], "n": [5000], "c": [40]})
    res = passk.run(table_of(frame), passk.Options(n="n", correct="c", ks=(1, 100, 1000)))
    assert res.value("pass@1") == pytest.approx(40 / 5000)
    assert 0 < res.value("pass@100") < res.value("pass@1000") <= 1


def test_more_passes_than_attempts_is_refused():
    frame = pd.DataFrame({"task": ["t1", "t2"], "n": [10, 3], "c": [3, 4]})
    with pytest.raises(DataError, match="line 3"):
        passk.run(table_of(frame), passk.Options(n="n", correct="c"))


def test_per_system_pass_at_k_from_attempt_rows():
    frame = pd.DataFrame({"system": ["A"] * 4 + ["B"] * 4, "task": ["t"] * 8,
                          "success": [1, 0, 0, 0, 1, 1, 1, 0]})
    res = passk.run(table_of(frame), passk.Options(success="success", system="system", ks=(1, 2)))
    assert res.value("pass@1", system="A") == pytest.approx(0.25)
    assert res.value("pass^2", system="B") == pytest.approx(3 / 6)


# --- aggregate --------------------------------------------------------------------------------

def test_zero_denominator_units_are_excluded_and_counted():
    frame = pd.DataFrame({"unit": ["a", "b", "c"], "num": [1, 2, 0], "den": [1, 10, 0]})
    res = aggregate.run(table_of(frame), aggregate.Options(numerator="num", denominator="den", unit="unit"))
    assert res.value("mean_of_ratios") == pytest.approx(0.6)
    assert res.find("mean_of_ratios")[0]["n"] == 2
    assert any("zero denominator" in n for n in res.notes)


def test_outcome_per_unit_pooled_vs_mean():
    frame = pd.DataFrame({"conv": ["A"] + ["B"] * 10, "ok": [1] + [1, 1] + [0] * 8})
    res = aggregate.run(table_of(frame), aggregate.Options(outcome="ok", unit="conv"))
    assert res.value("pooled_ratio") == pytest.approx(3 / 11)
    assert res.value("mean_of_ratios") == pytest.approx(0.6)


def test_no_simpson_when_the_better_version_is_better_overall():
    frame = pd.DataFrame({"v": ["a"] * 4 + ["b"] * 4, "g": ["x", "x", "y", "y"] * 2,
                          "ok": [1, 1, 1, 0, 1, 0, 0, 0]})
    res = aggregate.run(table_of(frame), aggregate.Options(outcome="ok", group="g", version="v"))
    assert res.value("simpson") is False


# --- compare ----------------------------------------------------------------------------------

def test_long_form_reports_unmatched_items_and_uses_the_common_ones():
    frame = pd.DataFrame({"system": ["A", "A", "A", "B", "B"], "item": ["1", "2", "3", "1", "2"],
                          "ok": [0, 1, 1, 1, 1]})
    res = compare.run(table_of(frame), compare.Options(system="system", item="item", outcome="ok",
                                                       baseline_system="A", candidate_system="B",
                                                       resamples=1000))
    assert res.value("wins") == 1 and res.value("ties") == 1
    assert res.find("diff")[0]["n"] == 2
    assert any("scored only by 'A'" in n for n in res.notes)


def test_duplicate_item_ids_are_refused():
    frame = pd.DataFrame({"item": ["1", "1"], "a": [0, 1], "b": [1, 1]})
    with pytest.raises(DataError, match="item id"):
        compare.run(table_of(frame), compare.Options(baseline="a", candidate="b", item="item"))


def test_no_discordant_pair_gives_empty_mcnemar():
    frame = pd.DataFrame({"a": [1, 0, 1], "b": [1, 0, 1]})
    res = compare.run(table_of(frame), compare.Options(baseline="a", candidate="b", resamples=1000))
    assert res.value("mcnemar_p") is None and res.value("sign_test_p") == 1.0


def test_bootstrap_is_reproducible_by_seed():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 2, 997), "b": rng.integers(0, 2, 997)})
    opts = dict(baseline="a", candidate="b", resamples=2000)

    def run(seed):
        res = compare.run(table_of(frame), compare.Options(seed=seed, **opts))
        return res.find("bootstrap_ci")[0], res.table("bootstrap").frame["resamples"].tolist()

    (one, hist1), (again, hist2), (_, hist3) = run(1), run(1), run(2)
    assert one == again and hist1 == hist2
    assert hist1 != hist3
    assert "seed:1|" in compare.run(table_of(frame), compare.Options(seed=1, **opts)).signature


def _in_one_bin(hist, samples):
    low, high = hist["bin_low"].to_numpy(), hist["bin_high"].to_numpy()
    inside = (samples[:, None] >= low) & (samples[:, None] < high)
    inside[:, -1] |= samples == high[-1]  # numpy's last bin is closed
    return inside.sum(axis=1)


def test_bootstrap_histogram_of_fourteen_to_five_is_one_bar_per_possible_difference(examples):
    # 14 wins, 5 losses, 181 ties on 200 items: resampled differences are multiples of 1/200
    from workbench.io import load_table
    from workbench.metrics import significance as sg

    table = load_table(examples / "paired_14_to_5.csv")
    res = compare.run(table, compare.Options(baseline="baseline", candidate="candidate", item="item_id",
                                             cluster=None))
    assert "bs-unit:items" in res.signature
    hist = res.table("bootstrap").frame
    diff = hist["difference"].to_numpy()
    np.testing.assert_allclose(diff * 200, np.round(diff * 200), atol=1e-9)  # on the lattice
    np.testing.assert_allclose(np.diff(diff), 1 / 200)  # one bar per possible value, none skipped
    np.testing.assert_allclose(hist["bin_high"] - hist["bin_low"], 1 / 200)
    np.testing.assert_allclose((hist["bin_low"] + hist["bin_high"]) / 2, diff)
    counts = hist["resamples"].to_numpy()
    populated = np.flatnonzero(counts > 0)
    assert (counts[populated[0]:populated[-1] + 1] > 0).all()  # no empty bar between populated ones
    assert counts.sum() == 10_000
    # the same resamples as the analysis draws (item cells, seed 12345), each in exactly one bar
    samples = sg.bootstrap_paired_counts(14, 5, 200, resamples=10_000, seed=12345)
    assert (_in_one_bin(hist, samples) == 1).all()
    k = np.round(samples * 200).astype(int)
    expected = np.bincount(k - k.min())
    np.testing.assert_array_equal(counts, expected)
    # the old 40 equal bins left empty bins between populated ones
    old, _ = np.histogram(samples, bins=40)
    nz = np.flatnonzero(old)
    assert (old[nz[0]:nz[-1] + 1] == 0).any()


def test_bootstrap_histogram_merges_whole_lattice_steps_when_there_are_too_many():
    from workbench.analyses.compare import HIST_MAX_BARS, bootstrap_histogram

    rng = np.random.default_rng(3)
    n = 1000
    samples = rng.integers(-150, 251, 5000) / n  # 401 possible values
    hist, columns = bootstrap_histogram(samples, n)
    assert len(hist) <= HIST_MAX_BARS and "difference" in columns
    width = np.round((hist["bin_high"] - hist["bin_low"]).to_numpy() * n, 9)
    assert len(set(width)) == 1 and width[0] % 2 == 1 and width[0] > 1  # odd whole lattice steps
    w = int(width[0])
    np.testing.assert_allclose(hist["difference"] * n / w, np.round(hist["difference"] * n / w), atol=1e-9)
    # every edge lies half-way between two lattice points: no lattice point is split
    edges = np.concatenate([hist["bin_low"], hist["bin_high"]]) * n
    np.testing.assert_allclose(edges - np.floor(edges), 0.5, atol=1e-9)
    assert (_in_one_bin(hist, samples) == 1).all()
    assert hist["resamples"].sum() == samples.size
    # each bar counts the resamples whose lattice point is among its w
    k = np.round(samples * n).astype(int)
    for mid, count in zip(np.round(hist["difference"] * n).astype(int), hist["resamples"]):
        assert count == np.count_nonzero(np.abs(k - mid) <= w // 2)


def test_bootstrap_histogram_off_the_lattice_keeps_equal_bins():
    from workbench.analyses.compare import HIST_BINS, bootstrap_histogram

    samples = np.random.default_rng(4).normal(0.01, 0.02, 3000)
    hist, _ = bootstrap_histogram(samples, None)
    assert "difference" not in hist and len(hist) == HIST_BINS
    np.testing.assert_allclose(np.diff(hist["bin_low"]), (samples.max() - samples.min()) / HIST_BINS)
    assert (_in_one_bin(hist, samples) == 1).all() and hist["resamples"].sum() == 3000
    # samples not on the lattice given are binned as off it
    assert "difference" not in bootstrap_histogram(samples, 200)[0]
    assert len(bootstrap_histogram(np.array([np.nan]), 200)[0]) == 0


def test_lattice_of_equal_clusters_and_integer_scores_none_for_unequal_clusters_or_real_scores(examples):
    from workbench.io import load_table

    # 100 conversations of 2 items: every resample has 200 items, differences on k/200
    table = load_table(examples / "paired_14_to_5.csv")
    res = compare.run(table, compare.Options(baseline="baseline", candidate="candidate", item="item_id",
                                             cluster="conversation", resamples=2000))
    hist = res.table("bootstrap").frame
    assert "bs-unit:clusters:conversation" in res.signature
    np.testing.assert_allclose(np.diff(hist["difference"]), 1 / 200)
    assert hist["resamples"].sum() == 2000
    # clusters of 1 to 4 items: resampled ratios are off any 1/n lattice
    rng = np.random.default_rng(6)
    sizes = rng.integers(1, 5, 80)
    cl = np.repeat(np.arange(80), sizes)
    frame = pd.DataFrame({"a": rng.integers(0, 2, cl.size), "b": rng.integers(0, 2, cl.size), "c": cl})
    res = compare.run(table_of(frame), compare.Options(baseline="a", candidate="b", cluster="c", resamples=2000))
    hist = res.table("bootstrap").frame
    assert "bs-unit:clusters:c" in res.signature
    assert "difference" not in hist and len(hist) == 40 and hist["resamples"].sum() == 2000
    rng = np.random.default_rng(5)
    ratings = pd.DataFrame({"a": rng.integers(1, 6, 300), "b": rng.integers(1, 6, 300)})
    res = compare.run(table_of(ratings), compare.Options(baseline="a", candidate="b", resamples=2000))
    hist = res.table("bootstrap").frame
    assert "family:continuous" in res.signature
    # integer differences: means on k/300, here merged into bars of w whole lattice steps
    w = round(float(hist["bin_high"].iloc[0] - hist["bin_low"].iloc[0]) * 300)
    assert w % 2 == 1
    np.testing.assert_allclose(np.diff(hist["difference"]), w / 300)
    np.testing.assert_allclose(hist["difference"] * 300, np.round(hist["difference"] * 300), atol=1e-9)
    assert hist["resamples"].sum() == 2000
    scores = ratings + rng.random((300, 2)) / 10
    hist = compare.run(table_of(scores), compare.Options(baseline="a", candidate="b",
                                                         resamples=2000)).table("bootstrap").frame
    assert "difference" not in hist and len(hist) == 40 and hist["resamples"].sum() == 2000


def test_discordant_items_keep_their_original_columns():
    frame = pd.DataFrame({"item": ["x", "y", "z"], "a": [0, 1, 1], "b": [1, 0, 1], "note": ["p", "q", "r"]})
    res = compare.run(table_of(frame), compare.Options(baseline="a", candidate="b", item="item",
                                                       resamples=1000))
    disc = res.table("discordant").frame
    assert list(disc["item"]) == ["x", "y"] and list(disc["result"]) == ["win", "loss"]
    assert list(disc["input:note"]) == ["p", "q"]


# --- cost -------------------------------------------------------------------------------------

def test_nearest_rank_percentile_and_zero_successes():
    frame = pd.DataFrame({"system": ["A"] * 4, "success": [0] * 4, "cost": [1.0] * 4,
                          "latency": [1.0, 2.0, 3.0, 4.0]})
    res = cost.run(table_of(frame), cost.Options(percentile_method="nearest_rank"))
    assert res.value("latency_p50", system="A") == 2.0  # ceil(0.5 * 4) = 2nd value
    assert res.value("latency_p95", system="A") == 4.0
    assert res.value("cost_per_success", system="A") is None
    lin = cost.run(table_of(frame), cost.Options(percentile_method="linear"))
    assert lin.value("latency_p50", system="A") == 2.5


def test_negative_cost_is_refused():
    frame = pd.DataFrame({"system": ["A", "A"], "success": [1, 0], "cost": [0.1, -0.2]})
    with pytest.raises(DataError, match="line 3"):
        cost.run(table_of(frame), cost.Options())


def test_without_latency_the_percentiles_are_left_out_with_a_note():
    frame = pd.DataFrame({"system": ["A", "B"], "success": [1, 1], "cost": [0.1, 0.2]})
    res = cost.run(table_of(frame), cost.Options())
    assert not res.find("latency_p95", system="A")
    assert any("latency" in n for n in res.notes)


# --- text -------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode, expected", [("none", 0.0), ("case_ws", 0.0), ("squad", 1.0)])
def test_normalisation_modes(mode, expected):
    frame = pd.DataFrame({"prediction": ["The  Refund."], "reference": ["refund"]})
    res = text.run(table_of(frame), text.Options(normalize=mode))
    assert res.value("exact_match") == expected
    assert f"norm:{mode}" in res.signature


def test_case_ws_collapses_case_and_whitespace():
    frame = pd.DataFrame({"prediction": ["  Refund   IN 7 days "], "reference": ["refund in 7 days"]})
    assert text.run(table_of(frame), text.Options(normalize="case_ws")).value("exact_match") == 1.0
    assert text.run(table_of(frame), text.Options(normalize="none")).value("exact_match") == 0.0


def test_both_empty_scores_one_in_token_f1():
    frame = pd.DataFrame({"prediction": ["", "x"], "reference": ["", ""]})
    res = text.run(table_of(frame), text.Options())
    assert list(res.table("items").frame["token_f1"]) == [1.0, 0.0]


def test_non_latin_text_gets_a_rouge_note():
    frame = pd.DataFrame({"prediction": ["नमस्ते दुनिया"], "reference": ["नमस्ते दुनिया"]})
    res = text.run(table_of(frame), text.Options())
    assert any("rouge-score" in n and "[a-z0-9]" in n for n in res.notes)


def test_literal_na_strings_are_text_not_missing(tmp_path):
    from workbench.io import load_table

    path = tmp_path / "t.csv"
    path.write_text("prediction,reference\nNA,NA\nNone,None\nnull,nan\n", encoding="utf-8")
    res = text.run(load_table(path), text.Options(normalize="none"))
    assert list(res.table("items").frame["exact_match"]) == [1.0, 1.0, 0.0]
