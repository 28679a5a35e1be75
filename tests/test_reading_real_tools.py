"""One reading of a file (issue 43) on logs the real tools wrote: every number is checked
against the tool's own (``expected.json`` beside each fixture, written from the tools' own
readers), through the command line as a user runs it."""

from __future__ import annotations

import json
import os

import pytest

from workbench.cli.main import main
from conftest import one, recs  # noqa: E402

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "formats")


def fx(*parts: str) -> str:
    return os.path.join(FIX, *parts)


def expected(folder: str) -> dict:
    with open(fx(folder, "expected.json"), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture
def cli(capsys):
    def run(*argv: str, code: int = 0) -> dict:
        got = main([str(a) for a in argv] + ["--json"])
        out, err = capsys.readouterr()
        assert got == code, err
        return json.loads(out) if code == 0 else {"error": err}
    return run


# --- Inspect: the judge's own score, per version ---------------------------------------------------

@pytest.mark.parametrize("version", ["inspect285_judge", "inspect150_judge"])
def test_the_judge_scorer_lands_on_its_own_accuracy_as_inspect_reports_it(cli, version):
    want = expected(version)["logs"]
    doc = cli("judge", fx(version))
    for log in want.values():
        score = next(s for s in log["scores"] if s["name"] == "model_graded_qa")
        rec = one(doc, "judge_score", system=log["model"])
        assert rec["value"] == pytest.approx(score["metrics"]["accuracy"], abs=1e-9)
        assert rec["n"] == score["scored_samples"]
    assert "judge:scorer:model_graded_qa" in doc["signature"]
    assert "people:judge:model_graded_fact" in doc["signature"]  # no people: the panel is compared
    assert "judged:record(" in doc["signature"]  # each record one judgement: the card says records


def test_the_two_inspect_versions_differ_visibly():
    """0.3.150 scores an unusable judge reply I (counted), 0.3.285 leaves it unscored."""
    old, new = expected("inspect150_judge")["logs"], expected("inspect285_judge")["logs"]
    acc = {v: {log["model"]: next(s["metrics"]["accuracy"] for s in log["scores"] if s["name"] == "model_graded_qa")
               for log in logs.values()} for v, logs in (("old", old), ("new", new))}
    assert acc["old"] != acc["new"]


def test_describe_names_scorers_kinds_and_unscored_counts(cli):
    doc = cli("describe", fx("inspect285_judge"))
    scorers = {r["scorer"]: r for r in doc["tables"]["scorers"]}
    assert scorers["model_graded_qa"]["kind"] == "judge" and scorers["model_graded_qa"]["scale"] == "partial credit"
    assert scorers["model_graded_fact"]["kind"] == "judge panel"
    assert scorers["rubric.cites"]["group"] == "rubric" and scorers["includes"]["kind"] == "code"
    assert scorers["model_graded_qa"]["primary"] and scorers["model_graded_qa"]["chosen"]
    want = expected("inspect285_judge")
    nan_records = sum(1 for log in want["logs"].values() for s in log.get("samples", [])
                      if str((s.get("scores") or {}).get("model_graded_qa", {}).get("value")) == "NaN")
    assert scorers["model_graded_qa"]["unscored"] == (nan_records or 6)  # FINDINGS: alpha 2 + beta 4
    assert one(doc, "items", system=None)["value"] == 12
    assert {r["value"] for r in recs(doc, "repeats_max")} == {2}
    systems = {r["system"]: r for r in doc["tables"]["systems"]}
    assert set(systems) == {"mockllm/alpha", "mockllm/beta"} and systems["mockllm/alpha"]["version"] == "0.3.285"


# --- an agent log: limits, the errored sample's spend ------------------------------------------------

def test_agent_log_counts_every_records_usage_and_its_limits(cli):
    want = expected("inspect285_agent")
    doc = cli("describe", fx("inspect285_agent", "agent.eval"))
    totals = want["totals"]
    for key in ("steps", "tool_calls", "model_calls", "input_tokens", "output_tokens", "total_tokens"):
        assert one(doc, f"total:{key}")["value"] == pytest.approx(totals[key]), key
    assert one(doc, "total:cost")["value"] == pytest.approx(totals["cost"])
    for tool, calls in totals["calls_by_tool"].items():
        assert one(doc, f"total:tool_calls.{tool}")["value"] == calls
    statuses = {r["status"]: r["records"] for r in doc["tables"]["statuses"]}
    assert statuses["limit:message"] == want["counts"]["limit_message"]
    assert statuses["limit:token"] == want["counts"]["limit_token"]
    assert statuses["error"] == want["counts"]["errored"]


def test_agent_cost_panel_spend_counts_every_record_and_its_rate_is_inspects(cli):
    """Cost: the spend over every sample (the errored one's usage included) equals the log's
    own usage; the success rate is over samples (each one's share of its epochs), as Inspect's."""
    want = expected("inspect285_agent")
    doc = cli("cost", fx("inspect285_agent", "agent.eval"))
    totals = want["totals"]
    usage = want["stats_model_usage"]["mockllm/agent"]
    assert one(doc, "spend:total_tokens")["value"] == pytest.approx(usage["total_tokens"])
    assert one(doc, "spend:cost")["value"] == pytest.approx(usage["total_cost"])
    for key in ("steps", "tool_calls", "model_calls", "input_tokens", "output_tokens"):
        assert one(doc, f"spend:{key}")["value"] == pytest.approx(totals[key]), key
    assert one(doc, "limited:message")["value"] == want["counts"]["limit_message"]
    assert one(doc, "limited:token")["value"] == want["counts"]["limit_token"]
    score = next(s for s in want["scores"] if s["name"] == "includes")
    rate = one(doc, "success_rate")
    assert rate["value"] == pytest.approx(score["metrics"]["accuracy"], abs=1e-9)
    assert rate["n"] == score["scored_samples"]
    assert "spend:every-request,errored-included" in doc["signature"]


def test_agent_passk_default_ks_reach_the_epochs_and_pass1_is_inspects_accuracy(cli):
    want = expected("inspect285_agent")
    doc = cli("passk", fx("inspect285_agent", "agent.eval"))
    ks = sorted({int(r["metric"].split("@")[1]) for r in doc["results"] if r["metric"].startswith("pass@")})
    assert ks == [1, 2]  # 2 epochs: every k up to the tries a task has, no k beyond them
    accuracy = next(s for s in want["scores"] if s["name"] == "includes")["metrics"]["accuracy"]
    assert one(doc, "pass@1")["value"] == pytest.approx(accuracy, abs=1e-9)


# --- promptfoo --repeat 3: one rate per system on every panel ----------------------------------------

def _rates(cli, path: str, errors: str) -> dict[str, dict[str, float]]:
    out = {}
    doc = cli("aggregate", path, "--errors", errors)
    out["aggregate"] = {r["version"]: r["value"] for r in recs(doc, "micro")}
    doc = cli("repeats", path, "--errors", errors)
    out["repeats"] = {r["system"]: r["value"] for r in recs(doc, "repeats_rate") if r.get("system")}
    doc = cli("passk", path, "--errors", errors, "--k", "1")
    out["passk"] = {r["system"]: r["value"] for r in recs(doc, "pass@1")}
    if path.endswith(".json"):  # promptfoo's CSV export has no cost column
        doc = cli("cost", path, "--errors", errors)  # Cost's success rate is over test cases too
        out["cost"] = {r["system"]: r["value"] for r in recs(doc, "success_rate")}
        # 6 test cases per system, not 18 tries (a case whose every try errored has no share)
        assert {r["n"] for r in recs(doc, "success_rate")} <= ({6} if errors == "fail" else {5, 6})
    return out


@pytest.mark.parametrize("name", ["results.json", "results.csv"])
@pytest.mark.parametrize("errors", ["exclude", "fail"])
def test_promptfoo_repeats_give_one_rate_per_system_on_every_panel(cli, name, errors):
    want = expected("promptfoo_repeat")["systems"]
    rates = _rates(cli, fx("promptfoo_repeat", name), errors)
    for system in ("steady", "flaky"):
        seen = {panel: got[system] for panel, got in rates.items()}
        assert len({round(v, 12) for v in seen.values()}) == 1, seen
    if errors == "fail":  # every test case tried 3 times: promptfoo's own pass rate
        for system in ("steady", "flaky"):
            assert rates["aggregate"][system] == pytest.approx(want[system]["pass_rate"], abs=1e-9)


def test_promptfoo_compare_pairs_test_cases_not_tries(cli):
    doc = cli("compare", fx("promptfoo_repeat", "results.json"), "--errors", "fail")
    n = {r["n"] for r in doc["results"] if r["metric"] in ("mean_diff", "improved", "worse", "tied")}
    assert n == {6}  # 6 test cases, each with its 3 tries reduced to their mean
    assert "unit:item(mean of repeats)" in doc["signature"] and "scorer:pass(judge)" in doc["signature"]


def test_promptfoo_describe_reports_the_tools_counts_and_weights(cli):
    want = expected("promptfoo_repeat")["systems"]
    doc = cli("describe", fx("promptfoo_repeat", "results.json"))
    statuses = {r["status"]: r["records"] for r in doc["tables"]["statuses"]}
    assert statuses["error"] == sum(s["error"] for s in want.values())
    scorers = {r["scorer"]: r for r in doc["tables"]["scorers"]}
    assert {k: scorers[f"assert.{k}"]["weight"] for k in ("correct", "cites", "concise")} == \
        {"correct": 3.0, "cites": 1.0, "concise": 2.0}
    assert scorers["pass"]["primary"] and scorers["assert.correct"]["kind"] == "judge"
    items = {r["system"]: r["value"] for r in recs(doc, "items") if r.get("system")}
    assert items == {"steady": 6, "flaky": 6}


# --- lm-eval: runs named from their configuration, never pooled --------------------------------------

def test_lmeval_runs_are_named_by_configuration_and_not_pooled(cli):
    runs = expected("lmeval_mc")["runs"]
    doc = cli("aggregate", fx("lmeval_mc", "runs"))
    by_name = {r["version"]: r for r in recs(doc, "micro")}
    for run in runs:
        name = f"dummy {run['num_fewshot']}-shot seed {run['seeds']['random_seed']}"
        assert by_name[name]["value"] == pytest.approx(run["acc"], abs=1e-9)
        assert by_name[name]["n"] == run["n_samples"]["effective"]
    assert "scorer:acc(recorded metric)" in doc["signature"]
    norm = cli("aggregate", fx("lmeval_mc", "runs"), "--scorer", "acc_norm")
    by_name = {r["version"]: r["value"] for r in recs(norm, "micro")}
    for run in runs:
        assert by_name[f"dummy {run['num_fewshot']}-shot seed {run['seeds']['random_seed']}"] == \
            pytest.approx(run["acc_norm"], abs=1e-9)


def test_an_unknown_scorer_is_a_sentence_naming_the_scorers(cli):
    err = cli("aggregate", fx("lmeval_mc", "runs"), "--scorer", "accuracy", code=2)["error"]
    assert "no scorer 'accuracy'" in err and "'acc'" in err and "'acc_norm'" in err


# --- Label Studio and the judge ---------------------------------------------------------------------

@pytest.mark.parametrize("name", ["export.json", "export_min.json", "export.csv", "export.tsv"])
def test_label_studio_exports_read_with_the_annotator_as_a_role(cli, name):
    want = expected("labelstudio")
    doc = cli("describe", fx("labelstudio", name))
    annotators = {r["annotator"]: r["labels"] for r in doc["tables"]["annotators"]}
    assert annotators == {str(a["user_id"]): a["annotations"] for a in want["annotators"]}
    assert one(doc, "items", system=None)["value"] == len(want["items"])
    scorers = doc["tables"]["scorers"]
    assert [(s["scorer"], s["kind"]) for s in scorers] == [("label", "human")]


def test_judge_with_peoples_labels_needs_a_map_when_words_never_meet(cli):
    err = cli("judge", fx("inspect285_judge", "judge_alpha.eval"), "--human", fx("labelstudio", "export.csv"),
              code=2)["error"]
    assert "never meet" in err and "C, I, P" in err and "correct, incorrect, partial" in err
    assert "--label-map C=correct,I=incorrect,P=partial" in err


def test_judge_against_the_peoples_majority_by_hand(cli):
    want = expected("labelstudio")
    grades = {"paris": "C", "boil": "P", "moon": "C", "h2o": "I", "pi": "I", "sky": None, "007": "C",
              "au": "I", "ww2": "P", "bones": "C", "light": "C", "mars": "C"}  # alpha, epoch 2 (FINDINGS)
    words = {"C": "correct", "P": "partial", "I": "incorrect"}
    agree = total = 0
    for item, info in want["items"].items():
        labels = list(info["labels_by_user_id"].values())
        top = max(set(labels), key=labels.count)
        if labels.count(top) * 2 <= len(labels) or grades[item] is None:
            continue
        total += 1
        agree += words[grades[item]] == top
    for labels_file in ("export.json", "export.csv"):
        doc = cli("judge", fx("inspect285_judge", "judge_alpha.eval"), fx("labelstudio", labels_file),
                  "--label-map", "C=correct,P=partial,I=incorrect")
        rec = one(doc, "agreement")
        assert (rec["value"], rec["n"]) == (pytest.approx(agree / total), total)
        assert "people:joined-labels,majority" in doc["signature"]


def test_text_says_when_its_recomputed_exact_match_differs_from_the_recorded_one(cli, tmp_path):
    """lm-eval records exact_match per document after its own filters; the Text panel recomputes
    it with its conventions, and says so when the two differ (issue 43)."""
    import glob
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(fx("lmeval", "dummy-seed1"), folder)
    samples = glob.glob(str(folder / "samples_arith_gen_*.jsonl"))[0]
    lines = [json.loads(x) for x in open(samples, encoding="utf-8")]
    flipped = next(r for r in lines if r["exact_match"] == 0.0)
    flipped["exact_match"] = 1.0  # as if lm-eval's filter had extracted a right answer
    with open(samples, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in lines)
    recorded = sum(r["exact_match"] for r in lines) / len(lines)
    doc = cli("text", str(folder))
    ours = one(doc, "exact_match")["value"]
    assert ours != pytest.approx(recorded)
    assert any(f"recorded exact_match {recorded:.1%}" in n and f"it is {ours:.1%}" in n for n in doc["notes"])
    plain = cli("text", fx("lmeval", "dummy-seed1"))
    assert not any("The tool recorded" in n for n in plain["notes"])


@pytest.mark.parametrize("name", ["export.json", "export.csv"])
def test_label_studio_alone_measures_the_annotators_against_each_other(cli, name):
    """No judge's labels: Krippendorff's alpha over the annotators (the krippendorff package)
    and each pair's kappa (scikit-learn) on the items both labelled."""
    import krippendorff
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    items = {k: {u: x for u, x in info["labels_by_user_id"].items() if x}
             for k, info in expected("labelstudio")["items"].items()}
    users = sorted({u for labels in items.values() for u in labels}, key=int)
    cats = sorted({x for labels in items.values() for x in labels.values()})
    data = np.array([[cats.index(labels[u]) if u in labels else np.nan for labels in items.values()]
                     for u in users])
    doc = cli("judge", fx("labelstudio", name))
    alpha = one(doc, "alpha", group="people alone")
    assert alpha["value"] == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"),
                                           abs=1e-9)
    for a in range(len(users)):
        for b in range(a + 1, len(users)):
            both = ~np.isnan(data[a]) & ~np.isnan(data[b])
            rec = one(doc, "kappa", group=f"{users[a]} vs {users[b]}")
            assert rec["value"] == pytest.approx(cohen_kappa_score(data[a, both], data[b, both]), abs=1e-9)
            assert rec["n"] == int(both.sum())
    assert "judge:none" in doc["signature"]


