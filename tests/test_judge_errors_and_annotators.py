"""The Judge under the file's reading: errored records, and annotators without a judge.

1. A log's errored records (promptfoo's provider errors, ``failureReason`` 2) follow the
   reading's errors choice in the judge's own score, as on every other panel: left out and
   counted by default (``errors=exclude``), scored 0 with ``errors=fail``; a note and the
   signature (``errored:excluded`` / ``errored:failures``) say which.  The judge's own score
   once counted them as failures whatever the choice (flaky: 7/18 tries, 0.389 over 6 cases).
2. A plain table ``item_id,annotator,label`` (several annotators per item, no judge column) is
   the annotators among themselves, as a Label Studio export alone: Krippendorff's alpha, each
   pair's agreement and kappa; it was refused ("needs a judge column").

Expected numbers come from the files' own rows (the promptfoo JSON, the generated CSV) with
pandas, the krippendorff package and statsmodels, never from the workbench's output."""

from __future__ import annotations

import itertools
import json
import os

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from workbench.analyses import judge, reading
from workbench.analyses.judge_input import prepare
from workbench.io import load_table
from workbench.report.present import answer
from conftest import one, recs  # noqa: E402

FX = os.path.join(os.path.dirname(__file__), "fixtures", "formats")
REPEAT = os.path.join(FX, "promptfoo_repeat", "results.json")
#: promptfoo's ResultFailureReason: 1 an assertion failed, 2 the provider ended with an error
PROVIDER_ERROR = 2


def sig_fields(signature: str) -> dict:
    return dict(part.split(":", 1) for part in signature.split("|"))


# --- 1. errored records in the judge's own score ------------------------------------------------------

def promptfoo_rows() -> pd.DataFrame:
    """One row per promptfoo result: its provider, its test case (the vars: promptfoo writes no
    repeat index, a case's tries share them), its pass and whether the provider errored."""
    with open(REPEAT, encoding="utf-8") as handle:
        rows = json.load(handle)["results"]["results"]
    return pd.DataFrame({"provider": [r["provider"]["label"] for r in rows],
                         "case": [json.dumps(r["vars"], sort_keys=True) for r in rows],
                         "ok": [float(bool(r["success"])) for r in rows],
                         "errored": [r.get("failureReason") == PROVIDER_ERROR for r in rows]})


def expected_own_score(errors: str) -> dict[str, tuple[float, int, int]]:
    """{provider: (score, cases scored, records)}: each case's mean pass over its tries, then the
    mean over the cases; errored tries left out (exclude) or scored 0 (fail)."""
    frame = promptfoo_rows()
    if errors == "exclude":
        frame = frame[~frame["errored"]]
    else:
        frame = frame.assign(ok=np.where(frame["errored"], 0.0, frame["ok"]))
    out = {}
    for provider, rows in frame.groupby("provider"):
        per_case = rows.groupby("case")["ok"].mean()
        out[provider] = (float(per_case.mean()), len(per_case), len(rows))
    return out


def check_own_score(records, errors: str) -> None:
    doc = {"results": [dict(r) for r in records]}
    want = expected_own_score(errors)
    assert {r["system"] for r in recs(doc, "judge_score")} == set(want)
    for provider, (score, cases, rows) in want.items():
        rec = one(doc, "judge_score", system=provider)
        assert (rec["value"], rec["n"]) == (pytest.approx(score), cases), provider
        unscored = one(doc, "judge_unscored", system=provider)
        assert (unscored["value"], unscored["n"]) == (0, rows), provider


def test_the_fixture_has_errored_tries_that_change_the_flaky_score():
    frame = promptfoo_rows()
    errored = frame[frame["errored"]]
    assert len(errored) == 5 and set(errored["provider"]) == {"flaky"}
    exclude, fail = expected_own_score("exclude"), expected_own_score("fail")
    assert exclude["steady"] == fail["steady"]
    assert exclude["flaky"][0] != pytest.approx(fail["flaky"][0])
    assert (exclude["flaky"][1], fail["flaky"][1]) == (5, 6)  # a case whose every try errored


def test_errored_records_are_left_out_of_the_judges_own_score_by_default(cli):
    doc = cli("judge", REPEAT)
    check_own_score(doc["results"], "exclude")
    sig = sig_fields(doc["signature"])
    assert sig["errored"] == "excluded" and sig["people"] == "none"
    said = [n for n in doc["notes"] if "ended with an error" in n and "Errors are not measurements" in n]
    assert len(said) == 1 and said[0].startswith("5 of 36 rows") and "left out of every number" in said[0]


