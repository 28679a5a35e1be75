"""Ragas results written by ragas 0.4.3 (tests/fixtures/formats/make_fixtures_46.py ragas;
FINDINGS_46.md): to_pandas() saved as CSV with and without pandas' index column, and as Parquet.
Each metric's mean equals ragas' own (nanmean: each metric its own n) through load_table and
the command line."""

from __future__ import annotations

import json
import math
import os

import pytest

from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "ragas"))
FILES = ["ragas_result.csv", "ragas_result_noindex.csv", "ragas_result.parquet"]


def _expected():
    with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("name", FILES)
def test_each_metric_is_a_scorer_with_its_own_n(name):
    want = _expected()
    table = load_table(os.path.join(HERE, name))
    ev = table.evaluation
    assert table.format == "ragas" and ev.tool == "ragas"
    assert ev.scorer_names() == want["metrics"]  # named as ragas names them
    assert ev.primary == "exact_match" and ev.item == "sample"
    assert list(table.frame["sample"]) == [str(i) for i in range(8)]
    for metric, mean in want["means_as_ragas_reports"].items():
        values = table.frame[metric]
        assert int(values.notna().sum()) == want["non_nan_counts"][metric]
        assert values.mean() == pytest.approx(mean, abs=1e-9)  # NaN left out of this metric only
    assert ev.scorer("exact_match").scale == "binary" and ev.scorer("bleu_score").scale == "score"
    assert {s.kind for s in ev.scorers} == {"code"}  # the non-LLM metrics
    for row in want["per_sample"]:
        for metric in want["metrics"]:
            got = table.frame[metric][row["row"]]
            assert (math.isnan(got) and row[metric] is None) or got == pytest.approx(row[metric], abs=1e-12)


@pytest.mark.parametrize("name", FILES)
def test_ragas_means_through_the_command_line(cli, name):
    want = _expected()
    path = os.path.join(HERE, name)
    for metric, mean in want["means_as_ragas_reports"].items():
        out = cli("aggregate", path, "--scorer", metric)
        micro = next(r for r in out["results"] if r["metric"] == "micro")
        assert micro["n"] == want["non_nan_counts"][metric]
        assert micro["value"] == pytest.approx(mean, abs=1e-9)
    desc = cli("describe", path)
    counts = {r["metric"]: r["value"] for r in desc["results"] if r.get("system") is None}
    for metric, n in want["non_nan_counts"].items():
        assert counts[f"scored:{metric}"] == n and counts[f"unscored:{metric}"] == 8 - n
    out = cli("aggregate", path, "--scorer", "bleu_score", "--errors", "fail")
    micro = next(r for r in out["results"] if r["metric"] == "micro")
    assert micro["n"] == 8  # the unscored sample counted as 0, as asked


def test_a_plain_csv_with_a_question_column_is_not_taken_for_ragas(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("question,answer,correct\nq1,a,1\nq2,b,0\n", encoding="utf-8")
    table = load_table(path)
    assert table.format == "text" and table.evaluation is None


def test_ragas_means_are_what_describe_reports(cli):
    want = _expected()
    out = cli("describe", os.path.join(HERE, "ragas_result.parquet"))
    got = {r["metric"]: r for r in out["results"] if r.get("system") is None}
    for metric, mean in want["means_as_ragas_reports"].items():
        assert got[f"reported:{metric}"]["value"] == pytest.approx(mean, abs=1e-9)
        assert got[f"reported:{metric}"]["n"] == want["non_nan_counts"][metric]
