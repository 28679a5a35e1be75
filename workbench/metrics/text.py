"""Per-item text metrics: exact match, token F1, and the reference-overlap scores.

Normalisation modes (each step is part of the signature):

* ``none``    -- byte equality of the strings as given; tokens are ``str.split()``.
* ``case_ws`` -- ``" ".join(text.lower().split())``: lower-case, collapse whitespace.
* ``squad``   -- SQuAD's official ``normalize_answer``: lower-case, remove ASCII
  punctuation, drop the articles a/an/the, collapse whitespace.

Token F1 follows the SQuAD v2 evaluation script: bag-of-tokens overlap after
normalisation, and when either side has no token the score is 1 if both are empty, else 0.
BLEU and chrF come from sacrebleu, ROUGE from Google's rouge-score, untouched.
"""

from __future__ import annotations

import re
import string
from collections import Counter

import numpy as np

from ..core.errors import OptionError

NORMALIZATIONS = ("none", "case_ws", "squad")

_PUNCT = set(string.punctuation)
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
        text = text.lower()
        text = "".join(ch for ch in text if ch not in _PUNCT)
        text = _ARTICLES.sub(" ", text)
        return " ".join(text.split())
    raise OptionError(f"`normalize` must be one of {', '.join(NORMALIZATIONS)}; got normalize={mode!r}.")


def exact_match(predictions, references, mode: str) -> np.ndarray:
    """1.0 where the normalised prediction equals the normalised reference."""
    return np.array([float(normalize(p, mode) == normalize(r, mode))
                     for p, r in zip(predictions, references, strict=True)])


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
    return np.array([token_f1_one(p, r, mode)
                     for p, r in zip(predictions, references, strict=True)])


def corpus_bleu(predictions, references):
    """sacrebleu corpus BLEU (defaults: 13a tokenizer, exp smoothing); (score, signature)."""
    from sacrebleu.metrics import BLEU

    metric = BLEU()
    score = metric.corpus_score(list(predictions), [list(references)])
    return float(score.score), str(metric.get_signature())


def sentence_bleu(predictions, references) -> np.ndarray:
    """sacrebleu sentence BLEU per item (effective order, as sacrebleu recommends)."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(effective_order=True)
    return np.array([metric.sentence_score(p, [r]).score
                     for p, r in zip(predictions, references, strict=True)])


def corpus_chrf(predictions, references):
    """sacrebleu corpus chrF (char order 6, beta 2); (score, signature)."""
    from sacrebleu.metrics import CHRF

    metric = CHRF()
    score = metric.corpus_score(list(predictions), [list(references)])
    return float(score.score), str(metric.get_signature())


def sentence_chrf(predictions, references) -> np.ndarray:
    from sacrebleu.metrics import CHRF

    metric = CHRF()
    return np.array([metric.sentence_score(p, [r]).score
                     for p, r in zip(predictions, references, strict=True)])


ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


def rouge_f(predictions, references, *, stemmer: bool) -> dict[str, np.ndarray]:
    """Per-item ROUGE-1/2/L F-measure from rouge-score (``score(target, prediction)``)."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=stemmer)
    out = {t: np.empty(len(predictions)) for t in ROUGE_TYPES}
    for i, (p, r) in enumerate(zip(predictions, references, strict=True)):
        scores = scorer.score(r, p)
        for t in ROUGE_TYPES:
            out[t][i] = scores[t].fmeasure
    return out


def rouge_blind_items(predictions, references) -> np.ndarray:
    """Boolean per item: the text has letters outside [a-z] that rouge-score's tokenizer,
    which keeps only ``[a-z0-9]`` after lower-casing, silently drops."""
    def blind(text: str) -> bool:
        return any(ord(ch) > 127 for ch in _NON_ASCII_ALNUM.findall(text))

    return np.array([blind(p) or blind(r) for p, r in zip(predictions, references, strict=True)],
                    dtype=bool)


def rouge_version() -> str:
    try:
        from importlib.metadata import version

        return version("rouge-score")
    except Exception:  # pragma: no cover - metadata missing in a frozen build
        return "unknown"
