"""The flags of each analysis's subcommand: one function per analysis, named as it is in
:mod:`workbench.catalog`, which adds them to the subcommand's parser."""

from __future__ import annotations

import argparse


def errored(p: argparse.ArgumentParser, failure: str) -> None:
    p.add_argument("--error", help="column marking rows that ended with an error (default: the "
                   "'error' column of an Inspect log or promptfoo results)")
    p.add_argument("--errored", default="exclude", choices=["exclude", "failure"],
                   help="rows that ended with an error: exclude = left out of every number, "
                        f"as Inspect does; failure = {failure} (default exclude)")


def common(p: argparse.ArgumentParser, with_input: bool = True) -> None:
    if with_input:
        p.add_argument("input", nargs="+", help="per-item file(s): CSV/TSV/any delimited text, .xlsx, "
                       ".parquet, JSON/JSON Lines, TREC run, Inspect log, lm-eval samples, promptfoo "
                       "results; several files (runs, models) are stacked, each with its system")
        p.add_argument("--sheet", help="XLSX sheet name (default: the first sheet)")
        p.add_argument("--scorer", metavar="NAME",
                       help="the scorer (or recorded metric) whose values are the outcome or score: "
                            "a name that 'workbench describe FILE' lists (default: the tool's own "
                            "primary scorer, e.g. Inspect's first scorer, lm-eval's first metric)")
        p.add_argument("--errors", choices=["exclude", "fail"], default=None,
                       help="records that ended with an error: exclude = left out of every number "
                            "and counted (default, as Inspect does); fail = counted as failures")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--progress", action="store_true", help="report progress on stderr")
    p.add_argument("--xlsx", metavar="PATH", help="also write the Excel report of the result to PATH")


def intervals(p: argparse.ArgumentParser, unit: str = "items") -> None:
    p.add_argument("--ci-resamples", type=int, default=2000,
                   help=f"bootstrap resamples of the headline intervals, over {unit} (default 2000)")
    p.add_argument("--ci-seed", type=int, default=12345,
                   help="seed of the headline intervals' bootstrap (default 12345)")


def conventions(p: argparse.ArgumentParser) -> None:
    p.add_argument("--conventions", action="store_true",
                   help="also recompute the headline under every alternative convention, one changed "
                        "at a time, and say under how many of them the verdict holds (slower)")


def text(p: argparse.ArgumentParser) -> None:
    common(p)
    conventions(p)
    p.add_argument("--prediction", help="prediction column (guessed: prediction, output, answer...)")
    p.add_argument("--reference", help="reference column (guessed: reference, gold, target...)")
    p.add_argument("--id", help="item id column (optional; duplicates are refused)")
    p.add_argument("--system", help="system column: scores per system (optional)")
    p.add_argument("--normalize", default="case_ws", choices=["none", "case_ws", "squad"],
                   help="exact-match/F1 normalisation (default case_ws: lower-case, collapse whitespace)")
    p.add_argument("--stemmer", action="store_true", help="ROUGE with the Porter stemmer (default off)")
    p.add_argument("--bleu-tokenize", default="13a", choices=["13a", "intl", "char", "none", "zh"],
                   help="BLEU's sacrebleu tokenizer (default 13a, sacrebleu's)")
    p.add_argument("--bleu-smooth", default="exp", choices=["exp", "floor", "add-k", "none"],
                   help="BLEU's sacrebleu smoothing (default exp; floor 0.1 and add-k 1 are "
                        "sacrebleu's default values)")
    p.add_argument("--chrf-word-order", type=int, default=0, choices=[0, 2],
                   help="chrF's word n-gram order: 0 = chrF (default), 2 = chrF++")
    p.add_argument("--rouge-tokenizer", default="default", choices=["default", "unicode"],
                   help="ROUGE's tokenizer: default = rouge-score's (keeps only a-z and 0-9, drops "
                        "other scripts); unicode = lower-case words of any script")
    p.add_argument("--group", help="group column (a task): metrics per group, never pooled across "
                   "groups (default: an lm-eval file's task)")
    errored(p, "scored with an empty prediction")
    intervals(p)


