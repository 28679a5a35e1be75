"""Release rule files: the format, the example files, and one clear sentence per mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.errors import WorkbenchError
from workbench.core.session import sha256_text
from workbench.rules import TEMPLATE, RuleError, load_rule, parse_rule
from workbench.rules.spec import COST, LATENCY, PAIRED, RANKING

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "resources" / "rules"

HEAD = '[rule]\nbaseline = "v1"\ncandidate = "v2"\n'


def bad(text: str, name: str = "release.toml") -> str:
    with pytest.raises(RuleError) as info:
        parse_rule(text, source=f"/somewhere/{name}")
    msg = str(info.value)
    assert isinstance(info.value, WorkbenchError)
    assert "\n" not in msg and msg.endswith(".")
    assert f"'{name}'" in msg, msg
    return msg


# --- the format -------------------------------------------------------------------------------------

def test_full_rule_is_parsed_with_defaults_and_overrides():
    rule = parse_rule(HEAD + '''
alpha = 0.1
registered = "2026-10-01"
[data]
item = "item_id"
system = "system"
[[condition]]
metric = "success"
max_drop = 0.01
[[condition]]
metric = "ndcg@10"
min_gain = 0
test = "t"
interval = "normal"
baseline = "bm25"
candidate = "dense"
data = { system = "run" }
input = 2
gain = "exponential"
[[condition]]
metric = "cost_per_success"
max_increase = 0.1
[[condition]]
metric = "latency_p95"
max = 2.5
percentile_method = "nearest_rank"
bound = "point"
''', source="r.toml")
    assert rule.alpha == 0.1 and rule.registered == "2026-10-01" and rule.name == "r"
    assert rule.multiplicity == "holm"
    s, n, c, lat = rule.conditions
    assert (s.kind, s.threshold_key, s.threshold, s.bound, s.interval, s.test, s.resamples, s.seed) == \
        (PAIRED, "max_drop", 0.01, "lower", "bootstrap", "sign", 10000, 12345)
    assert s.limit == -0.01 and s.baseline == "v1" and s.data == {"item": "item_id", "system": "system"}
    assert (n.kind, n.k, n.test, n.interval, n.input, n.baseline, n.candidate) == \
        (RANKING, 10, "t", "normal", 2, "bm25", "dense")
    assert n.data["system"] == "run" and n.data["item"] == "item_id"
    assert n.options["gain"] == "exponential" and n.options["ties"] == "trec_eval"
    assert (c.kind, c.bound, c.test, c.relative) == (COST, "upper", "none", True)
    assert (lat.kind, lat.percentile, lat.relative, lat.bound) == (LATENCY, 95.0, False, "point")
    assert lat.options["percentile_method"] == "nearest_rank"


def test_descriptions_read_as_sentences():
    rule = parse_rule(HEAD + '''
[[condition]]
metric = "success"
max_drop = 0.01
[[condition]]
metric = "cost_per_success"
max_increase = 0.10
[[condition]]
metric = "latency_p95"
max = 2.5
[[condition]]
metric = "ndcg@10"
max_drop = 0.01
[[condition]]
metric = "success"
min_gain = 0
''')
    text = rule.describe()
    assert text[0] == "1. success must not drop by more than 1 point (lower bound ≥ -1.0 pts)"
    assert text[1] == "2. cost_per_success must not rise by more than 10% (upper bound ≤ +10.0%)"
    assert text[2] == "3. latency_p95 must stay at or below 2.5 (upper bound ≤ 2.500)"
    assert text[3] == "4. ndcg@10 must not drop by more than 0.01 (lower bound ≥ -0.010)"
    assert text[4] == "5. success must improve (lower bound > 0.0 pts and exact sign test significant)"


def test_hash_is_the_session_hash_of_the_text(tmp_path):
    text = HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\n'
    path = tmp_path / "r.toml"
    path.write_bytes(text.encode("utf-8"))
    rule = load_rule(path)
    assert rule.sha256 == sha256_text(text) == parse_rule(text).sha256
    assert rule.text == text and rule.source == str(path)
    edited = text.replace("0.01", "0.02")
    assert parse_rule(edited).sha256 != rule.sha256


def test_qrels_path_is_relative_to_the_rule_file(tmp_path):
    path = tmp_path / "rules" / "r.toml"
    path.parent.mkdir()
    path.write_text(HEAD + '[data]\nqrels = "judgments.csv"\n[[condition]]\nmetric = "map"\nmax_drop = 0.01\n',
                    encoding="utf-8")
    assert load_rule(path).conditions[0].data["qrels"] == str(tmp_path / "rules" / "judgments.csv")


def test_bom_is_accepted():
    rule = parse_rule("\ufeff" + HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\n')
    assert rule.baseline == "v1"


@pytest.mark.parametrize("path", sorted(RULES.glob("*.toml")), ids=lambda p: p.name)
def test_example_rule_files_are_valid(path):
    rule = load_rule(path)
    assert rule.conditions and rule.name


def test_example_with_all_four_condition_types():
    rule = load_rule(RULES / "release_all_conditions.toml")
    assert [c.kind for c in rule.conditions] == [PAIRED, COST, LATENCY, RANKING]
    assert [c.threshold_key for c in rule.conditions] == ["max_drop", "max_increase", "max", "max_drop"]


def test_seed_example_is_the_no_drop_sign_test_rule():
    (cond,) = load_rule(RULES / "seed_14_to_5.toml").conditions
    assert (cond.metric, cond.threshold_key, cond.threshold, cond.test, cond.bound) == \
        ("success", "max_drop", 0.01, "sign", "lower")


def test_template_parses():
    assert parse_rule(TEMPLATE).conditions[0].metric == "success"


# --- validation: one sentence naming file, line, key and value ----------------------------------------

def test_toml_syntax_error_gives_the_line():
    msg = bad('[rule]\nbaseline = "v1"\ncandidate = v2\n')
    assert "not valid TOML" in msg and "line 3" in msg


def test_unknown_metric_is_named_with_a_suggestion():
    msg = bad(HEAD + '\n[[condition]]\nmetric = "sucess"\nmax_drop = 0.01\n')
    assert "line 6" in msg and "'metric'" in msg and '"sucess"' in msg
    assert "did you mean 'success'" in msg and "ndcg@K" in msg


def test_missing_baseline():
    msg = bad('[rule]\ncandidate = "v2"\n[[condition]]\nmetric = "success"\nmax_drop = 0.01\n')
    assert "[rule]" in msg and "'baseline' is missing" in msg


def test_missing_rule_table_and_conditions():
    assert "no [rule]" in bad('[[condition]]\nmetric = "success"\nmax_drop = 0.01\n')
    assert "no [[condition]]" in bad(HEAD)


def test_negative_threshold_names_condition_key_value_and_line():
    msg = bad(HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\n'
                     '[[condition]]\nmetric = "cost_per_success"\nmax_increase = -0.1\n')
    assert "[[condition]] 2 (cost_per_success)" in msg and "'max_increase'" in msg
    assert "-0.1" in msg and "line 9" in msg and "negative" in msg


def test_unknown_test():
    msg = bad(HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\ntest = "fisher"\n')
    assert "'test'" in msg and '"fisher"' in msg and "sign, mcnemar, mcnemar_cc, none" in msg


def test_test_that_does_not_fit_the_metric():
    msg = bad(HEAD + '[[condition]]\nmetric = "ndcg@10"\nmax_drop = 0.01\ntest = "mcnemar"\n')
    assert "'test'" in msg and "sign, t, randomization, wilcoxon, none" in msg
    msg = bad(HEAD + '[[condition]]\nmetric = "cost_per_success"\nmax_increase = 0.1\ntest = "sign"\n')
    assert "does not apply" in msg and '"sign"' in msg


@pytest.mark.parametrize("line, key, shown", [
    ('max_drop = "1%"', "max_drop", '"1%"'),
    ("max_drop = true", "max_drop", "true"),
    ('resamples = 1e4', "resamples", "10000.0"),
    ("seed = 1.5", "seed", "1.5"),
])
def test_wrong_type(line, key, shown):
    body = HEAD + '[[condition]]\nmetric = "success"\n' + line + "\n"
    if key != "max_drop":
        body += "max_drop = 0.01\n"
    msg = bad(body)
    assert f"'{key}'" in msg and shown in msg and ("number" in msg or "whole number" in msg)


def test_text_key_given_a_number_suggests_quotes():
    msg = bad('[rule]\nbaseline = 1\ncandidate = "2"\n[[condition]]\nmetric = "success"\nmax_drop = 0.01\n')
    assert "'baseline' must be text" in msg and 'baseline = "1"' in msg and "line 2" in msg


def test_alpha_out_of_range():
    msg = bad(HEAD + 'alpha = 5\n[[condition]]\nmetric = "success"\nmax_drop = 0.01\n')
    assert "'alpha'" in msg and "5" in msg


def test_threshold_in_points_instead_of_a_fraction():
    msg = bad(HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 1\n')
    assert "0.01 is one point" in msg


def test_unknown_key_is_a_typo_not_ignored():
    msg = bad(HEAD + '[[condition]]\nmetric = "success"\nmax_dorp = 0.01\n')
    assert "unknown key 'max_dorp'" in msg and "did you mean 'max_drop'" in msg


def test_threshold_of_another_metric():
    msg = bad(HEAD + '[[condition]]\nmetric = "latency_p95"\nmax_drop = 0.01\n')
    assert "max or max_increase" in msg


def test_no_threshold_and_two_thresholds():
    assert "no threshold" in bad(HEAD + '[[condition]]\nmetric = "success"\n')
    assert "one threshold" in bad(HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\nmin_gain = 0\n')


def test_bound_on_the_wrong_side():
    msg = bad(HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\nbound = "upper"\n')
    assert "'bound'" in msg and "lower bound" in msg


def test_same_baseline_and_candidate():
    assert "must differ" in bad('[rule]\nbaseline = "a"\ncandidate = "a"\n[[condition]]\n'
                                'metric = "success"\nmax_drop = 0.01\n')


def test_unknown_section_and_data_key():
    assert "'conditions'" in bad(HEAD + '[conditions]\nmetric = "success"\n')
    msg = bad(HEAD + '[data]\nitems = "id"\n[[condition]]\nmetric = "success"\nmax_drop = 0.01\n')
    assert "[data]" in msg and "'items'" in msg and "line 5" in msg


def test_bad_input_index_and_resamples():
    assert "'input'" in bad(HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\ninput = 0\n')
    assert "'resamples'" in bad(HEAD + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\nresamples = 5\n')


def test_missing_and_undecodable_files(tmp_path):
    with pytest.raises(RuleError, match="does not exist"):
        load_rule(tmp_path / "nope.toml")
    path = tmp_path / "latin.toml"
    path.write_bytes('[rule]\nname = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(RuleError, match="not UTF-8"):
        load_rule(path)


@pytest.mark.parametrize("value,shown", [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf")])
def test_a_threshold_that_is_not_finite_gets_a_sentence(value, shown):
    """TOML allows nan and inf; a threshold must be a finite number (found by the CLI fuzz test:
    the message itself used to crash on nan)."""
    msg = bad(HEAD + f'[[condition]]\nmetric = "success"\nmax_drop = {value}\n')
    assert "must be a finite number" in msg and f"got {shown}" in msg
