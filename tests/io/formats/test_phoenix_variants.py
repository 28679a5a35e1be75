"""Phoenix exports of other server versions, made from the real 20.26.1 export (tests/fixtures/
formats/phoenix/) by the one difference Phoenix's own source shows (src/phoenix/server/api/routers/
v1/experiments.py of Arize-ai/phoenix): the CSV before #12897 (May 2026, commit 64cb481e10) had no
``metadata`` column; the JSON before #6744 (March 2025, 14005dce4c) had no ``annotations``.
Numbers checked against Phoenix's own GraphQL summaries (expected.json of the fixture)."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from workbench.core.errors import DataError
from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "phoenix"))


def _summaries():
    with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as fh:
        want = json.load(fh)
    node = want["graphql_summaries"][want["experiment_id"]]["data"]["node"]
    return node, {s["annotationName"]: s for s in node["annotationSummaries"]}


def test_a_csv_without_the_metadata_column_reads_the_same_numbers(tmp_path, cli):
    frame = pd.read_csv(os.path.join(HERE, "experiment.csv"), dtype=str, keep_default_na=False)
    assert "metadata" in frame.columns
    path = tmp_path / "lookup-3x.csv"
    frame.drop(columns=["metadata"]).to_csv(path, index=False)
    node, by_name = _summaries()
    table = load_table(str(path))
    assert len(table.frame) == node["runCount"]
    out = cli("describe", str(path))
    got = {r["metric"]: r for r in out["results"] if r.get("system") is None}
    for evaluator, s in by_name.items():
        assert got[f"reported:{evaluator}"]["value"] == pytest.approx(s["meanScore"], abs=1e-9)
        assert got[f"scored:{evaluator}"]["value"] == s["scoreCount"]


def test_the_first_json_export_without_annotations_is_refused_in_one_sentence(tmp_path, cli):
    with open(os.path.join(HERE, "experiment_no_evaluator.json"), encoding="utf-8") as fh:
        runs = json.load(fh)
    for run in runs:
        del run["annotations"]
    path = tmp_path / "first.json"
    path.write_text(json.dumps(runs), encoding="utf-8")
    with pytest.raises(DataError, match="Phoenix experiment export .* with no evaluator"):
        load_table(str(path))
    err = cli("aggregate", str(path), expect=2)
    assert "Traceback" not in err and err.strip().count("\n") == 0 and "no evaluator" in err
