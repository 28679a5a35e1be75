#!/usr/bin/env python
"""Issue 13's table: the workbench side by side with the best reference, row by row, in one run.

Not a test (pytest skips ``tests/benchmarks``; ``tests/test_bench_quick.py`` runs ``--quick``).
From the project root::

    .venv/bin/python tests/benchmarks/bench_table.py            # the issue's sizes (~20-30 min with inspect-log)
    .venv/bin/python tests/benchmarks/bench_table.py --quick    # small sizes, a smoke test
    .venv/bin/python tests/benchmarks/bench_table.py --only text --only report

Rows (the workbench / the reference; data generated with a fixed seed, written to a temporary
folder before any timing):

* ``csv``: a 1M-row x 10-column CSV: ``workbench.io.load_table`` / ``pandas.read_csv`` (C
  engine).  Check: same columns, the numbers equal, the text cells equal.
* ``csv-messy``: the same CSV as analysts' files often are: free text with commas, quotes,
  accents and CJK (quoted fields), about 1% empty cells in a float and an integer column,
  CRLF line breaks.  Same reference and check.
* ``csv-export``: a CSV shaped like an evaluation tool's export, 3/10 of the ``csv`` row's rows:
  id, model, a prompt, a response and a reference of 5-80 words each (a comma and doubled quotes
  in 30% of the responses), a score, a 0/1 outcome, a latency and a cost.  Same reference and
  check.
* ``xlsx``: a 100k-row x 10-column XLSX: ``load_table`` / ``pandas.read_excel(engine=
  "calamine")``.  Same check.
* ``parquet``: the same 1M rows as a Parquet file: ``load_table`` / ``pandas.read_parquet``.
* ``ranking-csv``: ranking end to end from a 1M-row CSV run file (query, doc, score,
  relevance; P/R/hit/nDCG@1,3,5,10, MRR, MAP): ``load_table`` + ``analyses.ranking.run`` /
  ``pandas.read_csv`` + pytrec_eval (building its dicts, evaluating, averaging).  Check: the
  18 means equal to 1e-9.
* ``text``: the text analysis of 100k (prediction, reference) pairs, all metrics (EM, token
  F1, corpus and sentence BLEU, corpus and sentence chrF, ROUGE-1/2/L): ``analyses.text.run``
  / sacrebleu corpus BLEU + sacrebleu corpus chrF + rouge-score per pair + the SQuAD v2 EM
  and F1 functions per pair (the reference has no sentence BLEU/chrF: calling sacrebleu per
  pair would add about as much again).  Check: corpus BLEU and chrF, and every item's ROUGE
  and token F1, equal to 1e-9; sentence BLEU and chrF of 1,000 sampled items equal sacrebleu's.
* ``report``: the Excel report of that 100k-item text analysis: ``report.write_report`` /
  xlsxwriter ``constant_memory`` writing the same tables (header and cells, no formatting).
  Check: the items' ROUGE-L and predictions in the workbench's workbook (read back with
  calamine) equal the analysis'.  Memory: the peak resident memory's rise above the size
  before the call (VmHWM reset through ``/proc/self/clear_refs``), each in a fresh child
  process that loads the pickled result: the workbench at n items and at 2n (the items table
  doubled), and the reference at n.
* ``repeats``: the Repeats analysis end to end from a 1M-row CSV (200k items x 5 epochs x 2
  systems; issue 26): ``load_table`` + ``analyses.repeats.run`` (noise split, seed spread,
  pass@k curve, paired split, the per-item table) / ``pandas.read_csv`` + eval-arena's
  ``unbiasedK`` estimators written out in numpy on the items x epochs matrix of each system
  (the split only).  Check: var_data and var_within of both systems equal to 1e-12.
* ``rubric``: the Rubric analysis end to end from a 1M-row CSV (500k items x 2 systems, 10 yes/no
  criteria, weights 1..10, about 1% blank verdicts skipped; issue 25): ``load_table`` +
  ``analyses.rubric.run`` (scores, Wilson intervals per criterion, the paired comparison with its
  tests and contributions) / ``pandas.read_csv`` + the weighted scores in numpy + statsmodels'
  ``proportion_confint(method="wilson")`` per criterion and system.  Check: every system's mean
  score and every criterion's pass rate and Wilson bounds equal to 1e-12.
* ``judge``: the Judge analysis end to end from a 1M-row CSV (a judge and two people, labels 1-5,
  about 10% of the second person's blank; issue 25): ``load_table`` + ``analyses.judge.run`` /
  ``pandas.read_csv`` + statsmodels' ``cohens_kappa`` (with its standard error, on the
  judge x first person table) + the ``krippendorff`` package's ordinal alpha of the three raters.
  Check: kappa, its standard error and alpha equal to 1e-9.
* ``inspect-log``: an Inspect ``.eval`` log of 2,000 samples x 5 epochs of an agent with 1-3 tool
  calls per sample (some parallel), scorer ``match``, written by inspect_ai's own ``eval()`` with
  ``mockllm`` (``make_inspect_bench_log.py``, run once by ``$INSPECT_PYTHON``, default
  ``/tmp/iv/bin/python``, into the temporary folder; not timed; issue 26): ``load_table`` +
  ``analyses.cost.run`` (the roles the reader suggests, as the CLI) + ``analyses.repeats.run``
  (item ``sample_id``, outcome ``match``, repeat ``epoch``, system ``model``) / inspect_ai's own
  ``read_eval_log`` in a child process of ``$INSPECT_PYTHON`` (read only, timed inside the child).
  Check: the samples x epochs, the tool calls and the steps (assistant messages) counted from
  inspect_ai's objects equal the workbench's rows and its ``tool_calls`` and ``steps`` sums.  The
  issue's 10,000 samples x 5 epochs are not the default: inspect_ai itself needs about 40 ms of
  CPU per sample and epoch to write the log (about 35 minutes at 10,000 x 5); ``--inspect-samples``
  sets N.  Without a Python with inspect_ai the row is skipped (a sentence says so; no row).
  One run (2026-12-02, inspect_ai 0.3.285, nice 19 on a shared 2-core machine, load average
  about 3.3; the log written in 412 s, not timed; medians of 3)::

    | Inspect .eval log, 2,000 samples x 5 epochs with tool calls: read + Cost + Repeats | 10.24 s |
    inspect_ai read_eval_log (read only) 36.03 s | **3.52x** | equal (samples 10,000 vs 10,000,
    tool_calls 20,000 vs 20,000, steps 25,000 vs 25,000) |
* ``ranking-memory``: ranking, 10M rows of an in-memory DataFrame: ``analyses.ranking.run`` /
  pytrec_eval, in one child process (the data made once, the tools interleaved), the peak
  resident memory of each run read from ``/proc/self/status`` (VmHWM, reset before each run
  through ``/proc/self/clear_refs``) -- the process's peak, data included.

Times are medians of ``--repeats`` (default 3) runs, interleaved workbench / reference.
Ratio = reference time / workbench time (above 1 = the workbench is faster).  The machine is
shared: the load average is printed before and after each row.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import bench_engine as be  # noqa: E402

FULL = dict(csv=1_000_000, xlsx=100_000, parquet=1_000_000, ranking_csv=1_000_000, text=100_000, ranking_memory=10_000_000,
            repeats=1_000_000, rubric=1_000_000, judge=1_000_000, inspect=2_000)
QUICK = dict(csv=5_000, xlsx=1_000, parquet=5_000, ranking_csv=5_000, text=300, ranking_memory=20_000, repeats=5_000,
             rubric=5_000, judge=5_000, inspect=50)
ROWS = ("csv", "csv-messy", "csv-export", "xlsx", "parquet", "ranking-csv", "text", "report", "repeats", "rubric", "judge",
        "inspect-log", "ranking-memory")


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def median_interleaved(fns: dict, repeats: int) -> dict:
    """{name: (median seconds, all seconds, last output)}; runs a, b, a, b, ..."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    outs: dict[str, object] = {}
    for _ in range(repeats):
        for name, fn in fns.items():
            outs.pop(name, None)
            gc.collect()
            t = time.perf_counter()
            outs[name] = fn()
            times[name].append(time.perf_counter() - t)
    return {k: (statistics.median(v), v, outs[k]) for k, v in times.items()}


