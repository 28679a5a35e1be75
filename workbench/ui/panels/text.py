from ...analyses import text
from .base import AnalysisPanel, Field


class TextPanel(AnalysisPanel):
    CHARTS = ("TextScoreChart", "SystemsDiffChart", "CorpusDiffChart")
    module = text
    FIELDS = (
        Field("prediction", "Prediction", "column", "The model's output text.", roles=("prediction",), optional=False),
        Field("reference", "Reference", "column", "The expected text.", roles=("reference",), optional=False),
        Field("id", "Item id", "column", "Optional; duplicate ids are refused.", roles=("item",)),
        Field("system", "System", "column", "Optional: scores per system.", roles=("system",)),
        Field("normalize", "Normalisation", "choice",
              "Exact match and token F1 compare normalised text.\n"
              "none: the strings as given (byte equality)\n"
              "case_ws: lower-case, collapse whitespace\n"
              "squad: SQuAD's normalize_answer (lower, strip punctuation, drop a/an/the, collapse whitespace)",
              choices=(("none", "none (as given)"), ("case_ws", "case + whitespace"),
                       ("squad", "SQuAD (punctuation, articles)"))),
        Field("stemmer", "ROUGE stemmer", "bool", "Porter stemmer in rouge-score (off by default)."),
        Field("bleu_tokenize", "BLEU tokenizer", "choice",
              "sacrebleu's tokenizer of BLEU (13a is sacrebleu's default).\n"
              "intl: Unicode punctuation and symbols split off\nchar: every character a token\n"
              "none: whitespace only\nzh: Chinese characters split off",
              choices=(("13a", "13a (default)"), ("intl", "intl"), ("char", "char"), ("none", "none"),
                       ("zh", "zh"))),
        Field("bleu_smooth", "BLEU smoothing", "choice",
              "sacrebleu's smoothing of BLEU (exp is its default; floor 0.1, add-k 1).",
              choices=(("exp", "exp (default)"), ("floor", "floor"), ("add-k", "add-k"), ("none", "none"))),
        Field("chrf_word_order", "chrF word order", "choice",
              "0: chrF (characters only, sacrebleu's default); 2: chrF++ (also word unigrams and bigrams).",
              choices=((0, "chrF"), (2, "chrF++ (word order 2)"))),
        Field("rouge_tokenizer", "ROUGE tokenizer", "choice",
              "default: rouge-score's (keeps only a-z and 0-9: other scripts are dropped)\n"
              "unicode: lower-case words of any script (split on non-word characters)",
              choices=(("default", "rouge-score (a-z, 0-9)"), ("unicode", "unicode words"))),
    )
