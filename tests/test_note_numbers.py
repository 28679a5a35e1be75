"""Every note and sentence the analyses and the release rules write follows the number-format
policy of workbench.core.numbers: no raw floats, differences of rates in points, p-values to
3 significant digits or "< 0.001"."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from workbench.analyses import REGISTRY
from workbench.io import load_table
from workbench.rules import load_rule
from workbench.rules.card import card_rows, render_text
from workbench.rules.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "resources" / "examples"
RULES = ROOT / "resources" / "rules"

#: every bundled example under every analysis it fits, with the options that reach the notes
#: (clusters, several systems, the planner's branches): (id, analysis, file, options)
RUNS = [
    ("compare", "compare", "paired_14_to_5.csv",
     dict(baseline="baseline", candidate="candidate", item="item_id")),
    ("compare_clusters", "compare", "paired_14_to_5.csv",
     dict(baseline="baseline", candidate="candidate", item="item_id", cluster="conversation")),
    ("ranking", "ranking", "ranking_seed.csv", dict(ks=(3, 5))),
    ("ranking_graded", "ranking", "ranking_graded.csv", {}),
    ("passk", "passk", "passk_counts.csv", dict(ks=(1, 3, 5))),
    ("passk_attempts", "passk", "passk_attempts.csv", dict(task="task", success="success", ks=(1, 3))),
    ("aggregate_groups", "aggregate", "multilingual.csv", dict(outcome="correct", group="language")),
    ("aggregate_simpson", "aggregate", "simpson.csv",
     dict(outcome="correct", group="segment", version="version")),
    ("aggregate_ratio", "aggregate", "claims.csv",
     dict(numerator="correct_claims", denominator="claims", unit="conversation")),
    ("cost", "cost", "cost_latency.csv",
     dict(system="system", success="success", cost="cost", latency="latency_s")),
    ("text", "text", "text_extraction.csv", {}),
    ("judge", "judge", "judge_labels.csv", {}),
    ("runs", "runs", "runs_nightly.csv", dict(order="date", rounds=2000, resamples=2000)),
    ("repeats", "repeats", "repeats_epochs.csv", dict(system="model", repeat="epoch")),
    ("rubric", "rubric", "rubric_answers.csv",
     dict(item="question", system="version", criteria="correct,cites_source,complete,concise",
          rubric=str(EX / "rubric_weights.csv"), resamples=2000)),
    ("slices", "slices", "slices_languages.csv",
     dict(by="language,length", bins=4, clean="seen_in_training", discover=True)),
    ("plan", "plan", None, dict(rate=0.8, n=100, discordance=0.15, target_difference=0.03)),
    ("plan_passk", "plan", None, dict(pass_at_k=0.92, k=10)),
    ("plan_too_few", "plan", None, dict(discordance=0.5, n=3)),
    ("plan_impossible", "plan", None, dict(discordance=0.02, n=100, target_difference=0.05)),
]

#: a raw float: five or more significant decimals (0.5992539, 0.045000001; a p-value's 0.00904
#: has three), or exponent notation (5.905e-06)
RAW_FLOAT = re.compile(r"(?<![\w.])\d+\.0*[1-9]\d{4,}|\b\d(\.\d+)?e[-+]\d+\b", re.IGNORECASE)
#: a p-value with a raw or 3-decimal format where the policy gives 3 significant digits
P_VALUE = re.compile(r"\bp (=|<) ?(< )?([0-9.]+)")


def _run(analysis, filename, options):
    module = REGISTRY[analysis]
    opts = module.Options(**options)
    if filename is None:
        return module.run(None, opts)
    table = load_table(EX / filename)
    result = module.run(table, opts)
    return replace(result, notes=tuple(table.notes) + tuple(result.notes))


def _check_policy(text: str, where: str, *, relative: bool = False) -> None:
    """``relative``: the text may hold relative changes, which are signed percents (+8.0%)."""
    assert not RAW_FLOAT.search(text), f"{where}: raw float in {text!r}"
    for m in P_VALUE.finditer(text):
        op, _, number = m.groups()
        if op == "<" or m.group(2):
            # "< 0.001" for a tiny p-value; "p < 0.05" is the criterion alpha, not a p-value shown
            assert number in ("0.001", "0.05"), f"{where}: {m.group(0)!r} in {text!r}"
            continue
        digits = number.replace(".", "").lstrip("0")
        assert len(digits) == 3 or float(number) >= 1, f"{where}: {m.group(0)!r} is not 3 significant digits"
    # a difference of rates is never a signed percent
    assert relative or not re.search(r"[+-]\d+(\.\d+)?% (and|to|vs)\b", text), f"{where}: signed percent in {text!r}"


@pytest.fixture(scope="module")
def results():
    out = {}
    for ident, analysis, filename, options in RUNS:
        out[ident] = _run(analysis, filename, options)
    return out


@pytest.mark.parametrize("ident", [r[0] for r in RUNS])
def test_no_note_of_any_analysis_shows_a_raw_float(results, ident):
    result = results[ident]
    assert result.notes or ident not in ("compare", "aggregate_groups", "plan"), "expected notes"
    for note in result.notes:
        _check_policy(note, ident)


def test_the_runs_cover_every_analysis(results):
    assert {analysis for _, analysis, _, _ in RUNS} == set(REGISTRY)


def test_compare_notes_on_the_seed_14_to_5_speak_in_points_and_policy_p_values(results):
    notes = " ".join(results["compare"].notes)
    # the observed difference 9/200 = +4.5 points, smaller than the MDE 2.8 sqrt(0.095/200) = 6.1 points
    assert "The observed difference (+4.5 pts) is smaller than the minimum detectable" in notes
    assert "(6.1 pts = 2.8 x sqrt(d/n), with discordance d = 9.5% of n = 200 items)" in notes
    # the exact sign test of 14 vs 5: p = 0.0636 (3 significant digits, not 0.064)
    assert "exact sign test (p = 0.0636)" in notes
    assert "between +0.3 and +8.7 pts (normal)" in notes
    assert "4.5%" not in notes and "p = 0.064)" not in notes


def test_plan_notes_speak_in_points():
    result = _run("plan", None, dict(discordance=0.15, n=200, target_difference=0.05))
    text = " ".join(result.notes)
    assert "a paired difference of 5 pts at 15% discordance" in text
    _check_policy(text, "plan")


def _gate_texts(result) -> list[str]:
    card = result.table("card").frame
    texts = list(result.notes) + [render_text(result)]
    for col in ("reason", "basis", "counts", "notes", "requirement"):
        texts += [str(v) for v in card[col] if v is not None]
    for row in card_rows(result):
        texts += [v for v in row.values() if isinstance(v, str)]
    return texts


@pytest.mark.parametrize("rule_file,inputs", [
    ("seed_14_to_5.toml", [EX / "paired_14_to_5.csv"]),
    ("release_all_conditions.toml", [RULES / "example_outcomes.csv", RULES / "example_ranking.csv"]),
    ("slices_languages.toml", [EX / "slices_languages.csv"]),
])
def test_the_gate_card_and_its_sentences_follow_the_policy(rule_file, inputs):
    result = evaluate(load_rule(RULES / rule_file), [load_table(p) for p in inputs])
    for text in _gate_texts(result):
        _check_policy(text, rule_file, relative=True)
        assert "[+" not in text and "e-0" not in text


def test_the_seed_card_shows_points_and_a_policy_p_value():
    result = evaluate(load_rule(RULES / "seed_14_to_5.toml"), [load_table(EX / "paired_14_to_5.csv")])
    row = card_rows(result)[0]
    assert row["observed"] == "+4.5 pts"
    assert re.fullmatch(r"\+0\.\d to \+9\.\d pts \(bootstrap\)", row["interval"]), row["interval"]
    assert row["p_value"] == "0.0636"
    assert "p = 0.0636" in render_text(result)


@pytest.mark.parametrize("candidates", ["new", "new,worse"])
def test_compare_notes_on_continuous_scores_follow_the_policy(candidates):
    """The readings of the t, Wilcoxon and randomization tests (one pair, and several systems)."""
    import numpy as np
    import pandas as pd

    from workbench.io import LoadedTable

    rng = np.random.default_rng(7)
    base = rng.random(60).round(4)
    frame = pd.DataFrame({"id": [f"q{i}" for i in range(60)], "old": base,
                          "new": np.clip(base + rng.normal(0.03, 0.12, 60), 0, 1).round(4),
                          "worse": np.clip(base - 0.2 + rng.normal(0, 0.05, 60), 0, 1).round(4)})
    result = REGISTRY["compare"].run(LoadedTable(frame=frame, path="<memory>"),
                                     REGISTRY["compare"].Options(baseline="old", candidate=candidates, item="id"))
    text = " ".join(result.notes)
    assert "paired t-test gives p" in text
    for note in result.notes:
        _check_policy(note, candidates)
    # a score difference has three decimals, with its sign
    assert re.search(r"a mean difference as large as [+-]\d\.\d{3} ", text), text
