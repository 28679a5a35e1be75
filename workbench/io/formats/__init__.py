"""Evaluation results where they live: TREC runs and qrels, JSON and JSON Lines (HumanEval /
EvalPlus samples), Inspect AI logs, lm-evaluation-harness outputs and promptfoo results.

``load_table`` calls :func:`detect_and_load` on every file's bytes: it returns a
:class:`~workbench.io.loader.LoadedTable` (with a note saying what was recognised, the column
roles and the panel that fit) or None for files that are none of these formats.  A file that is
almost one of them gets a sentence naming the line and what was expected.  Ids stay the exact
text of the file.  :func:`load_many` stacks several files (several runs or models) into one
table, each with its system.
"""

from workbench.io.formats.combine import combine, load_folder, with_roles
from workbench.io.formats.detect import declare_plain, detect_and_load, is_session_file, may_claim

#: What the open dialog offers (Qt's filter syntax), the results files first.
FILE_FILTER = (
    "Results files (*.csv *.tsv *.txt *.xlsx *.xlsm *.parquet *.pq *.json *.jsonl *.ndjson *.eval "
    "*.run *.trec *.res *.qrels *.gz *.bz2 *.xz);;"
    "Tables (*.csv *.tsv *.txt *.xlsx *.xlsm *.parquet *.pq);;"
    "JSON and JSON Lines (*.json *.jsonl *.ndjson);;"
    "Inspect AI logs (*.eval *.json);;"
    "TREC runs and qrels (*.run *.trec *.res *.qrels *.txt *.gz);;"
    "Compressed (*.gz *.bz2 *.xz);;"
    "All files (*)"
)

__all__ = ["FILE_FILTER", "combine", "declare_plain", "detect_and_load", "is_session_file", "may_claim", "load_folder", "with_roles"]