def test_rubric_reads_test_cases_not_tries_with_promptfoos_weights(cli):
    """promptfoo --repeat 3 with weighted llm-rubric assertions: the rubric's criteria and weights
    are promptfoo's, each test case's tries reduced to their shares, paired by test case."""
    want = expected("promptfoo_repeat")
    doc = cli("rubric", fx("promptfoo_repeat", "results.json"), "--errors", "fail")
    assert "w:3,1,2" in doc["signature"] and "unit:item(mean of repeats)" in doc["signature"]
    n = {r["n"] for r in doc["results"] if r["metric"] == "diff:rubric_score"}
    assert n == {6}
    checked = 0
    for system in want["systems"]:
        rows = [r for r in want["rows"] if r["system"] == system]
        for metric in ("correct", "cites", "concise"):
            shares = {}
            for r in rows:  # an errored try has no assertion: a failure here (--errors fail)
                passed = [a["pass"] for a in r.get("assertions") or [] if a["metric"] == metric]
                shares.setdefault(r["test"], []).append(float(passed[0]) if passed else 0.0)
            want_rate = sum(sum(v) / len(v) for v in shares.values()) / len(shares)
            rec = one(doc, f"criterion_rate:assert.{metric}", system=system)
            assert (rec["value"], rec["n"]) == (pytest.approx(want_rate, abs=1e-9), len(shares))
            checked += 1
    assert checked == 6


