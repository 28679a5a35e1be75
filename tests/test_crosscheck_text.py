"""Cross-checks of the text metrics against sacrebleu, rouge-score and the SQuAD v2 script.

* corpus BLEU / chrF == ``sacrebleu.corpus_bleu`` / ``sacrebleu.corpus_chrf`` called directly;
* ROUGE-1/2/L F per item == ``rouge_scorer.RougeScorer(...).score(target, prediction)``;
* exact match and token F1 with ``normalize='squad'`` == an inline copy of the official SQuAD
  v2.0 evaluation functions (normalize_answer, compute_exact, compute_f1);
* ``normalize='case_ws'`` == comparison of ``" ".join(s.lower().split())``; ``none`` == ``==``.

Data are generated (seeded numpy, or hypothesis) from a vocabulary with articles, punctuation,
mixed case, digits, irregular whitespace and some non-ASCII words.
"""

from __future__ import annotations

import collections
import json
import re
import string

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from workbench.analyses import text as text_analysis
from workbench.cli.main import main as cli_main
from workbench.io import LoadedTable
from workbench.metrics import text as tm

HYPO = settings(max_examples=200, deadline=None, database=None, derandomize=True)


# --------------------------------------------------------------------------- SQuAD v2.0 official
# (evaluate-v2.0.py, copied in substance: the functions the workbench claims to follow)


