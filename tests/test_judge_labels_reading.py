"""Which column holds the people's labels, for the file's reading and the Judge alike.

- A column naming WHO labelled (``annotator``, ``rater``...) is never a label: beside a judge's
  column, ``label`` is the people's label and the annotator column says who gave it (several
  annotators per item: the strict majority is the people's label, alpha among the annotators).
- A metric's own score, threshold or pass (DeepEval's ``TokenOverlap.score``) and a tool's score
  of the same grading (promptfoo's ``score``) are never people's labels: a file without people's
  labels says so (naming the file and ``--human``) beside the judge's own score, never measures a
  judge against itself.
- The right cases keep working: a ``human_label`` column, a Label Studio export, a judge and
  people's labels per model.

Expected numbers come from the files' rows (pandas counts, statsmodels' ``cohens_kappa``, the
krippendorff package), never from the workbench's own output."""

from __future__ import annotations

import json
import os

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from workbench.analyses import REGISTRY, judge, reading
from workbench.core.role_names import suggest_command
from workbench.io import load_table
from workbench.io.evaluation import BINARY, HUMAN, JUDGE, JUDGE_PANEL, SCORE, Scorer
from workbench.io.roles import guess_roles
from workbench.report.present import answer
from conftest import one, recs  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..")
FX = os.path.join(os.path.dirname(__file__), "fixtures", "formats")


def sig_fields(doc: dict) -> dict:
    return dict(part.split(":", 1) for part in doc["signature"].split("|"))


def kappa_of(a, b) -> float:
    """Cohen's kappa of two label lists by statsmodels, over their joint categories."""
    cats = sorted(set(a) | set(b))
    table = pd.crosstab(pd.Categorical(a, cats), pd.Categorical(b, cats), dropna=False).to_numpy()
    return float(cohens_kappa(table).kappa)


def reading_human(path: str) -> list[str]:
    """The people's-label columns of the file's reading (its guessed roles and its human scorers)."""
    table = load_table(path)
    roles = guess_roles(table)
    shown = reading.roles_for(table, roles, reading.Reading())
    ev = reading.evaluation_of(table, roles)
    by_role = [c for c, r in shown.items() if r == "human"]
    by_scorer = [s.column for s in ev.scorers if s.kind == HUMAN]
    assert by_role == by_scorer, (by_role, by_scorer)
    return by_role


# --- 1. a column of annotators' names is who labelled, not the label --------------------------------

@pytest.fixture
def annotated(tmp_path):
    """40 items, each labelled by one of two people (names in 'annotator'), pass/fail in 'label'."""
    rng = np.random.default_rng(7)
    truth = rng.random(40) < 0.4
    judge_ = np.where(rng.random(40) < 0.75, truth, ~truth)
    frame = pd.DataFrame({"item_id": [f"a{i}" for i in range(40)],
                          "annotator": rng.choice(["alice", "bob"], 40),
                          "label": np.where(truth, "pass", "fail"),
                          "judge_verdict": np.where(judge_, "pass", "fail")})
    path = tmp_path / "annotated.csv"
    frame.to_csv(path, index=False)
    return str(path), frame


def test_the_annotators_names_are_never_the_peoples_label(cli, annotated):
    path, frame = annotated
    doc = cli("judge", path)
    sig = sig_fields(doc)
    assert sig["reference"] == "first-human:label"
    assert "annotator" not in sig["reference"]
    assert one(doc, "agreement")["value"] == pytest.approx(np.mean(frame["judge_verdict"] == frame["label"]))
    assert one(doc, "agreement")["n"] == 40
    assert one(doc, "kappa")["value"] == pytest.approx(kappa_of(frame["judge_verdict"], frame["label"]))
    labels = {c for r in recs(doc, "confusion") for c in (r["from"], r["to"])}
    assert labels == {"pass", "fail"}  # never alice/bob
    assert any("Column 'annotator' names who labelled" in n for n in doc["notes"])


def test_the_reading_names_the_same_peoples_label_and_the_annotator(annotated):
    path, _ = annotated
    table = load_table(path)
    roles = guess_roles(table)
    assert roles["label"] == "human" and roles["annotator"] == "annotator"
    ev = reading.evaluation_of(table, roles)
    assert ev.annotator == "annotator"
    assert [(s.column, s.kind) for s in ev.scorers] == [("judge_verdict", "judge"), ("label", "human")]
    assert reading_human(path) == ["label"]
    assert "--judge judge_verdict --human label" in suggest_command(path)


