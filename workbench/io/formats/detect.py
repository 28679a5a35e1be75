"""Recognise a file by its content (and its name) and read it with the fitting reader.

:func:`detect_and_load` returns None for files that are none of these formats (CSV, TSV,
workbooks, Parquet), so that ``load_table`` reads them as before.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from workbench.core.errors import DataError
from workbench.io.formats import (
    deepeval,
    evalplus,
    helm,
    inspect_log,
    items_layout,
    jsonl,
    labelstudio,
    lmeval,
    msmarco,
    mteb,
    phoenix,
    promptfoo,
    promptfoo_csv,
    ragas,
    swebench,
    trec,
    zipread,
)
from workbench.io.formats._common import almost, decode, short

#: Extensions that announce JSON (a mismatch is an error, not a fallback to CSV).
JSON_EXTENSIONS = (".json", ".jsonl", ".ndjson", ".jsonlines")
_OTHER_READERS = (".xlsx", ".xlsm", ".parquet", ".pq")


def detect_and_load(data: bytes, path: str, shown: str):
    """A :class:`~workbench.io.loader.LoadedTable` if ``data`` is one of the formats, else None."""
    extension = os.path.splitext(path)[1].lower()
    if extension in _OTHER_READERS:
        return None
    if data.startswith(b"PK\x03\x04"):
        if extension == ".eval":
            return inspect_log.load_eval(data, path, shown)
        try:
            archive = zipread.open_zip(data, shown)
        except DataError:
            return None  # not ours: the delimited reader names what it is
        return inspect_log.load_eval(data, path, shown) if inspect_log.is_eval_archive(archive) \
            else None
    if extension == ".eval":
        raise almost(shown, None, "is not a ZIP archive",
                     "an Inspect .eval log (a ZIP archive of JSON files)")
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] in (b"{", b"["):
        return _load_json(decode(data, shown), path, shown, extension)
    if extension in JSON_EXTENSIONS:
        first = decode(data[:200], shown).strip().split("\n")[0] if data.strip() else ""
        raise almost(shown, 1, f"starts with {short(first)}" if first else "is empty",
                     "JSON (an object or array) or JSON Lines (one object per line)")
    prefix = data[:200_000].decode("utf-8", "ignore") if _maybe_text(data) else ""  # for sniffing
    header = _promptfoo_csv_header(prefix)
    if header is not None:
        return promptfoo_csv.load_csv(data, path, shown, promptfoo_csv.csv_names(header), header)
    if _ragas_with_index(prefix):  # pandas' index column has no name: the delimited reader's, named
        from workbench.io.textfile import _load_text, _Steps

        return _load_text(ragas.with_index_name(data), path, shown, _Steps(None, ""))
    if _labelstudio_header(prefix):
        from workbench.io.textfile import _load_text, _Steps

        return labelstudio.from_delimited(_load_text(data, path, shown, _Steps(None, "")), path)
    kind = trec.sniff(prefix, path)
    if kind is not None:
        return trec.load(decode(data, shown), path, shown, kind, data)
    if msmarco.sniff(prefix) is not None:
        return msmarco.load(decode(data, shown), path, shown)
    announced = trec.announced(path) or trec.headed(prefix)
    if announced is not None and prefix.strip():
        raise trec.explain(prefix, shown, announced)
    return None


def may_claim(head: bytes, path: str) -> bool:
    """Whether a file that starts with ``head`` may be read (or refused) by
    :func:`detect_and_load`; ``False`` only when that function, given the whole file, returns
    None after looking at no byte beyond ``head`` (its first 200,000 bytes or more): the
    loader may then read the file as delimited text without holding all of it."""
    extension = os.path.splitext(path)[1].lower()
    if extension in _OTHER_READERS:
        return False
    if head.startswith(b"PK\x03\x04") or extension == ".eval" or extension in JSON_EXTENSIONS:
        return True
    if head[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return True
    prefix = head[:200_000].decode("utf-8", "ignore") if _maybe_text(head) else ""
    return (_promptfoo_csv_header(prefix) is not None or _ragas_with_index(prefix)
            or _labelstudio_header(prefix)
            or trec.sniff(prefix, path) is not None or trec.announced(path) is not None
            or trec.headed(prefix) is not None or msmarco.sniff(prefix) is not None)


def _promptfoo_csv_header(prefix: str) -> list[str] | None:
    """The header fields of promptfoo's CSV export (repeated Status, Score... per provider)."""
    import csv

    first = prefix.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if "," not in first or "Status" not in first or "[" not in first:
        return None
    try:
        header = next(csv.reader([first]))
    except (csv.Error, StopIteration):
        return None
    return header if promptfoo_csv.csv_names(header) is not None else None


