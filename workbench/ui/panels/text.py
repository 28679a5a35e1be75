from ...analyses import text
from ..charts import CorpusDiffChart, SystemsDiffChart, TextScoreChart
from .base import AnalysisPanel, Field


class TextPanel(AnalysisPanel):
    CHARTS = (TextScoreChart, SystemsDiffChart, CorpusDiffChart)
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
    )