# --- the release gate reads the file as every panel does ------------------------------------------

def _rule(tmp_path, base: str, cand: str) -> str:
    path = tmp_path / "rule.toml"
    path.write_text(f'[rule]\nbaseline = "{base}"\ncandidate = "{cand}"\n\n[[condition]]\nmetric = "success"\n'
                    'max_drop = 0.05\nbound = "lower"\ntest = "sign"\n', encoding="utf-8")
    return str(path)


def _gate(capsys, *argv: str) -> dict:
    got = main(["gate", *map(str, argv), "--json"])
    out, err = capsys.readouterr()
    assert got in (0, 1, 3), err
    return json.loads(out)


@pytest.mark.parametrize("errors", ["exclude", "fail"])
def test_gate_on_promptfoo_repeats_pairs_test_cases_as_compare_does(cli, capsys, tmp_path, errors):
    """A success condition on a log of repeated tries: the unit is the test case (each system's
    share of its tries), the difference Compare's, the sign test over test cases."""
    path = fx("promptfoo_repeat", "results.json")
    compare = cli("compare", path, "--errors", errors)
    diff = one(compare, "mean_diff")
    doc = _gate(capsys, _rule(tmp_path, "steady", "flaky"), path, "--errors", errors)
    cond = doc["card"][0]
    assert cond["observed"] == pytest.approx(diff["value"], abs=1e-12)
    assert cond["n"] == diff["n"] == (6 if errors == "fail" else 5)
    from scipy.stats import binomtest

    improved, worse = one(compare, "improved")["value"], one(compare, "worse")["value"]
    assert cond["p_value"] == pytest.approx(binomtest(improved, improved + worse).pvalue, abs=1e-12)
    assert "unit:item(share-of-tries)" in doc["signature"]