def _ragas_with_index(prefix: str) -> bool:
    """The CSV of ragas' ``to_pandas().to_csv()``: its first header field (the index) is empty."""
    import csv

    first = prefix.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if not first.startswith(",") or ("user_input" not in first and "question" not in first):
        return False
    try:
        return ragas.header_fits(next(csv.reader([first])))
    except (csv.Error, StopIteration):
        return False


def declare_plain(table):
    """A table read by the delimited, workbook or Parquet reader whose columns are a tool's
    known layout (ragas' to_pandas()), with what it holds declared; else the table as it is."""
    columns = [str(c) for c in table.frame.columns]
    if items_layout.layout_of(columns) is not None:  # the workbench's own export: the source rebuilt
        return items_layout.declare(table)
    if phoenix.csv_fits(columns):
        return phoenix.declare_csv(table)
    if ragas.fits(table):
        return ragas.declare(table)
    return table


def _labelstudio_header(prefix: str) -> bool:
    """Label Studio's CSV or TSV export: its header names annotation_id and annotator."""
    import csv

    first = prefix.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if "annotation_id" not in first or "annotator" not in first:
        return False
    try:
        header = next(csv.reader([first], delimiter="\t" if "\t" in first else ","))
    except (csv.Error, StopIteration):
        return False
    return labelstudio.is_csv_header(header)


def _maybe_text(data: bytes) -> bool:
    return b"\x00" not in data[:4096]


def _load_json(text: str, path: str, shown: str, extension: str):
    folder = os.path.dirname(path)
    if os.path.basename(path) in helm.SIDE_FILES and helm.is_run_folder(folder) \
            and os.path.isfile(os.path.join(folder, helm.STATS)):
        # one file of a HELM run folder (its spec, scenario, states or aggregates): the run
        loaded = helm.load_run(folder, f"'{folder}'", path=path)
        note = (f"File {shown} is one file of HELM run folder '{folder}': the run is read from its "
                f"{helm.STATS}, with the folder's other files for what they add.")
        return dataclasses.replace(loaded, notes=(note,) + tuple(loaded.notes))
    if os.path.basename(path) in mteb.SIDE_FILES:
        results = mteb.result_files(folder)
        if results:  # MTEB's model card or run settings beside its task results: not results
            names = ", ".join(os.path.basename(r) for r in results[:3]) + (" ..." if len(results) > 3 else "")
            raise DataError(f"File {shown} is MTEB's {mteb.SIDE_FILES[os.path.basename(path)]}, written beside "
                            f"{len(results)} task result{'s' * (len(results) != 1)} ({names}); expected a task's "
                            f"result file: open one of those, or the folder '{folder}' for all of them.")
    if extension in (".jsonl", ".ndjson", ".jsonlines"):
        return _lines(text, path, shown)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        if err.msg == "Extra data":  # several values: JSON Lines
            return _lines(text, path, shown)
        if extension not in JSON_EXTENSIONS and not _first_line_is_object(text):
            return None  # a CSV whose first cell starts with { or [: the delimited reader's
        if _cut_short(text, err):
            raise DataError(f"File {shown} ends before its JSON is complete ({err.msg.removesuffix(' at')} "
                            f"at line {err.lineno}, character {err.colno}, of {len(text):,} characters): "
                            "it looks cut short (an interrupted write or copy); expected a complete "
                            "JSON document: save or copy it again.") from None
        raise almost(shown, err.lineno, f"is not valid JSON ({err.msg} at character {err.colno})",
                     "a JSON object or array, or JSON Lines") from None
    except RecursionError:
        raise DataError(f"File {shown} is nested too deeply to be read as JSON.") from None
    if isinstance(value, list) and lmeval.is_write_out(value):  # lm-eval 0.3 --write_out
        return lmeval.load_write_out(value, path, shown)
    if phoenix.is_export(value):
        return phoenix.load_json(value, path, shown)
    if helm.is_per_instance_stats(value):  # a HELM run folder's per_instance_stats.json: the run
        folder = os.path.dirname(path)
        return helm.load_run(folder, f"'{folder}'", path=path)
    if labelstudio.is_tasks(value):
        return labelstudio.load_tasks(value, path, shown)
    if labelstudio.is_min_records(value):
        return labelstudio.load_min(value, path, shown)
    if isinstance(value, list):
        return jsonl.records_table(value, path, shown, fmt=jsonl.JSON, what="a JSON array of records",
                                   lines=None, word="record")
    if not isinstance(value, dict):
        raise almost(shown, 1, f"holds a single JSON {type(value).__name__}",
                     "a JSON array of records or JSON Lines")
    return _load_object(value, path, shown)


