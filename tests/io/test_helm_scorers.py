"""HELM's bookkeeping stats are no scorers (helm-run 0.5.16 run folders of tests/fixtures/formats).

HELM writes, for every instance, its metrics beside its bookkeeping: the stats its own schema
(src/helm/benchmark/static/schema_classic.yaml) lists under "Infrastructure metrics" (token counts,
finish reasons, truncation, references, trials) and "Efficiency metrics" (runtimes, batch size,
training costs).  Only the metrics are scorers (every panel offers them, the Rubric takes the yes/no
ones as criteria); the prompt's and the output's tokens and the observed runtime are the usage; the
rest stay columns of the table."""

from __future__ import annotations

import os

import pytest

from workbench.io import load_table

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats"))
STOCK = os.path.join(FIXTURES, "helm", "simple1")
ROBUSTNESS = os.path.join(FIXTURES, "helm", "simple1_em_robustness")
MCQA = os.path.join(FIXTURES, "helm_variants", "simple_mcqa")
CLASSIFICATION = os.path.join(FIXTURES, "helm_variants", "simple_classification")

#: the bookkeeping stats helm-run 0.5.16 wrote per instance in every one of these folders
BOOKKEEPING = ("num_references", "num_train_trials", "num_prompt_tokens", "num_completion_tokens",
               "num_output_tokens", "training_co2_cost", "training_energy_cost", "inference_runtime",
               "batch_size", "finish_reason_length", "finish_reason_stop", "finish_reason_endoftext",
               "finish_reason_unknown", "num_train_instances", "prompt_truncated", "num_perplexity_tokens",
               "num_bytes")
EM = ("exact_match", "quasi_exact_match", "prefix_exact_match", "quasi_prefix_exact_match")
#: every folder's scorers: HELM's metrics only, accuracy first, its calibration input last
SCORERS = {
    STOCK: ["logprob", "max_prob"],
    ROBUSTNESS: [n for m in EM for n in (m, f"{m}@3")] + ["logprob", "max_prob"],
    MCQA: [n for m in EM for n in (m, f"{m}@5")] + ["logprob", "max_prob"],
    CLASSIFICATION: [*EM, "logprob", "max_prob"],
}
USAGE = {"input_tokens": "num_prompt_tokens", "output_tokens": "num_output_tokens", "latency": "inference_runtime"}


@pytest.mark.parametrize("folder", list(SCORERS), ids=os.path.basename)
def test_the_scorers_are_helms_metrics_only(folder):
    table = load_table(folder)
    ev = table.evaluation
    assert ev.scorer_names() == SCORERS[folder]
    for name in BOOKKEEPING:
        assert ev.scorer(name) is None, name
        assert name in table.frame.columns, name  # kept in the table, as HELM recorded it
    assert not [s for s in ev.scorer_names() if s.startswith("finish_reason_")]


@pytest.mark.parametrize("folder", list(SCORERS), ids=os.path.basename)
def test_tokens_and_runtime_are_the_usage(folder):
    table = load_table(folder)
    assert dict(table.evaluation.usage) == USAGE
    assert table.roles.get("inference_runtime") == "latency"
    note = next(n for n in table.notes if "bookkeeping" in n)
    assert "batch_size" in note and "not scorers" in note and "num_prompt_tokens (input tokens)" in note


def test_the_accuracy_metrics_keep_their_scale_and_helms_numbers():
    ev = load_table(ROBUSTNESS).evaluation
    assert ev.primary == "exact_match"
    for name in ("exact_match", "exact_match@3", "quasi_prefix_exact_match@3"):
        scorer = ev.scorer(name)
        assert scorer.scale == "binary" and scorer.reported is not None
    assert ev.scorer("logprob").scale == "measure"
    max_prob = ev.scorer("max_prob")
    assert max_prob.scale == "score" and "calibration" in max_prob.detail


def test_the_stock_run_keeps_its_log_probability_as_primary():
    """simple1 records no accuracy metric: its primary is HELM's log-probability, never a
    bookkeeping stat nor max_prob (the confidence HELM's calibration reads)."""
    ev = load_table(STOCK).evaluation
    assert ev.primary == "logprob" and ev.scorer().scale == "measure"


def test_the_rubric_takes_no_bookkeeping_stat_as_a_criterion(cli):
    out = cli("rubric", ROBUSTNESS)
    criteria = {r["metric"].split(":", 1)[1] for r in out["results"] if r["metric"].startswith("criterion_rate:")}
    assert criteria == {n for m in EM for n in (m, f"{m}@3")}  # the yes/no metrics are the criteria


def test_a_run_without_yes_no_metrics_has_no_rubric_of_its_own(cli):
    """simple1's metrics are a log-probability (a measure) and a confidence (a score): 0 and 1
    for a toy model, but no yes/no verdicts; the Rubric says so instead of taking them."""
    err = cli("rubric", STOCK, expect=2)
    assert "none of its scorers is a yes/no verdict" in err and "'logprob' (measure)" in err
    assert "--criteria" in err


def test_the_describe_card_lists_the_metrics_and_totals_the_usage(cli):
    out = cli("describe", STOCK)
    assert [row["scorer"] for row in out["tables"]["scorers"]] == ["logprob", "max_prob"]
    got = {r["metric"] for r in out["results"]}
    assert {"total:input_tokens", "total:output_tokens", "total:latency"} <= got
    assert not any(m.startswith("reported:") and m.split(":", 1)[1] in BOOKKEEPING for m in got)