class Table:
    def __init__(self) -> None:
        self.rows: list[dict] = []

    def add(self, work, wb_s, ref_name, ref_s, check, note=""):
        self.rows.append(dict(work=work, wb=wb_s, ref_name=ref_name, ref=ref_s,
                              ratio=ref_s / wb_s if wb_s else float("nan"), check=check, note=note))
        r = self.rows[-1]
        print(f"  -> workbench {wb_s:.2f} s | {ref_name} {ref_s:.2f} s | ratio {r['ratio']:.2f}x | "
              f"values: {check} {note}", flush=True)

    def markdown(self) -> str:
        out = ["| work | workbench | reference | ratio | values |", "|---|---|---|---|---|"]
        for r in self.rows:
            note = f" ({r['note']})" if r["note"] else ""
            out.append(f"| {r['work']} | {r['wb']:.2f} s{note} | {r['ref_name']} {r['ref']:.2f} s | "
                       f"**{r['ratio']:.2f}x** | {r['check']} |")
        return "\n".join(out)


# --------------------------------------------------------------------------- data

def make_frame(rows: int, seed: int) -> pd.DataFrame:
    """10 columns: ids and labels (text), floats, integers, a decimal, a 0/1 outcome, words."""
    rng = np.random.default_rng(seed)
    words = np.array("refund order late fine good bad ships policy page answer".split(), dtype=object)
    return pd.DataFrame({
        "item_id": [f"it-{i:07d}" for i in range(rows)],
        "system": np.array(["baseline", "candidate", "sys-c"], dtype=object)[rng.integers(0, 3, rows)],
        "language": np.array(["en", "de", "fr", "ja"], dtype=object)[rng.integers(0, 4, rows)],
        "score": rng.random(rows).round(6),
        "latency_s": rng.gamma(2.0, 0.3, rows).round(3),
        "cost": (rng.integers(0, 100_000, rows) / 10_000).round(4),
        "correct": rng.integers(0, 2, rows),
        "tokens": rng.integers(1, 4_000, rows),
        "note": words[rng.integers(0, len(words), rows)] + " " + words[rng.integers(0, len(words), rows)],
        "segment": np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, rows)],
    })


def write_xlsx(frame: pd.DataFrame, path: Path) -> None:
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    ws = wb.add_worksheet("data")
    ws.write_row(0, 0, list(frame.columns))
    for i, row in enumerate(frame.itertuples(index=False), start=1):
        ws.write_row(i, 0, row)
    wb.close()


def same_table(wb_table, ref: pd.DataFrame) -> str:
    from workbench.io import to_text

    frame = wb_table.frame
    if list(frame.columns) != list(ref.columns) or len(frame) != len(ref):
        return f"DIFFERENT shape/columns {frame.shape} vs {ref.shape}"
    for col in ref.columns:
        r = ref[col]
        if pd.api.types.is_numeric_dtype(r.dtype):
            w = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float)
            if not np.array_equal(w, r.to_numpy(dtype=float), equal_nan=True):
                return f"DIFFERENT numbers in {col}"
        elif to_text(wb_table, col) != [str(x) for x in r.tolist()]:
            return f"DIFFERENT text in {col}"
    return "equal"