def ranking(p: argparse.ArgumentParser) -> None:
    common(p)
    conventions(p)
    p.add_argument("--query", help="query id column")
    p.add_argument("--doc", help="document id column")
    p.add_argument("--score", help="score column, higher ranks first")
    p.add_argument("--rank", help="rank column, 1 first (instead of --score)")
    p.add_argument("--relevance", help="relevance grade column (blank = unjudged)")
    p.add_argument("--system", help="system/run column: metrics per system (optional)")
    p.add_argument("--qrels", help="judgments file: the run's query/doc column names or usual ones "
                   "(query_id, doc_id, qid, docno), grades in --relevance, 'relevance', a "
                   "usual name (rel, grade, label) or its one other column")
    p.add_argument("--k", default="1,3,5,10", help="cut-offs (default 1,3,5,10)")
    p.add_argument("--gain", default="linear", choices=["linear", "exponential"],
                   help="nDCG gain: linear = grade (trec_eval), exponential = 2^grade-1 (default linear)")
    p.add_argument("--ties", default="trec_eval", choices=["trec_eval", "stable", "pessimistic", "optimistic"],
                   help="score ties: trec_eval = doc id descending, stable = file order, pessimistic = "
                        "relevant documents last, optimistic = first (default trec_eval)")
    p.add_argument("--no-relevant", default="zero", choices=["zero", "skip"],
                   help="judged queries without a relevant doc: zero = kept, scored 0 (trec_eval); "
                        "skip = left out (default zero)")
    p.add_argument("--unjudged", default="skip", choices=["skip", "zero"],
                   help="retrieved queries without any judgment: skip = left out (trec_eval); "
                        "zero = kept, scored 0 (default skip)")
    p.add_argument("--relevance-threshold", type=float, default=1.0,
                   help="grade >= T is relevant for the binary metrics (default 1)")
    intervals(p, "queries")
    p.add_argument("--ci-bootstrap", default="multinomial", choices=["multinomial", "poisson-hash"],
                   help="the headline intervals' bootstrap over queries: multinomial (default) or "
                        "poisson-hash (Poisson(1) weights hashed from each query id, the replicate "
                        "and the seed: the same draws in numpy, DuckDB and Spark)")
    engine(p, "computes the per-query table")


def engine(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--engine", default="auto", choices=["auto", "memory", "duckdb", "spark"],
                   help=f"what {what}: memory = pandas/numpy; duckdb = DuckDB "
                        "reads a CSV/Parquet file itself, out of core (memory limit, spill folder); "
                        "spark = Spark reads it (local mode or a cluster: --spark-master; needs "
                        "pyspark and Java 17); auto = memory while the file's estimated size fits "
                        "in a quarter of the RAM, else duckdb, never spark (default auto)")
    p.add_argument("--spark-master", default="local[2]",
                   help="the Spark engine's master: local[2] (this machine, 2 cores), "
                        "spark://host:7077, yarn... (default local[2])")


def passk(p: argparse.ArgumentParser) -> None:
    common(p)
    conventions(p)
    p.add_argument("--task", help="task id column")
    p.add_argument("--n", help="attempts-per-task column (with --correct)")
    p.add_argument("--correct", help="passes-per-task column (with --n)")
    p.add_argument("--success", help="per-attempt 0/1 column (instead of --n/--correct)")
    p.add_argument("--system", help="system column (optional)")
    p.add_argument("--k", default="auto", help="values of k, e.g. 1,3,5,10 (default auto: every k from 1 "
                   "to the most attempts a task has, up to 10, then 20, 50, 100...)")
    errored(p, "counted as failed attempts")
    intervals(p, "tasks")
    engine(p, "counts the attempts per task")


def aggregate(p: argparse.ArgumentParser) -> None:
    common(p)
    conventions(p)
    p.add_argument("--outcome", help="0/1 outcome column (or scores in [0, 1])")
    p.add_argument("--group", help="group/segment column")
    p.add_argument("--version", help="version column: per-version table and Simpson check")
    p.add_argument("--numerator", help="numerator column (ratio form)")
    p.add_argument("--denominator", help="denominator column (ratio form)")
    p.add_argument("--unit", help="unit column (conversation, user...)")
    errored(p, "outcome 0 (a failure)")
    intervals(p)
    engine(p, "counts the rows per group or unit")


def compare(p: argparse.ArgumentParser) -> None:
    common(p)
    conventions(p)
    p.add_argument("--baseline", help="wide form: baseline column (0/1 outcome or any per-item score)")
    p.add_argument("--candidate", help="wide form: candidate column(s), comma-separated for several")
    p.add_argument("--item", help="item id column (duplicates refused)")
    p.add_argument("--cluster", help="cluster column: bootstrap resamples whole clusters")
    p.add_argument("--system", help="long form: system column")
    p.add_argument("--outcome", help="long form: 0/1 outcome column")
    p.add_argument("--score", help="long form: per-item score column (any numbers; same as --outcome)")
    p.add_argument("--baseline-system", help="long form: baseline system name (default: the first)")
    p.add_argument("--candidate-system", help="long form: candidate system name (default: every other)")
    p.add_argument("--scores", default="auto", choices=["auto", "binary", "continuous"],
                   help="test family: auto = binary when every value is 0/1 (default auto)")
    p.add_argument("--correction", default="holm", choices=["holm", "bonferroni", "none"],
                   help="correction for several comparisons (default holm)")
    p.add_argument("--rounds", type=int, default=10_000,
                   help="randomization-test rounds when not enumerated exactly (default 10000)")
    p.add_argument("--zero-method", default="wilcox", choices=["wilcox", "pratt", "zsplit"],
                   help="Wilcoxon zero handling (default wilcox: zero differences dropped)")
    p.add_argument("--better", default="higher", choices=["higher", "lower"],
                   help="which direction of the score is better (default higher)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default 12345)")
    errored(p, "scored 0 (a failure)")
    intervals(p)


