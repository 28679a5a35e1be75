"""The vectorised text metrics against sacrebleu and rouge-score, pair by pair, on hard data.

Every per-item value (sentence BLEU, sentence chrF, ROUGE-1/2/L F, token F1, exact match)
and the corpus BLEU / chrF must equal the reference libraries called one pair at a time to
1e-9; the integer statistics must equal sacrebleu's own ``_extract_corpus_statistics``
exactly.  The data: Unicode (accents, Cyrillic, CJK, Turkish dotted I, the Kelvin sign,
Greek final sigma, combining marks, emoji), empty and whitespace-only strings on either or
both sides, very long texts (past the 64-token bit-vector of the LCS and past the 64-bit keys
of the n-gram sort, which send pairs to the fallbacks), punctuation-heavy text, numbers with
decimal points, commas and dashes, and sacrebleu's 13a pre-processing patterns.
"""

from __future__ import annotations

import collections
import re
import string
import time

import numpy as np
import pytest
import sacrebleu
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU, CHRF

from workbench.core.errors import Cancelled
from workbench.core.progress import Progress
from workbench.metrics import _text_engine as eng
from workbench.metrics import text as tm

TOL = 1e-9

WORDS = ("refund within 7 days the a an The order ships café naïve straße Москва ДАННЫЕ 東京 "
         "数据集 İstanbul KELVIN\u212a ΟΔΟΣ σοφός e\u0301te 🙂 don't U.S. e-mail 3.14 1,000 "
         "10-20 -5 x-ray (see) [note] {a} <b> &amp; &lt; &quot; a&b \"q\" 'q' ... -- "
         "running runs ran generously happiness connection connected").split()
PUNCT = list(".,;:!?\"'()[]{}<>-/\\@#$%^&*_=+~`|") + ["...", "--", ".,", ",.", "-.", ".-"]
SPACES = [" ", " ", " ", "  ", "\t", "\n", " \n ", "\u00a0", "\u3000", "\u2009"]


def random_text(rng: np.random.Generator, max_words: int = 16) -> str:
    kind = rng.random()
    if kind < 0.04:
        return ""
    if kind < 0.07:
        return str(rng.choice([" ", "\t\n", "  \u00a0 "]))
    n = int(rng.integers(1, max_words + 1))
    parts = []
    for _ in range(n):
        r = rng.random()
        if r < 0.25:
            word = str(rng.choice(PUNCT))
        elif r < 0.35:
            word = str(rng.choice(["1", "22", "3.5", "4,000", "5-6", "7.", ",8", "-9", "0.1.2"]))
        else:
            word = str(rng.choice(WORDS))
        if rng.random() < 0.2:
            word += str(rng.choice(PUNCT))
        if rng.random() < 0.1:
            word = str(rng.choice(PUNCT)) + word
        parts.append(word)
        parts.append(str(rng.choice(SPACES)))
    text = "".join(parts[:-1])
    if rng.random() < 0.05:
        text += str(rng.choice(["<skipped>", "-\n", " -\nx", "&amp;lt;", "\n"]))
    return text


def perturb(rng: np.random.Generator, ref: str) -> str:
    r = rng.random()
    if r < 0.1:
        return ref
    if r < 0.2:
        return ref.upper()
    if r < 0.3:
        return random_text(rng)
    words = ref.split()
    keep = [w for w in words if rng.random() > 0.3]
    extra = random_text(rng, 5).split()
    mixed = keep + extra
    if rng.random() < 0.3:
        rng.shuffle(mixed)
    return str(rng.choice([" ", "  ", "\t"])).join(mixed)


def long_text(rng: np.random.Generator, n_words: int, vocab: int) -> str:
    return " ".join(f"w{int(i)}" for i in rng.integers(0, vocab, n_words))