def text_pairs(n: int, seed: int) -> pd.DataFrame:
    """References of Zipf-distributed words with punctuation, numbers and some Unicode; the
    predictions drop, add, re-case and reorder words of their reference."""
    rng = np.random.default_rng(seed)
    common = np.array(("the a an of to and in is was for on with as by at from refund days "
                       "customer order delivery payment 7 12.5 3,000 U.S. e-mail don't it's "
                       "(see) [note] \"quoted\" item-level Zürich naïve café straße 東京 данные "
                       "running runs ran easily happiness").split(), dtype=object)
    rare = np.array([f"w{i}" for i in range(30_000)], dtype=object)
    ends = np.array(["", ".", " .", "!", "?"], dtype=object)
    preds, refs = [], []
    for _ in range(n):
        k = int(rng.poisson(22))
        pick = rng.random(k) < 0.5
        w = np.where(pick, common[rng.integers(0, len(common), k)],
                     rare[np.minimum(rng.zipf(1.3, k), len(rare) - 1)])
        ref = " ".join(w) + ends[rng.integers(0, 5)]
        words = list(w)
        for _ in range(int(rng.integers(0, 5))):
            if words and rng.random() < 0.5:
                words.pop(int(rng.integers(0, len(words))))
            else:
                words.insert(int(rng.integers(0, len(words) + 1)), common[rng.integers(0, len(common))])
        pred = " ".join(words) + ends[rng.integers(0, 3)]
        if rng.random() < 0.1:
            pred = pred.upper()
        preds.append(pred)
        refs.append(ref)
    return pd.DataFrame({"id": [f"t{i}" for i in range(n)], "prediction": preds, "reference": refs})


# --------------------------------------------------------------------------- rows

