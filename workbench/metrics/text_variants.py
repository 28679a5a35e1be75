"""The text metrics under conventions other than the defaults (the fast engine's 13a BLEU with
exp smoothing, chrF and rouge-score's tokenizer stay in :mod:`workbench.metrics.text`).

* BLEU with another sacrebleu tokenizer (intl, char, none, zh) or smoothing (floor, add-k,
  none, with sacrebleu's default smoothing values): the tokens are sacrebleu's own, computed
  once per distinct whitespace word by :func:`workbench.metrics.fast_tokenizers.word_tokens`
  (which says why a line's tokens are those of its words, and how a line's ends differ), and the
  n-gram matches are counted by the fast engine, which gives exactly the statistics of
  ``BLEU(tokenize=...)._extract_corpus_statistics`` (:func:`reference_bleu_statistics`, the
  tests' reference) about 10 times faster; sentence scores by sacrebleu's
  ``_compute_score_from_stats`` with effective order (what ``sentence_score`` computes).
* chrF++ (word order 2): the character part is the engine's chrF, the word part sacrebleu's
  own word split (``CHRF._remove_punctuation``, a word at a time) counted by the engine; 24 columns
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


def bleu_statistics(predictions, references, tokenize: str, smooth: str = "exp", *,
                    words: "eng.Words | None" = None) -> np.ndarray:
    """sacrebleu's per-item BLEU statistics with this tokenizer (int64, N x 10): sacrebleu's
    tokens (``tokenizer(text.rstrip()).split()``, as ``BLEU._preprocess_segment``), the
    engine's n-gram counts.  The tokenizer runs once per distinct whitespace word of the texts
    (``words``, :class:`workbench.metrics._text_engine.Words` of the interleaved texts, split
    here when not given), told whether the word has white space on each side
    (:func:`workbench.metrics.fast_tokenizers.word_tokens`)."""
    preds, refs = list(predictions), list(references)
    if len(preds) != len(refs):
        raise ValueError("predictions and references differ in length")
    tm.bleu_metric(tokenize, smooth)  # (checks the names)
    if not preds:
        return np.zeros((0, 2 + 2 * tm.BLEU_ORDER), dtype=np.int64)
    if tokenize == "13a":
        return tm.bleu_statistics(preds, refs, words=words)
    from .fast_tokenizers import word_tokens

    fn, edges, lead = word_tokens(tokenize)
    texts = eng.interleave(preds, refs) if words is None or lead else None
    words = words if words is not None else eng.Words(texts)
    if not edges:
        ids, lengths, _ = words.transform(fn)
    else:
        lead_space = np.fromiter((t[:1].isspace() for t in texts), dtype=bool, count=len(texts)) \
            if lead else None
        ids, lengths, _ = words.transform_at_edges(fn, lead_space)
    return tm.bleu_statistics_from_tokens((ids, lengths))


def chrf_statistics(predictions, references, word_order: int, *, words: "eng.Words | None" = None,
                    chars: np.ndarray | None = None) -> np.ndarray:
    """sacrebleu's per-item chrF statistics with this word order (int64, N x 3(6 + word
    order)): the engine's character statistics (``chars`` when given: chrF's, word order 0),
    then the word orders from sacrebleu's own word split, once per distinct whitespace word
    (``words`` as in :func:`bleu_statistics`), counted by the engine."""
    preds, refs = list(predictions), list(references)
    if chars is None:
        chars = tm.chrf_statistics(preds, refs)
    if word_order == 0 or not preds:
        return np.hstack([chars, np.zeros((len(preds), 3 * word_order), dtype=np.int64)])
    from .fast_tokenizers import chrf_words

    words = words if words is not None else eng.Words(eng.interleave(preds, refs))
    ids, lengths, _ = words.transform(chrf_words(tm.chrf_metric(word_order)))
    pairs = eng.Pairs(ids, lengths, len(preds))
    match = eng.clipped_matches(pairs, word_order)
    counts = np.zeros((len(preds), 3 * word_order), dtype=np.int64)
    for k in range(word_order):
        ref_n = np.maximum(pairs.len_r - k, 0)
        counts[:, 3 * k] = np.where(ref_n > 0, np.maximum(pairs.len_h - k, 0), 0)
        counts[:, 3 * k + 1] = ref_n
        counts[:, 3 * k + 2] = match[:, k]
    return np.hstack([chars, counts])


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


def rouge_f_unicode(predictions, references, *, stemmer: bool = False,
                    words: "eng.Words | None" = None) -> dict[str, np.ndarray]:
    preds, refs = list(predictions), list(references)
    if len(preds) != len(refs):
        raise ValueError("predictions and references differ in length")
    if not preds:
        return {t: np.zeros(0) for t in tm.ROUGE_TYPES}
    return rouge_unicode(words if words is not None else eng.Words(eng.interleave(preds, refs)), stemmer)


def apply(scores: "tm.TextScores", predictions, references, conv: TextConventions, *,
          stemmer: bool) -> "tm.TextScores":
    """``scores`` (the default conventions') with BLEU, chrF and ROUGE under ``conv``: only the
    metrics whose convention differs are recomputed (from the whitespace words that ``scores``
    keeps, and chrF's character statistics)."""
    out = scores
    words = scores.words
    if not conv.default_bleu:
        if conv.bleu_tokenize == "13a":  # the engine's statistics are sacrebleu's 13a ones
            stats = scores.bleu_stats
        else:
            stats = bleu_statistics(predictions, references, conv.bleu_tokenize, conv.bleu_smooth,
                                    words=words)
        out = replace(out, bleu_stats=stats,
                      bleu=tm.sentence_bleu_from_statistics(stats, conv.bleu_smooth))
    if conv.chrf_word_order != 0:
        chars = scores.chrf_stats if scores.chrf_stats.shape[1] == 3 * tm.CHRF_ORDER else None
        stats = chrf_statistics(predictions, references, conv.chrf_word_order, words=words, chars=chars)
        out = replace(out, chrf_stats=stats, chrf=tm.sentence_chrf_from_statistics(stats))
    if conv.rouge_tokenizer == "unicode":
        out = replace(out, rouge=rouge_f_unicode(predictions, references, stemmer=stemmer, words=words))
    return out
