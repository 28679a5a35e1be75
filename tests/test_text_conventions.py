"""Text conventions beyond sacrebleu's and rouge-score's defaults: BLEU tokenizers and smoothings,
chrF++ and a ROUGE tokenizer that keeps non-Latin words.  Every value is checked against sacrebleu
(``corpus_score``, ``sentence_score``, its bootstrap and paired tests) or rouge-score run with the
same settings."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from conftest import table_of

from workbench.analyses import conventions as cv
from workbench.analyses import text
from workbench.core.errors import OptionError
from workbench.metrics import corpus_paired as cp
from workbench.metrics import text as tm
from workbench.metrics import text_variants as tv

sacrebleu_metrics = pytest.importorskip("sacrebleu.metrics")
BLEU, CHRF = sacrebleu_metrics.BLEU, sacrebleu_metrics.CHRF

# punctuation, Chinese and Japanese characters, accents, empty predictions and references
PREDS = ["The cat sat on the mat.", "東京大学に行きます。", "", "naïve résumé (draft), v2!",
         "我爱北京天安门", "Café au lait, s'il vous plaît!", "e-mail: a@b.com -- 3.14", "",
         "Übermäßig große Straße", "ok", "It's 10:30 p.m.; the café's open.", "日本語のテキスト"]
REFS = ["the cat sat on the mat", "東京大学へ行きます。", "Café au lait", "naive resume draft",
        "我爱北京", "café au lait, s'il vous plaît", "email: a@b.com - 3.14", "",
        "Übermäßig große Strasse!", "OK.", "It is 10:30 pm; the cafe is open.", "日本語テキスト"]
SMOOTHING = [s for s in tm.BLEU_SMOOTHING]


def _corpus(n: int, seed: int, p: float):
    words = ("the a cat dog sat on mat café naïve 東京 大学 日本語 北京 , . ! ( ) 's "
             "déjà-vu e-mail").split()
    rnd = random.Random(seed)
    refs = [" ".join(rnd.choices(words, k=rnd.randint(1, 14))) for _ in range(n)]
    preds = [" ".join(w if rnd.random() > p else rnd.choice(words) for w in r.split()) for r in refs]
    return preds, refs


@pytest.mark.parametrize("tokenize", tm.BLEU_TOKENIZERS)
@pytest.mark.parametrize("smooth", SMOOTHING)
def test_bleu_statistics_corpus_and_sentence_scores_are_sacrebleus(tokenize, smooth):
    stats = tv.bleu_statistics(PREDS, REFS, tokenize, smooth)
    assert stats.shape == (len(PREDS), 10)
    ref_corpus = BLEU(tokenize=tokenize, smooth_method=smooth).corpus_score(PREDS, [REFS]).score
    assert tm.corpus_bleu_from_statistics(stats, tokenize, smooth) == pytest.approx(ref_corpus, abs=1e-12)
    sent = BLEU(tokenize=tokenize, smooth_method=smooth, effective_order=True)
    ref_items = [sent.sentence_score(p, [r]).score for p, r in zip(PREDS, REFS)]
    np.testing.assert_allclose(tm.sentence_bleu_from_statistics(stats, smooth), ref_items,
                               rtol=1e-12, atol=1e-12)


def test_13a_statistics_of_sacrebleu_equal_the_engines():
    np.testing.assert_array_equal(tv.bleu_statistics(PREDS, REFS, "13a"), tm.bleu_statistics(PREDS, REFS))


def test_chrf_plus_plus_is_sacrebleus():
    stats = tv.chrf_statistics(PREDS, REFS, 2)
    assert stats.shape == (len(PREDS), 24)
    ref = CHRF(word_order=2)
    assert tm.corpus_chrf_from_statistics(stats, 2) == pytest.approx(
        ref.corpus_score(PREDS, [REFS]).score, abs=1e-12)
    np.testing.assert_allclose(tm.sentence_chrf_from_statistics(stats),
                               [ref.sentence_score(p, [r]).score for p, r in zip(PREDS, REFS)],
                               rtol=1e-12, atol=1e-12)
    # and chrF++ is not chrF here
    assert tm.corpus_chrf_from_statistics(stats, 2) != pytest.approx(
        CHRF().corpus_score(PREDS, [REFS]).score, abs=1e-6)


@pytest.mark.parametrize("stemmer", [False, True])
def test_unicode_rouge_is_rouge_score_with_that_tokenizer(stemmer):
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(list(tm.ROUGE_TYPES), tokenizer=tv.UnicodeTokenizer(stemmer))
    got = tv.rouge_f_unicode(PREDS, REFS, stemmer=stemmer)
    for t in tm.ROUGE_TYPES:
        ref = [scorer.score(r, p)[t].fmeasure for p, r in zip(PREDS, REFS)]
        np.testing.assert_allclose(got[t], ref, rtol=1e-12, atol=1e-12)


def test_unicode_tokenizer_keeps_non_latin_words_where_the_default_drops_them():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    tok = tv.UnicodeTokenizer()
    assert tok.tokenize("Naïve CAFÉ, 東京 大学!") == ["naïve", "café", "東京", "大学"]
    preds, refs = ["東京 大学 です", "naïve café"], ["東京 大学", "naïve café"]
    default = rouge_scorer.RougeScorer(["rouge1"])
    # the default tokenizer keeps nothing of the Japanese pair and only "na", "ve", "caf" of the other
    assert default.score(refs[0], preds[0])["rouge1"].fmeasure == 0.0
    uni = tv.rouge_f_unicode(preds, refs)["rouge1"]
    assert uni[0] == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))  # 2 of 3 predicted words, both reference words
    assert uni[1] == 1.0
    res_default = text.run(table_of(pd.DataFrame({"prediction": preds, "reference": refs})))
    res_uni = text.run(table_of(pd.DataFrame({"prediction": preds, "reference": refs})),
                       text.Options(rouge_tokenizer="unicode"))
    assert res_uni.value("rouge1") != pytest.approx(res_default.value("rouge1"))
    assert "tok:unicode-w" in res_uni.signature and "tok:ascii" in res_default.signature


@pytest.mark.parametrize("options", [dict(bleu_tokenize="char"), dict(bleu_tokenize="intl", bleu_smooth="floor"),
                                     dict(bleu_smooth="add-k"), dict(bleu_tokenize="none", bleu_smooth="none"),
                                     dict(chrf_word_order=2)])
def test_analysis_values_and_intervals_are_sacrebleus(options):
    preds, refs = _corpus(60, 3, 0.35)
    preds[5] = ""
    res = text.run(table_of(pd.DataFrame({"prediction": preds, "reference": refs})), text.Options(**options))
    o = text.Options(**options)
    bleu = BLEU(tokenize=o.bleu_tokenize, smooth_method=o.bleu_smooth)
    chrf = CHRF(word_order=o.chrf_word_order)
    assert res.value("bleu") == pytest.approx(bleu.corpus_score(preds, [refs]).score, abs=1e-12)
    assert res.value("chrf") == pytest.approx(chrf.corpus_score(preds, [refs]).score, abs=1e-12)
    items = res.table("items").frame
    sent = BLEU(tokenize=o.bleu_tokenize, smooth_method=o.bleu_smooth, effective_order=True)
    np.testing.assert_allclose(items["bleu"], [sent.sentence_score(p, [r]).score for p, r in zip(preds, refs)],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(items["chrf"], [chrf.sentence_score(p, [r]).score for p, r in zip(preds, refs)],
                               rtol=1e-12, atol=1e-12)
    # the sacrebleu --confidence interval, on the sentences in the canonical order
    for name, metric in (("bleu", bleu), ("chrf", chrf)):
        st = np.asarray(type(metric)(**_kwargs(name, o))._extract_corpus_statistics(preds, [refs]))
        order = np.lexsort(st.T[::-1])
        ref = type(metric)(**_kwargs(name, o)).corpus_score(
            [preds[i] for i in order], [[refs[i] for i in order]], n_bootstrap=1000)
        rec = res.find(name)[0]
        assert (rec["ci_low"], rec["ci_high"]) == pytest.approx(
            (max(0, ref._mean - ref._ci), min(100, ref._mean + ref._ci)), rel=1e-6), name
    # the signature: sacrebleu's own strings, naming tok, smooth and nw
    assert f"tok:{o.bleu_tokenize}|" in res.signature
    assert f"|smooth:{o.bleu_smooth}" in res.signature
    assert f"|nw:{o.chrf_word_order}|" in res.signature


def _kwargs(name, o):
    if name == "bleu":
        return dict(tokenize=o.bleu_tokenize, smooth_method=o.bleu_smooth)
    return dict(word_order=o.chrf_word_order)


@pytest.mark.parametrize("name,kwargs", [("bleu", dict(tokenize="char")), ("bleu", dict(smooth_method="floor")),
                                         ("bleu", dict(tokenize="intl", smooth_method="add-k")),
                                         ("chrf", dict(word_order=2))])
def test_paired_tests_with_other_conventions_are_sacrebleus(name, kwargs):
    from sacrebleu import significance as sig

    base, refs = _corpus(120, 7, 0.4)
    cand, _ = _corpus(120, 7, 0.3)
    cls = BLEU if name == "bleu" else CHRF
    m = cls(**kwargs)
    bl = m._extract_corpus_statistics(base, [refs])
    info = {name: (bl, sig.Result(m._aggregate_and_compute(bl).score))}
    bs = sig._paired_bs_test(info, "c", cand, [refs], {name: cls(**kwargs)}, n_samples=1000, seed=12345)[1][name]
    ar = sig._paired_ar_test(info, "c", cand, [refs], {name: cls(**kwargs)}, n_samples=2000, seed=12345)[1][name]
    ours = cp.compare_corpus(name, base, cand, refs, resamples=1000, trials=2000, seed=12345,
                             stats=(cls(**kwargs), *(cp.sentence_statistics(name, h, refs, cls(**kwargs))[1]
                                                     for h in (base, cand))))
    assert ours.cand_score == pytest.approx(bs.score, rel=1e-12)
    assert ours.bs_p == pytest.approx(bs.p_value, rel=1e-12)
    assert ours.ar_p == pytest.approx(ar.p_value, rel=1e-12)
    assert ours.cand_mean == pytest.approx(bs.mean, rel=1e-6)


def test_two_systems_corpus_tests_use_the_chosen_tokenizer():
    from sacrebleu import significance as sig

    base, refs = _corpus(80, 11, 0.4)
    cand, _ = _corpus(80, 11, 0.3)
    ids = [f"i{i:03d}" for i in range(80)]
    frame = pd.DataFrame({"id": ids * 2, "system": ["A"] * 80 + ["B"] * 80,
                          "prediction": base + cand, "reference": refs * 2})
    res = text.run(table_of(frame), text.Options(system="system", id="id", bleu_tokenize="char"))
    m = BLEU(tokenize="char")
    bl = m._extract_corpus_statistics(base, [refs])
    info = {"bleu": (bl, sig.Result(m._aggregate_and_compute(bl).score))}
    bs = sig._paired_bs_test(info, "B", cand, [refs], {"bleu": BLEU(tokenize="char")}, n_samples=1000,
                             seed=12345)[1]["bleu"]
    assert res.value("paired_bs_p:bleu", from_="A", to="B") == pytest.approx(bs.p_value, rel=1e-12)
    assert res.value("bleu", system="B") == pytest.approx(BLEU(tokenize="char").corpus_score(cand, [refs]).score)


def test_bad_settings_are_refused_in_one_sentence():
    frame = pd.DataFrame({"prediction": ["a"], "reference": ["a"]})
    for bad in (dict(bleu_tokenize="ja-mecab"), dict(bleu_smooth="add-one"), dict(chrf_word_order=1),
                dict(rouge_tokenizer="icu")):
        with pytest.raises(OptionError, match="must be one of|must be 0"):
            text.run(table_of(frame), text.Options(**bad))


def test_default_options_keep_the_default_signature_and_values():
    preds, refs = _corpus(40, 5, 0.3)
    res = text.run(table_of(pd.DataFrame({"prediction": preds, "reference": refs})))
    assert "tok:13a|smooth:exp" in res.signature and "nw:0" in res.signature
    assert "item-bleu:sentence,eff:yes|" in res.signature and "tok:ascii" in res.signature
    assert res.value("bleu") == pytest.approx(BLEU().corpus_score(preds, [refs]).score, abs=1e-12)


# ------------------------------------------------------------------ the conventions table

def test_conventions_table_lists_each_new_convention_with_the_value_of_its_run():
    preds, refs = _corpus(40, 8, 0.3)
    frame = pd.DataFrame({"prediction": preds, "reference": refs})
    opts = text.Options()
    conv = cv.evaluate("text", table_of(frame), opts)
    rows = conv.frame.set_index(["metric", "convention"])
    for tok in ("intl", "char", "none", "zh"):
        ref = BLEU(tokenize=tok).corpus_score(preds, [refs]).score
        assert rows.loc[("bleu", f"bleu_tokenize: {tok}"), "value"] == pytest.approx(ref, abs=1e-12)
    for smooth in ("floor", "add-k", "none"):
        ref = BLEU(smooth_method=smooth).corpus_score(preds, [refs]).score
        assert rows.loc[("bleu", f"bleu_smooth: {smooth}"), "value"] == pytest.approx(ref, abs=1e-12)
    assert rows.loc[("chrf", "chrf_word_order: 2"), "value"] == pytest.approx(
        CHRF(word_order=2).corpus_score(preds, [refs]).score, abs=1e-12)
    assert rows.loc[("chrf", "normalize: case_ws (as set)"), "value"] == pytest.approx(
        CHRF().corpus_score(preds, [refs]).score, abs=1e-12)
    assert ("rougeL", "rouge_tokenizer: unicode") in rows.index
    # one changed at a time: a BLEU convention leaves chrF as set
    assert rows.loc[("chrf", "bleu_tokenize: char"), "value"] == rows.loc[("chrf", "normalize: case_ws (as set)"), "value"]
    assert not any("BLEU tokenisers other than 13a" in s for s in conv.not_available)


def test_cli_carries_the_settings_in_the_signature(cli, tmp_path):
    path = tmp_path / "pairs.csv"
    pd.DataFrame({"prediction": PREDS, "reference": REFS}).to_csv(path, index=False)
    payload = cli("text", path, "--bleu-tokenize", "char", "--bleu-smooth", "floor",
                  "--chrf-word-order", "2", "--rouge-tokenizer", "unicode")
    sig = payload["signature"]
    assert "tok:char|smooth:floor[0.10]" in sig and "nw:2" in sig and "tok:unicode-w" in sig
    bleu = [r for r in payload["results"] if r["metric"] == "bleu"][0]
    assert bleu["value"] == pytest.approx(BLEU(tokenize="char", smooth_method="floor")
                                          .corpus_score(PREDS, [REFS]).score, abs=1e-9)


def test_cli_conventions_lists_the_new_conventions_with_values(cli, tmp_path):
    path = tmp_path / "pairs.csv"
    pd.DataFrame({"prediction": PREDS, "reference": REFS}).to_csv(path, index=False)
    payload = cli("text", path, "--conventions")
    conv = {(r["metric"], r["convention"]): r for r in payload["results"] if "convention" in r}
    for name in ("bleu_tokenize: intl", "bleu_tokenize: char", "bleu_tokenize: none", "bleu_smooth: floor",
                 "bleu_smooth: add-k", "bleu_smooth: none"):
        assert conv[("bleu", name)]["n"] == len(PREDS)
    assert conv[("bleu", "bleu_tokenize: char")]["value"] == pytest.approx(
        BLEU(tokenize="char").corpus_score(PREDS, [REFS]).score, abs=1e-9)
    assert conv[("chrf", "chrf_word_order: 2")]["value"] == pytest.approx(
        CHRF(word_order=2).corpus_score(PREDS, [REFS]).score, abs=1e-9)
    rouge = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge.RougeScorer(["rougeL"], tokenizer=tv.UnicodeTokenizer())
    assert conv[("rougeL", "rouge_tokenizer: unicode")]["value"] == pytest.approx(
        np.mean([scorer.score(r, p)["rougeL"].fmeasure for p, r in zip(PREDS, REFS)]), abs=1e-9)


# -- the engine's counts on sacrebleu's tokens equal sacrebleu's own statistics ---------------

_WORDS = ["the", "a", "cat,", "(dog)", "mat.", "Über", "café", "東京", "北京。", "3.5%", "e-mail",
          "don't", "&amp;", "--", "!", "x", "ÿ", "日本語のテキスト", "10:30", ".5", "5.", "2019.",
          ",", "a-", "-3", "1,000", "¡sí!", "«x»", "€5"]


@pytest.mark.parametrize("tokenize", ["intl", "char", "none", "zh", "13a"])
def test_bleu_statistics_equal_sacrebleus_own_per_item(tokenize):
    rng = random.Random(hash(tokenize) % 1000)
    preds, refs = list(PREDS), list(REFS)
    for _ in range(300):  # repeated texts, trailing spaces, empty sides, long rows
        pred = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 40)))
        ref = pred if rng.random() < 0.2 else " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 40)))
        # trailing and leading white space: intl keeps a line's leading space, zh strips it
        preds.append(rng.choice(["", "", " ", "\t"]) + pred + (" " if rng.random() < 0.2 else ""))
        refs.append(rng.choice(["", "", "\u3000"]) + ref + ("  " if rng.random() < 0.1 else ""))
    got = tv.bleu_statistics(preds, refs, tokenize)
    want = tv.reference_bleu_statistics(preds, refs, tokenize)
    np.testing.assert_array_equal(got, want)
    metric = BLEU(tokenize=tokenize)
    assert tm.corpus_bleu_from_statistics(got) == pytest.approx(
        metric.corpus_score(preds, [refs]).score, abs=1e-9)


def test_chrf_plus_plus_statistics_equal_sacrebleus_own_per_item():
    rng = random.Random(7)
    preds, refs = list(PREDS), list(REFS)
    for _ in range(300):
        pred = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 30)))
        preds.append(pred)
        refs.append(pred if rng.random() < 0.2 else " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 30))))
    got = tv.chrf_statistics(preds, refs, 2)
    np.testing.assert_array_equal(got, tv.reference_chrf_statistics(preds, refs, 2))
    assert got.shape == (len(preds), 24)
    assert tm.chrf_metric(2)._compute_score_from_stats(got.sum(axis=0).tolist()).score == \
        pytest.approx(CHRF(word_order=2).corpus_score(preds, [refs]).score, abs=1e-9)


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_vectorised_sentence_bleu_equals_sacrebleus_per_item(smooth):
    """Every smoothing's sentence BLEU (effective order) from the statistics, vectorised, against
    sacrebleu's own ``sentence_score`` on 1,500 random pairs (short ones: orders with no n-gram,
    no match at some order, empty sides)."""
    rng = random.Random(11)
    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "x", "y", "1", "2", ",", "!"]
    preds = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 10))) for _ in range(1500)]
    refs = [p if rng.random() < 0.2 else " ".join(rng.choice(words) for _ in range(rng.randint(0, 10)))
            for p in preds]
    metric = BLEU(smooth_method=smooth, effective_order=True)
    want = [metric.sentence_score(p, [r]).score for p, r in zip(preds, refs)]
    got = tm.sentence_bleu_from_statistics(tm.bleu_statistics(preds, refs), smooth)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


@pytest.mark.parametrize("normalize", ["none", "case_ws", "squad"])
@pytest.mark.parametrize("stemmer", [False, True])
def test_rescore_from_another_setting_equals_scoring_afresh(normalize, stemmer):
    """The conventions table derives one normalisation's or the stemmer's scores from another
    setting's: the same arrays as scoring the pairs afresh."""
    base = tm.score_pairs(PREDS, REFS, normalize="case_ws", stemmer=False)
    got = tm.rescore(base, PREDS, REFS, normalize=normalize, stemmer=stemmer,
                     base_normalize="case_ws", base_stemmer=False)
    want = tm.score_pairs(PREDS, REFS, normalize=normalize, stemmer=stemmer)
    np.testing.assert_array_equal(got.exact_match, want.exact_match)
    np.testing.assert_array_equal(got.token_f1, want.token_f1)
    for t in tm.ROUGE_TYPES:
        np.testing.assert_array_equal(got.rouge[t], want.rouge[t])
    np.testing.assert_array_equal(got.bleu_stats, want.bleu_stats)
    np.testing.assert_array_equal(got.chrf_stats, want.chrf_stats)
    assert got.norm_predictions == want.norm_predictions