def test_gate_reads_the_chosen_scorer_of_two_lmeval_runs(cli, capsys, tmp_path):
    runs = fx("lmeval_mc", "runs")
    want = {f"dummy {r['num_fewshot']}-shot seed {r['seeds']['random_seed']}": r for r in expected("lmeval_mc")["runs"]}
    base, cand = sorted(want)
    rule = _rule(tmp_path, base, cand)
    for scorer in ("acc", "acc_norm"):
        doc = _gate(capsys, rule, runs, "--scorer", scorer) if scorer != "acc" else _gate(capsys, rule, runs)
        cond = doc["card"][0]
        assert cond["observed"] == pytest.approx(want[cand][scorer] - want[base][scorer], abs=1e-9), scorer


def test_cost_card_ratio_of_costs_per_success_is_a_record(cli):
    doc = cli("cost", fx("promptfoo_repeat", "results.json"))
    cps = {r["system"]: r["value"] for r in recs(doc, "cost_per_success")}
    ratio = one(doc, "cost_per_success_ratio", **{"from": "steady", "to": "flaky"})
    assert ratio["value"] == pytest.approx(cps["flaky"] / cps["steady"], rel=1e-12)
    from workbench.analyses.reading import Reading, run
    from workbench.io import load_table
    from workbench.report.present import answer

    table = load_table(fx("promptfoo_repeat", "results.json"))
    from workbench.analyses import cost

    card = " ".join(answer(run("cost", table, cost.Options(), Reading())).sentences)
    assert f"at {ratio['value']:.2f} times the cost per success of 'steady'" in card, card


