"""Property tests over the metric registry: ranges, invariance to row order, monotonicity."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import table_of
from workbench.analyses import aggregate, compare, cost, passk, ranking, text
from workbench.metrics import passk as pk
from workbench.metrics.registry import METRICS, spec_for

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WORDS = ["refund", "in", "7", "days", "the", "order", "ships", "cancel", "a", "Refund", "DAYS."]


def ranking_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(int(rng.integers(1, 8))):
        depth = int(rng.integers(1, 12))
        for d in range(depth):
            rows.append([f"q{q}", f"d{int(rng.integers(0, 30))}", float(rng.integers(0, 5)),
                         int(rng.integers(0, 4)), "A" if rng.random() < 0.5 else "B"])
    frame = pd.DataFrame(rows, columns=["query", "doc", "score", "relevance", "system"])
    frame = frame.drop_duplicates(["system", "query", "doc"]).reset_index(drop=True)
    # a judgment must be the same for every system: use one grade per (query, doc)
    frame["relevance"] = frame.groupby(["query", "doc"])["relevance"].transform("first")
    return frame


def text_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))

    def sentence():
        return " ".join(rng.choice(WORDS, size=int(rng.integers(0, 6))))

    return pd.DataFrame({"prediction": [sentence() for _ in range(n)],
                         "reference": [sentence() for _ in range(n)],
                         "system": rng.choice(["A", "B"], size=n)})


def binary_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    return pd.DataFrame({
        "item": [f"i{i}" for i in range(n)], "baseline": rng.integers(0, 2, n),
        "candidate": rng.integers(0, 2, n), "group": rng.choice(["g1", "g2", "g3"], n),
        "version": rng.choice(["v1", "v2"], n), "cluster": [f"c{i // 3}" for i in range(n)],
        "system": rng.choice(["A", "B", "C"], n), "cost": rng.random(n).round(3),
        "latency": rng.gamma(2.0, 0.5, n).round(3), "num": rng.integers(0, 5, n),
        "den": rng.integers(0, 6, n),
    })


def passk_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rng.integers(0, 30, size=int(rng.integers(1, 10)))
    c = np.array([rng.integers(0, m + 1) for m in n])
    return pd.DataFrame({"task": [f"t{i}" for i in range(len(n))], "n": n, "c": c})


CASES = {
    "text": (text_frame, lambda f: text.run(table_of(f), text.Options(system="system"))),
    "ranking": (ranking_frame, lambda f: ranking.run(table_of(f), ranking.Options(system="system"))),
    "passk": (passk_frame, lambda f: passk.run(table_of(f), passk.Options(n="n", correct="c", ks=(1, 3, 10)))),
    "aggregate": (binary_frame, lambda f: aggregate.run(table_of(f), aggregate.Options(
        outcome="candidate", group="group", version="version"))),
    "ratios": (binary_frame, lambda f: aggregate.run(table_of(f), aggregate.Options(
        numerator="num", denominator="den", unit="cluster"))),
    "compare": (binary_frame, lambda f: compare.run(table_of(f), compare.Options(
        baseline="baseline", candidate="candidate", item="item", resamples=1000, seed=7))),
    "compare-cluster": (binary_frame, lambda f: compare.run(table_of(f), compare.Options(
        baseline="baseline", candidate="candidate", item="item", cluster="cluster", resamples=1000))),
    "cost": (binary_frame, lambda f: cost.run(table_of(f), cost.Options(
        system="system", success="candidate", cost="cost", latency="latency"))),
}


def _key(rec: dict):
    return tuple(str(rec.get(k)) for k in ("metric", "system", "group", "version", "k", "from", "to"))


def _close(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


@pytest.mark.parametrize("case", sorted(CASES))
@SETTINGS
@given(seed=st.integers(0, 2**31 - 1))
def test_every_metric_is_registered_and_in_range(case, seed):
    make, run = CASES[case]
    result = run(make(seed))
    for rec in result.records:
        spec = spec_for(rec["metric"])
        for key in ("value", "ci_low", "ci_high"):
            v = rec.get(key)
            if isinstance(v, bool) or v is None:
                continue
            if spec.lower is not None:
                assert v >= spec.lower - 1e-12, (rec, spec)
            if spec.upper is not None:
                assert v <= spec.upper + 1e-12, (rec, spec)
        if rec.get("ci_low") is not None and rec.get("ci_high") is not None:
            assert rec["ci_low"] <= rec["ci_high"] + 1e-12


@pytest.mark.parametrize("case", sorted(CASES))
@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), perm_seed=st.integers(0, 2**31 - 1))
def test_results_do_not_depend_on_row_order(case, seed, perm_seed):
    make, run = CASES[case]
    frame = make(seed)
    shuffled = frame.sample(frac=1.0, random_state=perm_seed % (2**32 - 1)).reset_index(drop=True)
    a = {_key(r): r for r in run(frame).records}
    b = {_key(r): r for r in run(shuffled).records}
    assert a.keys() == b.keys()
    for key in a:
        for field in ("value", "n", "ci_low", "ci_high"):
            assert _close(a[key].get(field), b[key].get(field)), (key, field, a[key], b[key])


@SETTINGS
@given(n=st.integers(1, 300), data=st.data())
def test_pass_at_k_monotone_in_k_and_pass_hat_antitone(n, data):
    c = data.draw(st.integers(0, n))
    ks = range(1, n + 1)
    at = np.array([pk.pass_at_k([n], [c], k)[0] for k in ks])
    hat = np.array([pk.pass_hat_k([n], [c], k)[0] for k in ks])
    assert np.all(np.diff(at) >= -1e-12)
    assert np.all(np.diff(hat) <= 1e-12)
    assert np.all(hat <= at + 1e-12)
    assert at[0] == pytest.approx(c / n) and hat[0] == pytest.approx(c / n)
    assert np.all((at >= 0) & (at <= 1)) and np.all((hat >= 0) & (hat <= 1))


@SETTINGS
@given(n=st.integers(0, 50), c_frac=st.floats(0, 1), k=st.integers(1, 60))
def test_pass_at_k_is_never_one_for_n_below_k(n, c_frac, k):
    c = int(round(c_frac * n))
    value = pk.pass_at_k([n], [c], k)[0]
    if n < k:
        assert math.isnan(value)
    else:
        assert 0.0 <= value <= 1.0


def test_registry_names_are_unique_and_documented():
    assert all(spec.formula for spec in METRICS.values())
    assert len({s.name for s in METRICS.values()}) == len(METRICS)