def test_the_conventions_table_reuses_the_panels_own_scores_of_the_same_table_only(monkeypatch):
    """After the panel's run, the conventions table on the same table object takes the panel's
    scores instead of scoring the pairs again; a look-alike table (equal as a value, another
    object) is scored afresh; and the table's numbers are the same either way."""
    frame = pd.DataFrame({"id": [f"i{k}" for k in range(len(PREDS))], "prediction": PREDS,
                          "reference": REFS})
    opts = text.Options()
    calls = []
    real = tm.score_pairs
    monkeypatch.setattr(tm, "score_pairs", lambda *a, **k: calls.append(1) or real(*a, **k))

    first = table_of(frame)
    result = text.run(first, opts)
    assert len(calls) == 1
    reused = cv.evaluate("text", first, opts, result=result)
    assert len(calls) == 1  # the panel's scores, not a second scoring

    other = table_of(frame.copy())
    fresh = cv.evaluate("text", other, opts, result=text.run(other, opts))
    assert len(calls) == 2  # its own panel run, which its conventions then reuse
    third = table_of(frame.copy())  # never run: its conventions score it afresh
    cv.evaluate("text", third, opts, result=result)
    assert len(calls) == 3
    cols = ["metric", "convention", "value", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(reused.frame[cols], fresh.frame[cols])
