"""The conventions a reasonable team might use instead, per analysis (the current options
first, one change at a time), and the settings every conventions table shares; see
:mod:`workbench.analyses.conventions`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.result import AnalysisResult

RESAMPLES, SEED, LEVEL, ALPHA = 2000, 12345, 0.95, 0.05
TABLE = "conventions"
BOOTSTRAP = f"bootstrap percentile 95%, {RESAMPLES} resamples, seed {SEED}"

#: Conventions the issue asks for that the analysis does not have (said in the output).
NOT_AVAILABLE = {
    "ranking": (),
    "text": ("BLEU tokenizers that need MeCab or sentencepiece (ja-mecab, ko-mecab, spm, flores)",),
    "passk": (),
    "aggregate": ("a paired verdict between versions (the verdict between versions is unpaired: "
                  "each version's own interval, MOVER)",),
    "cost": (),
    "compare": (),
}


@dataclass(frozen=True)
class Convention:
    """One alternative: ``key`` names what is changed, ``value`` its setting; ``changes`` are the
    (option, value) pairs given to the analysis; ``read`` names the record read instead of the
    headline's own (a convention the analysis reports side by side)."""

    key: str
    value: str
    default: bool = False
    changes: tuple[tuple[str, Any], ...] = ()
    read: str | None = None

    @property
    def name(self) -> str:
        return f"{self.key}: {self.value}" + (" (as set)" if self.default else "")


# -- the alternatives ------------------------------------------------------------------------

def _others(key: str, current, values, option: str | None = None) -> list[Convention]:
    option = option or key
    return [Convention(key, str(v), changes=((option, v),)) for v in values if v != current]


def alternatives(analysis: str, options, result: AnalysisResult | None = None) -> list[Convention]:
    """The conventions to try, the current options first (``result``: the analysis's result with
    these options, which some lists depend on: Compare's family, Aggregation's form)."""
    fn = _ALTERNATIVES.get(analysis)
    if fn is None:
        raise KeyError(f"no conventions table for {analysis!r}")
    return fn(options, result)


def _ranking_alternatives(options, result) -> list[Convention]:
    from ..metrics.ranking import GAINS
    from . import ranking

    out = [Convention("ties", options.ties, default=True)]
    out += _others("gain", options.gain, GAINS)
    out += _others("ties", options.ties, ranking.TIES)
    out.append(Convention("ties", "expected"))  # over every order of tied documents
    out += _others("unjudged", options.unjudged, ranking.UNJUDGED)
    out += _others("no_relevant", options.no_relevant, ranking.NO_RELEVANT)
    other = 2.0 if options.relevance_threshold != 2.0 else 1.0
    out.append(Convention("relevance_threshold", f"{other:g}",
                          changes=(("relevance_threshold", other),)))
    out.append(Convention("ideal", "retrieved"))  # the ideal DCG of the retrieved list only
    return out


def _text_alternatives(options, result) -> list[Convention]:
    from ..metrics import text as tm
    from ..metrics.text_variants import ROUGE_TOKENIZERS

    out = [Convention("normalize", options.normalize, default=True)]
    out += _others("normalize", options.normalize, ("none", "case_ws", "squad"))
    out.append(Convention("stemmer", "off" if options.stemmer else "on",
                          changes=(("stemmer", not options.stemmer),)))
    out += _others("bleu_tokenize", options.bleu_tokenize, tm.BLEU_TOKENIZERS)
    out += _others("bleu_smooth", options.bleu_smooth, tm.BLEU_SMOOTHING)
    out += _others("chrf_word_order", options.chrf_word_order, tm.CHRF_WORD_ORDERS)
    out += _others("rouge_tokenizer", options.rouge_tokenizer, ROUGE_TOKENIZERS)
    return out


def _passk_alternatives(options, result) -> list[Convention]:
    return [Convention("estimator", "unbiased 1-C(n-c,k)/C(n,k)", default=True),
            Convention("estimator", "plug-in 1-(1-c/n)^k", read="naive_")]


def _aggregate_alternatives(options, result) -> list[Convention]:
    ratio = result is not None and any(r["metric"] == "pooled_ratio" for r in result.records)
    first, second = ("pooled_ratio", "mean_of_ratios") if ratio else ("micro", "macro")
    return [Convention("aggregation", first, default=True, read=first),
            Convention("aggregation", second, read=second)]


def _cost_alternatives(options, result) -> list[Convention]:
    from ..metrics.cost import PERCENTILE_METHODS

    return ([Convention("percentile_method", options.percentile_method, default=True)]
            + _others("percentile_method", options.percentile_method, PERCENTILE_METHODS))


def _compare_alternatives(options, result) -> list[Convention]:
    binary = result is None or any(r["metric"] == "bootstrap_ci" for r in result.records)
    if binary:
        tests = ("bootstrap_ci", "normal_ci", "sign_test_p", "sign_test_midp", "mcnemar_p",
                 "mcnemar_cc_p")
    else:
        tests = ("bootstrap_pct_ci", "bootstrap_bca_ci", "t_test_p", "randomization_p", "wilcoxon_p")
    out = [Convention("test", tests[0], default=True, read=tests[0])]
    out += [Convention("test", t, read=t) for t in tests[1:]]
    if not binary:
        out += [Convention("test", f"wilcoxon_p, zero method {z}", read="wilcoxon_p",
                           changes=(("zero_method", z),))
                for z in ("wilcox", "pratt", "zsplit") if z != options.zero_method]
    several = result is not None and any(r["metric"] == "p_adjusted" for r in result.records)
    if several:  # a correction changes something only with several candidates
        out += [Convention("correction", c, read="p_adjusted", changes=(("correction", c),))
                for c in ("holm", "bonferroni", "none")]
    return out


_ALTERNATIVES: dict[str, Callable] = {
    "ranking": _ranking_alternatives, "text": _text_alternatives, "passk": _passk_alternatives,
    "aggregate": _aggregate_alternatives, "cost": _cost_alternatives,
    "compare": _compare_alternatives,
}
#: The analyses with a conventions table.
ANALYSES = tuple(_ALTERNATIVES)
