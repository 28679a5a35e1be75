"""The text metrics under conventions other than the defaults (the fast engine's 13a BLEU with
exp smoothing, chrF and rouge-score's tokenizer stay in :mod:`workbench.metrics.text`).

* BLEU with another sacrebleu tokenizer (intl, char, none, zh) or smoothing (floor, add-k,
  none, with sacrebleu's default smoothing values): the tokens are sacrebleu's own (its
  tokenizer object, called once per distinct text; ``zh``, ``intl`` and ``char`` by
  :mod:`workbench.metrics.fast_tokenizers`, which gives the same tokens faster) and the
  n-gram matches are counted by the fast engine, which gives exactly the statistics of
  ``BLEU(tokenize=...)._extract_corpus_statistics`` (:func:`reference_bleu_statistics`, the
  tests' reference) about 10 times faster; sentence scores by sacrebleu's
  ``_compute_score_from_stats`` with effective order (what ``sentence_score`` computes).
* chrF++ (word order 2): the character part is the engine's chrF, the word part sacrebleu's
  own word split (``CHRF._remove_punctuation``) counted by the engine; 24 columns
  (``[hyp, ref, match]`` for 6 character orders then 2 word orders), exactly
  ``CHRF(word_order=2)._extract_corpus_statistics`` (:func:`reference_chrf_statistics`).
* ROUGE with :class:`UnicodeTokenizer`, a tokenizer that keeps non-Latin words (rouge-score's
  own keeps only ``[a-z0-9]``): lower-case, split on non-word characters (Unicode ``\\w``).
  rouge-score accepts it as ``RougeScorer(..., tokenizer=UnicodeTokenizer())``; here the same
  tokens are counted by the fast engine (whitespace is never a word character, so the tokens
  of a text are the tokens of its whitespace words, one after the other).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ..core.errors import OptionError
from . import _text_engine as eng
from . import text as tm

#: ROUGE tokenizers: rouge-score's default ([a-z0-9] runs) or Unicode words
ROUGE_TOKENIZERS = ("default", "unicode")

_NON_WORD = re.compile(r"\W+", re.UNICODE)


class UnicodeTokenizer:
    """A rouge-score tokenizer (an object with ``tokenize(text)``) that keeps the words of every
    script: lower-case, split on runs of non-word characters (Unicode ``\\w``: letters, digits
    and the underscore of any script); with ``use_stemmer`` the Porter stemmer on tokens longer
    than 3 characters, as rouge-score's own tokenizer stems."""

    def __init__(self, use_stemmer: bool = False) -> None:
        self._stemmer = None
        if use_stemmer:
            from nltk.stem import porter

            self._stemmer = porter.PorterStemmer()
        self._cache: dict[str, str] = {}

    def _stem(self, token: str) -> str:
        if self._stemmer is None or len(token) <= 3:
            return token
        out = self._cache.get(token)
        if out is None:
            out = self._cache[token] = str(self._stemmer.stem(token))
        return out

    def tokenize(self, text: str) -> list[str]:
        return [self._stem(t) for t in _NON_WORD.split(text.lower()) if t]


@dataclass(frozen=True)
class TextConventions:
    """The corpus-metric conventions of a text analysis (the defaults: sacrebleu's and
    rouge-score's)."""

    bleu_tokenize: str = "13a"
    bleu_smooth: str = "exp"
    chrf_word_order: int = 0
    rouge_tokenizer: str = "default"

    def check(self) -> None:
        tm.bleu_metric(self.bleu_tokenize, self.bleu_smooth)
        tm.chrf_metric(self.chrf_word_order)
        if self.rouge_tokenizer not in ROUGE_TOKENIZERS:
            raise OptionError(f"`rouge_tokenizer` must be one of {', '.join(ROUGE_TOKENIZERS)}; "
                              f"got {self.rouge_tokenizer!r}.")

    @property
    def default_bleu(self) -> bool:
        return self.bleu_tokenize == "13a" and self.bleu_smooth == "exp"

    def bleu_metric(self):
        return tm.bleu_metric(self.bleu_tokenize, self.bleu_smooth)

    def chrf_metric(self):
        return tm.chrf_metric(self.chrf_word_order)

    def rouge_signature(self, stemmer: bool) -> str:
        tok = "ascii" if self.rouge_tokenizer == "default" else "unicode-w"
        return (f"rouge-score-{tm.rouge_version()},tok:{tok},stem:{'yes' if stemmer else 'no'},"
                "F,mean-over-items")


def bleu_statistics(predictions, references, tokenize: str, smooth: str = "exp") -> np.ndarray:
    """sacrebleu's per-item BLEU statistics with this tokenizer (int64, N x 10): sacrebleu's
    tokens (``tokenizer(text.rstrip()).split()``, as ``BLEU._preprocess_segment``), the
    engine's n-gram counts."""
    preds, refs = list(predictions), list(references)
    if len(preds) != len(refs):
        raise ValueError("predictions and references differ in length")
    if not preds:
        return np.zeros((0, 2 + 2 * tm.BLEU_ORDER), dtype=np.int64)
    from .fast_tokenizers import TOKEN_LISTS

    tokenizer = tm.bleu_metric(tokenize, smooth).tokenizer  # (checks the names)
    fast = TOKEN_LISTS.get(tokenize)  # zh, intl and char: the same tokens, faster
    split = (lambda t: fast(t.rstrip())) if fast is not None else \
        (lambda t: tokenizer(t.rstrip()).split())
    tokens = _token_ids(eng.interleave(preds, refs), split)
    return tm.bleu_statistics_from_tokens(tokens)


