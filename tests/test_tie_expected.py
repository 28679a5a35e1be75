"""Tie-expected nDCG@k and P@k (McSherry and Najork 2008) against a brute-force average over
every order of the tied documents, and against pytrec_eval where there are no ties."""

import itertools
import math

import numpy as np
import pytest

from workbench.metrics.ranking import rank_metrics, tie_expected

KS = (1, 2, 3, 5)


def _brute(q, score, grade, jq, jgrade, Q, gain, threshold):
    """Average of rank_metrics (file order breaks ties) over every order of the rows.

    Only the order of the rows of one query with one score (a tie) changes the ranking, and
    every such order is the same share of all the rows' permutations, so the average over all
    permutations is the average over each tie's orders combined (8 rows: 120 orders, not 40320).
    """
    ties: dict = {}
    for row in range(q.size):
        ties.setdefault((q[row], score[row]), []).append(row)
    orders = [[list(order) for order in itertools.permutations(rows)] for rows in ties.values()]
    sums = {k: np.zeros(Q) for k in KS}, {k: np.zeros(Q) for k in KS}, \
        {k: np.zeros(Q) for k in KS}, np.zeros(Q), np.zeros(Q)
    count = 0
    for combination in itertools.product(*orders):
        p = np.asarray([row for order in combination for row in order])
        arr = rank_metrics(q[p], score[p], None, grade[p], jq, jgrade, n_queries=Q, ks=KS,
                           gain=gain, threshold=threshold)
        for k in KS:
            sums[0][k] += arr.ndcg[k]
            sums[1][k] += arr.precision[k]
            sums[2][k] += arr.recall[k]
        sums[3][:] += arr.rr
        sums[4][:] += arr.ap
        count += 1
    return tuple({k: v / count for k, v in part.items()} for part in sums[:3]) + \
        (sums[3] / count, sums[4] / count)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("threshold", [1.0, 2.0])
def test_tie_expected_equals_brute_force_over_all_orders(gain, threshold):
    # two queries, 7 rows: query 0 has a tie of three (grades 2, 0, 1) below a tie of two
    q = np.array([0, 0, 0, 0, 0, 1, 1])
    score = np.array([0.9, 0.9, 0.5, 0.5, 0.5, 0.3, 0.3])
    grade = np.array([0, 3, 2, 0, 1, 1, 0], dtype=float)
    jq = np.array([0, 0, 0, 0, 0, 1, 1, 1])
    jgrade = np.array([0, 3, 2, 0, 1, 1, 0, 2], dtype=float)  # one judged doc never retrieved
    nd, pr, rc, rr, ap = _brute(q, score, grade, jq, jgrade, 2, gain, threshold)
    got = tie_expected(q, score, grade, jq, jgrade, n_queries=2, ks=KS, gain=gain,
                       threshold=threshold)
    for k in KS:
        np.testing.assert_allclose(got.ndcg[k], nd[k], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.precision[k], pr[k], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.recall[k], rc[k], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.rr, rr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.ap, ap, rtol=0, atol=1e-12)


def test_tie_expected_average_precision_with_large_groups():
    # query 0: a relevant document, then a tie of 4 with 2 relevant (one graded 2), then the
    # last; query 1: two tied documents, one relevant; 7 rows, 7! orders of the file
    q = np.array([0] * 5 + [1] * 2)
    score = np.array([9, 5, 5, 5, 5, 1, 1.0])
    grade = np.array([1, 0, 2, 0, 1, 1, 0], dtype=float)
    jq = np.r_[q, [0]]
    jgrade = np.r_[grade, [1.0]]  # a relevant document never retrieved (R counts it)
    *_, ap = _brute(q, score, grade, jq, jgrade, 2, "linear", 1.0)
    got = tie_expected(q, score, grade, jq, jgrade, n_queries=2, ks=KS)
    np.testing.assert_allclose(got.ap, ap, rtol=0, atol=1e-12)
    # by hand, query 1: the relevant document is first or second with probability 1/2: AP
    # (1/R = 1) * (1/2 * 1 + 1/2 * 1/2) = 0.75
    assert got.ap[1] == pytest.approx(0.75, abs=1e-15)


def test_tie_expected_reciprocal_rank_with_several_relevant_in_a_group():
    # one query: a non-relevant document first, then five tied documents of which two are
    # relevant, then a third (query 1: nothing relevant retrieved, RR 0)
    q = np.array([0] * 7 + [1])
    score = np.array([3, 2, 2, 2, 2, 2, 1, 1.0])
    grade = np.array([0, 1, 0, 0, 1, 0, 1, 0], dtype=float)
    nd, pr, rc, rr, _ap = _brute(q, score, grade, q, grade, 2, "linear", 1.0)
    got = tie_expected(q, score, grade, q, grade, n_queries=2, ks=KS)
    np.testing.assert_allclose(got.rr, rr, rtol=0, atol=1e-12)
    # by hand: the first relevant of the group is its 1st..4th with probability 2/5, 3/10,
    # 1/5, 1/10, at ranks 2..5
    assert got.rr[0] == pytest.approx(0.4 / 2 + 0.3 / 3 + 0.2 / 4 + 0.1 / 5, abs=1e-15)
    assert got.rr[1] == 0.0


def test_tie_expected_hand_value():
    # one query, two documents tied at the top, grades 1 and 0: expected DCG@1 = 0.5 / log2(2),
    # ideal DCG@1 = 1, so nDCG@1 = 0.5; P@1 = 0.5
    got = tie_expected([0, 0], [1.0, 1.0], [1, 0], [0, 0], [1, 0], n_queries=1, ks=(1, 2))
    assert got.ndcg[1][0] == pytest.approx(0.5, abs=1e-15)
    assert got.precision[1][0] == pytest.approx(0.5, abs=1e-15)
    # at k = 2 the relevant document is first (DCG 1) or second (DCG 1 / log2 3) in half the
    # orders each; ideal DCG@2 = 1
    assert got.ndcg[2][0] == pytest.approx(0.5 * (1 + 1 / math.log2(3)), abs=1e-15)


def test_without_ties_equals_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(3)
    docs = [f"d{i}" for i in range(8)]
    qrel = {"q": {d: int(g) for d, g in zip(docs, rng.integers(0, 3, 8))}}
    scores = rng.permutation(8) / 8.0  # distinct: no ties
    run = {"q": {d: float(s) for d, s in zip(docs, scores)}}
    ev = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut_3", "ndcg_cut_5", "P_5"})
    ref = ev.evaluate(run)["q"]
    grades = np.array([qrel["q"][d] for d in docs], dtype=float)
    got = tie_expected(np.zeros(8, int), scores, grades, np.zeros(8, int), grades,
                       n_queries=1, ks=(3, 5))
    assert got.ndcg[3][0] == pytest.approx(ref["ndcg_cut_3"], abs=1e-9)
    assert got.ndcg[5][0] == pytest.approx(ref["ndcg_cut_5"], abs=1e-9)
    assert got.precision[5][0] == pytest.approx(ref["P_5"], abs=1e-9)
    assert math.isfinite(got.ndcg[3][0])