def normalize_answer(s):
    """Lower text and remove punctuation, articles and extra whitespace."""
    def remove_articles(text):
        regex = re.compile(r"\b(a|an|the)\b", re.UNICODE)
        return re.sub(regex, " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def get_tokens(s):
    if not s:
        return []
    return normalize_answer(s).split()


def compute_exact(a_gold, a_pred):
    return int(normalize_answer(a_gold) == normalize_answer(a_pred))


def compute_f1(a_gold, a_pred):
    gold_toks = get_tokens(a_gold)
    pred_toks = get_tokens(a_pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        # If either is no-answer, then F1 is 1 if they agree, 0 otherwise
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


# --------------------------------------------------------------------------- case_ws reference


def case_ws(s: str) -> str:
    return " ".join(s.lower().split())


def f1_of_tokens(pred_toks, gold_toks) -> float:
    if not pred_toks or not gold_toks:
        return float(pred_toks == gold_toks)
    same = sum((collections.Counter(pred_toks) & collections.Counter(gold_toks)).values())
    if same == 0:
        return 0.0
    p, r = same / len(pred_toks), same / len(gold_toks)
    return 2 * p * r / (p + r)


# --------------------------------------------------------------------------- generated text

WORDS = ("refund within in 7 days working the a an The A AN order ships cancel cancellation "
         "before dispatch is possible until you can policy page 30 2024 returns running runs "
         "ran fast faster café naïve straße Москва 東京 e-mail U.S. don't it's they're "
         "answer Answer ANSWER theory another anthem").split()
PUNCT = list(".,;:!?\"'()-/") + ["...", "--"]
SPACES = [" ", " ", " ", "  ", "\t", " \n "]


def random_text(rng: np.random.Generator, max_words: int = 14, allow_empty: bool = True) -> str:
    n = int(rng.integers(0 if allow_empty else 1, max_words + 1))
    parts = []
    for _ in range(n):
        word = str(rng.choice(WORDS))
        if rng.random() < 0.15:
            word += str(rng.choice(PUNCT))
        if rng.random() < 0.05:
            word = str(rng.choice(PUNCT)) + word
        parts.append(word)
        parts.append(str(rng.choice(SPACES)))
    return "".join(parts[:-1]) if parts else ""


def perturb(rng: np.random.Generator, ref: str) -> str:
    """A prediction near the reference: same, re-cased, re-spaced, dropped/added words."""
    r = rng.random()
    if r < 0.15:
        return ref
    if r < 0.3:
        return "  ".join(ref.upper().split())
    if r < 0.4:
        return "the " + ref + "."
    words = ref.split()
    keep = [w for w in words if rng.random() > 0.25]
    extra = random_text(rng, 4).split()
    mixed = keep + extra
    rng.shuffle(mixed) if rng.random() < 0.3 else None
    return " ".join(mixed)


def generated_items(seed: int, n: int, systems=("sys-a", "sys-b")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        ref = random_text(rng, allow_empty=rng.random() < 0.05)
        for system in systems:
            pred = perturb(rng, ref) if rng.random() < 0.85 else random_text(rng)
            rows.append({"id": f"item{i}", "system": system, "prediction": pred, "reference": ref})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def items() -> pd.DataFrame:
    return generated_items(1234, 150)


def analyse(frame: pd.DataFrame, **options):
    opts = dict(prediction="prediction", reference="reference", id="id", system="system")
    opts.update(options)
    return text_analysis.run(LoadedTable(frame=frame.reset_index(drop=True), path="<memory>"),
                             text_analysis.Options(**opts))


# --------------------------------------------------------------------------- BLEU / chrF


def test_generated_items_exercise_the_normalisations(items):
    preds, refs = items["prediction"].tolist(), items["reference"].tolist()
    squad = [compute_exact(r, p) for p, r in zip(preds, refs)]
    ws = [case_ws(p) == case_ws(r) for p, r in zip(preds, refs)]
    raw = [p == r for p, r in zip(preds, refs)]
    # each normalisation is strictly more lenient on this data: the tests below are not vacuous
    assert sum(raw) < sum(ws) < sum(squad) < len(preds)
    assert any(not r.strip() for r in refs)


def test_corpus_bleu_and_chrf_equal_sacrebleu(items):
    result = analyse(items)
    for system, g in items.groupby("system"):
        preds, refs = g["prediction"].tolist(), g["reference"].tolist()
        bleu = sacrebleu.corpus_bleu(preds, [refs])
        chrf = sacrebleu.corpus_chrf(preds, [refs])
        assert result.value("bleu", system=system) == pytest.approx(bleu.score, rel=1e-12, abs=1e-12)
        assert result.value("chrf", system=system) == pytest.approx(chrf.score, rel=1e-12, abs=1e-12)
        assert 0 < bleu.score < 100 and 0 < chrf.score < 100
    bleu_metric, chrf_metric = sacrebleu.metrics.BLEU(), sacrebleu.metrics.CHRF()
    bleu_metric.corpus_score(["a b c"], [["a b c"]])
    chrf_metric.corpus_score(["a b c"], [["a b c"]])
    sig_bleu = str(bleu_metric.get_signature())
    sig_chrf = str(chrf_metric.get_signature())
    assert f"bleu:[{sig_bleu}]" in result.signature
    assert f"chrf:[{sig_chrf}]" in result.signature


def test_corpus_functions_equal_sacrebleu_on_many_corpora():
    for seed in range(15):
        frame = generated_items(seed, int(5 + 9 * seed), systems=("s",))
        preds, refs = frame["prediction"].tolist(), frame["reference"].tolist()
        bleu, _ = tm.corpus_bleu(preds, refs)
        chrf, _ = tm.corpus_chrf(preds, refs)
        assert bleu == sacrebleu.corpus_bleu(preds, [refs]).score
        assert chrf == sacrebleu.corpus_chrf(preds, [refs]).score


def test_sentence_bleu_and_chrf_per_item_equal_sacrebleu(items):
    result = analyse(items)
    per_item = result.table("items").frame
    for row in per_item.itertuples(index=False):
        assert row.bleu == pytest.approx(
            sacrebleu.sentence_bleu(row.prediction, [row.reference]).score, rel=1e-12, abs=1e-12)
        assert row.chrf == pytest.approx(
            sacrebleu.sentence_chrf(row.prediction, [row.reference]).score, rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------- ROUGE


@pytest.mark.parametrize("stemmer", [False, True])
def test_rouge_per_item_equals_rouge_score(items, stemmer):
    result = analyse(items, stemmer=stemmer)
    per_item = result.table("items").frame
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=stemmer)
    expected = {t: [] for t in ("rouge1", "rouge2", "rougeL")}
    for row in per_item.itertuples(index=False):
        scores = scorer.score(target=row.reference, prediction=row.prediction)
        for t in expected:
            expected[t].append(scores[t].fmeasure)
    for t, values in expected.items():
        np.testing.assert_allclose(per_item[t].to_numpy(dtype=float), values, rtol=1e-12, atol=1e-12)
        for system in ("sys-a", "sys-b"):
            mask = (per_item["system"] == system).to_numpy()
            assert result.value(t, system=system) == pytest.approx(np.mean(np.array(values)[mask]))
    assert max(expected["rouge2"]) > 0 and min(expected["rouge1"]) < 1


def test_rouge_stemmer_option_changes_scores(items):
    on = analyse(items, stemmer=True).table("items").frame["rouge1"]
    off = analyse(items, stemmer=False).table("items").frame["rouge1"]
    assert (on >= off - 1e-12).all() and (on > off + 1e-9).any()


def test_rouge_function_argument_roles_match_rouge_score():
    """rouge-score's score(target, prediction): precision is over the prediction's tokens.
    F is symmetric, so check with precision/recall of a lopsided pair that the workbench's
    F equals rouge-score's for the pair as (reference, prediction)."""
    pred, ref = "refund in 7 days", "refund in 7 working days for every order placed online"
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)
    right = scorer.score(ref, pred)
    assert right["rouge1"].precision == 1.0 and right["rouge1"].recall < 0.5
    got = tm.rouge_f([pred], [ref], stemmer=False)
    for t in ("rouge1", "rouge2", "rougeL"):
        assert got[t][0] == pytest.approx(right[t].fmeasure, rel=1e-12)


# --------------------------------------------------------------------------- EM / token F1


def test_squad_em_and_f1_per_item_equal_official_script(items):
    result = analyse(items, normalize="squad")
    per_item = result.table("items").frame
    em = [compute_exact(r, p) for p, r in zip(per_item["prediction"], per_item["reference"])]
    f1 = [compute_f1(r, p) for p, r in zip(per_item["prediction"], per_item["reference"])]
    np.testing.assert_array_equal(per_item["exact_match"].to_numpy(), np.array(em, dtype=float))
    np.testing.assert_allclose(per_item["token_f1"].to_numpy(), f1, rtol=0, atol=1e-15)
    assert list(per_item["normalized_prediction"]) == [normalize_answer(p) for p in per_item["prediction"]]
    for system in ("sys-a", "sys-b"):
        mask = (per_item["system"] == system).to_numpy()
        assert result.value("exact_match", system=system) == pytest.approx(np.mean(np.array(em)[mask]))
        assert result.value("token_f1", system=system) == pytest.approx(np.mean(np.array(f1)[mask]))


def test_case_ws_em_and_f1_per_item(items):
    result = analyse(items, normalize="case_ws")
    per_item = result.table("items").frame
    preds, refs = per_item["prediction"].tolist(), per_item["reference"].tolist()
    em = [float(case_ws(p) == case_ws(r)) for p, r in zip(preds, refs)]
    f1 = [f1_of_tokens(case_ws(p).split(), case_ws(r).split()) for p, r in zip(preds, refs)]
    np.testing.assert_array_equal(per_item["exact_match"].to_numpy(), em)
    np.testing.assert_allclose(per_item["token_f1"].to_numpy(), f1, rtol=0, atol=1e-15)


def test_none_em_is_byte_equality(items):
    per_item = analyse(items, normalize="none").table("items").frame
    em = [float(p == r) for p, r in zip(per_item["prediction"], per_item["reference"])]
    np.testing.assert_array_equal(per_item["exact_match"].to_numpy(), em)


token = st.one_of(st.sampled_from(WORDS), st.sampled_from(PUNCT),
                  st.text(alphabet=string.ascii_letters + string.punctuation + "éßΣ東 ", max_size=6))
texts = st.one_of(
    st.lists(st.tuples(token, st.sampled_from(SPACES + [""])), max_size=10).map(
        lambda parts: "".join(a + b for a, b in parts)),
    st.text(max_size=30),
)


@HYPO
@given(pred=texts, ref=texts)
def test_squad_functions_equal_official_script(pred, ref):
    assert tm.normalize(pred, "squad") == normalize_answer(pred)
    assert tm.exact_match([pred], [ref], "squad")[0] == compute_exact(ref, pred)
    assert tm.token_f1_one(pred, ref, "squad") == pytest.approx(compute_f1(ref, pred), abs=1e-15)


@HYPO
@given(pred=texts, ref=texts)
def test_case_ws_functions_equal_reference(pred, ref):
    assert tm.normalize(pred, "case_ws") == case_ws(pred)
    assert tm.exact_match([pred], [ref], "case_ws")[0] == float(case_ws(pred) == case_ws(ref))
    assert tm.token_f1_one(pred, ref, "case_ws") == pytest.approx(
        f1_of_tokens(case_ws(pred).split(), case_ws(ref).split()), abs=1e-15)
    assert tm.exact_match([pred], [ref], "none")[0] == float(pred == ref)


def test_seed_token_f1_example_both_normalisations():
    pred, ref = "refund within 7 days", "refund in 7 working days"
    assert compute_f1(ref, pred) == pytest.approx(2 / 3)
    assert tm.token_f1_one(pred, ref, "squad") == pytest.approx(compute_f1(ref, pred))
    assert tm.token_f1_one(pred, ref, "case_ws") == pytest.approx(2 / 3)


# --------------------------------------------------------------------------- CLI


def test_cli_text_json_equals_references(tmp_path, capsys):
    frame = generated_items(77, 80)
    # literal cells a careless CSV reader would turn into NA or strip
    frame.loc[0, ["prediction", "reference"]] = ["NA", "NA"]
    frame.loc[1, ["prediction", "reference"]] = ["None", ""]
    frame.loc[2, ["prediction", "reference"]] = ["  padded answer ", "padded answer"]
    path = tmp_path / "text.csv"
    frame.to_csv(path, index=False)
    code = cli_main(["text", str(path), "--prediction", "prediction", "--reference", "reference",
                     "--id", "id", "--system", "system", "--normalize", "squad", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)

    def value(metric, system):
        found = [r for r in payload["results"] if r["metric"] == metric and r.get("system") == system]
        assert len(found) == 1
        return found[0]

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    for system, g in frame.groupby("system"):
        preds, refs = g["prediction"].tolist(), g["reference"].tolist()
        assert value("bleu", system)["value"] == pytest.approx(
            sacrebleu.corpus_bleu(preds, [refs]).score, rel=1e-12, abs=1e-12)
        assert value("chrf", system)["value"] == pytest.approx(
            sacrebleu.corpus_chrf(preds, [refs]).score, rel=1e-12, abs=1e-12)
        assert value("exact_match", system)["value"] == pytest.approx(
            np.mean([compute_exact(r, p) for p, r in zip(preds, refs)]))
        assert value("token_f1", system)["value"] == pytest.approx(
            np.mean([compute_f1(r, p) for p, r in zip(preds, refs)]))
        assert value("rougeL", system)["value"] == pytest.approx(
            np.mean([scorer.score(r, p)["rougeL"].fmeasure for p, r in zip(preds, refs)]))
        assert value("token_f1", system)["n"] == len(g) == 80
    assert "norm:squad" in payload["signature"]

    # normalize none: exact match is byte equality of the cells as written
    code = cli_main(["text", str(path), "--id", "id", "--system", "system", "--normalize", "none",
                     "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)
    for system, g in frame.groupby("system"):
        assert value("exact_match", system)["value"] == pytest.approx(
            np.mean([p == r for p, r in zip(g["prediction"], g["reference"])]))
