"""`workbench slices` on the command line: the JSON contract, wide and long files, Inspect logs whose
sample metadata holds the slice (against inspect_ai's own reading), the scorer, errors in one
sentence, the Excel sheet."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import value
from scipy import stats

FIX = Path(__file__).resolve().parent / "fixtures" / "slices"
KEYS = {"metric", "value", "system", "group", "by", "n", "ci_low", "ci_high", "ci_method", "df", "from", "to"}


@pytest.fixture
def long_csv(write_csv):
    rng = np.random.default_rng(3)
    rows = []
    for i in range(600):
        lang = ["en", "de", "hi"][i % 3]
        for system, p in (("v1", 0.7), ("v2", 0.78 if lang != "hi" else 0.55)):
            rows.append({"id": f"{i:04d}", "model": system, "lang": lang, "ok": int(rng.random() < p),
                         "len": 10 + i})
    return write_csv("long.csv", pd.DataFrame(rows))


def test_json_records_name_the_slice_and_the_signature_names_the_methods(cli, long_csv):
    out = cli("slices", long_csv, "--by", "lang", "--item", "id", "--system", "model", "--baseline-system", "v1",
              "--candidate-system", "v2", "--outcome", "ok", "--correction", "bh")
    assert out["analysis"] == "slices"
    for rec in out["results"]:
        assert set(rec) <= KEYS, rec
    frame = pd.read_csv(long_csv, dtype={"id": str})
    for lang in ("en", "de", "hi"):
        g = frame[frame.lang == lang].pivot(index="id", columns="model", values="ok")
        diff = value(out, "diff", group=lang, by="lang")
        assert diff["value"] == pytest.approx((g["v2"] - g["v1"]).mean(), abs=1e-12)
        assert diff["n"] == len(g) and diff["ci_method"].startswith("normal-paired")
        b = int(((g.v2 == 1) & (g.v1 == 0)).sum())
        c = int(((g.v1 == 1) & (g.v2 == 0)).sum())
        assert value(out, "p", group=lang, by="lang")["value"] == pytest.approx(stats.binomtest(b, b + c).pvalue,
                                                                                 abs=1e-12)
    sig = dict(part.split(":", 1) for part in out["signature"].split("|"))
    assert sig["correction"] == "bh" and sig["adjusted"] == "sign-test"
    assert sig["tau2"].startswith("dersimonian-laird") and sig["ci-diff"].startswith("normal-paired-95")
    assert sig["ci-system"].startswith("wilson-95")
    assert {"slices", "heterogeneity", "overall"} <= set(out["tables"])


def test_scores_with_a_seed_in_the_signature(cli, long_csv, write_csv):
    frame = pd.read_csv(long_csv)
    frame["score"] = np.random.default_rng(4).random(len(frame)).round(3)
    path = write_csv("scores.csv", frame)
    out = cli("slices", path, "--by", "lang", "--item", "id", "--system", "model", "--score", "score",
              "--seed", "77", "--rounds", "2000")
    sig = dict(part.split(":", 1) for part in out["signature"].split("|"))
    assert sig["family"] == "continuous" and sig["seed"] == "77" and sig["adjusted"] == "paired-t"
    t = value(out, "t", group="hi", by="lang")
    assert t["df"] == 199
    assert value(out, "diff", group="hi", by="lang")["df"] == 199


def test_numeric_bins_and_two_columns_separately(cli, long_csv):
    out = cli("slices", long_csv, "--by", "lang,len", "--bins", "4", "--item", "id", "--system", "model",
              "--outcome", "ok")
    bins = out["tables"]["bins"]
    assert [b["slice"] for b in bins] == ["[10, 159.75]", "(159.75, 309.5]", "(309.5, 459.25]", "(459.25, 609]"]
    assert value(out, "q", by="lang")["n"] == 3 and value(out, "q", by="len")["n"] == 4
    assert any("edges 10, 159.75, 309.5, 459.25, 609" in n for n in out["notes"])


def test_inspect_logs_with_the_slice_in_sample_metadata(cli):
    expected = pd.read_csv(FIX / "slices_expected.csv", keep_default_na=False, dtype={"language": str})
    out = cli("slices", FIX / "langs_base.eval", FIX / "langs_cand.eval", "--by", "metadata.language")
    wide = expected.pivot(index="sample_id", columns="model", values="match")
    lang = expected.drop_duplicates("sample_id").set_index("sample_id")["language"]
    for label, shown in (("en", "en"), ("hi", "hi"), ("HI", "HI"), ("", "(blank)")):
        ids = lang.index[lang == label]
        d = wide.loc[ids, "mockllm/cand"] - wide.loc[ids, "mockllm/base"]
        rec = value(out, "diff", group=shown, by="metadata.language")
        assert rec["n"] == len(ids) and rec["value"] == pytest.approx(d.mean(), abs=1e-12)
    assert value(out, "tested", group="HI", by="metadata.language")["value"] is False
    assert value(out, "fcr_ci", group="hi", by="metadata.language")["ci_high"] < 0
    assert any("differ only in case" in n for n in out["notes"])
    same = cli("slices", FIX / "langs_base.eval", FIX / "langs_cand.eval", "--by", "metadata.language",
               "--scorer", "match", "--system", "model", "--baseline-system", "mockllm/base",
               "--candidate-system", "mockllm/cand")
    assert value(same, "diff", group="hi", by="metadata.language")["value"] == \
        value(out, "diff", group="hi", by="metadata.language")["value"]


def test_errors_are_one_sentence(cli, long_csv, write_csv):
    err = cli("slices", long_csv, "--by", "nope", "--item", "id", "--system", "model", "--outcome", "ok", expect=2)
    assert "nope" in err and "Traceback" not in err
    err = cli("slices", long_csv, "--by", "lang", "--item", "id", "--system", "model", "--scorer", "nope", expect=2)
    assert "no scorer 'nope'" in err
    frame = pd.read_csv(long_csv, dtype={"id": str})
    three = pd.concat([frame, frame[frame.model == "v1"].assign(model="v3")])
    err = cli("slices", write_csv("three.csv", three), "--by", "lang", "--item", "id", "--system", "model",
              "--outcome", "ok", expect=2)
    assert "3 systems" in err and "--baseline-system" in err
    moved = frame.copy()
    moved.loc[(moved.model == "v2") & (moved.id == "0005"), "lang"] = "xx"
    err = cli("slices", write_csv("moved.csv", moved), "--by", "lang", "--item", "id", "--system", "model",
              "--outcome", "ok", expect=2)
    assert "item '0005'" in err and "same of both systems' rows" in err
    err = cli("slices", long_csv, "--by", "lang", "--correction", "bonferroni", expect=2)
    assert "invalid choice" in err


def test_the_excel_sheet_holds_every_slice(cli, long_csv, tmp_path):
    import openpyxl

    path = tmp_path / "slices.xlsx"
    cli("slices", long_csv, "--by", "lang", "--item", "id", "--system", "model", "--outcome", "ok",
        "--xlsx", path)
    wb = openpyxl.load_workbook(path)
    assert "slices" in wb.sheetnames
    cells = [[c for c in row if c is not None] for row in wb["slices"].iter_rows(values_only=True)]
    header = next(r for r in cells if r[:3] == ["Slice column", "Slice", "Items"])
    rows = [r for r in cells if r and r[0] == "lang" and r[1] in ("en", "de", "hi")]
    assert len(rows) == 3 and header
    answer = next(r for r in cells if r and r[0] == "Answer")[1]
    assert "overall" in answer and "lang" in answer
