"""Per-item text metrics: exact match, token F1, and the reference-overlap scores.

Normalisation modes (each step is part of the signature):

* ``none``    -- byte equality of the strings as given; tokens are ``str.split()``.
* ``case_ws`` -- ``" ".join(text.lower().split())``: lower-case, collapse whitespace.
* ``squad``   -- SQuAD's official ``normalize_answer``: lower-case, remove ASCII
  punctuation, drop the articles a/an/the, collapse whitespace.

Token F1 follows the SQuAD v2 evaluation script: bag-of-tokens overlap after
normalisation, and when either side has no token the score is 1 if both are empty, else 0.
BLEU, chrF and ROUGE equal sacrebleu's and rouge-score's: the same tokenisers and the same
integer statistics (n-gram counts, clipped matches, LCS lengths), computed for all pairs at
once (``_text_engine``), then the libraries' own formulas -- corpus BLEU and chrF by calling
sacrebleu on the summed statistics, per-item scores by the same floating-point operations in
the same order, vectorised.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import OptionError
from . import _text_engine as eng

NORMALIZATIONS = ("none", "case_ws", "squad")

_PUNCT = set(string.punctuation)
_PUNCT_TABLE = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_NON_ASCII_ALNUM = re.compile(r"[^\W\d_]", re.UNICODE)


def normalize(text: str, mode: str) -> str:
    """Normalise ``text`` by ``mode`` (see module docstring).

    >>> normalize("  The  Refund, in 7 days. ", "squad")
    'refund in 7 days'
    >>> normalize("  The  Refund ", "case_ws")
    'the refund'
    """
    if mode == "none":
        return text
    if mode == "case_ws":
        return " ".join(text.lower().split())
    if mode == "squad":
        text = text.lower().translate(_PUNCT_TABLE)
        text = _ARTICLES.sub(" ", text)
        return " ".join(text.split())
    raise OptionError(f"`normalize` must be one of {', '.join(NORMALIZATIONS)}; got normalize={mode!r}.")


def exact_match(predictions, references, mode: str) -> np.ndarray:
    """1.0 where the normalised prediction equals the normalised reference."""
    return np.array([float(normalize(p, mode) == normalize(r, mode))
                     for p, r in zip(predictions, references, strict=True)], dtype=float)


def token_f1_one(prediction: str, reference: str, mode: str) -> float:
    """SQuAD v2 token F1 of one pair.

    >>> round(token_f1_one("refund within 7 days", "refund in 7 working days", "case_ws"), 3)
    0.667
    """
    pred = normalize(prediction, mode).split()
    ref = normalize(reference, mode).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred)
    recall = common / len(ref)
    return 2 * precision * recall / (precision + recall)


def token_f1(predictions, references, mode: str) -> np.ndarray:
    """SQuAD v2 token F1 per pair (vectorised; equal to :func:`token_f1_one`)."""
    preds, refs = list(predictions), list(references)
    if len(preds) != len(refs):
        raise ValueError("predictions and references differ in length")
    words = eng.Words(eng.interleave(preds, refs))
    return normalized_scores(words, mode)[1]


def _normalize_word(mode: str):
    """``normalize`` of one whitespace token, as tokens (every mode works word by word:
    lower-casing, deleting punctuation and the articles regex see only the word and its
    whitespace neighbours)."""
    if mode == "none":
        return lambda w: [w]
    if mode == "case_ws":
        return lambda w: [w.lower()]
    if mode == "squad":
        return lambda w: _ARTICLES.sub(" ", w.lower().translate(_PUNCT_TABLE)).split()
    raise OptionError(f"`normalize` must be one of {', '.join(NORMALIZATIONS)}; got normalize={mode!r}.")


def normalized_scores(words: "eng.Words", mode: str, tick=None):
    """(normalised strings of the interleaved texts, token F1 per pair) from ``words`` of
    the interleaved (prediction, reference) texts.  The normalised string is
    ``" ".join`` of the tokens, as :func:`normalize` gives it (for ``none`` the text itself
    is not rebuilt: ``None`` is returned instead)."""
    strings, tokens = normalized_tokens(words, mode)
    return strings, token_f1_from_tokens(tokens, tick)


def normalized_tokens(words: "eng.Words", mode: str):
    """(normalised strings or ``None`` for ``none``, (ids, lengths) of the normalised tokens)
    of the interleaved texts: the Python part of :func:`normalized_scores`."""
    ids, lengths, vocab = words.transform(_normalize_word(mode))
    strings = None if mode == "none" else eng.Words.strings(ids, lengths, vocab)
    return strings, (ids, lengths)


def token_f1_from_tokens(tokens, tick=None) -> np.ndarray:
    """SQuAD v2 token F1 per pair from the normalised tokens of the interleaved texts (the
    numpy part of :func:`normalized_scores`)."""
    ids, lengths = tokens
    n = len(lengths) // 2
    if n == 0:
        return np.zeros(0)
    pairs = eng.Pairs(ids, lengths, n)
    common = eng.clipped_matches(pairs, 1, tick)[:, 0].astype(float)
    lp, lr = pairs.len_h.astype(float), pairs.len_r.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = common / lp
        recall = common / lr
        f1 = 2 * precision * recall / (precision + recall)
    f1 = np.where(common == 0, 0.0, f1)
    either_empty = (pairs.len_h == 0) | (pairs.len_r == 0)
    return np.where(either_empty, ((pairs.len_h == 0) & (pairs.len_r == 0)).astype(float), f1)


# --------------------------------------------------------------------------- BLEU

BLEU_ORDER = 4


def bleu_statistics(predictions, references, tick=None, words=None) -> np.ndarray:
    """sacrebleu BLEU's sufficient statistics per pair (13a tokens, one reference):
    columns ``[hyp_len, ref_len, correct_1..4, total_1..4]`` (int64), exactly
    ``BLEU()._extract_corpus_statistics(predictions, [references])``."""
    n = len(predictions)
    if n != len(references):
        raise ValueError("predictions and references differ in length")
    if n == 0:
        return np.zeros((0, 2 + 2 * BLEU_ORDER), dtype=np.int64)
    return bleu_statistics_from_tokens(bleu_tokens(predictions, references, words), tick)


def bleu_tokens(predictions, references, words=None):
    """(ids, lengths) of the 13a tokens of the interleaved texts (the Python part of
    :func:`bleu_statistics`)."""
    texts = eng.interleave(list(predictions), list(references))
    ids, lengths, _ = eng.tokenize_13a(words or eng.Words(texts), texts)
    return ids, lengths


def bleu_statistics_from_tokens(tokens, tick=None) -> np.ndarray:
    """:func:`bleu_statistics` from :func:`bleu_tokens` (its numpy part)."""
    ids, lengths = tokens
    n = len(lengths) // 2
    stats = np.zeros((n, 2 + 2 * BLEU_ORDER), dtype=np.int64)
    if n == 0:
        return stats
    pairs = eng.Pairs(ids, lengths, n)
    stats[:, 0] = pairs.len_h
    stats[:, 1] = pairs.len_r
    stats[:, 2:2 + BLEU_ORDER] = eng.clipped_matches(pairs, BLEU_ORDER, tick)
    for k in range(BLEU_ORDER):
        stats[:, 2 + BLEU_ORDER + k] = np.maximum(pairs.len_h - k, 0)
    return stats


#: sacrebleu's BLEU tokenizers that need no package beyond sacrebleu (13a is its default;
#: ja-mecab, ko-mecab, spm and flores need MeCab or sentencepiece)
BLEU_TOKENIZERS = ("13a", "intl", "char", "none", "zh")
#: sacrebleu's BLEU smoothing methods (exp is its default; floor and add-k take sacrebleu's
#: default smoothing values, 0.1 and 1)
BLEU_SMOOTHING = ("exp", "floor", "add-k", "none")


def bleu_metric(tokenize: str = "13a", smooth: str = "exp", effective_order: bool = False):
    """sacrebleu's BLEU with this tokenizer and smoothing (the smoothing value sacrebleu's
    default for the method), one reference per item."""
    from sacrebleu.metrics import BLEU

    if tokenize not in BLEU_TOKENIZERS:
        raise OptionError(f"`bleu_tokenize` must be one of {', '.join(BLEU_TOKENIZERS)}; got {tokenize!r}.")
    if smooth not in BLEU_SMOOTHING:
        raise OptionError(f"`bleu_smooth` must be one of {', '.join(BLEU_SMOOTHING)}; got {smooth!r}.")
    metric = BLEU(tokenize=tokenize, smooth_method=smooth, effective_order=effective_order)
    metric.num_refs = 1
    return metric


def bleu_signature(tokenize: str = "13a", smooth: str = "exp") -> str:
    """sacrebleu's signature of the corpus BLEU, one reference per item (sacrebleu sets
    ``num_refs`` when it evaluates; the statistics here are always single-reference): it names
    the tokenizer (``tok``) and the smoothing (``smooth``)."""
    return str(bleu_metric(tokenize, smooth).get_signature())


def corpus_bleu_from_statistics(stats: np.ndarray, tokenize: str = "13a", smooth: str = "exp") -> float:
    """sacrebleu's corpus BLEU from summed statistics, by sacrebleu's own code (the tokenizer
    only names the statistics' origin; the smoothing enters the score)."""
    metric = bleu_metric(tokenize, smooth)
    total = [int(x) for x in np.asarray(stats, dtype=np.int64).reshape(-1, 2 + 2 * BLEU_ORDER).sum(axis=0)]
    return float(metric._compute_score_from_stats(total).score)


def sentence_bleu_from_statistics(stats: np.ndarray, smooth: str = "exp") -> np.ndarray:
    """sacrebleu ``BLEU(effective_order=True, smooth_method=smooth).sentence_score`` per row of
    statistics: sacrebleu's ``compute_bleu`` with the same floating-point operations in the same
    order, vectorised (exp, floor 0.1, add-k 1 and none, sacrebleu's default values; a zero
    precision's log is sacrebleu's floor, -9999999999)."""
    stats = np.asarray(stats, dtype=np.int64)
    if smooth not in BLEU_SMOOTHING:
        raise OptionError(f"`bleu_smooth` must be one of {', '.join(BLEU_SMOOTHING)}; got {smooth!r}.")
    sys_len = stats[:, 0].astype(float)
    ref_len = stats[:, 1].astype(float)
    raw_correct = stats[:, 2:2 + BLEU_ORDER]
    correct = raw_correct.astype(float)
    total = stats[:, 2 + BLEU_ORDER:].astype(float)
    if smooth == "add-k":  # orders 2..4 get k = 1 added (before the checks below)
        correct[:, 1:] += 1.0
        total[:, 1:] += 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(sys_len < ref_len,
                      np.where(sys_len > 0, np.exp(1 - ref_len / sys_len), 0.0), 1.0)
        smooth_mteval = np.ones(len(stats))
        running = np.ones(len(stats), dtype=bool)   # no order with total 0 met yet
        eff = np.zeros(len(stats))
        log_sum = np.zeros(len(stats))
        for k in range(BLEU_ORDER):
            running &= total[:, k] != 0
            zero = correct[:, k] == 0
            if smooth == "exp":
                smooth_mteval = np.where(running & zero, smooth_mteval * 2, smooth_mteval)
                prec = np.where(zero, 100.0 / (smooth_mteval * total[:, k]),
                                100.0 * correct[:, k] / total[:, k])
            elif smooth == "floor":
                prec = np.where(zero, 100.0 * 0.1 / total[:, k], 100.0 * correct[:, k] / total[:, k])
            else:  # none, add-k: a zero precision stays 0
                prec = np.where(zero, 0.0, 100.0 * correct[:, k] / total[:, k])
            logged = np.where(prec == 0.0, -9999999999.0, np.log(np.where(prec > 0, prec, 1.0)))
            log_sum = np.where(running, log_sum + logged, log_sum)
            eff = np.where(running, k + 1, eff)
        score = bp * np.exp(log_sum / np.where(eff > 0, eff, 1))
    return np.where(raw_correct.any(axis=1), score, 0.0)


def corpus_bleu(predictions, references):
    """sacrebleu corpus BLEU (defaults: 13a tokenizer, exp smoothing); (score, signature)."""
    return corpus_bleu_from_statistics(bleu_statistics(predictions, references)), bleu_signature()


def sentence_bleu(predictions, references) -> np.ndarray:
    """sacrebleu sentence BLEU per item (effective order, as sacrebleu recommends)."""
    return sentence_bleu_from_statistics(bleu_statistics(predictions, references))


# --------------------------------------------------------------------------- chrF

CHRF_ORDER = 6
CHRF_BETA = 2


def chrf_statistics(predictions, references, tick=None) -> np.ndarray:
    """sacrebleu chrF's sufficient statistics per pair (character orders 1..6, no word
    n-grams, whitespace removed): columns ``[hyp_n, ref_n, match_n]`` for n = 1..6 (int64),
    exactly ``CHRF()._extract_corpus_statistics(predictions, [references])``."""
    n = len(predictions)
    if n != len(references):
        raise ValueError("predictions and references differ in length")
    stats = np.zeros((n, 3 * CHRF_ORDER), dtype=np.int64)
    if n == 0:
        return stats
    cps, lengths = eng.chars_joined(eng.interleave(list(predictions), list(references)))
    # dense character ids over the corpus (small alphabets pack into 64-bit keys directly)
    dense = np.cumsum(np.bincount(cps) > 0, dtype=np.int64) - 1
    pairs = eng.Pairs(dense[cps], lengths, n)
    match = eng.clipped_matches(pairs, CHRF_ORDER, tick)
    for k in range(CHRF_ORDER):
        ref_n = np.maximum(pairs.len_r - k, 0)
        stats[:, 3 * k] = np.where(ref_n > 0, np.maximum(pairs.len_h - k, 0), 0)
        stats[:, 3 * k + 1] = ref_n
        stats[:, 3 * k + 2] = match[:, k]
    return stats


#: chrF's word n-gram orders: 0 (chrF, sacrebleu's default) or 2 (chrF++)
CHRF_WORD_ORDERS = (0, 2)


def chrf_metric(word_order: int = 0):
    """sacrebleu's CHRF with this word order (2 = chrF++), one reference per item."""
    from sacrebleu.metrics import CHRF

    if word_order not in CHRF_WORD_ORDERS:
        raise OptionError(f"`chrf_word_order` must be 0 (chrF) or 2 (chrF++); got {word_order!r}.")
    metric = CHRF(word_order=word_order)
    metric.num_refs = 1
    return metric


def chrf_signature(word_order: int = 0) -> str:
    """sacrebleu's signature of chrF (it names the word order, ``nw``)."""
    return str(chrf_metric(word_order).get_signature())


def corpus_chrf_from_statistics(stats: np.ndarray, word_order: int = 0) -> float:
    """sacrebleu's corpus chrF (chrF++ with word order 2) from summed statistics, by
    sacrebleu's own code."""
    width = 3 * (CHRF_ORDER + word_order)
    total = [int(x) for x in np.asarray(stats, dtype=np.int64).reshape(-1, width).sum(axis=0)]
    return float(chrf_metric(word_order)._compute_f_score(total))


def sentence_chrf_from_statistics(stats: np.ndarray) -> np.ndarray:
    """sacrebleu ``CHRF()._compute_f_score`` per row (its operations, in its order); the
    orders are the statistics' columns / 3 (6 for chrF, 8 for chrF++)."""
    stats = np.asarray(stats, dtype=np.int64)
    m = len(stats)
    eps = 1e-16
    factor = CHRF_BETA ** 2
    avg_prec = np.zeros(m)
    avg_rec = np.zeros(m)
    eff = np.zeros(m, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(stats.shape[1] // 3):
            n_hyp = stats[:, 3 * k].astype(float)
            n_ref = stats[:, 3 * k + 1].astype(float)
            n_match = stats[:, 3 * k + 2].astype(float)
            prec = np.where(n_hyp > 0, n_match / n_hyp, eps)
            rec = np.where(n_ref > 0, n_match / n_ref, eps)
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(both, avg_prec + prec, avg_prec)
            avg_rec = np.where(both, avg_rec + rec, avg_rec)
            eff += both
        avg_prec = np.where(eff > 0, avg_prec / np.where(eff > 0, eff, 1), 0.0)
        avg_rec = np.where(eff > 0, avg_rec / np.where(eff > 0, eff, 1), 0.0)
        score = (1 + factor) * avg_prec * avg_rec
        score = score / ((factor * avg_prec) + avg_rec)
    return np.where(avg_prec + avg_rec != 0, 100 * score, 0.0)


def corpus_chrf(predictions, references):
    """sacrebleu corpus chrF (char order 6, beta 2); (score, signature)."""
    return corpus_chrf_from_statistics(chrf_statistics(predictions, references)), chrf_signature()


def sentence_chrf(predictions, references) -> np.ndarray:
    return sentence_chrf_from_statistics(chrf_statistics(predictions, references))


# --------------------------------------------------------------------------- ROUGE

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


def _fmeasure(precision: np.ndarray, recall: np.ndarray) -> np.ndarray:
    """rouge_score.scoring.fmeasure, elementwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        f = 2 * precision * recall / (precision + recall)
    return np.where(precision + recall > 0, f, 0.0)


def rouge_f(predictions, references, *, stemmer: bool, tick=None, words=None) -> dict[str, np.ndarray]:
    """Per-item ROUGE-1/2/L F-measure, equal to rouge-score's
    ``RougeScorer(..., use_stemmer=stemmer).score(target=reference, prediction=prediction)``:
    its tokenizer and stemmer on the joined text, n-gram intersections and LCS as integers,
    its formulas for precision, recall and F."""
    n = len(predictions)
    if n != len(references):
        raise ValueError("predictions and references differ in length")
    if n == 0:
        return {t: np.zeros(0) for t in ROUGE_TYPES}
    words = words or eng.Words(eng.interleave(list(predictions), list(references)))
    return rouge_from_tokens(rouge_tokens(words, stemmer), tick)


def rouge_tokens(words: "eng.Words", stemmer: bool):
    """(ids, lengths) of rouge-score's tokens of the interleaved texts (the Python part of
    :func:`rouge_f`)."""
    porter = None
    if stemmer:
        from nltk.stem import porter as nltk_porter  # what rouge-score's tokenizer uses

        porter = nltk_porter.PorterStemmer()
    ids, lengths, _ = eng.tokenize_rouge(words, porter)
    return ids, lengths


def rouge_from_tokens(tokens, tick=None) -> dict[str, np.ndarray]:
    """:func:`rouge_f` from :func:`rouge_tokens` (its numpy part)."""
    ids, lengths = tokens
    n = len(lengths) // 2
    if n == 0:
        return {t: np.zeros(0) for t in ROUGE_TYPES}
    pairs = eng.Pairs(ids, lengths, n)
    sub = (lambda a, b: (lambda f: tick(a + (b - a) * f))) if tick else (lambda a, b: None)
    inter = eng.clipped_matches(pairs, 2, sub(0.0, 0.6)).astype(float)
    lcs = eng.lcs_lengths(pairs, sub(0.6, 1.0)).astype(float)
    lp, lt = pairs.len_h.astype(float), pairs.len_r.astype(float)
    out = {}
    for k, name in enumerate(("rouge1", "rouge2")):
        pred_count = np.maximum(lp - k, 0)
        target_count = np.maximum(lt - k, 0)
        out[name] = _fmeasure(inter[:, k] / np.maximum(pred_count, 1),
                              inter[:, k] / np.maximum(target_count, 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        f_l = _fmeasure(lcs / lp, lcs / lt)
    out["rougeL"] = np.where((lp > 0) & (lt > 0), f_l, 0.0)
    return out


def _blind_word(word: str) -> bool:
    return any(ord(ch) > 127 for ch in _NON_ASCII_ALNUM.findall(word))


def rouge_blind_items(predictions, references) -> np.ndarray:
    """Boolean per item: the text has letters outside [a-z] that rouge-score's tokenizer,
    which keeps only ``[a-z0-9]`` after lower-casing, silently drops."""
    preds, refs = list(predictions), list(references)
    if len(preds) != len(refs):
        raise ValueError("predictions and references differ in length")
    return _blind_pairs(eng.Words(eng.interleave(preds, refs)), len(preds))


def _blind_pairs(words: "eng.Words", n: int) -> np.ndarray:
    flags = np.array([False] + [_blind_word(w) for w in words.vocab[1:]], dtype=bool)
    text_of = np.cumsum((words.codes == 0).astype(np.int64)) - 1  # (a bool cumsum is slow)
    per_text = np.bincount(text_of[flags[words.codes]], minlength=2 * n) > 0
    return per_text[0::2] | per_text[1::2]


@dataclass
class TextScores:
    """Every per-item text score of n pairs, and the sufficient statistics of the corpus
    scores (sum rows of any subset, then ``corpus_*_from_statistics``)."""

    exact_match: np.ndarray
    token_f1: np.ndarray
    bleu: np.ndarray
    chrf: np.ndarray
    rouge: dict[str, np.ndarray]
    bleu_stats: np.ndarray
    chrf_stats: np.ndarray
    rouge_blind: np.ndarray
    norm_predictions: list[str]
    norm_references: list[str]
    #: the whitespace words of the interleaved texts (:class:`eng.Words`), kept so that other
    #: tokenisers of the same texts need not split and hash them again
    words: "eng.Words | None" = field(default=None, repr=False, compare=False)


def score_pairs(predictions, references, *, normalize: str = "case_ws", stemmer: bool = False,
                progress=None) -> TextScores:
    """All text metrics of the pairs at once (see the module docstring): the whitespace
    words of the texts are split and hashed once and every tokeniser runs once per distinct
    word.  The counting (numpy) runs on a thread beside the tokenising (Python): chrF's from
    the start, then each metric's as soon as its tokens are ready (:class:`eng.Background`);
    the values do not depend on it.  ``progress`` (a ``core.progress.Progress``) is advanced
    by this thread only, and asked whether the run was cancelled between stages and, by the
    counting thread, between blocks of n-gram keys (:data:`eng.BLOCK` positions)."""
    _normalize_word(normalize)  # validates the mode first
    preds, refs = list(predictions), list(references)
    n = len(preds)
    if n != len(refs):
        raise ValueError("predictions and references differ in length")

    def stage(a: float, b: float, message: str):
        def tick(fraction: float) -> None:
            if progress is not None:
                progress.check_cancelled()
                progress.advance(a + (b - a) * fraction, message)
        tick(0.0)
        return tick

    texts = eng.interleave(preds, refs)
    with eng.Background(progress.check_cancelled if progress is not None else None) as bg:
        chrf_job = bg.submit("chrF", chrf_statistics, preds, refs)
        stage(0.02, 0.05, "splitting the texts")
        words = eng.Words(texts)
        stage(0.05, 0.12, "exact match and token F1")
        norm, f1_tokens = normalized_tokens(words, normalize)
        f1_job = bg.submit("F1", token_f1_from_tokens, f1_tokens)
        stage(0.12, 0.2, "BLEU")
        bleu_job = bg.submit("BLEU", bleu_statistics_from_tokens, bleu_tokens(preds, refs, words))
        stage(0.2, 0.3, "ROUGE")
        rouge_job = bg.submit("ROUGE", rouge_from_tokens, rouge_tokens(words, stemmer))
        if norm is None:
            norm_p, norm_r = preds, refs
        else:
            norm_p, norm_r = norm[0::2], norm[1::2]
        em = np.fromiter((a == b for a, b in zip(norm_p, norm_r)), dtype=bool, count=n).astype(float)
        blind = _blind_pairs(words, n)
        # wait for the counting, in the order it runs
        waits = (("chrF", "chrF", chrf_job, 0.3, 0.65),
                 ("exact match and token F1", "F1", f1_job, 0.65, 0.7),
                 ("BLEU", "BLEU", bleu_job, 0.7, 0.8), ("ROUGE", "ROUGE", rouge_job, 0.8, 0.95))
        results = {}
        for message, name, job, a, b in waits:
            tick = stage(a, b, message)
            while True:
                try:
                    results[name] = job.result(timeout=0.1)
                    break
                except TimeoutError:
                    tick(bg.fraction[name])
            tick(1.0)
    bleu_stats, chrf_stats = results["BLEU"], results["chrF"]
    stage(0.95, 1.0, "sentence scores")
    return TextScores(
        exact_match=em, token_f1=results["F1"],
        bleu=sentence_bleu_from_statistics(bleu_stats),
        chrf=sentence_chrf_from_statistics(chrf_stats),
        rouge=results["ROUGE"], bleu_stats=bleu_stats, chrf_stats=chrf_stats,
        rouge_blind=blind,
        norm_predictions=list(norm_p), norm_references=list(norm_r), words=words)


def rescore(base: TextScores, predictions, references, *, normalize: str, stemmer: bool,
            base_normalize: str, base_stemmer: bool) -> TextScores:
    """``base`` (the scores of the same pairs with ``base_normalize`` and ``base_stemmer``) with
    only what the normalisation (exact match, token F1) or the stemmer (ROUGE) changes
    recomputed: the values of :func:`score_pairs` with ``normalize`` and ``stemmer``."""
    from dataclasses import replace

    _normalize_word(normalize)
    preds, refs = list(predictions), list(references)
    words = base.words if base.words is not None else eng.Words(eng.interleave(preds, refs))
    out = base
    if normalize != base_normalize:
        norm, f1_tokens = normalized_tokens(words, normalize)
        norm_p, norm_r = (preds, refs) if norm is None else (norm[0::2], norm[1::2])
        em = np.fromiter((a == b for a, b in zip(norm_p, norm_r)), dtype=bool,
                         count=len(preds)).astype(float)
        out = replace(out, exact_match=em, token_f1=token_f1_from_tokens(f1_tokens),
                      norm_predictions=list(norm_p), norm_references=list(norm_r))
    if stemmer != base_stemmer:
        out = replace(out, rouge=rouge_from_tokens(rouge_tokens(words, stemmer)))
    return out


def rouge_version() -> str:
    try:
        from importlib.metadata import version

        return version("rouge-score")
    except Exception:  # pragma: no cover - metadata missing in a frozen build
        return "unknown"
