"""Proportion intervals at small n (issue 28): the published table of Bowyer et al. (2025) and
the references (scipy's exact binomial interval, statsmodels' Jeffreys and Wilson)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from workbench.metrics.intervals import proportion_interval, rate_interval_method

proportion_confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint


@pytest.mark.parametrize("k,n,method,expected", [
    # Bowyer et al. 2025, table 1 (three decimals)
    (20, 20, "beta11", (0.839, 0.999)), (20, 20, "clopper-pearson", (0.832, 1.000)),
    (20, 20, "wilson", (0.839, 1.000)), (18, 20, "beta11", (0.696, 0.970)),
    (18, 20, "clopper-pearson", (0.683, 0.988)), (18, 20, "wilson", (0.699, 0.972)),
])
def test_published_small_n_table(k, n, method, expected):
    assert tuple(round(x, 3) for x in proportion_interval(k, n, method)) == expected


def test_the_normal_interval_is_wrong_there():
    assert proportion_interval(20, 20, "wald") == (1.0, 1.0)          # zero width
    assert proportion_interval(18, 20, "wald")[1] > 1.0               # past 1


@pytest.mark.parametrize("n", [1, 7, 29, 30, 250])
def test_against_scipy_and_statsmodels(n):
    for k in sorted({0, 1, n // 3, n - 1, n}):
        if not 0 <= k <= n:
            continue
        cp = stats.binomtest(k, n).proportion_ci(method="exact")
        assert proportion_interval(k, n, "clopper-pearson") == pytest.approx((cp.low, cp.high), abs=1e-12)
        jl, jh = proportion_confint(k, n, method="jeffreys")
        # Brown, Cai and DasGupta's Jeffreys interval ends at 0 (1) when k = 0 (k = n);
        # statsmodels gives the Beta quantile there
        jl, jh = (0.0 if k == 0 else jl), (1.0 if k == n else jh)
        assert proportion_interval(k, n, "jeffreys") == pytest.approx((jl, jh), abs=1e-12)
        assert proportion_interval(k, n, "wilson") == pytest.approx(proportion_confint(k, n, method="wilson"),
                                                                    abs=1e-12)
        post = stats.beta(k + 1, n - k + 1)
        assert proportion_interval(k, n, "beta11") == pytest.approx((post.ppf(0.025), post.ppf(0.975)), abs=1e-12)


def test_which_interval_a_rate_gets():
    assert rate_interval_method(18, 20) == "clopper-pearson"
    assert rate_interval_method(300, 300) == "clopper-pearson"
    assert rate_interval_method(0, 500) == "clopper-pearson"
    assert rate_interval_method(120, 200) == "wilson"