def _cut_short(text: str, err: json.JSONDecodeError) -> bool:
    """A JSON document that stops in the middle: a string never closed, or the parser wanting
    more (a value, a comma, a bracket) where the text ends."""
    return err.msg.startswith("Unterminated string") or err.pos >= len(text.rstrip())


def _first_line_is_object(text: str) -> bool:
    line = next((line for line in text[:1_000_000].split("\n") if line.strip()), "")
    try:
        return isinstance(json.loads(line), (dict, list))
    except json.JSONDecodeError:
        return False


def _lines(text: str, path: str, shown: str):
    records, lines = jsonl.parse_lines(text, shown)
    if records and isinstance(records[0], dict) and lmeval.is_samples_record(records[0]):
        return lmeval.load_samples(records, lines, path, shown)
    if records and all(isinstance(r, dict) for r in records) \
            and promptfoo.is_results({"results": records}):  # promptfoo eval -o results.jsonl
        return promptfoo.load({"results": records}, path, shown)
    return jsonl.records_table(records, path, shown, fmt=jsonl.JSONL, what="JSON Lines",
                               lines=lines, word="line")


def _load_object(value: dict[str, Any], path: str, shown: str):
    if inspect_log.is_log_object(value):
        return inspect_log.load_json_log(value, path, shown)
    if promptfoo.is_results(value):
        return promptfoo.load(value, path, shown)
    if lmeval.is_results(value):
        return lmeval.load_results(value, path, shown)
    if evalplus.is_results(value):
        return evalplus.load(value, path, shown)
    if deepeval.looks_like(value):
        return deepeval.load(value, path, shown)
    if mteb.is_result(value):
        return mteb.load(value, path, shown)
    if swebench.is_summary(value):
        return swebench.load_summary(value, path, shown)
    if swebench.is_report(value):
        return swebench.load_report(value, path, shown)
    if _is_session(value):
        raise DataError(f"File {shown} is a workbench session, not a results file; open it with "
                        "File > Open session (or 'workbench report SESSION').")
    lists = [key for key, item in value.items()
             if isinstance(item, list) and item and all(isinstance(r, dict) for r in item)]
    if len(lists) == 1:
        key = lists[0]
        return jsonl.records_table(value[key], path, shown, fmt=jsonl.JSON,
                                   what=f"the JSON records under key '{key}'", lines=None,
                                   word="record")
    found = (f"is one JSON object with several lists of records ({', '.join(lists[:5])})" if lists
             else "is one JSON object without a list of records")
    raise almost(shown, None, found, "a JSON array of records, JSON Lines, an Inspect log, "
                 "lm-evaluation-harness results or promptfoo results")


def _is_session(value: dict[str, Any]) -> bool:
    return "schema" in value and "input_path" in value and "panels" in value


def is_session_file(path: str) -> bool:
    """True when ``path`` is a workbench session (``*.wbsession.json``, or JSON that holds one)."""
    if path.lower().endswith(".wbsession.json"):
        return True
    if not path.lower().endswith(".json"):
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(65536)
    except OSError:
        return True  # let the session reader say what is wrong
    text = head.decode("utf-8", "replace")
    return '"input_path"' in text and '"schema"' in text and '"panels"' in text
