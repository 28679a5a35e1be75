"""Release-rule ranking conditions decided by the randomization or the Wilcoxon test."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from conftest import table_of
from workbench.analyses import ranking
from workbench.rules import PASS

from test_rule_evaluate import gate, row, rule_text, run_frame  # noqa: E402  (shared builders)


@pytest.mark.parametrize("test", ["randomization", "wilcoxon"])
def test_ranking_condition_with_the_new_tests(test):
    frame = run_frame(cand="reversed")
    text = rule_text(f'[[condition]]\nmetric = "mrr"\nmin_gain = 0\ntest = "{test}"\ninterval = "normal"\n',
                     baseline="dense", candidate="bm25")
    r = row(gate(text, frame))
    ra = ranking.run(table_of(frame), ranking.Options(system="system", ks=(1,)))
    q = ra.table("queries").frame
    x = q[q.system == "dense"].set_index("query")["rr"]
    y = q[q.system == "bm25"].set_index("query")["rr"].loc[x.index]
    d = y.to_numpy() - x.to_numpy()
    if test == "wilcoxon":
        # reciprocal ranks: 1/2 - 1/3 and 1/3 - 1/6 are one tie in exact arithmetic; scipy on the
        # differences rounded to 12 decimals is the tie-aware reference (on raw floats it is not)
        assert r["p_value"] == pytest.approx(stats.wilcoxon(np.round(d, 12), correction=False).pvalue, rel=1e-9)
        assert "Wilcoxon signed-rank test" in r["basis"]
    else:
        assert r["p_value"] < 0.001 and "randomization (sign-flip) test" in r["basis"]
        ref = stats.permutation_test((d, np.zeros_like(d)), lambda a, b, axis=-1: np.mean(a - b, axis=axis),
                                     permutation_type="samples", n_resamples=20_000, vectorized=True,
                                     rng=np.random.default_rng(1))
        assert r["p_value"] == pytest.approx(ref.pvalue, abs=0.002)
    assert r["status"] == PASS


def test_ranking_condition_with_the_t_test_states_t_df_and_dz():
    frame = run_frame(cand="reversed")
    text = rule_text('[[condition]]\nmetric = "mrr"\nmin_gain = 0\ntest = "t"\ninterval = "normal"\n',
                     baseline="dense", candidate="bm25")
    r = row(gate(text, frame))
    ra = ranking.run(table_of(frame), ranking.Options(system="system", ks=(1,)))
    q = ra.table("queries").frame
    x = q[q.system == "dense"].set_index("query")["rr"]
    y = q[q.system == "bm25"].set_index("query")["rr"].loc[x.index]
    ref = stats.ttest_rel(y.to_numpy(), x.to_numpy())
    d = y.to_numpy() - x.to_numpy()
    assert f"t({int(ref.df)}) = {ref.statistic:.2f}, d_z = {d.mean() / d.std(ddof=1):.2f}" in r["basis"]