def test_the_describe_card_counts_the_annotators_and_shows_label_as_the_human_scorer(cli, annotated):
    path, frame = annotated
    doc = cli("describe", path)
    kinds = {r["scorer"]: r["kind"] for r in doc["tables"]["scorers"]}
    assert kinds == {"judge_verdict": "judge", "label": "human"}
    counts = {r["annotator"]: r["labels"] for r in doc["tables"]["annotators"]}
    assert counts == frame["annotator"].value_counts().to_dict()


def test_several_annotators_per_item_majority_and_alpha_among_them(cli, tmp_path):
    rng = np.random.default_rng(11)
    rows = []
    for i in range(30):
        truth = rng.random() < 0.5
        verdict = truth if rng.random() < 0.8 else not truth
        for who in ("ann", "ben", "cho"):
            if rng.random() < 0.85:
                said = truth if rng.random() < 0.8 else not truth
                rows.append((f"q{i}", who, "yes" if said else "no", "yes" if verdict else "no"))
    frame = pd.DataFrame(rows, columns=["item_id", "rater", "label", "judge"])
    path = tmp_path / "annotations.csv"
    frame.to_csv(path, index=False)
    doc = cli("judge", str(path))
    # by hand: each item's strict majority of its raters, the judge's one label per item
    wide = frame.pivot(index="item_id", columns="rater", values="label")
    verdict = frame.groupby("item_id")["judge"].first()

    def strict(row):
        counts = row.dropna().value_counts()
        return counts.index[0] if len(counts) and counts.iloc[0] * 2 > counts.sum() else None

    majority = wide.apply(strict, axis=1)
    have = majority.notna()
    assert one(doc, "agreement")["n"] == int(have.sum())
    assert one(doc, "agreement")["value"] == pytest.approx(np.mean(verdict[have] == majority[have]))
    assert one(doc, "kappa")["value"] == pytest.approx(kappa_of(verdict[have], majority[have]))
    code = {"no": 0.0, "yes": 1.0}
    people = wide[["ann", "ben", "cho"]].apply(lambda col: col.map(code)).T.to_numpy(dtype=float)
    assert one(doc, "alpha", group="people alone")["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=people, level_of_measurement="nominal"))
    with_judge = np.vstack([verdict.reindex(wide.index).map(code).to_numpy(dtype=float), people])
    assert one(doc, "alpha", group="judge and people")["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=with_judge, level_of_measurement="nominal"))
    assert sig_fields(doc)["people"] == "annotators(rater),majority"
    assert "rater" not in sig_fields(doc)["reference"]


def test_a_judge_label_that_differs_within_an_items_annotations_is_a_sentence(cli, tmp_path):
    path = tmp_path / "clash.csv"
    path.write_text("item_id,annotator,label,judge\nq1,ann,pass,pass\nq1,ben,pass,fail\nq2,ann,fail,fail\n")
    err = cli("judge", str(path), expect=2)
    assert "q1" in err and "'pass'" in err and "'fail'" in err and "annotator" in err


# --- 2. DeepEval: a metric's own score is no person's label -----------------------------------------

DEEPEVAL = os.path.join(FX, "deepeval", "test_run.json")


def test_deepeval_has_no_peoples_labels_and_says_so_with_the_judges_own_score(cli):
    doc = cli("judge", DEEPEVAL)
    sig = sig_fields(doc)
    assert sig["people"] == "none" and sig["judge"] == "scorer:TokenOverlap"
    assert "reference" not in sig  # no agreement: never 'first-human:TokenOverlap.score'
    assert not recs(doc, "agreement") and not recs(doc, "kappa")
    said = [n for n in doc["notes"] if "no people's labels" in n]
    assert len(said) == 1 and "'test_run.json'" in said[0] and "--human" in said[0]
    assert "'TokenOverlap.score'" in said[0]
    with open(DEEPEVAL, encoding="utf-8") as handle:
        cases = json.load(handle)["testCases"]
    passes = [next(m["success"] for m in c["metricsData"] if m["name"] == "TokenOverlap") for c in cases]
    rec = one(doc, "judge_score")
    assert (rec["value"], rec["n"]) == (pytest.approx(np.mean(passes)), len(cases))


def test_deepeval_reading_has_no_human_column_either():
    assert reading_human(DEEPEVAL) == []
    table = load_table(DEEPEVAL)
    result = reading.run("judge", table, judge.Options())
    assert "people:none" in result.signature
    card = answer(result)
    assert "no people's labels" in card.text and "TokenOverlap" in card.text


# --- 3. promptfoo: its score is the grader's, not people's -----------------------------------------

@pytest.mark.parametrize("folder", ["promptfoo_judge", "promptfoo_repeat"])
def test_promptfoo_score_is_never_the_peoples_label(cli, folder):
    path = os.path.join(FX, folder, "results.json")
    doc = cli("judge", path)
    sig = sig_fields(doc)
    assert sig["people"] == "none" and sig["judge"] == "scorer:pass"
    assert "reference" not in sig
    assert not any("never meet" in n for n in doc["notes"])
    said = [n for n in doc["notes"] if "no people's labels" in n]
    assert len(said) == 1 and "'results.json'" in said[0] and "--human" in said[0] and "'score'" in said[0]
    with open(path, encoding="utf-8") as handle:
        rows = json.load(handle)["results"]["results"]
    # the judge's own score: each test case's mean of its tries' pass (vars identify the test
    # case; promptfoo writes no repeat index), then the mean over the test cases, per provider;
    # tries that ended with a provider error (failureReason 2) left out, the reading's default
    frame = pd.DataFrame({"provider": [r["provider"]["label"] for r in rows],
                          "case": [json.dumps(r["vars"], sort_keys=True) for r in rows],
                          "ok": [float(bool(r["success"])) for r in rows],
                          "errored": [r.get("failureReason") == 2 for r in rows]})
    frame = frame[~frame["errored"]]
    per_case = frame.groupby(["provider", "case"])["ok"].mean()
    for provider, values in per_case.groupby(level=0):
        rec = one(doc, "judge_score", system=provider)
        assert (rec["value"], rec["n"]) == (pytest.approx(values.mean()), len(values))


@pytest.mark.parametrize("folder", ["promptfoo_judge", "promptfoo_repeat"])
def test_promptfoo_reading_has_no_human_column_either(folder):
    assert reading_human(os.path.join(FX, folder, "results.json")) == []


def test_a_second_opinion_is_another_judges_verdicts_never_the_judges_own_metric():
    # imported here, so that the other tests of this file run on a workbench without it
    from workbench.analyses.judge_input import second_opinion

    one_judge = Scorer("TokenOverlap", "TokenOverlap.success", kind=JUDGE, scale=BINARY,
                       passed="TokenOverlap.success", group="TokenOverlap")
    own_score = Scorer("TokenOverlap.score", "TokenOverlap.score", kind=JUDGE, scale=SCORE,
                       passed="TokenOverlap.success", group="TokenOverlap")
    other_metric = Scorer("Faithfulness", "Faithfulness.success", kind=JUDGE, scale=BINARY,
                          passed="Faithfulness.success", group="Faithfulness")
    assert not second_opinion(one_judge, own_score)
    assert not second_opinion(one_judge, other_metric)  # another question, not a second opinion
    promptfoo_pass = Scorer("pass", "success", kind=JUDGE, scale=BINARY)
    assert not second_opinion(promptfoo_pass, Scorer("score", "score", kind=JUDGE, scale=SCORE))
    assert not second_opinion(promptfoo_pass, Scorer("assert.cites", "assert.cites", kind=JUDGE, scale=BINARY,
                                                     group="assertions"))
    qa = Scorer("model_graded_qa", "model_graded_qa", kind=JUDGE, scale="partial credit",
                labels="model_graded_qa.grade")
    panel = Scorer("model_graded_fact", "model_graded_fact", kind=JUDGE_PANEL, scale=BINARY,
                   labels="model_graded_fact.grade")
    assert second_opinion(qa, panel)  # Inspect's judge panel beside its judge: still compared


# --- the right cases keep working ---------------------------------------------------------------------

def test_a_human_label_column_beside_an_annotator_column(cli, tmp_path):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"item_id": [f"a{i}" for i in range(40)], "annotator": rng.choice(["alice", "bob"], 40),
                          "human_label": rng.choice(["pass", "fail"], 40), "judge": rng.choice(["pass", "fail"], 40)})
    path = tmp_path / "human_label.csv"
    frame.to_csv(path, index=False)
    doc = cli("judge", str(path))
    assert sig_fields(doc)["reference"] == "first-human:human_label"
    assert one(doc, "kappa")["value"] == pytest.approx(kappa_of(frame["judge"], frame["human_label"]))
    assert reading_human(str(path)) == ["human_label"]


