"""``workbench baseline bless/list`` and ``workbench gate RULE RUN --baseline NAME``: the stored
baseline, every tier with its exit code, the JSON field ``tier``, the per-item regressions,
JUnit XML and Markdown, refusals in one sentence.  Expected p-values and decisions come from
scipy / statsmodels, never from the code under test."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar

from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]

RULE = """\
[rule]
name = "nightly"
baseline = "v1"
candidate = "v2"
alpha = 0.05

[data]
item = "item_id"
outcome = "success"

[[condition]]
metric = "success"
max_drop = {margin}
test = "{test}"
resamples = 2000
"""


def write_run(path: Path, outcomes: dict[str, int]) -> Path:
    pd.DataFrame({"item_id": list(outcomes), "success": list(outcomes.values())}).to_csv(path, index=False)
    return path


def base_outcomes(n=200, right=150) -> dict[str, int]:
    return {f"i{i:03d}": int(i < right) for i in range(n)}


def changed(outcomes: dict[str, int], *, lose=(), gain=()) -> dict[str, int]:
    out = dict(outcomes)
    for k in lose:
        assert out[k] == 1
        out[k] = 0
    for k in gain:
        assert out[k] == 0
        out[k] = 1
    return out


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rule = tmp_path / "rule.toml"
    rule.write_text(RULE.format(margin=0.05, test="sign"), encoding="utf-8")
    base = write_run(tmp_path / "base.csv", base_outcomes())
    return tmp_path, rule, base


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def bless(capsys, run, name="v1", *extra):
    code, out, err = cli(capsys, "baseline", "bless", run, "--name", name, *extra)
    assert code == 0, err
    return out


def gate_json(capsys, rule, run, name="v1", *extra):
    code, out, err = cli(capsys, "gate", rule, run, "--baseline", name, "--json", *extra)
    assert code != 2, err
    return code, json.loads(out), err


# --- bless / list --------------------------------------------------------------------------------

def test_bless_stores_a_copy_its_sha256_and_conventions_and_list_shows_it(capsys, project):
    tmp, rule, base = project
    out = bless(capsys, base)
    folder = tmp / ".workbench" / "baselines" / "v1"
    sha = hashlib.sha256(base.read_bytes()).hexdigest()
    assert sha in out and "200 items" in out
    assert (folder / "base.csv").read_bytes() == base.read_bytes()
    meta = json.loads((folder / "baseline.json").read_text(encoding="utf-8"))
    assert meta["sha256"] == sha and meta["source"] == str(base) and meta["n_items"] == 200
    assert meta["conventions"] == {"format": "text", "item": "item_id", "outcome": "success", "values": "binary"}
    assert meta["blessed_at"].endswith("+00:00")
    assert not [p for p in (tmp / ".workbench" / "baselines").iterdir() if p.name.startswith(".")]

    code, out, _ = cli(capsys, "baseline", "list")
    assert code == 0 and "v1" in out and sha[:12] in out and "200 items" in out
    code, out, _ = cli(capsys, "baseline", "list", "--json")
    listed = json.loads(out)["baselines"]
    assert [b["name"] for b in listed] == ["v1"] and listed[0]["sha256"] == sha and listed[0]["intact"]


def test_bless_refuses_an_existing_name_unless_force(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    other = write_run(tmp / "other.csv", changed(base_outcomes(), lose=["i000"]))
    code, out, err = cli(capsys, "baseline", "bless", other, "--name", "v1")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "already exists" in err and "--force" in err
    stored = tmp / ".workbench" / "baselines" / "v1"
    assert (stored / "base.csv").read_bytes() == base.read_bytes()  # unchanged
    bless(capsys, other, "v1", "--force")
    assert (stored / "other.csv").exists() and not (stored / "base.csv").exists()
    assert [p.name for p in stored.parent.iterdir()] == ["v1"]


def test_bless_with_dir_and_rule_folder(capsys, project):
    tmp, rule, base = project
    sub = tmp / "ci"
    sub.mkdir()
    rule2 = sub / "rule.toml"
    rule2.write_text(rule.read_text(), encoding="utf-8")
    bless(capsys, base, "near-rule", "--rule", rule2)
    assert (sub / ".workbench" / "baselines" / "near-rule" / "baseline.json").exists()
    bless(capsys, base, "elsewhere", "--dir", tmp / "store")
    code, out, _ = cli(capsys, "baseline", "list", "--dir", tmp / "store", "--json")
    assert [b["name"] for b in json.loads(out)["baselines"]] == ["elsewhere"]
    # the gate finds a baseline next to the rule without --dir
    code, payload, _ = gate_json(capsys, rule2, base, "near-rule")
    assert payload["tier"] == "stable" and code == 0


def test_bless_refuses_a_bad_name_and_a_missing_file(capsys, project):
    tmp, rule, base = project
    code, _, err = cli(capsys, "baseline", "bless", base, "--name", "../up")
    assert code == 2 and "not usable" in err
    code, _, err = cli(capsys, "baseline", "bless", tmp / "nope.csv", "--name", "x")
    assert code == 2 and "nope.csv" in err and "does not exist" in err


def test_unknown_baseline_is_one_sentence_naming_the_folder_and_known_names(capsys, project):
    tmp, rule, base = project
    bless(capsys, base, "v1")
    bless(capsys, base, "v0")
    code, out, err = cli(capsys, "gate", rule, base, "--baseline", "v9")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.count(". ") == 0
    assert "'v9'" in err and str(tmp / ".workbench" / "baselines") in err and "v0, v1" in err


# --- the tiers ----------------------------------------------------------------------------------

def test_stable_identical_run(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    code, payload, _ = gate_json(capsys, rule, base)
    assert (code, payload["tier"]) == (0, "stable")
    assert payload["regressions"] == [] and payload["items"]["shared"] == 200


def test_regression_lists_the_items_right_before_wrong_now(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    lost = [f"i{i:03d}" for i in range(120, 150)]
    run = write_run(tmp / "run.csv", changed(base_outcomes(), lose=lost))
    code, payload, _ = gate_json(capsys, rule, run)
    assert (code, payload["tier"]) == (1, "regression")
    assert sorted(payload["regressions"]) == lost and payload["items"]["gained_count"] == 0
    card = payload["card"][0]
    assert card["p_value"] == pytest.approx(binomtest(0, 30, 0.5).pvalue, rel=1e-9)
    assert card["observed"] == pytest.approx(-30 / 200)
    # the text output names them too
    code, out, _ = cli(capsys, "gate", rule, run, "--baseline", "v1")
    assert code == 1 and "TIER: regression" in out and "i120" in out and "right before, wrong now" in out


@pytest.mark.parametrize("wins", [5, 6])
def test_improvement_versus_stable_follows_the_exact_sign_test(capsys, project, wins):
    """b gains and no loss: improvement exactly when scipy's exact binomial test gives p < alpha
    (2 * 0.5^5 = 0.0625 -> stable; 2 * 0.5^6 = 0.03125 -> improvement)."""
    tmp, rule, base = project
    bless(capsys, base)
    gained = [f"i{i:03d}" for i in range(150, 150 + wins)]
    run = write_run(tmp / "run.csv", changed(base_outcomes(), gain=gained))
    code, payload, _ = gate_json(capsys, rule, run)
    p = binomtest(wins, wins, 0.5).pvalue
    assert payload["card"][0]["p_value"] == pytest.approx(p, rel=1e-12)
    expected = "improvement" if p < 0.05 else "stable"
    assert (code, payload["tier"]) == (0, expected)
    assert sorted(payload["items"]["gained"]) == gained


def test_a_drop_inside_the_noise_is_stable_and_still_lists_the_lost_items(capsys, project):
    """3 lost, 1 gained (-1 point): scipy's exact binomial test gives p = 0.625, no significant
    change in either direction: stable (a warning on every noisy run would teach people to
    ignore it), the items lost still listed."""
    tmp, rule, base = project
    bless(capsys, base)
    run = write_run(tmp / "run.csv", changed(base_outcomes(), lose=["i000", "i001", "i002"], gain=["i199"]))
    code, payload, err = gate_json(capsys, rule, run)
    assert binomtest(1, 4, 0.5).pvalue > 0.05
    assert (code, payload["tier"]) == (0, "stable") and "Soft regression" not in err
    assert sorted(payload["regressions"]) == ["i000", "i001", "i002"]
    assert payload["card"][0]["status"] == "PASS" and payload["card"][0]["observed"] == pytest.approx(-2 / 200)


def test_soft_regression_is_exit_0_with_a_warning(capsys, tmp_path, monkeypatch):
    """12 lost, none gained (-6 points, exact sign p = 2 * 0.5^12) inside a 15-point margin."""
    monkeypatch.chdir(tmp_path)
    rule = tmp_path / "rule.toml"
    rule.write_text(RULE.format(margin=0.15, test="sign"), encoding="utf-8")
    base = write_run(tmp_path / "base.csv", base_outcomes())
    bless(capsys, base)
    run = write_run(tmp_path / "run.csv", changed(base_outcomes(), lose=[f"i{i:03d}" for i in range(12)]))
    code, payload, err = gate_json(capsys, rule, run)
    assert (code, payload["tier"]) == (0, "soft regression")
    assert "warning" in err and "Soft regression" in err and "significantly worse" in err
    code, out, _ = cli(capsys, "gate", rule, run, "--baseline", "v1")
    assert code == 0 and "warning: Soft regression" in out


def test_insufficient_data_when_too_few_items_are_shared(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rule = tmp_path / "rule.toml"
    rule.write_text(RULE.format(margin=0.05, test="sign"), encoding="utf-8")
    base = write_run(tmp_path / "base.csv", base_outcomes(n=20, right=15))
    bless(capsys, base)
    run = write_run(tmp_path / "run.csv", changed(base_outcomes(n=20, right=15), lose=["i000"], gain=["i019"]))
    code, payload, _ = gate_json(capsys, rule, run)
    assert (code, payload["tier"]) == (3, "insufficient data")
    assert payload["card"][0]["status"] == "INCONCLUSIVE" and payload["card"][0]["more_items"] > 0
    assert "more items" in payload["tier_sentence"]


def test_no_shared_item_is_insufficient_data_and_names_both_sides(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    run = write_run(tmp / "run.csv", {f"new{i}": 1 for i in range(10)})
    code, payload, _ = gate_json(capsys, rule, run)
    assert (code, payload["tier"]) == (3, "insufficient data")
    assert payload["items"]["shared"] == 0 and payload["items"]["only_in_run_count"] == 10
    assert payload["items"]["only_in_baseline_count"] == 200


def test_items_in_only_one_run_are_counted_and_named(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    outcomes = base_outcomes()
    del outcomes["i010"], outcomes["i011"]
    outcomes["extra1"] = 1
    run = write_run(tmp / "run.csv", outcomes)
    code, payload, _ = gate_json(capsys, rule, run)
    items = payload["items"]
    assert items["shared"] == 198 and payload["card"][0]["n"] == 198
    assert sorted(items["only_in_baseline"]) == ["i010", "i011"] and items["only_in_run"] == ["extra1"]
    code, out, _ = cli(capsys, "gate", rule, run, "--baseline", "v1")
    assert "only in the baseline: i010, i011" in out and "only in the run: extra1" in out


def test_baseline_unreliable_when_the_stored_copy_changes(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    stored = tmp / ".workbench" / "baselines" / "v1" / "base.csv"
    stored.write_text(stored.read_text().replace("i000,1", "i000,0"))
    code, payload, _ = gate_json(capsys, rule, base)
    assert (code, payload["tier"]) == (3, "baseline unreliable")
    assert "changed on disk" in payload["tier_sentence"]
    code, out, _ = cli(capsys, "baseline", "list", "--json")
    listed = json.loads(out)["baselines"][0]
    assert listed["intact"] is False and "changed on disk" in listed["problem"]
    code, out, _ = cli(capsys, "baseline", "list")
    assert "UNRELIABLE" in out
    stored.unlink()
    code, payload, _ = gate_json(capsys, rule, base)
    assert (code, payload["tier"]) == (3, "baseline unreliable") and "missing" in payload["tier_sentence"]


def test_baseline_unreliable_when_conventions_differ(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    scores = tmp / "scores.csv"
    pd.DataFrame({"item_id": [f"i{i:03d}" for i in range(200)],
                  "success": [0.5 + i / 1000 for i in range(200)]}).to_csv(scores, index=False)
    code, payload, _ = gate_json(capsys, rule, scores)
    assert (code, payload["tier"]) == (3, "baseline unreliable")
    assert "outcome values 'binary' in the baseline but 'continuous' in the run" in payload["tier_sentence"]


def test_mcnemar_rule_uses_statsmodels_value(capsys, project):
    tmp, rule, base = project
    rule.write_text(RULE.format(margin=0.05, test="mcnemar"), encoding="utf-8")
    bless(capsys, base)
    lost = [f"i{i:03d}" for i in range(140, 150)]
    gained = [f"i{i:03d}" for i in range(150, 153)]
    run = write_run(tmp / "run.csv", changed(base_outcomes(), lose=lost, gain=gained))
    code, payload, _ = gate_json(capsys, rule, run)
    # 2x2 table: rows baseline right/wrong, columns run right/wrong
    table = [[140, 10], [3, 47]]
    ref = mcnemar(table, exact=False, correction=False).pvalue
    assert payload["card"][0]["p_value"] == pytest.approx(ref, rel=1e-9)
    assert payload["items"]["regressions_count"] == 10 and payload["items"]["gained_count"] == 3


# --- JUnit and Markdown --------------------------------------------------------------------------

def _check_junit(path: Path):
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    fails = [c for c in cases if c.find("failure") is not None]
    errors = [c for c in cases if c.find("error") is not None]
    assert int(suite.get("tests")) == len(cases) == int(root.get("tests"))
    assert int(suite.get("failures")) == len(fails) == int(root.get("failures"))
    assert int(suite.get("errors")) == len(errors) == int(root.get("errors"))
    for c in cases:
        assert c.get("name") and c.get("classname")
        assert len(list(c.iter("failure"))) + len(list(c.iter("error"))) <= 1
    return cases, fails, errors


def test_junit_one_case_per_criterion_plus_the_baseline(capsys, project):
    tmp, rule, base = project
    rule.write_text(RULE.format(margin=0.05, test="sign") + """