def hard_pairs(seed: int = 7, n: int = 600) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    refs = [random_text(rng) for _ in range(n)]
    preds = [perturb(rng, r) for r in refs]
    extra = [
        ("", ""), ("", "a reference"), ("a prediction", ""), (" ", "\t"), ("", " . "),
        ("the", "the"), ("a an the", "the a an"), (".", "."), ("3.5", "3 . 5"),
        ("1,000.50 - 2-3", "1,000.50 -2-3"), ("a.. b,, c.,d", "a . . b"),
        ("<skipped>x-\ny", "xy"), ("&amp;lt;&quot;", "<\""), ("x-\n", "x-"),
        ("İ K ς Σ", "i̇ k σ σ"), ("🙂🙂🙂", "🙂"), ("e\u0301", "é"),
        # longer than the 64-token LCS bit vector on one side only, and on both
        (long_text(rng, 300, 40), "w1 w2 w3 w4"),
        ("w5 w6", long_text(rng, 200, 30)),
        (long_text(rng, 500, 60), long_text(rng, 400, 60)),
        # a long, punctuation-heavy, numeric text
        (" ".join(f"{i}.{i % 7},{i}-{i + 1}!" for i in range(400)),
         " ".join(f"{i}.{i % 5},{i}-{i + 2}?" for i in range(380))),
        # more distinct characters than 6-grams of 10-bit symbols hold: chrF's Counter fallback
        ("".join(chr(0x4E00 + i) for i in range(1500)) + "東京" * 50,
         "".join(chr(0x4E00 + i) for i in range(0, 2400, 2))),
    ]
    # eight pairs of ~1,000 distinct characters each (10-bit symbols): 6-grams, the side bit and
    # the row number do not fit one 64-bit key together, so the rows are tracked apart
    for k in range(8):
        base = 0x4E00 + 97 * k
        extra.append(("".join(chr(base + i) for i in range(0, 700)) + "。",
                      "".join(chr(base + i) for i in range(350, 1000)) + "。"))
    for p, r in extra:
        preds.append(p)
        refs.append(r)
    return preds, refs


@pytest.fixture(scope="module")
def pairs():
    return hard_pairs()


def test_data_reaches_every_path(pairs):
    preds, refs = pairs
    texts = eng.interleave(preds, refs)
    joined = "".join(texts)
    assert any(p in joined for p in ("<skipped>", "-\n", "&amp;"))
    assert any(not t.strip() for t in preds) and any(not t.strip() for t in refs)
    assert any(not p.strip() and not r.strip() for p, r in zip(preds, refs))
    assert max(len(t.split()) for t in texts) > 300
    assert any(ord(c) > 0x3000 for c in joined)


def test_bleu_statistics_equal_sacrebleu(pairs):
    preds, refs = pairs
    ours = tm.bleu_statistics(preds, refs)
    theirs = np.array(BLEU()._extract_corpus_statistics(preds, [refs]))
    np.testing.assert_array_equal(ours, theirs)


def test_bleu_statistics_without_13a_preprocessing_patterns(pairs):
    """The fast path (no <skipped>, -\\n or entities anywhere: words split once, shared)."""
    preds, refs = pairs
    keep = [i for i, (p, r) in enumerate(zip(preds, refs))
            if not any(x in p + r for x in ("<skipped>", "-\n", "&"))]
    p2, r2 = [preds[i] for i in keep], [refs[i] for i in keep]
    np.testing.assert_array_equal(tm.bleu_statistics(p2, r2),
                                  np.array(BLEU()._extract_corpus_statistics(p2, [r2])))


def test_statistics_without_a_spare_symbol_value_equal_sacrebleu(monkeypatch, pairs):
    """When no symbol value is free to follow the hypotheses, the n-grams past a text's end
    are masked instead; the statistics are the same."""
    preds, refs = pairs
    monkeypatch.setattr(eng, "SPARE_FILLER", False)
    np.testing.assert_array_equal(tm.chrf_statistics(preds, refs),
                                  np.array(CHRF()._extract_corpus_statistics(preds, [refs])))
    np.testing.assert_array_equal(tm.bleu_statistics(preds, refs),
                                  np.array(BLEU()._extract_corpus_statistics(preds, [refs])))
    # one or three symbols: b bits leave no free value, and b + 1 is taken
    for p, r in ((["a a a", "a"], ["a", ""]), (["a b c a b", "c c"], ["b c a", "a b c a"])):
        monkeypatch.setattr(eng, "SPARE_FILLER", False)
        off = tm.bleu_statistics(p, r), tm.chrf_statistics(p, r)
        monkeypatch.setattr(eng, "SPARE_FILLER", True)
        on = tm.bleu_statistics(p, r), tm.chrf_statistics(p, r)
        want = (np.array(BLEU()._extract_corpus_statistics(p, [r])),
                np.array(CHRF()._extract_corpus_statistics(p, [r])))
        for a, b_, c in zip(off, on, want):
            np.testing.assert_array_equal(a, c)
            np.testing.assert_array_equal(b_, c)


def test_chrf_statistics_equal_sacrebleu(pairs):
    preds, refs = pairs
    ours = tm.chrf_statistics(preds, refs)
    theirs = np.array(CHRF()._extract_corpus_statistics(preds, [refs]))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("normalize", ["none", "case_ws", "squad"])