def test_the_reading_leaves_errored_records_out_of_the_judges_own_score():
    table = load_table(REPEAT)
    result = reading.run("judge", table, judge.Options(), reading.Reading(errors="exclude"))
    check_own_score(result.records, "exclude")
    assert sig_fields(result.signature)["errored"] == "excluded"
    card = answer(result)
    assert "5 of 36 rows ended with an error and are left out." in card.sentences


def _prepared(errors: str):
    """The Judge's input for the log under ``errors``, as the reading prepares it."""
    table = load_table(REPEAT)
    got = prepare(table, judge.Options(), reading.evaluation_of(table), None, [], (), errors=errors)
    assert got is not None and got.result is not None  # no people's labels: the judge's own score
    return got.result


@pytest.mark.parametrize("errors", ["exclude", "fail"])
def test_the_errors_choice_decides_the_judges_own_score(errors):
    result = _prepared(errors)
    check_own_score(result.records, errors)
    assert sig_fields(result.signature)["errored"] == {"exclude": "excluded", "fail": "failures"}[errors]
    said = [n for n in result.notes if "Errors are not measurements" in n]
    assert len(said) == 1
    if errors == "fail":
        assert "scored 0 (a failure) in the judge's own score" in said[0] and "--errors fail" in said[0]
    else:
        assert "left out of every number" in said[0]


def test_an_unknown_errors_choice_is_refused():
    from workbench.core.errors import OptionError

    table = load_table(REPEAT)
    with pytest.raises(OptionError, match="errors"):
        prepare(table, judge.Options(), reading.evaluation_of(table), None, [], (), errors="failure")


def test_errors_fail_on_the_command_line_counts_errored_records_as_failures(cli):
    doc = cli("judge", REPEAT, "--errors", "fail")
    check_own_score(doc["results"], "fail")
    assert sig_fields(doc["signature"])["errored"] == "failures"


def test_the_readings_fail_choice_counts_errored_records_as_failures():
    table = load_table(REPEAT)
    result = reading.run("judge", table, judge.Options(), reading.Reading(errors="fail"))
    check_own_score(result.records, "fail")
    assert sig_fields(result.signature)["errored"] == "failures"


# --- 2. annotators without a judge ------------------------------------------------------------------

@pytest.fixture
def annotations(tmp_path):
    """30 items x 3 annotators (pass/fail, each right 80% of the time, so they disagree), one
    label left blank, no judge column."""
    rng = np.random.default_rng(11)
    truth = rng.random(30) < 0.5
    rows = []
    for i in range(30):
        for who in ("ann1", "ann2", "ann3"):
            said = truth[i] if rng.random() < 0.8 else not truth[i]
            rows.append({"item_id": f"q{i:02d}", "annotator": who, "label": "pass" if said else "fail"})
    frame = pd.DataFrame(rows)
    frame.loc[7, "label"] = ""  # a missing label (item q02, ann2)
    path = tmp_path / "annotations.csv"
    frame.to_csv(path, index=False)
    return str(path), pd.read_csv(path, dtype=str, keep_default_na=False)


def check_annotators(doc: dict, frame: pd.DataFrame, item: str = "item_id") -> None:
    labelled = frame[frame["label"] != ""]
    wide = labelled.pivot_table(index=item, columns="annotator", values="label", aggfunc="first")
    people = sorted(wide.columns)
    cats = sorted(set(labelled["label"]))
    data = np.array([[cats.index(x) if isinstance(x, str) else np.nan for x in wide[p]] for p in people])
    alpha = one(doc, "alpha", group="people alone")
    assert alpha["value"] == pytest.approx(krippendorff.alpha(reliability_data=data,
                                                              level_of_measurement="nominal"))
    assert alpha["n"] == int((wide.notna().sum(axis=1) >= 2).sum())
    for a, b in itertools.combinations(people, 2):
        both = wide[[a, b]].dropna()
        rec = one(doc, "agreement", group=f"{a} vs {b}")
        assert (rec["value"], rec["n"]) == (pytest.approx(float((both[a] == both[b]).mean())), len(both))
        table = pd.crosstab(pd.Categorical(both[a], cats), pd.Categorical(both[b], cats), dropna=False)
        assert one(doc, "kappa", group=f"{a} vs {b}")["value"] == pytest.approx(
            float(cohens_kappa(table.to_numpy()).kappa))