def chrf_statistics(predictions, references, word_order: int) -> np.ndarray:
    """sacrebleu's per-item chrF statistics with this word order (int64, N x 3(6 + word
    order)): the engine's character statistics, then the word orders from sacrebleu's own
    word split counted by the engine."""
    preds, refs = list(predictions), list(references)
    chars = tm.chrf_statistics(preds, refs)
    if word_order == 0 or not preds:
        return np.hstack([chars, np.zeros((len(preds), 3 * word_order), dtype=np.int64)])
    from .fast_tokenizers import chrf_words

    split = chrf_words(tm.chrf_metric(word_order))
    ids, lengths = _token_ids(eng.interleave(preds, refs), split)
    pairs = eng.Pairs(ids, lengths, len(preds))
    match = eng.clipped_matches(pairs, word_order)
    words = np.zeros((len(preds), 3 * word_order), dtype=np.int64)
    for k in range(word_order):
        ref_n = np.maximum(pairs.len_r - k, 0)
        words[:, 3 * k] = np.where(ref_n > 0, np.maximum(pairs.len_h - k, 0), 0)
        words[:, 3 * k + 1] = ref_n
        words[:, 3 * k + 2] = match[:, k]
    return np.hstack([chars, words])


def _token_ids(texts: list[str], split) -> tuple[np.ndarray, np.ndarray]:
    """(ids, lengths) of the tokens of ``texts`` by ``split`` (called once per distinct text),
    ids shared by every text (as :class:`workbench.metrics._text_engine.Pairs` expects)."""
    import pandas as pd

    codes, distinct = pd.factorize(pd.Series(texts, dtype=object), sort=False)
    token_lists = [split(t) for t in distinct]
    per_distinct = np.fromiter((len(t) for t in token_lists), dtype=np.int64,
                               count=len(token_lists))
    flat = [tok for toks in token_lists for tok in toks]
    tok_codes = pd.factorize(pd.Series(flat, dtype=object), sort=False)[0].astype(np.int64) \
        if flat else np.zeros(0, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(per_distinct)[:-1]))
    lengths = per_distinct[codes]
    # each text's tokens: its distinct text's run of token codes
    index = np.repeat(starts[codes] - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths) + \
        np.arange(int(lengths.sum()), dtype=np.int64)
    return tok_codes[index] + 1, lengths


def reference_bleu_statistics(predictions, references, tokenize: str, smooth: str = "exp") -> np.ndarray:
    """sacrebleu's own per-item BLEU statistics, one pair at a time in Python (the tests'
    reference for :func:`bleu_statistics`)."""
    metric = tm.bleu_metric(tokenize, smooth)
    return _stats(metric, predictions, references, 2 + 2 * tm.BLEU_ORDER)


def reference_chrf_statistics(predictions, references, word_order: int) -> np.ndarray:
    """sacrebleu's own per-item chrF statistics (the tests' reference for
    :func:`chrf_statistics`)."""
    return _stats(tm.chrf_metric(word_order), predictions, references,
                  3 * (tm.CHRF_ORDER + word_order))


def _stats(metric, predictions, references, width: int) -> np.ndarray:
    preds, refs = list(predictions), list(references)
    if len(preds) != len(refs):
        raise ValueError("predictions and references differ in length")
    if not preds:
        return np.zeros((0, width), dtype=np.int64)
    stats = metric._extract_corpus_statistics(preds, [refs])
    return np.asarray(stats, dtype=np.int64).reshape(len(preds), width)


def rouge_unicode(words: "eng.Words", stemmer: bool, tick=None) -> dict[str, np.ndarray]:
    """Per-item ROUGE-1/2/L F with :class:`UnicodeTokenizer` from the whitespace ``words`` of
    the interleaved (prediction, reference) texts."""
    tok = UnicodeTokenizer(stemmer)
    ids, lengths, _ = words.transform(tok.tokenize)
    return tm.rouge_from_tokens((ids, lengths), tick)


def rouge_f_unicode(predictions, references, *, stemmer: bool = False) -> dict[str, np.ndarray]:
    preds, refs = list(predictions), list(references)
    if len(preds) != len(refs):
        raise ValueError("predictions and references differ in length")
    if not preds:
        return {t: np.zeros(0) for t in tm.ROUGE_TYPES}
    return rouge_unicode(eng.Words(eng.interleave(preds, refs)), stemmer)


def apply(scores: "tm.TextScores", predictions, references, conv: TextConventions, *,
          stemmer: bool) -> "tm.TextScores":
    """``scores`` (the default conventions') with BLEU, chrF and ROUGE under ``conv``: only the
    metrics whose convention differs are recomputed."""
    out = scores
    if not conv.default_bleu:
        if conv.bleu_tokenize == "13a":  # the engine's statistics are sacrebleu's 13a ones
            stats = scores.bleu_stats
        else:
            stats = bleu_statistics(predictions, references, conv.bleu_tokenize, conv.bleu_smooth)
        out = replace(out, bleu_stats=stats,
                      bleu=tm.sentence_bleu_from_statistics(stats, conv.bleu_smooth))
    if conv.chrf_word_order != 0:
        stats = chrf_statistics(predictions, references, conv.chrf_word_order)
        out = replace(out, chrf_stats=stats, chrf=tm.sentence_chrf_from_statistics(stats))
    if conv.rouge_tokenizer == "unicode":
        out = replace(out, rouge=rouge_f_unicode(predictions, references, stemmer=stemmer))
    return out