[[condition]]
metric = "success"
min_gain = 0
test = "sign"
resamples = 2000
""", encoding="utf-8")
    bless(capsys, base)
    lost = [f"i{i:03d}" for i in range(120, 150)]
    run = write_run(tmp / "run.csv", changed(base_outcomes(), lose=lost))
    junit, md = tmp / "out" / "gate.xml", tmp / "out" / "gate.md"
    junit.parent.mkdir()
    code, payload, _ = gate_json(capsys, rule, run, "v1", "--junit", junit, "--markdown", md)
    assert code == 1
    cases, fails, errors = _check_junit(junit)
    assert len(cases) == 3  # two criteria + the baseline comparison
    assert len(fails) == 3
    baseline_case = cases[-1]
    assert "baseline" in baseline_case.get("name")
    assert baseline_case.find("failure").get("message") == payload["tier_sentence"]
    text = md.read_text(encoding="utf-8")
    assert "**Tier: regression**" in text and "| # | criterion | status |" in text
    assert text.count("❌ FAIL") == 2 and "`i120`" in text and "Regressions: 30 items" in text
    assert not [p for p in junit.parent.iterdir() if p.name.startswith(".")]  # no temp file left


def test_junit_for_insufficient_data_is_an_error_case(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rule = tmp_path / "rule.toml"
    rule.write_text(RULE.format(margin=0.05, test="sign"), encoding="utf-8")
    base = write_run(tmp_path / "base.csv", base_outcomes(n=20, right=15))
    bless(capsys, base)
    run = write_run(tmp_path / "run.csv", changed(base_outcomes(n=20, right=15), lose=["i000"]))
    code, payload, _ = gate_json(capsys, rule, run, "v1", "--junit", tmp_path / "j.xml")
    assert code == 3
    cases, fails, errors = _check_junit(tmp_path / "j.xml")
    assert (len(cases), len(fails), len(errors)) == (2, 0, 2)


def test_junit_and_markdown_without_baseline(capsys, project):
    tmp, rule, base = project
    seed_rule = ROOT / "resources" / "rules" / "seed_14_to_5.toml"
    seed_data = ROOT / "resources" / "examples" / "paired_14_to_5.csv"
    code, out, err = cli(capsys, "gate", seed_rule, seed_data, "--junit", tmp / "j.xml",
                         "--markdown", tmp / "m.md")
    assert code == 0, err
    cases, fails, errors = _check_junit(tmp / "j.xml")
    assert len(cases) == 1 and not fails and not errors
    assert "✅ PASS" in (tmp / "m.md").read_text(encoding="utf-8")


def test_unwritable_junit_is_one_sentence(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    code, out, err = cli(capsys, "gate", rule, base, "--baseline", "v1", "--junit", tmp / "no" / "j.xml")
    assert code == 2 and "JUnit file" in err and len(err.strip().splitlines()) == 1


def test_gate_baseline_as_a_program(tmp_path):
    """The installed entry point: exit status and JSON through a real process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rule = tmp_path / "rule.toml"
    rule.write_text(RULE.format(margin=0.05, test="sign"), encoding="utf-8")
    base = write_run(tmp_path / "base.csv", base_outcomes())
    run = write_run(tmp_path / "run.csv", changed(base_outcomes(), lose=[f"i{i:03d}" for i in range(100, 150)]))

    def wb(*argv):
        return subprocess.run([sys.executable, "-m", "workbench", *map(str, argv)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)

    assert wb("baseline", "bless", base, "--name", "nightly").returncode == 0
    done = wb("gate", rule, run, "--baseline", "nightly", "--json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["tier"] == "regression"


# --- the same pairs as the plain gate ------------------------------------------------------------

RULES = ROOT / "resources" / "rules"


def _without(text: str, metric: str) -> str:
    """The rule text without its condition on ``metric``."""
    head, *conds = text.split("[[condition]]")
    return head + "".join("[[condition]]" + c for c in conds if f'metric = "{metric}"' not in c)


def _only(text: str, metric: str) -> str:
    """The rule text with only its condition on ``metric``."""
    head, *conds = text.split("[[condition]]")
    return head + "".join("[[condition]]" + c for c in conds if f'metric = "{metric}"' in c)


@pytest.mark.parametrize("kind", ["outcomes", "ranking"])
def test_a_blessed_two_system_file_gives_the_plain_gates_card(capsys, tmp_path, monkeypatch, kind):
    """Blessing a file of both systems and gating the same file pairs the rule's baseline rows
    (from the blessed copy) with its candidate rows: the card equals the plain gate's."""
    monkeypatch.chdir(tmp_path)
    text = (RULES / "release_all_conditions.toml").read_text(encoding="utf-8")
    rule = tmp_path / "rule.toml"
    rule.write_text(_without(text, "ndcg@10") if kind == "outcomes" else _only(text, "ndcg@10"), encoding="utf-8")
    data = RULES / ("example_outcomes.csv" if kind == "outcomes" else "example_ranking.csv")
    code, out, err = cli(capsys, "gate", rule, data, "--json")
    plain = json.loads(out)
    bless(capsys, data, "both", "--rule", rule)
    code2, payload, _ = gate_json(capsys, rule, data, "both")
    for a, b in zip(plain["card"], payload["card"]):
        assert (a["metric"], a["status"], a["n"]) == (b["metric"], b["status"], b["n"])
        for key in ("observed", "ci_low", "ci_high", "p_value"):
            assert (a[key] is None and b[key] is None) or a[key] == pytest.approx(b[key], rel=1e-12)
    expected = {"PASS": ("improvement", "stable", "soft regression"), "FAIL": ("regression",),
                "INCONCLUSIVE": ("insufficient data",)}[plain["verdict"]]
    assert payload["tier"] in expected
    if kind == "ranking":
        assert payload["items"]["item_column"] == "query" and payload["items"]["shared"] == 30
        assert "queries" in payload["tier_sentence"]
    else:
        items = payload["items"]
        assert items["shared"] + items["only_in_baseline_count"] == items["baseline_items"]
        assert items["shared"] == plain["card"][0]["n"]


def test_a_changed_source_file_is_a_note_the_stored_copy_decides(capsys, project):
    """The run blessed from results/latest.csv, which the next run overwrites: the stored copy
    is the baseline, and a note says the source has changed."""
    tmp, rule, base = project
    latest = write_run(tmp / "latest.csv", base_outcomes())
    bless(capsys, latest)
    write_run(latest, changed(base_outcomes(), lose=[f"i{i:03d}" for i in range(120, 150)]))
    code, payload, _ = gate_json(capsys, rule, latest)
    assert (code, payload["tier"]) == (1, "regression")
    assert any("has changed since it was blessed" in n for n in payload["notes"])


def test_baseline_with_several_inputs_or_dir_alone_is_refused(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    code, out, err = cli(capsys, "gate", rule, base, base, "--baseline", "v1")
    assert code == 2 and "one run" in err and len(err.strip().splitlines()) == 1
    code, out, err = cli(capsys, "gate", rule, base, "--dir", tmp)
    assert code == 2 and "--baseline" in err


def test_a_run_file_of_other_systems_is_one_sentence(capsys, project):
    tmp, rule, base = project
    bless(capsys, base)
    other = tmp / "other.csv"
    pd.DataFrame({"system": ["a", "b"], "item_id": ["i000", "i000"], "success": [1, 0]}).to_csv(other, index=False)
    code, out, err = cli(capsys, "gate", rule, other, "--baseline", "v1")
    assert code == 2 and "other.csv" in err and "none is 'v2'" in err


@pytest.mark.parametrize("margin, expected", [(0.15, "soft regression"), (0.01, "regression")])
def test_a_significant_drop_is_soft_inside_the_margin_and_a_regression_beyond(capsys, tmp_path, monkeypatch,
                                                                              margin, expected):
    """12 items lost, none gained (-6 points): scipy's exact binomial test finds the drop
    significant; with a margin of 15 points the interval rules out a drop beyond it (soft
    regression), with 1 point the significant drop is beyond the margin (regression)."""
    monkeypatch.chdir(tmp_path)
    rule = tmp_path / "rule.toml"
    rule.write_text(RULE.format(margin=margin, test="sign"), encoding="utf-8")
    base = write_run(tmp_path / "base.csv", base_outcomes())
    bless(capsys, base)
    run = write_run(tmp_path / "run.csv", changed(base_outcomes(), lose=[f"i{i:03d}" for i in range(12)]))
    code, payload, _ = gate_json(capsys, rule, run)
    p = binomtest(0, 12, 0.5).pvalue
    assert p < 0.05 and payload["card"][0]["p_value"] == pytest.approx(p, rel=1e-12)
    assert payload["tier"] == expected and code == (1 if expected == "regression" else 0)
    assert payload["items"]["regressions_count"] == 12


def test_the_per_item_regressions_are_counted_as_records(capsys, project):
    """The gate listed the items right before and wrong now but did not count them among its
    records (the --json "results"): regressions (the runs' lost), gained, only in one of the two."""
    tmp, rule, base = project
    bless(capsys, base)
    outcomes = changed(base_outcomes(), lose=["i000", "i001", "i002"], gain=["i199"])
    del outcomes["i010"]
    outcomes["new-1"] = 1
    run = write_run(tmp / "run.csv", outcomes)
    code, payload, _ = gate_json(capsys, rule, run)
    got = {r["metric"]: r for r in payload["results"] if r["metric"] in ("regressions", "lost", "gained",
                                                                         "only_from", "only_to")}
    assert got["regressions"]["value"] == got["lost"]["value"] == 3 == len(payload["regressions"])
    assert got["gained"]["value"] == 1 and got["only_from"]["value"] == 1 and got["only_to"]["value"] == 1
    assert got["regressions"]["n"] == 199 and got["regressions"]["from"] == "baseline:v1"


# --- a tool's log with several scorers: --scorer / --errors and the rule's own -------------------

LMEVAL = ROOT / "tests" / "fixtures" / "formats" / "lmeval_mc" / "runs"


def _samples(run: str) -> Path:
    return next((LMEVAL / run).glob("samples_*.jsonl"))


def _per_doc(path: Path, scorer: str) -> dict[int, float]:
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return {r["doc_id"]: float(r[scorer]) for r in rows}


def _log_rule(tmp_path, monkeypatch, extra: str = "") -> Path:
    """A project folder (the current one) with a one-criterion rule for a tool's log."""
    monkeypatch.chdir(tmp_path)
    rule = tmp_path / "rule.toml"
    rule.write_text(f'[rule]\nname = "log"\nbaseline = "v1"\ncandidate = "v2"\n{extra}\n[[condition]]\n'
                    'metric = "success"\nmax_drop = 0.05\ntest = "sign"\n', encoding="utf-8")
    return rule


@pytest.mark.parametrize("scorer", ["acc", "acc_norm"])
def test_gate_against_a_blessed_log_reads_the_chosen_scorer_on_both_sides(capsys, tmp_path, monkeypatch, scorer):
    """lm-eval's samples log holds two scorers (acc, acc_norm): `gate --baseline --scorer X` judges
    the difference of X (computed here from the two logs' lines), lists the items that went from
    right to wrong under X, names X in the signature, and does not call the conventions changed."""
    rule = _log_rule(tmp_path, monkeypatch)
    base, run = _samples("hpbhprii"), _samples("n6suiale")
    bless(capsys, base, "b1", "--rule", rule)
    _, doc, _ = gate_json(capsys, rule, run, "b1", "--scorer", scorer)
    was, now = _per_doc(base, scorer), _per_doc(run, scorer)
    shared = sorted(set(was) & set(now))
    want = sum(now[d] for d in shared) / len(shared) - sum(was[d] for d in shared) / len(shared)
    assert doc["tier"] != "baseline unreliable", doc["tier_sentence"]
    assert doc["card"][0]["observed"] == pytest.approx(want, abs=1e-12)
    assert f"scorer:{scorer}" in doc["signature"].split("|")
    lost = sum(1 for d in shared if was[d] == 1 and now[d] == 0)
    assert doc["items"]["regressions_count"] == lost


def test_the_rules_scorer_applies_against_a_baseline_and_the_flag_overrides_it(capsys, tmp_path, monkeypatch):
    rule = _log_rule(tmp_path, monkeypatch, 'scorer = "acc_norm"\n')
    base, run = _samples("hpbhprii"), _samples("n6suiale")
    bless(capsys, base, "b1", "--rule", rule)

    def diff(scorer):
        was, now = _per_doc(base, scorer), _per_doc(run, scorer)
        return sum(now.values()) / len(now) - sum(was.values()) / len(was)

    _, ruled, _ = gate_json(capsys, rule, run, "b1")
    assert ruled["card"][0]["observed"] == pytest.approx(diff("acc_norm"), abs=1e-12)
    assert "scorer:acc_norm" in ruled["signature"].split("|")
    _, over, _ = gate_json(capsys, rule, run, "b1", "--scorer", "acc")
    assert over["card"][0]["observed"] == pytest.approx(diff("acc"), abs=1e-12)
    assert any("overridden by --scorer acc" in n for n in over["notes"]), over["notes"]


@pytest.mark.parametrize("errors", ["exclude", "fail"])
def test_gate_against_a_blessed_log_reads_errored_samples_as_asked(capsys, tmp_path, monkeypatch, errors):
    """Inspect logs with an errored sample and two epochs: `--errors` decides whether the errored
    try is left out of its item's share of tries or counted as a failure, on both sides (the
    expected shares are computed here from the fixture's table of every sample)."""
    folder = ROOT / "tests" / "fixtures" / "formats" / "inspect_errors"
    rule = _log_rule(tmp_path, monkeypatch)
    bless(capsys, folder / "errors_beta.eval", "b2", "--rule", rule)
    _, doc, _ = gate_json(capsys, rule, folder / "errors_alpha.eval", "b2", "--errors", errors)
    table = pd.read_csv(folder / "errors_expected.csv", dtype={"sample_id": str}, comment="#")
    if errors == "fail":
        table["match"] = table["match"].fillna(0.0)
    shares = table.dropna(subset=["match"]).groupby(["log", "sample_id"])["match"].mean()
    alpha, beta = shares["errors_alpha.eval"], shares["errors_beta.eval"]
    shared = alpha.index.intersection(beta.index)
    assert doc["card"][0]["observed"] == pytest.approx((alpha[shared] - beta[shared]).mean(), abs=1e-12)
    assert doc["card"][0]["n"] == len(shared)
    named = "errored:failures(success-conditions)" if errors == "fail" else "errored:excluded"
    assert any(part.startswith(named) for part in doc["signature"].split("|")), doc["signature"]
    # item by item: an item is its share of tries (two epochs are one item, not two)
    assert doc["items"]["item_column"] == "sample_id" and doc["items"]["shared"] == len(shared)
    assert sorted(doc["items"]["regressions"]) == sorted(s for s in shared if alpha[s] < beta[s])
    assert sorted(doc["items"]["gained"]) == sorted(s for s in shared if alpha[s] > beta[s])


def test_a_log_with_epochs_is_blessed_as_its_items_and_older_conventions_are_a_note(capsys, tmp_path, monkeypatch):
    """`describe` says 4 items x 2 epochs: bless says 4 items (not 8 rows of tries).  A baseline
    blessed when the per-try column was taken for the item is still compared (both files as read
    now), with a note saying so, not called unreliable."""
    folder = ROOT / "tests" / "fixtures" / "formats" / "inspect_errors"
    rule = _log_rule(tmp_path, monkeypatch)
    out = bless(capsys, folder / "errors_beta.eval", "b2", "--rule", rule)
    samples = pd.read_csv(folder / "errors_expected.csv", dtype={"sample_id": str}, comment="#")
    n_items = samples[samples["log"] == "errors_beta.eval"]["sample_id"].nunique()
    assert f"{n_items} items" in out, out
    meta_path = tmp_path / ".workbench" / "baselines" / "b2" / "baseline.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    assert meta["n_items"] == n_items and meta["conventions"]["item"] == "sample_id"
    meta["conventions"]["item"] = "item"  # as blessed by the earlier reading
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    _, doc, _ = gate_json(capsys, rule, folder / "errors_alpha.eval", "b2")
    assert doc["tier"] != "baseline unreliable", doc["tier_sentence"]
    assert any("blessed with other conventions" in n and "item column 'item' at blessing but 'sample_id' now" in n
               for n in doc["notes"]), doc["notes"]


def test_a_log_blessed_under_a_scorer_is_gated_under_it_unless_told_otherwise(capsys, tmp_path, monkeypatch):
    """`baseline bless --scorer acc_norm` records the scorer (its column is the outcome of the stored
    conventions); a gate with neither --scorer nor a rule scorer reads both logs with acc_norm and
    says so; --scorer acc on the gate reads acc, and the note names the reading at blessing."""
    rule = _log_rule(tmp_path, monkeypatch)
    base, run = _samples("hpbhprii"), _samples("n6suiale")
    out = bless(capsys, base, "b1", "--rule", rule, "--scorer", "acc_norm")
    assert "scorer acc_norm" in out
    meta = json.loads((tmp_path / ".workbench" / "baselines" / "b1" / "baseline.json").read_text(encoding="utf-8"))
    assert meta["reading"] == {"scorer": "acc_norm"}
    assert meta["conventions"]["outcome"] == "acc_norm"

    def diff(scorer):
        was, now = _per_doc(base, scorer), _per_doc(run, scorer)
        shared = sorted(set(was) & set(now))
        return sum(now[d] for d in shared) / len(shared) - sum(was[d] for d in shared) / len(shared)

    assert diff("acc_norm") != pytest.approx(diff("acc"), abs=1e-9)  # the two readings differ here
    _, doc, _ = gate_json(capsys, rule, run, "b1")
    assert doc["card"][0]["observed"] == pytest.approx(diff("acc_norm"), abs=1e-12)
    assert "scorer:acc_norm" in doc["signature"].split("|")
    assert any("scorer 'acc_norm' baseline 'b1' was blessed under" in n for n in doc["notes"]), doc["notes"]
    _, told, _ = gate_json(capsys, rule, run, "b1", "--scorer", "acc")
    assert told["card"][0]["observed"] == pytest.approx(diff("acc"), abs=1e-12)
    assert not any("was blessed under" in n for n in told["notes"])
    assert any("outcome column 'acc_norm' at blessing but 'acc' now" in n for n in told["notes"]), told["notes"]
    code, out, err = cli(capsys, "baseline", "list", "--json")
    assert code == 0 and json.loads(out)["baselines"][0]["reading"] == {"scorer": "acc_norm"}


def test_bless_refuses_an_unknown_scorer_with_the_logs_scorers(capsys, tmp_path, monkeypatch):
    rule = _log_rule(tmp_path, monkeypatch)
    code, out, err = cli(capsys, "baseline", "bless", _samples("hpbhprii"), "--name", "b1", "--rule", rule,
                         "--scorer", "bleu")
    assert code != 0 and "'bleu'" in err and "'acc'" in err and "'acc_norm'" in err, err
    assert not (tmp_path / ".workbench" / "baselines" / "b1").exists()


def test_a_log_blessed_with_errors_as_failures_is_gated_so(capsys, tmp_path, monkeypatch):
    folder = ROOT / "tests" / "fixtures" / "formats" / "inspect_errors"
    rule = _log_rule(tmp_path, monkeypatch)
    bless(capsys, folder / "errors_beta.eval", "b2", "--rule", rule, "--errors", "fail")
    _, doc, _ = gate_json(capsys, rule, folder / "errors_alpha.eval", "b2")
    table = pd.read_csv(folder / "errors_expected.csv", dtype={"sample_id": str}, comment="#")
    table["match"] = table["match"].fillna(0.0)
    shares = table.groupby(["log", "sample_id"])["match"].mean()
    alpha, beta = shares["errors_alpha.eval"], shares["errors_beta.eval"]
    shared = alpha.index.intersection(beta.index)
    assert doc["card"][0]["observed"] == pytest.approx((alpha[shared] - beta[shared]).mean(), abs=1e-12)
    assert any(p.startswith("errored:failures") for p in doc["signature"].split("|")), doc["signature"]
    assert any("errored records as failures baseline 'b2' was blessed under" in n for n in doc["notes"])