def test_annotators_without_a_judge_agree_among_themselves(cli, annotations):
    path, frame = annotations
    doc = cli("judge", path)
    check_annotators(doc, frame)
    # the blank label: its pairs are over 29 items, alpha still over the 30 (two labels left)
    assert {r["n"] for r in recs(doc, "agreement")} == {29, 30}
    sig = sig_fields(doc["signature"])
    assert sig["judge"] == "none" and sig["people"] == "annotators(annotator):3"
    said = [n for n in doc["notes"] if "No judge's labels" in n]
    assert len(said) == 1 and "'annotator'" in said[0] and "'label'" in said[0] and "--judge" in said[0]
    labels = {r["annotator"]: r for r in doc["tables"]["labels"]}
    counts = frame[frame["label"] != ""].groupby(["annotator", "label"]).size()
    for (who, label), n in counts.items():
        assert labels[who][label] == n


def test_the_reading_and_human_flag_give_the_same_annotators(cli, annotations):
    path, frame = annotations
    result = reading.run("judge", load_table(path), judge.Options())
    doc = {"results": [dict(r) for r in result.records]}
    check_annotators(doc, frame)
    check_annotators(cli("judge", path, "--human", "label"), frame)
    card = answer(result)
    assert "The 3 annotators agree with each other" in card.sentences[0]


def test_annotators_of_each_models_answers_are_records_of_model_and_item(cli, tmp_path):
    """Item ids repeated across the models: each (model, item) is one answer the annotators labelled."""
    rng = np.random.default_rng(5)
    rows = [{"item_id": f"q{i}", "model": m, "annotator": who,
             "label": "pass" if rng.random() < (0.7 if who != "ann3" else 0.4) else "fail"}
            for m in ("small", "large") for i in range(15) for who in ("ann1", "ann2", "ann3")]
    frame = pd.DataFrame(rows)
    path = tmp_path / "per_model.csv"
    frame.to_csv(path, index=False)
    doc = cli("judge", str(path))
    frame["record"] = frame["model"] + " / " + frame["item_id"]
    check_annotators(doc, frame, item="record")
    assert one(doc, "alpha", group="people alone")["n"] == 30


def test_one_annotator_per_item_is_still_refused_without_a_judge(cli, tmp_path):
    frame = pd.DataFrame({"item_id": [f"q{i}" for i in range(10)], "annotator": ["ann1", "ann2"] * 5,
                          "label": ["pass", "fail"] * 5})
    path = tmp_path / "single.csv"
    frame.to_csv(path, index=False)
    err = cli("judge", str(path), expect=2)
    assert "judge column" in err


def test_the_reading_takes_label_beside_an_annotator_as_peoples_labels(tmp_path):
    """item_id, annotator, label: the Columns dock's roles say 'label' is the people's label (as
    the Judge reads it), not a ranking's relevance grade that must hold numbers."""
    from workbench.io.roles import find_problems, guess_roles

    path = tmp_path / "annotations.csv"
    pd.DataFrame({"item_id": [f"q{i // 2}" for i in range(20)], "annotator": ["ann", "bo"] * 10,
                  "label": ["pass", "fail", "pass", "pass"] * 5}).to_csv(path, index=False)
    table = load_table(path)
    roles = guess_roles(table)
    assert roles["label"] == "human" and roles["annotator"] == "annotator"
    assert not any("must hold numbers" in p.message for p in find_problems(table, roles))


def test_with_errors_fail_the_judges_own_score_counts_its_blanks_as_aggregation_does(capsys):
    """An Inspect log whose judge left 2 of 24 records blank: with --errors fail both panels score
    them 0 (12 items, pandas from the log's rows); with exclude both leave them out (11 items,
    Inspect's accuracy)."""
    import os

    import pandas as pd

    from workbench.cli.main import main
    from workbench.io import load_table

    path = os.path.join(os.path.dirname(__file__), "fixtures", "formats", "inspect285_judge", "judge_alpha.eval")
    frame = load_table(path).frame
    values = pd.to_numeric(frame["model_graded_qa"], errors="coerce")
    want = {"exclude": frame.assign(v=values).dropna(subset=["v"]).groupby("sample_id")["v"].mean(),
            "fail": frame.assign(v=values.fillna(0.0)).groupby("sample_id")["v"].mean()}
    for errors, per_item in want.items():
        got = {}
        for analysis, metric in (("judge", "judge_score"), ("aggregate", "micro")):
            assert main([analysis, path, "--errors", errors, "--json"]) == 0
            out = json.loads(capsys.readouterr().out)
            rec = next(r for r in out["results"] if r["metric"] == metric)
            got[analysis] = (rec["value"], rec["n"])
        assert got["judge"] == got["aggregate"] == (pytest.approx(per_item.mean(), abs=1e-12), len(per_item)), errors