def cost(p: argparse.ArgumentParser) -> None:
    common(p)
    conventions(p)
    p.add_argument("--system", help="system column")
    p.add_argument("--success", help="0/1 success column")
    p.add_argument("--cost", help="cost-per-request column")
    p.add_argument("--latency", help="latency column (optional)")
    p.add_argument("--steps", help="an agent's steps per request (optional; guessed: steps, num_steps...)")
    p.add_argument("--tool-calls", help="tool calls per request (optional; guessed: tool_calls...)")
    p.add_argument("--tokens", help="tokens per request (optional; guessed: total_tokens, tokens...)")
    p.add_argument("--input-tokens", help="input (prompt) tokens per request (optional; guessed: input_tokens, "
                                          "prompt_tokens...)")
    p.add_argument("--output-tokens", help="output (completion) tokens per request (optional; guessed: "
                                           "output_tokens, completion_tokens...)")
    p.add_argument("--working-time", help="the agent's working time per request (optional; guessed: working_time...)")
    p.add_argument("--ideal-steps", help="a reference number of steps per request: the steps' ratio to it "
                                         "(optional; guessed: ideal_steps, reference_steps...)")
    from ..metrics.cost import PERCENTILE_METHODS

    p.add_argument("--percentile-method", default="linear", choices=list(PERCENTILE_METHODS),
                   help="linear = numpy default (type 7); nearest_rank = ceil(pN)-th value; or another of "
                        "numpy's percentile methods by its name (default linear)")
    errored(p, "counted as failed requests; their latency and cost are never used")
    intervals(p, "requests")
    engine(p, "reads the file (duckdb and spark read only the columns used)")


def plan(p: argparse.ArgumentParser) -> None:
    common(p, with_input=False)
    p.add_argument("--rate", type=float, help="a success rate, as a fraction (with --n)")
    p.add_argument("--n", type=int, help="number of items")
    p.add_argument("--discordance", type=float, help="fraction of items the systems disagree on (with --n)")
    p.add_argument("--pass-at-k", type=float, help="an observed pass@k, as a fraction (with --k)")
    p.add_argument("--k", type=int, help="the k of --pass-at-k")
    p.add_argument("--target-difference", type=float, help="paired difference to detect (with --discordance)")


def judge(p: argparse.ArgumentParser) -> None:
    common(p)
    p.add_argument("--item", help="item id column (duplicates refused)")
    p.add_argument("--judge", help="the judge's label column (guessed: judge, judge_label, grader...)")
    p.add_argument("--human", action="append", help="a human label column (blank = not labelled); repeat "
                   "for several people; agreement and the correction use the first; or a FILE of people's "
                   "labels (a Label Studio export) joined with the judge's log by item")
    p.add_argument("--label-map", metavar="JUDGE=PEOPLE,...",
                   help="the judge's labels in the people's words, e.g. C=correct,P=partial,I=incorrect "
                        "(needed when the two label sets never meet)")
    p.add_argument("--positive", help="the label that means pass (exact text; guessed from pass, yes, true, 1...)")
    p.add_argument("--level", default="auto", choices=["auto", "nominal", "ordinal", "interval"],
                   help="labels' level for weighted kappa and Krippendorff's alpha (default auto: ordinal "
                        "for number grades with more than two values, else nominal)")
    p.add_argument("--swap-judge", help="the judge's verdicts (A or B) with the two answers in the other order "
                   "(position bias)")
    p.add_argument("--length-a", help="length of answer A (length bias, with --length-b)")
    p.add_argument("--length-b", help="length of answer B (length bias, with --length-a)")