@pytest.mark.parametrize("stemmer", [False, True])
def test_every_per_item_value_and_corpus_value_equal_references(pairs, normalize, stemmer):
    preds, refs = pairs
    got = tm.score_pairs(preds, refs, normalize=normalize, stemmer=stemmer)
    s_bleu = BLEU(effective_order=True)
    chrf = CHRF()
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=stemmer)
    for i, (p, r) in enumerate(zip(preds, refs)):
        assert abs(got.bleu[i] - s_bleu.sentence_score(p, [r]).score) <= TOL, (i, p, r)
        assert abs(got.chrf[i] - chrf.sentence_score(p, [r]).score) <= TOL, (i, p, r)
        rs = scorer.score(r, p)
        for t in tm.ROUGE_TYPES:
            assert abs(got.rouge[t][i] - rs[t].fmeasure) <= TOL, (i, t, p, r)
        assert got.token_f1[i] == tm.token_f1_one(p, r, normalize), (i, p, r)
        assert got.exact_match[i] == float(tm.normalize(p, normalize) == tm.normalize(r, normalize))
        assert got.norm_predictions[i] == tm.normalize(p, normalize)
        assert got.norm_references[i] == tm.normalize(r, normalize)
    assert abs(tm.corpus_bleu_from_statistics(got.bleu_stats)
               - sacrebleu.corpus_bleu(preds, [refs]).score) <= TOL
    assert abs(tm.corpus_chrf_from_statistics(got.chrf_stats)
               - sacrebleu.corpus_chrf(preds, [refs]).score) <= TOL
    # a subset's corpus score from its rows of statistics
    sub = list(range(0, len(preds), 3))
    assert abs(tm.corpus_bleu_from_statistics(got.bleu_stats[sub])
               - sacrebleu.corpus_bleu([preds[i] for i in sub], [[refs[i] for i in sub]]).score) <= TOL


