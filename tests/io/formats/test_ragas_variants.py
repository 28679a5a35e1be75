"""Ragas results with list-valued sample fields (retrieved_contexts...) written by ragas 0.4.3
(tests/fixtures/formats/ragas_variants/README.md) as CSV (Python repr of the lists) and Parquet
(list columns): each metric's mean and n equal ragas' own (nanmean), the lists kept as text, and
every analysis answers or refuses in one sentence."""

from __future__ import annotations

import json
import math
import os

import pytest

from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "ragas_variants"))
FILES = ["contexts_result.csv", "contexts_result.parquet"]
with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as _fh:
    WANT = json.load(_fh)


@pytest.mark.parametrize("name", FILES)
def test_each_metric_as_ragas_reports_it(name, cli):
    table = load_table(os.path.join(HERE, name))
    frame = table.frame
    assert len(frame) == 5
    for metric, values in WANT["per_sample"].items():
        for got, want in zip(frame[metric], values):
            assert math.isnan(got) if want is None else got == pytest.approx(want, abs=1e-12)
    out = cli("describe", os.path.join(HERE, name))
    got = {r["metric"]: r for r in out["results"] if r.get("system") is None}
    for metric, mean in WANT["means"].items():
        assert got[f"reported:{metric}"]["value"] == pytest.approx(mean, abs=1e-9)
        assert got[f"reported:{metric}"]["n"] == sum(v is not None for v in WANT["per_sample"][metric])


@pytest.mark.parametrize("name", FILES)
def test_the_lists_are_text(name):
    frame = load_table(os.path.join(HERE, name)).frame
    cell = frame["retrieved_contexts"][0]
    assert isinstance(cell, str) and "The Eiffel Tower is in Paris." in cell and "Paris is in France." in cell
    assert frame["retrieved_contexts"][4] in ("[]", "")


@pytest.mark.parametrize("analysis", ["aggregate", "repeats", "passk", "rubric", "text", "compare", "slices"])
def test_parquet_lists_never_a_traceback(capsys, tmp_path, analysis):
    from workbench.cli.main import main

    code = main([analysis, os.path.join(HERE, "contexts_result.parquet"), "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 2) and "Traceback" not in err
    if code:
        assert err.strip().count("\n") == 0 and "contexts_result.parquet" in err
    code = main(["items", os.path.join(HERE, "contexts_result.parquet"), "-o", str(tmp_path / "items.csv")])
    assert code == 0 and (tmp_path / "items.csv").exists()