def rubric(p: argparse.ArgumentParser) -> None:
    common(p)
    p.add_argument("--item", help="item id column (duplicates refused)")
    p.add_argument("--criteria", help="wide form: the criterion columns, comma-separated, in the rubric's order")
    p.add_argument("--weights", help="weights in the order of the criteria, comma-separated (default: equal)")
    p.add_argument("--rubric", help="rubric file (CSV: criterion, weight, optional description) instead of --weights")
    p.add_argument("--system", help="system column: scores per system, paired against the baseline")
    p.add_argument("--baseline-system", help="baseline system name (default: the first in the file)")
    p.add_argument("--criterion", help="long form: the criterion-name column (with --verdict)")
    p.add_argument("--verdict", help="long form: the verdict column (with --criterion)")
    p.add_argument("--missing", default="skip", choices=["skip", "fail"],
                   help="a blank verdict: skip = leave that criterion out for that item and renormalise the "
                        "weights (default); fail = count it as a fail")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default 12345)")
    intervals(p)


def runs(p: argparse.ArgumentParser) -> None:
    common(p)
    p.add_argument("--item", help="item id column (one value per run and item)")
    p.add_argument("--outcome", help="0/1 outcome column")
    p.add_argument("--score", help="score column (any numbers), instead of --outcome")
    p.add_argument("--system", help="run column (default: the system column, or each stacked file)")
    p.add_argument("--baseline-system", help="the baseline run (default: the first)")
    p.add_argument("--order", help="column that orders the runs (a time or version; default: file order)")
    p.add_argument("--groups", default="tukey", choices=["tukey", "holm"],
                   help="tie groups from the randomised Tukey HSD (default) or Holm-adjusted paired tests")
    p.add_argument("--better", default="higher", choices=["higher", "lower"],
                   help="which direction of the score is better (default higher)")
    p.add_argument("--rounds", type=int, default=10_000,
                   help="randomised Tukey HSD and randomization-test rounds (default 10000)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the bootstrap and permutations (default 12345)")
    intervals(p)


def repeats(p: argparse.ArgumentParser) -> None:
    common(p)
    p.add_argument("--item", help="item id column")
    p.add_argument("--outcome", help="0/1 outcome or score in [0, 1] column")
    p.add_argument("--repeat", help="repeat / epoch / seed column (default: an item's rows are its tries)")
    p.add_argument("--system", help="system column: a split per system, and paired against the baseline")
    p.add_argument("--baseline-system", help="baseline system name (default: the first)")
    p.add_argument("--target", type=float, default=0.02,
                   help="95%% half-width to plan items and repeats for, a fraction (default 0.02: the card's "
                        "+-2.0 pts; the window's form takes it in points)")


def slices(p: argparse.ArgumentParser) -> None:
    common(p)
    p.add_argument("--by", help="slice column(s), comma-separated: each column's slices are analysed "
                   "separately (default: the file's group column)")
    p.add_argument("--bins", type=int, default=0,
                   help="cut numeric slice columns into N quantile bins, the edges stated (default 0: "
                        "each value is a slice)")
    p.add_argument("--item", help="item id column (items are paired by its exact text)")
    p.add_argument("--baseline", help="wide form: baseline column (0/1 outcome or any per-item score)")
    p.add_argument("--candidate", help="wide form: candidate column")
    p.add_argument("--system", help="long form: system column")
    p.add_argument("--baseline-system", help="long form: baseline system name")
    p.add_argument("--candidate-system", help="long form: candidate system name")
    p.add_argument("--outcome", help="long form: 0/1 outcome column")
    p.add_argument("--score", help="long form: per-item score column (any numbers)")
    p.add_argument("--scores", default="auto", choices=["auto", "binary", "continuous"],
                   help="test family: auto = binary when every value is 0/1 (default auto)")
    p.add_argument("--correction", default="holm", choices=["holm", "bh", "none"],
                   help="correction over the tested slices: holm, bh = Benjamini-Hochberg, none "
                        "(default holm)")
    p.add_argument("--min-size", type=int, default=20,
                   help="slices with fewer items are listed but not tested (default 20)")
    p.add_argument("--clean", help="contamination flag column (1/true/yes = contaminated): the clean "
                   "items' difference first")
    p.add_argument("--discover", action="store_true",
                   help="search the slices of one or two columns for the largest losses on a random "
                        "half, re-estimate them on the other half")
    p.add_argument("--depth", type=int, default=2, choices=[1, 2],
                   help="discovery: 1 = single columns' slices, 2 = also two columns' value pairs "
                        "(default 2)")
    p.add_argument("--top", type=int, default=5, help="discovery: how many of the worst slices are "
                   "re-estimated (default 5)")
    p.add_argument("--seed", type=int, default=12345,
                   help="seed of the randomization tests and of discovery's split (default 12345)")
    p.add_argument("--rounds", type=int, default=10_000,
                   help="randomization-test rounds when not enumerated exactly (default 10000)")
    errored(p, "scored 0 (a failure)")