def _rule_with(tmp_path, base: str, cand: str, extra: str) -> str:
    path = tmp_path / "rule_reading.toml"
    path.write_text(f'[rule]\nbaseline = "{base}"\ncandidate = "{cand}"\n{extra}\n\n[[condition]]\n'
                    'metric = "success"\nmax_drop = 0.05\nbound = "lower"\ntest = "sign"\n', encoding="utf-8")
    return str(path)


def test_a_rule_states_its_scorer_and_errors_and_the_command_line_overrides_them(cli, capsys, tmp_path):
    """`[rule] scorer = ...` and `errors = ...` are the reading the rule is judged on (pre-registered
    with it): the same numbers as the flags give; a flag overrides the rule's, with a note."""
    runs = fx("lmeval_mc", "runs")
    want = {f"dummy {r['num_fewshot']}-shot seed {r['seeds']['random_seed']}": r for r in expected("lmeval_mc")["runs"]}
    base, cand = sorted(want)
    ruled = _rule_with(tmp_path, base, cand, 'scorer = "acc_norm"')
    doc = _gate(capsys, ruled, runs)
    assert doc["card"][0]["observed"] == pytest.approx(want[cand]["acc_norm"] - want[base]["acc_norm"], abs=1e-9)
    assert "scorer:acc_norm" in doc["signature"]
    over = _gate(capsys, ruled, runs, "--scorer", "acc")
    assert over["card"][0]["observed"] == pytest.approx(want[cand]["acc"] - want[base]["acc"], abs=1e-9)
    assert any("overridden by --scorer acc" in n for n in over["notes"])
    # errors: the rule's 'fail' equals the flag's
    path = fx("promptfoo_repeat", "results.json")
    by_rule = _gate(capsys, _rule_with(tmp_path, "steady", "flaky", 'errors = "fail"'), path)
    by_flag = _gate(capsys, _rule(tmp_path, "steady", "flaky"), path, "--errors", "fail")
    assert by_rule["card"][0]["observed"] == pytest.approx(by_flag["card"][0]["observed"], abs=1e-12)
    assert by_rule["card"][0]["n"] == by_flag["card"][0]["n"] == 6
    bad = main(["gate", _rule_with(tmp_path, "steady", "flaky", 'errors = "drop"'), path])
    out, err = capsys.readouterr()
    assert bad == 2 and "errors" in err and "exclude, fail" in err, err


def test_the_window_reading_yields_to_the_rule_stated_one():
    from workbench.analyses.reading import Reading
    from workbench.rules import parse_rule
    from workbench.rules.evaluate import rule_reading

    rule = parse_rule('[rule]\nbaseline = "a"\ncandidate = "b"\nscorer = "acc_norm"\n\n[[condition]]\n'
                           'metric = "success"\nmax_drop = 0.05\n')
    reading, notes = rule_reading(rule, Reading(scorer="acc", errors="fail"))
    assert (reading.scorer, reading.errors) == ("acc_norm", "fail") and "window's choice" in notes[0]
    assert rule_reading(rule, Reading())[1] == []  # a default reading: nothing to say