def row_csv(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    from workbench.io import load_table

    path = tmp / "table.csv"
    make_frame(rows, seed).to_csv(path, index=False)
    res = median_interleaved({"wb": lambda: load_table(path),
                              "ref": lambda: pd.read_csv(path, engine="c")}, repeats)
    table.add(f"load a {rows:,}-row x 10-column CSV", res["wb"][0], "pandas.read_csv (C engine)",
              res["ref"][0], same_table(res["wb"][2], res["ref"][2]))


def messy_frame(rows: int, seed: int) -> pd.DataFrame:
    """The CSV row's frame as analysts' files often are: free text with commas, quotes and
    accents (so quoted fields), and about 1% empty cells in a float and an integer column."""
    frame = make_frame(rows, seed)
    rng = np.random.default_rng(seed + 1)
    extra = np.array(["", ", see \"policy\"", " (café, naïve)", ", then: 東京"], dtype=object)
    frame["note"] = frame["note"] + extra[rng.integers(0, len(extra), rows)]
    frame["score"] = frame["score"].where(rng.random(rows) >= 0.01)
    frame["tokens"] = frame["tokens"].astype("Int64").where(rng.random(rows) >= 0.01)
    return frame


def row_csv_messy(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    from workbench.io import load_table

    path = tmp / "messy.csv"
    messy_frame(rows, seed).to_csv(path, index=False, lineterminator="\r\n")
    res = median_interleaved({"wb": lambda: load_table(path),
                              "ref": lambda: pd.read_csv(path, engine="c")}, repeats)
    table.add(f"load a {rows:,}-row x 10-column CSV: quoted text, accents, empty cells, CRLF",
              res["wb"][0], "pandas.read_csv (C engine)", res["ref"][0],
              same_table(res["wb"][2], res["ref"][2]))


def export_frame(rows: int, seed: int) -> pd.DataFrame:
    """An evaluation export: long model texts (quoted where they hold a comma) among numbers."""
    rng = np.random.default_rng(seed + 2)
    vocab = np.array(("the a of to and in is that for it as was with be by on not this are or from at "
                      "which but have an they you were there can all their one has been if more when "
                      "will would who so no model answer question refund policy order because however "
                      "therefore result value system data item score").split(), dtype=object)

    def texts() -> np.ndarray:
        return np.array([" ".join(vocab[rng.integers(0, len(vocab), k)]) for k in rng.integers(5, 80, rows)],
                        dtype=object)

    response = texts()
    quoted = rng.random(rows) < 0.3
    response[quoted] = response[quoted] + ', she said "ok"'
    return pd.DataFrame({
        "id": [f"q{i:07d}" for i in range(rows)],
        "model": np.array(["gpt-x", "claude-y"], dtype=object)[rng.integers(0, 2, rows)],
        "prompt": texts(), "response": response, "reference": texts(),
        "score": rng.random(rows).round(4), "correct": rng.integers(0, 2, rows),
        "latency_ms": rng.integers(50, 5000, rows), "cost_usd": (rng.random(rows) / 100).round(6),
    })


def row_csv_export(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    from workbench.io import load_table

    path = tmp / "export.csv"
    export_frame(rows, seed).to_csv(path, index=False)
    res = median_interleaved({"wb": lambda: load_table(path),
                              "ref": lambda: pd.read_csv(path, engine="c")}, repeats)
    table.add(f"load a {rows:,}-row CSV export: prompts, responses, references (quoted text), numbers",
              res["wb"][0], "pandas.read_csv (C engine)", res["ref"][0],
              same_table(res["wb"][2], res["ref"][2]))


def row_xlsx(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    from workbench.io import load_table

    path = tmp / "table.xlsx"
    write_xlsx(make_frame(rows, seed), path)
    res = median_interleaved({"wb": lambda: load_table(path),
                              "ref": lambda: pd.read_excel(path, engine="calamine")}, repeats)
    table.add(f"load a {rows:,}-row x 10-column XLSX", res["wb"][0],
              'pandas.read_excel(engine="calamine")', res["ref"][0],
              same_table(res["wb"][2], res["ref"][2]))


def row_parquet(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    from workbench.io import load_table

    path = tmp / "table.parquet"
    make_frame(rows, seed).to_parquet(path, index=False)
    res = median_interleaved({"wb": lambda: load_table(path),
                              "ref": lambda: pd.read_parquet(path)}, repeats)
    table.add(f"load a {rows:,}-row x 10-column Parquet file", res["wb"][0], "pandas.read_parquet",
              res["ref"][0], same_table(res["wb"][2], res["ref"][2]))


def _pytrec_from_csv(path: Path) -> dict:
    run = pd.read_csv(path, engine="c")
    return be.pytrec_ranking(run, None)[0]


def _wb_ranking_file(path: Path) -> dict:
    from workbench.analyses import ranking
    from workbench.io import load_table

    result = ranking.run(load_table(path), ranking.Options(query="query", doc="doc", score="score",
                                                           relevance="relevance", ks=be.KS))
    return {r["metric"]: r["value"] for r in result.records}


def row_ranking_csv(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    path = tmp / "run.csv"
    run, _, _ = be.make_ranking_data(rows, seed)
    run.to_csv(path, index=False)
    res = median_interleaved({"wb": lambda: _wb_ranking_file(path),
                              "ref": lambda: _pytrec_from_csv(path)}, repeats)
    diff, which = be.max_diff(res["wb"][2], res["ref"][2], be.pytrec_names(be.KS))
    table.add(f"ranking end to end from a {len(run):,}-row CSV run file", res["wb"][0],
              "pandas.read_csv + pytrec_eval", res["ref"][0],
              "equal (18 means, max diff %.1e)" % diff if diff < 1e-9 else f"DIFFERENT ({which} {diff:.2e})")


def _squad(s: str) -> str:
    import re
    import string

    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def reference_text(preds: list[str], refs: list[str]) -> dict:
    """sacrebleu corpus BLEU and chrF, rouge-score per pair, the SQuAD v2 EM and F1 per pair."""
    import collections

    import sacrebleu
    from rouge_score import rouge_scorer

    bleu = sacrebleu.corpus_bleu(preds, [refs]).score
    chrf = sacrebleu.corpus_chrf(preds, [refs]).score
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)
    rouge = {t: np.empty(len(preds)) for t in ("rouge1", "rouge2", "rougeL")}
    for i, (p, r) in enumerate(zip(preds, refs)):
        s = scorer.score(r, p)
        for t in rouge:
            rouge[t][i] = s[t].fmeasure
    em = np.empty(len(preds))
    f1 = np.empty(len(preds))
    for i, (p, r) in enumerate(zip(preds, refs)):
        pn, rn = _squad(p), _squad(r)
        em[i] = float(pn == rn)
        pt, rt = pn.split(), rn.split()
        if not pt or not rt:
            f1[i] = float(pt == rt)
            continue
        same = sum((collections.Counter(pt) & collections.Counter(rt)).values())
        if same == 0:
            f1[i] = 0.0
        else:
            prec, rec = same / len(pt), same / len(rt)
            f1[i] = 2 * prec * rec / (prec + rec)
    return dict(bleu=bleu, chrf=chrf, rouge=rouge, em=em, f1=f1)


def workbench_text(frame: pd.DataFrame):
    from workbench.analyses import text
    from workbench.io.loader import LoadedTable

    return text.run(LoadedTable(frame=frame, path="<memory>"),
                    text.Options(prediction="prediction", reference="reference", id="id",
                                 normalize="squad"))


def check_text(result, ref: dict, frame: pd.DataFrame, seed: int) -> str:
    import sacrebleu

    items = result.table("items").frame
    worst = max(abs(result.value("bleu") - ref["bleu"]), abs(result.value("chrf") - ref["chrf"]))
    for t in ("rouge1", "rouge2", "rougeL"):
        worst = max(worst, float(np.max(np.abs(items[t].to_numpy(float) - ref["rouge"][t]), initial=0)))
    worst = max(worst, float(np.max(np.abs(items["token_f1"].to_numpy(float) - ref["f1"]), initial=0)))
    worst = max(worst, float(np.max(np.abs(items["exact_match"].to_numpy(float) - ref["em"]), initial=0)))
    rng = np.random.default_rng(seed)
    for i in rng.choice(len(frame), size=min(1000, len(frame)), replace=False):
        p, r = frame["prediction"].iat[i], frame["reference"].iat[i]
        worst = max(worst, abs(items["bleu"].iat[i] - sacrebleu.sentence_bleu(p, [r]).score),
                    abs(items["chrf"].iat[i] - sacrebleu.sentence_chrf(p, [r]).score))
    return f"equal (max diff {worst:.1e})" if worst <= 1e-9 else f"DIFFERENT (max diff {worst:.2e})"


def row_text(table: Table, rows: int, repeats: int, tmp: Path, seed: int):
    frame = text_pairs(rows, seed)
    preds, refs = frame["prediction"].tolist(), frame["reference"].tolist()
    res = median_interleaved({"wb": lambda: workbench_text(frame),
                              "ref": lambda: reference_text(preds, refs)}, repeats)
    table.add(f"text analysis, {rows:,} pairs, all metrics", res["wb"][0],
              "sacrebleu corpus BLEU + corpus chrF + rouge-score + SQuAD EM/F1", res["ref"][0],
              check_text(res["wb"][2], res["ref"][2], frame, seed))
    return res["wb"][2]


def reference_report(result, path: Path) -> None:
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(path), {"constant_memory": True, "nan_inf_to_errors": True})
    for t in result.tables:
        ws = wb.add_worksheet(t.name[:31])
        ws.write_row(0, 0, [str(c) for c in t.frame.columns])
        for i, row in enumerate(t.frame.itertuples(index=False), start=1):
            ws.write_row(i, 0, [None if v is None else v for v in row])
    wb.close()


def check_report(path: Path, result) -> str:
    from python_calamine import CalamineWorkbook

    items = result.table("items").frame
    from workbench.report.present import column_name

    want = items["rougeL"].to_numpy(float)
    texts = items["prediction"].tolist() if "prediction" in items else None
    book = CalamineWorkbook.from_path(str(path))
    for name in book.sheet_names:
        rows = book.get_sheet_by_name(name).to_python()
        for r, row in enumerate(rows[:50]):
            header = next((h for h in ("rougeL", column_name("items", "rougeL")) if h in row), None)
            if header is not None:  # the workbook's header is the column's display name
                c = row.index(header)
                got = [x[c] for x in rows[r + 1:r + 1 + len(want)] if c < len(x)]
                if len(got) == len(want) and np.allclose(np.array(got, float), want, rtol=0, atol=1e-12):
                    if texts is not None:
                        p = row.index(next(h for h in ("prediction", column_name("items", "prediction")) if h in row))
                        if [x[p] for x in rows[r + 1:r + 1 + len(want)]] != texts:
                            return "DIFFERENT: the items' predictions read back differ"
                        return "items' ROUGE-L and predictions read back equal"
                    return "items' ROUGE-L read back equal"
    return "DIFFERENT: the items' ROUGE-L not found in the workbook"


def _doubled(result):
    """The result with its items table twice as long (for the memory check)."""
    from dataclasses import replace

    items = result.table("items")
    frame = pd.concat([items.frame, items.frame], ignore_index=True)
    return replace(result, tables=tuple(replace(t, frame=frame) if t.name == "items" else t
                                        for t in result.tables))


def child_report_memory(pickled: str, which: str) -> None:
    """In a fresh process: the peak resident memory's rise while one report is written."""
    import pickle

    from workbench.report import write_report

    with open(pickled, "rb") as fh:
        result = pickle.load(fh)
    if which == "wb2":
        result = _doubled(result)
    out = Path(pickled).with_suffix(f".{which}.xlsx")
    gc.collect()
    _peak_rss_reset()
    before = _rss_mb()
    if which == "ref":
        reference_report(result, out)
    else:
        write_report(out, [result])
    print(json.dumps({"growth": _peak_rss_mb() - before}))


def _report_memory(result, tmp: Path) -> dict[str, float]:
    """Peak RSS growth of writing the report (workbench at n and 2n items, reference at n),
    each in a child process of its own (a process that wrote reports before keeps freed
    memory, which would hide the growth)."""
    import pickle

    pickled = tmp / "text_result.pkl"
    with open(pickled, "wb") as fh:
        pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = {}
    for which in ("wb", "wb2", "ref"):
        proc = subprocess.run([sys.executable, __file__, "--child-report-memory", str(pickled), which],
                              capture_output=True, text=True, env=env, check=False)
        if proc.returncode != 0:
            print(proc.stderr)
            raise SystemExit("the report-memory child failed")
        out[which] = json.loads(proc.stdout.strip().splitlines()[-1])["growth"]
    pickled.unlink()
    return out


def row_report(table: Table, result, repeats: int, tmp: Path) -> None:
    from workbench.report import write_report

    n = len(result.table("items").frame)
    wb_path, ref_path = tmp / "wb_report.xlsx", tmp / "ref_report.xlsx"
    res = median_interleaved({"wb": lambda: write_report(wb_path, [result]),
                              "ref": lambda: reference_report(result, ref_path)}, repeats)
    check = check_report(wb_path, result)
    # memory: the workbench's peak growth at n and 2n items (flat: the second is not double)
    mem = _report_memory(result, tmp)
    table.add(f"Excel report of a {n:,}-item text analysis", res["wb"][0],
              "xlsxwriter constant_memory (same tables)", res["ref"][0], check,
              note=f"peak RSS growth {mem['wb']:.0f} MB at {n:,} items, {mem['wb2']:.0f} MB at {2 * n:,}; "
                   f"reference {mem['ref']:.0f} MB")


def _peak_rss_reset() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child_ranking_memory(rows: int, repeats: int, seed: int) -> None:
    run, _, _ = be.make_ranking_data(rows, seed)
    gc.collect()
    out = {"wb": [], "ref": [], "wb_peak": [], "ref_peak": []}
    means = {}
    for _ in range(repeats):
        for name, fn in (("wb", lambda: be.workbench_ranking(run, None)),
                         ("ref", lambda: be.pytrec_ranking(run, None)[0])):
            gc.collect()
            _peak_rss_reset()
            t = time.perf_counter()
            means[name] = fn()
            out[name].append(time.perf_counter() - t)
            out[name + "_peak"].append(_peak_rss_mb())
    out["diff"] = be.max_diff(means["wb"], means["ref"], be.pytrec_names(be.KS))[0]
    out["rows"] = len(run)
    print(json.dumps(out))


def row_ranking_memory(table: Table, rows: int, repeats: int, seed: int) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, __file__, "--child-ranking-memory", str(rows),
                           "--repeats", str(repeats), "--seed", str(seed)],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        print(proc.stderr)
        raise SystemExit("the ranking-memory child failed")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    wb_s, ref_s = statistics.median(out["wb"]), statistics.median(out["ref"])
    wb_peak, ref_peak = max(out["wb_peak"]), max(out["ref_peak"])
    check = f"equal (18 means, max diff {out['diff']:.1e})" if out["diff"] < 1e-9 else \
        f"DIFFERENT ({out['diff']:.2e})"
    table.add(f"ranking, {out['rows']:,} rows in memory", wb_s, "pytrec_eval", ref_s, check,
              note=f"peak {wb_peak / 1024:.2f} GB vs pytrec_eval's {ref_peak / 1024:.2f} GB")


# --------------------------------------------------------------------------- main

def repeats_frame(rows: int, seed: int, epochs: int = 5) -> pd.DataFrame:
    """rows / (2 * epochs) items, each tried ``epochs`` times by two systems (0/1 outcomes)."""
    rng = np.random.default_rng(seed)
    n = rows // (2 * epochs)
    p = rng.beta(0.7, 0.6, n)
    parts = []
    for name, shift in (("base", 0.0), ("cand", 0.03)):
        y = (rng.random((n, epochs)) < np.clip(p + shift, 0, 1)[:, None]).astype(int)
        parts.append(pd.DataFrame({"model": name, "item": np.repeat([f"q{i}" for i in range(n)], epochs),
                                   "epoch": np.tile(np.arange(1, epochs + 1), n), "correct": y.ravel()}))
    return pd.concat(parts, ignore_index=True)


def _wb_repeats(path: Path) -> dict:
    from workbench.analyses import repeats
    from workbench.io import load_table

    result = repeats.run(load_table(path), repeats.Options(item="item", outcome="correct", repeat="epoch",
                                                           system="model", baseline_system="base"))
    return {f"{m}:{s}": result.value(m, system=s) for m in ("var_data", "var_within") for s in ("base", "cand")}


def _eval_arena_repeats(path: Path) -> dict:
    """eval-arena's Unpaired.from_samples_unbiasedK: var_E = var(mean_i) - bias, E_var =
    mean(var_i) + bias, bias = mean(var_i) / (K - 1), on each system's items x epochs matrix."""
    frame = pd.read_csv(path, engine="c").sort_values(["model", "item", "epoch"], kind="stable")
    out = {}
    for name, part in frame.groupby("model", sort=False):
        a = part["correct"].to_numpy(float).reshape(-1, part["epoch"].nunique())
        bias = np.mean(np.var(a, axis=1)) / (a.shape[1] - 1)
        out[f"var_data:{name}"] = max(float(np.var(a.mean(axis=1)) - bias), 0.0)
        out[f"var_within:{name}"] = float(np.mean(np.var(a, axis=1)) + bias)
    return out


def row_repeats(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    path = tmp / "repeats.csv"
    frame = repeats_frame(rows, seed)
    frame.to_csv(path, index=False)
    res = median_interleaved({"wb": lambda: _wb_repeats(path), "ref": lambda: _eval_arena_repeats(path)}, repeats)
    diff = max(abs(res["wb"][2][k] - res["ref"][2][k]) for k in res["ref"][2])
    table.add(f"Repeats end to end from a {len(frame):,}-row CSV (items x epochs x 2 systems)", res["wb"][0],
              "pandas.read_csv + eval-arena unbiasedK (numpy)", res["ref"][0],
              f"equal (4 variance parts, max diff {diff:.1e})" if diff < 1e-12 else f"DIFFERENT (max diff {diff:.2e})")


RUBRIC_CRITERIA = [f"c{j}" for j in range(10)]


def rubric_frame(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rows // 2
    items = np.array([f"a{i}" for i in range(n)], dtype=object)
    parts = []
    for name, shift in (("base", 0.0), ("cand", 0.02)):
        cols = {}
        for j, c in enumerate(RUBRIC_CRITERIA):
            v = np.where(rng.random(n) < 0.4 + 0.04 * j + shift, "yes", "no").astype(object)
            v[rng.random(n) < 0.01] = ""
            cols[c] = v
        parts.append(pd.DataFrame({"system": name, "item": items, **cols}))
    return pd.concat(parts, ignore_index=True)


def _wb_rubric(path: Path) -> dict:
    from workbench.analyses import rubric
    from workbench.io import load_table

    result = rubric.run(load_table(path), rubric.Options(
        item="item", system="system", criteria=",".join(RUBRIC_CRITERIA), baseline_system="base",
        weights=",".join(str(j + 1) for j in range(len(RUBRIC_CRITERIA)))))
    out = {}
    for s in ("base", "cand"):
        out[f"score:{s}"] = result.value("rubric_score", system=s)
        for c in RUBRIC_CRITERIA:
            rec = result.find(f"criterion_rate:{c}", system=s)[0]
            out.update({f"{c}:{s}": rec["value"], f"{c}:{s}:lo": rec["ci_low"], f"{c}:{s}:hi": rec["ci_high"]})
    return out


def _ref_rubric(path: Path) -> dict:
    from statsmodels.stats.proportion import proportion_confint

    frame = pd.read_csv(path, engine="c", keep_default_na=False, dtype=str)
    w = np.arange(1, len(RUBRIC_CRITERIA) + 1, dtype=float)
    out = {}
    for s, part in frame.groupby("system", sort=False):
        v = np.column_stack([np.where(part[c] == "yes", 1.0, np.where(part[c] == "no", 0.0, np.nan))
                             for c in RUBRIC_CRITERIA])
        have = ~np.isnan(v)
        score = (np.where(have, v, 0) * w).sum(1) / (have * w).sum(1)
        out[f"score:{s}"] = float(np.nanmean(score))
        for j, c in enumerate(RUBRIC_CRITERIA):
            k, n = int(np.nansum(v[:, j])), int(have[:, j].sum())
            lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
            out.update({f"{c}:{s}": k / n, f"{c}:{s}:lo": float(lo), f"{c}:{s}:hi": float(hi)})
    return out


def row_rubric(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    path = tmp / "rubric.csv"
    frame = rubric_frame(rows, seed)
    frame.to_csv(path, index=False)
    res = median_interleaved({"wb": lambda: _wb_rubric(path), "ref": lambda: _ref_rubric(path)}, repeats)
    diff = max(abs(res["wb"][2][k] - res["ref"][2][k]) for k in res["ref"][2])
    table.add(f"Rubric end to end from a {len(frame):,}-row CSV (10 criteria x 2 systems, paired)", res["wb"][0],
              "pandas.read_csv + numpy scores + statsmodels Wilson", res["ref"][0],
              f"equal ({len(res['ref'][2])} values, max diff {diff:.1e})" if diff < 1e-12
              else f"DIFFERENT (max diff {diff:.2e})")


def judge_frame(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, rows)

    def rater(noise: float) -> np.ndarray:
        off = rng.random(rows) < noise
        return np.where(off, np.clip(truth + rng.choice([-1, 1], rows), 1, 5), truth)

    second = rater(0.3).astype(object)
    second[rng.random(rows) < 0.1] = ""
    return pd.DataFrame({"item": [f"j{i}" for i in range(rows)], "judge": rater(0.25), "human": rater(0.2),
                         "human2": second})


def _wb_judge(path: Path) -> dict:
    from workbench.analyses import judge
    from workbench.io import load_table

    result = judge.run(load_table(path), judge.Options(item="item", judge="judge", human=("human", "human2"),
                                                       level="ordinal"))
    return {"kappa": result.value("kappa"), "kappa_se": result.value("kappa_se"),
            "alpha": result.value("alpha", group="judge and people")}


def _ref_judge(path: Path) -> dict:
    import krippendorff
    from statsmodels.stats.inter_rater import cohens_kappa

    frame = pd.read_csv(path, engine="c")
    labels = np.arange(1, 6)
    tab = pd.crosstab(frame["judge"], frame["human"]).reindex(index=labels, columns=labels, fill_value=0)
    k = cohens_kappa(tab.to_numpy())
    data = np.vstack([frame["judge"].to_numpy(float), frame["human"].to_numpy(float),
                      frame["human2"].to_numpy(float)])
    alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    return {"kappa": float(k.kappa), "kappa_se": float(k.std_kappa), "alpha": float(alpha)}


def row_judge(table: Table, rows: int, repeats: int, tmp: Path, seed: int) -> None:
    path = tmp / "judge.csv"
    frame = judge_frame(rows, seed)
    frame.to_csv(path, index=False)
    res = median_interleaved({"wb": lambda: _wb_judge(path), "ref": lambda: _ref_judge(path)}, repeats)
    keys = [k for k in res["ref"][2] if k in res["wb"][2]]
    diff = max(abs(res["wb"][2][k] - res["ref"][2][k]) for k in keys)
    table.add(f"Judge end to end from a {len(frame):,}-row CSV (judge + 2 people, labels 1-5)", res["wb"][0],
              "pandas.read_csv + statsmodels cohens_kappa + krippendorff", res["ref"][0],
              f"equal ({', '.join(keys)}; max diff {diff:.1e})" if diff < 1e-9 else f"DIFFERENT (max diff {diff:.2e})")


#: inspect_ai's own reader, run by INSPECT_PYTHON: each log read with ``read_eval_log`` (timed), then
#: the samples, tool calls and assistant messages counted from its objects (not timed)
INSPECT_READ = r"""
import glob, json, os, sys, time
from inspect_ai.log import read_eval_log
paths = sorted(glob.glob(os.path.join(sys.argv[1], "*.eval")))
t = time.perf_counter()
logs = [read_eval_log(p) for p in paths]
seconds = time.perf_counter() - t
samples = [s for log in logs for s in log.samples]
assistant = [m for s in samples for m in s.messages if m.role == "assistant"]
print(json.dumps({"seconds": seconds, "logs": len(logs), "samples": len(samples), "steps": len(assistant),
                  "tool_calls": sum(len(m.tool_calls or []) for m in assistant)}))
"""


def inspect_python() -> str | None:
    """INSPECT_PYTHON (default /tmp/iv/bin/python) when it exists and imports inspect_ai, else None."""
    exe = os.environ.get("INSPECT_PYTHON", "/tmp/iv/bin/python")
    if not exe or not os.access(exe, os.X_OK):
        return None
    probe = subprocess.run([exe, "-c", "import inspect_ai"], capture_output=True, check=False)
    return exe if probe.returncode == 0 else None


def _wb_inspect(folder: Path) -> dict:
    from workbench.analyses import cost, repeats
    from workbench.io import load_table
    from workbench.io.formats import with_roles

    table = load_table(folder)
    options, _ = with_roles(cost.Options(), table)  # the roles the reader suggests, as the CLI
    spend = cost.run(table, options)
    tries = repeats.run(table, repeats.Options(item="sample_id", outcome="match", repeat="epoch", system="model"))
    frame = table.frame
    return {"samples": len(frame), "steps": int(frame["steps"].sum()), "tool_calls": int(frame["tool_calls"].sum()),
            "records": len(spend.records) + len(tries.records)}


def _ref_inspect(exe: str, folder: Path, seconds: list[float]) -> dict:
    proc = subprocess.run([exe, "-c", INSPECT_READ, str(folder)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(proc.stderr[-3000:])
        raise SystemExit("inspect_ai's read_eval_log failed")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    seconds.append(out["seconds"])
    return out


def row_inspect(table: Table, samples: int, repeats: int, tmp: Path) -> None:
    exe, maker = inspect_python(), HERE / "make_inspect_bench_log.py"
    if exe is None or not maker.exists():
        print("Skipped: no Python with inspect_ai (set INSPECT_PYTHON; default /tmp/iv/bin/python) or no "
              f"{maker.name}; the inspect-log row needs both.")
        return
    folder = tmp / "inspect_logs"
    made = subprocess.run([exe, str(maker), str(folder), "--samples", str(samples)], capture_output=True,
                          text=True, check=False)
    if made.returncode != 0:
        print(made.stderr[-3000:])
        raise SystemExit("make_inspect_bench_log.py failed")
    gen = json.loads(made.stdout.strip().splitlines()[-1])
    print(f"  inspect_ai wrote the log ({gen['samples']:,} samples x {gen['epochs']} epochs, "
          f"{gen['models']} model) in {gen['seconds']:.0f} s (not timed)", flush=True)
    ref_s: list[float] = []
    res = median_interleaved({"wb": lambda: _wb_inspect(folder), "ref": lambda: _ref_inspect(exe, folder, ref_s)},
                             repeats)
    wb, ref = res["wb"][2], res["ref"][2]
    keys = ("samples", "tool_calls", "steps")
    same = all(wb[k] == ref[k] for k in keys)
    table.add(f"Inspect .eval log, {gen['samples']:,} samples x {gen['epochs']} epochs with tool calls: read + "
              "Cost + Repeats", res["wb"][0], "inspect_ai read_eval_log (read only)", statistics.median(ref_s),
              ("equal (" if same else "DIFFERENT (") + ", ".join(f"{k} {wb[k]:,} vs {ref[k]:,}" for k in keys) + ")")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--repeats", type=int, default=3, help="median of N interleaved runs (default 3)")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--only", choices=ROWS, action="append", help="only these rows (repeatable)")
    parser.add_argument("--inspect-samples", type=int,
                        help="samples of the inspect-log row's log (default 2,000; --quick 50)")
    parser.add_argument("--markdown", help="also write the table as Markdown to this file")
    parser.add_argument("--child-ranking-memory", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-report-memory", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    # the generated predictions end in " ." on purpose; sacrebleu's advice about it is noise here
    import logging

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    if args.child_ranking_memory:
        child_ranking_memory(args.child_ranking_memory, args.repeats, args.seed)
        return 0
    if args.child_report_memory:
        child_report_memory(*args.child_report_memory)
        return 0
    sizes = QUICK if args.quick else FULL
    rows = args.only or list(ROWS)
    t0 = time.perf_counter()
    be.section("Machine")
    be.machine_info()
    table = Table()
    text_result = None
    with tempfile.TemporaryDirectory(prefix="wb-bench-") as tmp_name:
        tmp = Path(tmp_name)
        for row in rows:
            be.section(f"{row} (load average {load()})")
            if row == "csv":
                row_csv(table, sizes["csv"], args.repeats, tmp, args.seed)
            elif row == "csv-messy":
                row_csv_messy(table, sizes["csv"], args.repeats, tmp, args.seed)
            elif row == "csv-export":
                row_csv_export(table, sizes["csv"] * 3 // 10, args.repeats, tmp, args.seed)
            elif row == "xlsx":
                row_xlsx(table, sizes["xlsx"], args.repeats, tmp, args.seed)
            elif row == "parquet":
                row_parquet(table, sizes["parquet"], args.repeats, tmp, args.seed)
            elif row == "ranking-csv":
                row_ranking_csv(table, sizes["ranking_csv"], args.repeats, tmp, args.seed)
            elif row == "text":
                text_result = row_text(table, sizes["text"], args.repeats, tmp, args.seed)
            elif row == "report":
                if text_result is None:
                    text_result = workbench_text(text_pairs(sizes["text"], args.seed))
                row_report(table, text_result, args.repeats, tmp)
            elif row == "repeats":
                row_repeats(table, sizes["repeats"], args.repeats, tmp, args.seed)
            elif row == "rubric":
                row_rubric(table, sizes["rubric"], args.repeats, tmp, args.seed)
            elif row == "judge":
                row_judge(table, sizes["judge"], args.repeats, tmp, args.seed)
            elif row == "inspect-log":
                row_inspect(table, args.inspect_samples or sizes["inspect"], args.repeats, tmp)
            elif row == "ranking-memory":
                row_ranking_memory(table, sizes["ranking_memory"], args.repeats, args.seed)
    be.section(f"Issue 13's table (medians of {args.repeats}; ratio = reference / workbench; "
               f"load average now {load()})")
    md = table.markdown()
    print(md)
    if args.markdown:
        Path(args.markdown).write_text(md + "\n")
    bad = [r["work"] for r in table.rows if not str(r["check"]).startswith("equal")
           and "equal" not in str(r["check"])]
    print(f"\nvalue checks: {len(table.rows) - len(bad)} of {len(table.rows)} equal"
          + (f"; DIFFERENT: {'; '.join(bad)}" if bad else ""))
    print(f"total wall time {time.perf_counter() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
