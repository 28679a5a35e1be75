"""Issue 44, Repeats: the card answers its two questions first (the difference of two models
leading), every half-width in the card's unit, "repeats needed" never blank without a reason
and never 1 when the items' spread alone is wider than the target; the standard error with
unequal repeats per item in its population form is a record."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import repeats
from workbench.io import load_table
from workbench.metrics import repeats as rp
from workbench.report.present import answer

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "tests" / "fixtures" / "cards"
EX = ROOT / "resources" / "examples"


def test_no_repeats_reach_a_target_the_items_spread_alone_misses(tmp_path):
    """Items always right or always wrong: no within-item spread, a wide data part.  Repeats
    needed was 1 (the model's noise is nil); no number of repeats narrows the items' spread."""
    rows = ["item,try,ok"] + [f"i{i},{t},{int(i % 2)}" for i in range(20) for t in range(3)]
    path = tmp_path / "fixed.csv"
    path.write_text("\n".join(rows) + "\n")
    res = repeats.run(load_table(path), repeats.Options(item="item", outcome="ok", repeat="try", target=0.05))
    assert res.value("var_within") == 0 and res.value("var_data") > 0
    assert res.value("repeats_needed") is None
    note = next(n for n in res.notes if "no number of repeats reaches ±5.0 pts" in n)
    assert "the items' own spread alone gives ±" in note
    assert "no number of repeats reaches it on the 20 items in hand" in answer(res).text


def test_the_card_answers_its_questions_first():
    res = repeats.run(load_table(CARDS / "repeats_unreachable.csv"), repeats.Options(system="model"))
    ans = answer(res)
    d = res.find("repeats_rate_diff")[0]
    assert ans.sentences[0].startswith("'model-b' vs 'model-a': +3.3 pts (normal 95% CI ")
    assert "The model's own randomness is " in ans.sentences[1]
    assert ans.sentences[2].startswith("For ±2.0 pts, no number of repeats reaches it for 'model-a' and 'model-b'")
    assert len(ans.sentences) <= 4 and d["value"] > 0
    for rec in res.find("repeats_needed"):
        assert rec["value"] is None
    assert all("0.02" not in s for s in ans.sentences)  # the target in points, as the card speaks


def test_repeats_needed_are_given_when_reachable():
    res = repeats.run(load_table(EX / "repeats_epochs.csv"), repeats.Options(system="model", target=0.07))
    ans = answer(res).text
    for rec in res.find("repeats_needed"):
        assert isinstance(rec["value"], int) and rec["value"] >= 1
    assert "For ±7.0 pts, 'model-a' needs about" in ans


def test_the_standard_error_in_population_form_with_unequal_repeats(tmp_path):
    rng = np.random.default_rng(8)
    rows = []
    for i in range(30):
        p = rng.random()
        for t in range(int(rng.integers(2, 7))):
            rows.append({"item": f"i{i}", "try": t, "ok": int(rng.random() < p)})
    frame = pd.DataFrame(rows)
    path = tmp_path / "uneq.csv"
    frame.to_csv(path, index=False)
    res = repeats.run(load_table(path), repeats.Options(item="item", outcome="ok", repeat="try"))
    means = frame.groupby("item")["ok"].mean().to_numpy()
    want = math.sqrt(np.var(means) / means.size)
    assert res.value("se_population") == pytest.approx(want, abs=1e-12)
    assert res.value("se_population") != pytest.approx(res.value("se_repeats"), abs=1e-6)
    equal = repeats.run(load_table(EX / "repeats_epochs.csv"), repeats.Options(system="model"))
    for rec in equal.find("se_population", system="model-a"):
        assert rec["value"] == pytest.approx(equal.value("se_repeats", system="model-a"), abs=1e-12)
    assert "se-population:" in res.signature


def test_every_half_width_on_the_card_is_a_record_in_its_unit():
    """The card's "the items' own spread alone gives ±17.5 pts" is the record
    half_width_repeats_floor of that system, shown in points wherever it is shown."""
    from workbench.report.present import format_value, record_kind

    res = repeats.run(load_table(CARDS / "repeats_unreachable.csv"), repeats.Options(system="model"))
    text = answer(res).text
    for system in ("model-a", "model-b"):
        rec = res.find("half_width_repeats_floor", system=system)[0]
        assert record_kind(res, rec) == "margin"
        assert f"±{format_value(rec['value'], 'margin')}" in text
        assert rec["value"] == pytest.approx(1.959963984540054 * math.sqrt(
            res.value("var_data", system=system) / rec["n"]), abs=1e-12)