def test_the_bundled_judge_example_reads_its_human_column(cli):
    path = os.path.join(ROOT, "resources", "examples", "judge_labels.csv")
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    doc = cli("judge", path)
    assert sig_fields(doc)["reference"] == "first-human:human"
    labelled = frame["human"] != ""
    assert one(doc, "agreement")["n"] == int(labelled.sum())
    assert one(doc, "kappa")["value"] == pytest.approx(
        kappa_of(frame.loc[labelled, "judge"], frame.loc[labelled, "human"]))
    assert reading_human(path) == ["human"]


def test_a_label_studio_export_alone_still_measures_its_annotators(cli):
    path = os.path.join(FX, "labelstudio", "export.csv")
    doc = cli("judge", path)
    assert sig_fields(doc)["judge"] == "none" and sig_fields(doc)["people"] == "annotators:3"
    table = load_table(path)
    ev = reading.evaluation_of(table)
    assert ev.annotator == "annotator" and [(s.column, s.kind) for s in ev.scorers] == [("label", "human")]
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)  # the export's own rows: item = sample_id
    frame = frame[frame["label"] != ""]
    wide = frame.pivot_table(index="sample_id", columns="annotator", values="label", aggfunc="first")
    cats = sorted(set(frame["label"]))
    data = np.array([[cats.index(x) if isinstance(x, str) else np.nan for x in wide[c]] for c in wide.columns])
    assert one(doc, "alpha", group="people alone")["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def test_a_label_studio_export_joined_to_a_log_is_the_people(cli):
    doc = cli("judge", os.path.join(FX, "inspect285_judge", "judge_alpha.eval"), "--human",
              os.path.join(FX, "labelstudio", "export.csv"), "--label-map", "C=correct,P=partial,I=incorrect")
    sig = sig_fields(doc)
    assert sig["reference"] == "first-human:people" and sig["people"] == "joined-labels,majority"


@pytest.fixture
def per_model(tmp_path):
    """A judge and people's labels on two models' answers to the same 30 questions (the audit's
    s17 layout: model,item_id,judge,human), a few answers not labelled by people."""
    rng = np.random.default_rng(17)
    human = rng.choice(["PASS", "FAIL"], 60).astype(object)
    human[rng.choice(60, 6, replace=False)] = ""
    frame = pd.DataFrame({"model": np.repeat(["gpt-a", "gpt-b"], 30), "item_id": [f"q{i}" for i in range(30)] * 2,
                          "judge": rng.choice(["PASS", "FAIL"], 60), "human": human})
    path = tmp_path / "judge_human_model.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_a_judge_and_people_per_model_are_records_of_model_and_item(cli, per_model):
    frame = pd.read_csv(per_model, dtype=str, keep_default_na=False)
    doc = cli("judge", per_model)
    sig = sig_fields(doc)
    assert sig["reference"] == "first-human:human" and sig["judged"] == "record(system,item)"
    labelled = (frame["human"] != "") & (frame["judge"] != "")
    assert one(doc, "agreement")["n"] == int(labelled.sum())
    assert one(doc, "agreement")["value"] == pytest.approx(
        np.mean(frame.loc[labelled, "judge"] == frame.loc[labelled, "human"]))
    assert one(doc, "kappa")["value"] == pytest.approx(
        kappa_of(frame.loc[labelled, "judge"], frame.loc[labelled, "human"]))
    assert reading_human(per_model) == ["human"]


def test_label_stays_a_ranking_grade_and_a_text_reference_without_a_judge_or_annotators(tmp_path):
    qrels = tmp_path / "qrels.csv"
    qrels.write_text("query,doc,label\nq1,d1,1\nq1,d2,0\n")
    text = tmp_path / "text.csv"
    text.write_text("item_id,prediction,label\n1,Paris,Paris\n2,Rome,Lyon\n")
    people = tmp_path / "people.csv"
    people.write_text("item_id,annotator,label\n1,ann,pass\n2,ben,fail\n")
    assert guess_roles(load_table(str(qrels)))["label"] == "relevance"
    assert guess_roles(load_table(str(text)))["label"] != "human"  # the text's reference, as before
    roles = guess_roles(load_table(str(people)))  # beside who labelled: the people's label
    assert roles.get("label") == "human" and roles["annotator"] == "annotator"


def test_the_judge_panels_own_options_name_the_same_column_as_the_reading(annotated):
    """The window's Judge panel fills its form from the reading's roles; run with them, it
    measures against the same column as the command line's guess."""
    path, _ = annotated
    table = load_table(path)
    roles = guess_roles(table)
    by_role = {r: c for c, r in roles.items()}
    options = REGISTRY["judge"].Options(judge=by_role["judge"], human=(by_role["human"],), item=by_role["item"])
    result = reading.run("judge", table, options, roles=roles)
    guessed = reading.run("judge", table, REGISTRY["judge"].Options(), roles=roles)
    assert "reference:first-human:label" in result.signature and "reference:first-human:label" in guessed.signature
    assert result.value("kappa") == pytest.approx(guessed.value("kappa"))
