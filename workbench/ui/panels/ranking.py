from ...analyses import ranking
from .engine_field import ENGINE_CHOICES
from .base import AnalysisPanel, Field


class RankingPanel(AnalysisPanel):
    CHARTS = ("RankingCurveChart", "RankingSpreadChart", "SystemsDiffChart")
    module = ranking
    FIELDS = (
        Field("query", "Query", "column", "Query id.", roles=("query",), optional=False),
        Field("doc", "Document", "column", "Document id.", roles=("doc",), optional=False),
        Field("score", "Score", "column", "Higher ranks first (or give a rank column).", roles=("score",)),
        Field("rank", "Rank", "column", "1 ranks first; used when there is no score column.",
              roles=("rank",)),
        Field("relevance", "Relevance", "column", "Graded relevance; blank = unjudged (gain 0).",
              roles=("relevance",)),
        Field("system", "System", "column", "Optional: metrics per system (run).", roles=("system",)),
        Field("qrels", "Qrels file", "file",
              "Optional judgments file (a TREC qrels, CSV, Parquet...): its columns are matched "
              "by the run's names, else usual ones (query_id/qid, doc_id/docno, rel/grade/label). "
              "Relevant documents never retrieved then count in recall and the ideal DCG; a "
              "Relevance column chosen above is pooled with it (the qrels win where both judge)."),
        Field("ks", "Cut-offs k", "cutoffs", "Comma-separated, e.g. 1,3,5,10."),
        Field("gain", "nDCG gain", "choice",
              "linear: gain = grade (trec_eval, ranx ndcg)\nexponential: 2^grade - 1 (ranx ndcg_burges)",
              choices=(("linear", "linear (grade)"), ("exponential", "exponential (2^grade - 1)"))),
        Field("ties", "Score ties", "choice",
              "trec_eval: score descending, then document id descending\nstable: score descending, then file order\n"
              "pessimistic: relevant documents last among equal scores\noptimistic: relevant documents first",
              choices=(("trec_eval", "trec_eval (doc id descending)"), ("stable", "stable (file order)"),
                       ("pessimistic", "pessimistic (relevant last)"), ("optimistic", "optimistic (relevant first)"))),
        Field("no_relevant", "Queries with no relevant doc", "choice",
              "Judged queries whose judgments are all below the threshold.\n"
              "zero: kept and scored 0 (trec_eval, ranx, sklearn)\nskip: left out; counted either way",
              choices=(("zero", "score 0, keep"), ("skip", "leave out"))),
        Field("unjudged", "Queries with no judgment", "choice",
              "Retrieved queries that have no judgment at all.\n"
              "skip: left out of every mean (trec_eval)\nzero: kept and scored 0; counted either way",
              choices=(("skip", "leave out"), ("zero", "score 0, keep"))),
        Field("relevance_threshold", "Relevant when grade ≥", "float",
              "The binary metrics (P, R, hit, MRR, MAP) count a document relevant at this grade.",
              minimum=-100, maximum=100, decimals=2, step=1),
        Field("ci_bootstrap", "Interval bootstrap", "choice",
              "How the headline intervals resample the queries (the method is in the signature).\n"
              "resample queries: the usual bootstrap, numpy's stream of its seed\n"
              "Poisson, hashed weights: each query's weight per resample comes from a hash of its "
              "id, the resample and its seed: the same draws in DuckDB and Spark SQL",
              choices=(("multinomial", "resample queries"), ("poisson-hash", "Poisson, hashed weights"))),
        Field("engine", "Computed by", "choice",
              "What computes the per-query table (the numbers are the same).\n"
              "automatic: in memory for a loaded file; DuckDB for a Parquet file over the "
              "memory budget, or a CSV over it, which the window reads page by page without loading it\n"
              "DuckDB: the same definitions as SQL (on a loaded file or on the whole file)\n"
              "Spark: the same SQL on a local Spark session (local[2]; needs pyspark and "
              "Java 17; it takes a while to start; for a cluster, use the command line's "
              "--engine spark --spark-master)",
              choices=ENGINE_CHOICES),
    )

    def precheck(self):
        """A run with no judgments (no relevance column, no qrels file) cannot be scored: the
        tab says how to give them, in the window's words."""
        if self.table is None or self.control("qrels").path():
            return ""
        if self.value("relevance") is not None:
            return ""
        from ...io import guess_column
        from ...io.roles import ROLE_NAMES

        if guess_column(self.table, "relevance", ROLE_NAMES.get("relevance", ["relevance"])):
            return ""
        return ("This run has no judgments (no relevance column): choose its qrels file under "
                "'Qrels file' on the left, or open the runs and their qrels file together "
                "(File > Open, select them all).")

    def _auto_column(self, spec):
        """The analysis's rule: the rank column is automatic only when no score column is
        (an MS MARCO run's ``rank``; a TREC run is ordered by its score)."""
        if spec.name == "rank" and any(r == "score" for r in self.roles.values()):
            return None
        return super()._auto_column(spec)

    def options(self):
        opts = super().options()
        if opts.score and opts.rank and self.control("score").currentData() is None:
            from dataclasses import replace

            opts = replace(opts, score=None)  # a chosen rank column wins over a guessed score
        return opts
