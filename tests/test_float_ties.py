"""Issue 22, items 1-3: ties and zeros of paired differences on decimal scores.

The references are computed on integer-scaled copies of the same data (no float noise can
exist there): scipy's tie-aware Wilcoxon on integers, an exact sign-flip enumeration in
integers, pytrec-eval-terrier's per-query P@10 for the ranking case.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import table_of
from workbench.analyses import compare, ranking, text
from workbench.metrics import paired as pm


def exact_sign_flip_p(k: np.ndarray) -> float:
    """All 2^m sign patterns of the non-zero integer differences, in integers."""
    nz = [int(x) for x in k if x != 0]
    if not nz:
        return 1.0
    obs = abs(sum(nz))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(nz))
               if abs(sum(s * abs(x) for s, x in zip(signs, nz))) >= obs)
    return hits / 2 ** len(nz)


def test_the_issue_float_pair_is_one_tie():
    k, q = pm.difference_units([0.3 - 0.2, 0.4 - 0.3, -(0.7 - 0.6)])
    assert k[0] == k[1] == -k[2] and q == pytest.approx(1e-10)
    assert pm.direction_counts([0.1 + 0.2 - 0.3, 0.0, 0.2]).tied == 2


def test_wilcoxon_on_p_at_10_equals_scipy_on_integers():
    rng = np.random.default_rng(22)
    worse = 0
    for _ in range(200):
        a = rng.integers(0, 11, 25)
        b = np.clip(a + rng.integers(-2, 3, 25), 0, 10)
        if not np.any(b - a):
            continue
        ours = pm.summarize(a / 10, b / 10, resamples=1000, rounds=1000)
        ref = stats.wilcoxon(b - a, correction=False, method="auto")
        assert ours.wilcoxon.p == pytest.approx(ref.pvalue, rel=1e-9)
        naive = stats.wilcoxon(b / 10 - a / 10, correction=False, method="auto").pvalue
        worse += abs(naive - ref.pvalue) > 1e-6
    assert worse > 50  # the float differences really do split ties: the test can fail


def test_exact_randomization_with_zero_mean_difference_is_one():
    base = np.array([0.1, 0.2, 0.3, 0.4, 0.7, 0.9])
    cand = np.array([0.2, 0.1, 0.4, 0.3, 0.9, 0.7])  # differences +-0.1, +-0.2: mean exactly 0
    ps = pm.summarize(base, cand, resamples=1000)
    assert ps.randomization.method == "exact" and ps.randomization.p == 1.0


@pytest.mark.parametrize("step,scale", [(0.1, 10), (0.05, 20), (1 / 3, 3)])
def test_exact_randomization_matches_integer_enumeration(step, scale):
    rng = np.random.default_rng(int(scale))
    for _ in range(30):
        a = rng.integers(0, 4, 9)
        b = rng.integers(0, 4, 9)
        ps = pm.summarize(a * step, b * step, resamples=1000)
        assert ps.randomization.p == pytest.approx(exact_sign_flip_p(b - a), abs=1e-12)
        assert ps.directions.tied == int(np.sum(a == b))


def test_constant_difference_up_to_noise_runs_and_says_so():
    frame = pd.DataFrame({"id": ["a", "b", "c"], "old": [0.1, 0.2, 0.5], "new": [0.3, 0.4, 0.7]})
    res = compare.run(table_of(frame), compare.Options(baseline="old", candidate="new", item="id"))
    assert "ties:" + pm.TIES_SIGNATURE in res.signature
    assert res.value("improved") == 3 and res.value("worse") == 0
    assert res.value("t_test_p") == 0.0  # SD exactly 0 (scipy on [2, 2, 2] gives t = inf, p = 0)
    assert res.value("randomization_p") == pytest.approx(exact_sign_flip_p(np.array([2, 2, 2])))
    assert any("differ by exactly +0.200" in n for n in res.notes)
    hist = res.table("bootstrap").frame
    assert int(hist["resamples"].sum()) == 10_000


def test_ranking_systems_compared_wilcoxon_on_p_at_10():
    """P@10 per query from two runs: the Systems compared Wilcoxon p is scipy's on 10 x P@10."""
    rng = np.random.default_rng(7)
    rows = []
    for system in ("A", "B"):
        for q in range(30):
            for d in range(10):
                rel = int(rng.random() < (0.3 if system == "A" else 0.4))
                rows.append((system, f"q{q}", f"{system}{d}", 10.0 - d, rel))
    # qrels live in the run rows: each system's documents are its own, judged as drawn
    frame = pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"])
    res = ranking.run(table_of(frame), ranking.Options(system="system", ks=(10,)))
    q = res.table("queries").frame
    pa = q[q.system == "A"].set_index("query")["p@10"]
    pb = q[q.system == "B"].set_index("query")["p@10"].loc[pa.index]
    ints = np.rint(pb.to_numpy() * 10) - np.rint(pa.to_numpy() * 10)
    ref = stats.wilcoxon(ints, correction=False, method="auto").pvalue
    ours = res.value("wilcoxon_p:p@10", from_="A", to="B")
    assert ours == pytest.approx(ref, rel=1e-9)
    assert "ties:" + pm.TIES_SIGNATURE in res.signature


def test_identical_text_systems_have_corpus_p_one_with_a_note():
    hyp = ["the cat sat on the mat", "a dog barked loudly", "hello world", "so it goes"]
    ref = ["the cat is on the mat", "the dog barked", "hello there world", "and so it goes"]
    rows = [{"system": s, "id": i, "prediction": h, "reference": r}
            for s in ("A", "B") for i, (h, r) in enumerate(zip(hyp, ref))]
    res = text.run(table_of(pd.DataFrame(rows)), text.Options(system="system", id="id"))
    sc = res.table("systems_compared").frame.set_index("metric")
    for metric in ("bleu", "chrf"):
        assert sc.loc[metric, "paired_bs_p"] == 1.0 and sc.loc[metric, "paired_ar_p"] == 1.0
    assert sum("sacrebleu reports 1/(R+1)" in n for n in res.notes) == 2
    assert "corpus-zero-diff:p=1" in res.signature


def test_simpson_needs_better_in_every_segment_beyond_float_noise():
    from workbench.metrics.aggregate import simpson_pairs

    seed = simpson_pairs(np.array([[0.9, 0.1875], [0.8, 0.1]]), np.array([0.3, 0.6]), ["new", "old"])
    assert seed == [("new", "old")]
    # 0.1 + 0.2 against 0.3 is a tie, not "better in this segment"
    tie = simpson_pairs(np.array([[0.1 + 0.2, 0.5], [0.3, 0.4]]), np.array([0.3, 0.6]), ["new", "old"])
    assert tie == []