def squad_normalize(s):
    """SQuAD v2.0's normalize_answer, written out again (independent of the workbench)."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def squad_f1(gold, pred):
    g, p = squad_normalize(gold).split(), squad_normalize(pred).split()
    if not g or not p:
        return float(g == p)
    same = sum((collections.Counter(g) & collections.Counter(p)).values())
    if same == 0:
        return 0.0
    prec, rec = same / len(p), same / len(g)
    return 2 * prec * rec / (prec + rec)


def test_squad_f1_equals_official_formula(pairs):
    preds, refs = pairs
    got = tm.score_pairs(preds, refs, normalize="squad")
    expected = np.array([squad_f1(r, p) for p, r in zip(preds, refs)])
    np.testing.assert_allclose(got.token_f1, expected, rtol=0, atol=TOL)
    np.testing.assert_array_equal(got.exact_match, [float(squad_normalize(p) == squad_normalize(r))
                                                    for p, r in zip(preds, refs)])


def test_rouge_blind_flags_letters_outside_a_z(pairs):
    preds, refs = pairs
    got = tm.rouge_blind_items(preds, refs)
    word = re.compile(r"[^\W\d_]")
    expected = [any(ord(c) > 127 for c in word.findall(p + " " + r)) for p, r in zip(preds, refs)]
    np.testing.assert_array_equal(got, expected)


def test_wide_vocabulary_pair_takes_the_counter_fallback_for_bleu():
    """A pair with more than 2**15 distinct words cannot pack 4-grams in 64 bits."""
    rng = np.random.default_rng(3)
    hyp = " ".join(f"t{i}" for i in rng.permutation(40_000))
    ref = " ".join(f"t{i}" for i in range(0, 40_000, 2)) + " t5 t6 t7"
    preds, refs = [hyp, "a b c d", "a b"], [ref, "a b c d e", ""]
    np.testing.assert_array_equal(tm.bleu_statistics(preds, refs),
                                  np.array(BLEU()._extract_corpus_statistics(preds, [refs])))
    # the wide pair right after others whose few words take 1 bit a symbol (its symbols,
    # wider, next to their last n-grams)
    for preds, refs in ((["a", hyp, "b b"], ["a a", ref, "b"]),
                        (["x y z a b c", "a b c d", hyp, "u v w"], ["a b c d e", "b c d", ref, "u v w t"])):
        np.testing.assert_array_equal(tm.bleu_statistics(preds, refs),
                                      np.array(BLEU()._extract_corpus_statistics(preds, [refs])))


@pytest.mark.parametrize("pack_limit", [eng.LCS_PACK_LIMIT, 0], ids=["packed-sort", "argsort"])
def test_lcs_against_dynamic_programming(monkeypatch, pack_limit):
    from workbench.metrics import _text_lcs

    monkeypatch.setattr(_text_lcs, "LCS_PACK_LIMIT", pack_limit)  # 0: keys too wide to pack
    rng = np.random.default_rng(11)
    hyps, refs = [], []
    for _ in range(300):
        lh, lr = int(rng.integers(0, 140)), int(rng.integers(0, 140))
        v = int(rng.integers(1, 12))
        hyps.append(" ".join(f"x{t}" for t in rng.integers(0, v, lh)))
        refs.append(" ".join(f"x{t}" for t in rng.integers(0, v, lr)))
    words = eng.Words(eng.interleave(hyps, refs))
    ids, lengths, _ = words.transform(lambda w: [w])
    lcs = eng.lcs_lengths(eng.Pairs(ids, lengths, len(hyps)))

    def dp(a, b):
        prev = [0] * (len(b) + 1)
        for x in a:
            cur = [0]
            for j, y in enumerate(b):
                cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
            prev = cur
        return prev[-1]

    assert [dp(h.split(), r.split()) for h, r in zip(hyps, refs)] == lcs.tolist()


class Recorder(Progress):
    def __init__(self, cancel_at: float | None = None) -> None:
        super().__init__()
        self.seen: list[tuple[float, str]] = []
        self.cancel_at = cancel_at

    def advance(self, fraction: float, message: str = "") -> None:
        self.seen.append((fraction, message))
        if self.cancel_at is not None and fraction >= self.cancel_at:
            self.cancel()


def _counting_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name.startswith("text-counting")]


def test_progress_advances_and_cancel_stops_between_blocks(monkeypatch, pairs):
    preds, refs = pairs
    rec = Recorder()
    tm.score_pairs(preds * 4, refs * 4, progress=rec)
    fractions = [f for f, _ in rec.seen]
    assert fractions == sorted(fractions) and fractions[-1] >= 0.95
    assert {"BLEU", "chrF", "ROUGE"} <= {m for _, m in rec.seen}
    assert not _counting_threads()
    # small, slowed-down blocks: a cancel while chrF is counted (on the counting thread) stops
    # its blocks before the last, and no later stage is reported
    monkeypatch.setattr(eng, "BLOCK", 256)
    monkeypatch.setattr(eng, "THREADS", 1)
    calls = []
    real = eng._block_matches

    def counted(*args):
        calls.append(args[4].size)
        return real(*args)

    monkeypatch.setattr(eng, "_block_matches", counted)
    tm.chrf_statistics(preds * 4, refs * 4)
    chrf_blocks = len(calls)
    assert chrf_blocks > 50

    def slow(*args):
        time.sleep(0.01)
        return counted(*args)

    monkeypatch.setattr(eng, "_block_matches", slow)
    for cancel_at, before in ((0.4, 0.7), (0.1, 0.2)):  # while waiting; while tokenising
        calls[:] = []
        rec = Recorder(cancel_at=cancel_at)
        with pytest.raises(Cancelled):
            tm.score_pairs(preds * 4, refs * 4, progress=rec)
        assert max(f for f, _ in rec.seen) < before, rec.seen[-8:]
        assert 0 < len(calls) < chrf_blocks
        assert not _counting_threads()


def test_counting_thread_error_reaches_the_caller_and_the_thread_ends(monkeypatch, pairs):
    """An exception in a counting job is raised by score_pairs (not lost on the thread)."""
    preds, refs = pairs

    def broken(*args):
        raise RuntimeError("counting failed")

    monkeypatch.setattr(eng, "lcs_lengths", broken)
    with pytest.raises(RuntimeError, match="counting failed"):
        tm.score_pairs(preds, refs)
    assert not _counting_threads()


def test_blocks_on_threads_give_the_same_statistics_as_one_thread(monkeypatch, pairs):
    """The n-gram blocks run on two threads; the statistics cannot depend on it."""
    preds, refs = pairs
    monkeypatch.setattr(eng, "BLOCK", 512)  # many blocks
    monkeypatch.setattr(eng, "THREADS", 1)
    one = tm.chrf_statistics(preds, refs), tm.bleu_statistics(preds, refs)
    monkeypatch.setattr(eng, "THREADS", 2)
    two = tm.chrf_statistics(preds, refs), tm.bleu_statistics(preds, refs)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(np.asarray(one[1]), np.asarray(two[1]))
    # and still sacrebleu's
    want = CHRF()._extract_corpus_statistics(preds, [refs])
    np.testing.assert_array_equal(two[0], np.array(want, dtype=np.int64))


def test_texts_holding_the_first_marker_characters():
    """The texts are joined with a control character found in none of them; texts holding
    the first candidates (and 13a patterns) still split, tokenise and score as the references."""
    preds = ["a\x01b \x02 c", "x\x03y &amp; z", "\x04", "plain words here"]
    refs = ["a\x01b c \x04", "x y &amp; z", "", "plain \x02 words"]
    words = eng.Words(eng.interleave(preds, refs))
    assert words.marker not in "".join(preds + refs)
    np.testing.assert_array_equal(tm.bleu_statistics(preds, refs),
                                  np.array(BLEU()._extract_corpus_statistics(preds, [refs])))
    got = tm.score_pairs(preds, refs, normalize="none")
    for i, (p, r) in enumerate(zip(preds, refs)):
        assert abs(got.bleu[i] - sacrebleu.sentence_bleu(p, [r]).score) <= TOL
        assert abs(got.chrf[i] - sacrebleu.sentence_chrf(p, [r]).score) <= TOL
        assert got.token_f1[i] == tm.token_f1_one(p, r, "none")


def test_empty_input():
    got = tm.score_pairs([], [])
    assert got.bleu.size == 0 and got.chrf.size == 0 and got.rouge["rougeL"].size == 0


@pytest.mark.parametrize("preds, refs", [
    (["", " \t", "\u3000"], ["\n", "", "  "]),  # no character at all
    (["", "ab c", "", ""], ["x", "", "", "c a b"]),  # empty texts first, between and last
    (["a b", "", "", ""], ["", "", "", ""]),
])
def test_chrf_statistics_with_empty_and_whitespace_texts_equal_sacrebleu(preds, refs):
    np.testing.assert_array_equal(tm.chrf_statistics(preds, refs),
                                  np.array(CHRF()._extract_corpus_statistics(preds, [refs])))
    cps, lengths = eng.chars_joined(eng.interleave(preds, refs))
    assert lengths.tolist() == [len("".join(t.split())) for t in eng.interleave(preds, refs)]
    assert "".join(map(chr, cps.tolist())) == "".join("".join(t.split()) for t in eng.interleave(preds, refs))


# --------------------------------------------------------------------------- property tests

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: characters every tokeniser treats specially: 13a's rules (. , - digits, its punctuation class),
#: its pre-processing (&quot; <skipped> -\n), whitespace of every kind, SQuAD's punctuation and
#: articles, rouge-score's [a-z0-9], case mappings that change length or script
ALPHABET = list(".,-0123456789aAnNtThHeEsxX &;<>/\"'()[]{}!?:@#$%^*_=+~`|\\") + \
    ["\n", "\t", "\u00a0", "\u2028", "\u3000", "\x1c", "İ", "\u212a", "Σ", "é", "e\u0301", "東",
     "🙂", "ß", "ﬁ", "&quot;", "&amp;", "&lt;", "<skipped>", "-\n", " the ", " a ", " an "]
texts = st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join)


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=25))
def test_random_strings_every_value_equals_references(batch):
    preds = [p for p, _ in batch]
    refs = [r for _, r in batch]
    np.testing.assert_array_equal(tm.bleu_statistics(preds, refs),
                                  np.array(BLEU()._extract_corpus_statistics(preds, [refs])))
    np.testing.assert_array_equal(tm.chrf_statistics(preds, refs),
                                  np.array(CHRF()._extract_corpus_statistics(preds, [refs])))
    for stemmer in (False, True):
        got = tm.rouge_f(preds, refs, stemmer=stemmer)
        scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=stemmer)
        for i, (p, r) in enumerate(batch):
            s = scorer.score(r, p)
            for t in tm.ROUGE_TYPES:
                assert abs(got[t][i] - s[t].fmeasure) <= TOL
    for mode in ("none", "case_ws", "squad"):
        got = tm.score_pairs(preds, refs, normalize=mode)
        assert got.norm_predictions == [tm.normalize(p, mode) for p in preds]
        assert got.norm_references == [tm.normalize(r, mode) for r in refs]
        assert got.token_f1.tolist() == [tm.token_f1_one(p, r, mode) for p, r in batch]
    assert tm.rouge_blind_items(preds, refs).tolist() == [
        any(ord(c) > 127 for c in re.findall(r"[^\W\d_]", p + " " + r)) for p, r in batch]
