"""Shared pieces of the format readers: typing JSON values into columns, ids as raw text,
the table a reader returns, and the "almost the format" sentence."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.cells import text_array
from workbench.io import delimited
from workbench.io.table import LoadedTable

_NOISE = re.compile(r"[\s_\-.]+")

#: Header names (compared without case, spaces, underscores, hyphens, dots) whose values are
#: identifiers or labels: kept as the exact text of the file, never as numbers.
ID_NAMES = frozenset(_NOISE.sub("", n) for n in (
    "id", "item", "item_id", "uid", "example_id", "sample_id", "task", "task_id", "problem_id",
    "instance_id", "doc_id", "docid", "docno", "doc", "document_id", "passage_id", "pid",
    "query", "query_id", "qid", "topic", "question_id", "system", "model", "run", "run_id",
    "tag", "provider", "group", "segment", "category", "subset", "split", "conversation_id",
    "user_id", "session", "cluster", "version",
))


def is_id_name(name: str) -> bool:
    """True for column names that hold identifiers (``task_id``, ``doc_id``, ``qid``, ``taskId``...)."""
    text = str(name)
    norm = _NOISE.sub("", text.lower())
    last = text.rsplit(".", 1)[-1]
    return (norm in ID_NAMES or _NOISE.sub("", last.lower()) in ID_NAMES
            or last.lower().endswith("_id") or last.endswith("Id"))


def render_json_value(value: Any) -> str:
    """One JSON value as the text a person reads in the file: strings as they are, numbers as
    written (``1`` and ``1.0`` differ), ``true``/``false``, null as empty, lists and objects
    as compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else json.dumps(value)
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def text_column(values: Sequence[Any]) -> Any:
    """A text column (pandas ``str``) holding each value's :func:`render_json_value`."""
    kinds = set(map(type, values))
    if kinds <= {str}:
        return text_array(values)
    return text_array([render_json_value(v) for v in values])


def typed_column(values: Sequence[Any], *, as_text: bool = False) -> tuple[Any, str]:
    """Type the JSON values of one column.

    Returns the column and its kind: ``"bool"`` (true/false read as int 1/0; float with NaN
    where missing), ``"int"``, ``"float"`` (missing as NaN), ``"text"`` (also for columns
    mixing kinds, and for lists and objects, kept as JSON text) or ``"empty"``.
    """
    kinds = set(map(type, values))
    kinds.discard(type(None))
    has_none = len(kinds) < len(set(map(type, values)))
    if as_text or not kinds:
        return text_column(values), ("empty" if not kinds else "text")
    if kinds == {bool}:
        if has_none:
            return np.array([np.nan if v is None else float(v) for v in values]), "bool"
        return np.fromiter(values, dtype=np.int64, count=len(values)), "bool"
    if kinds <= {int, float}:
        if kinds == {int} and not has_none:
            try:
                return np.array(values, dtype=np.int64), "int"
            except OverflowError:
                return text_column(values), "text"
        array = np.array([np.nan if v is None else v for v in values] if has_none else values,
                         dtype=np.float64)
        return array, "float"
    return text_column(values), "text"


def almost(shown: str, line: int | None, found: str, expected: str, word: str = "line") -> DataError:
    """The sentence for a file that is almost, but not quite, a known format."""
    where = f" {word} {line}" if line is not None else ""
    return DataError(f"File {shown}{where} {found}; expected {expected}.")


def short(text: str, limit: int = 60) -> str:
    """A piece of the file quoted in a message (one line, at most ``limit`` characters)."""
    text = text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return "'" + (text if len(text) <= limit else text[:limit - 3] + "...") + "'"


def table(frame: pd.DataFrame, path: str, *, fmt: str, notes: Sequence[str] = (),
          row_lines: np.ndarray | None = None, roles: Mapping[str, str] | None = None,
          panel: str | None = None, row_word: str | None = None,
          encoding: str | None = "utf-8", row_names: Sequence[str] | None = None,
          evaluation: Any = None) -> LoadedTable:
    """The :class:`LoadedTable` a reader returns (SHA-256 and size are added by ``load_table``),
    with the reader's declaration of what the file holds (:mod:`workbench.io.evaluation`)."""
    if len(frame) == 0:
        raise DataError(f"File '{path}' has no data rows; expected at least one.")
    roles = {c: r for c, r in (roles or {}).items() if c in frame.columns}
    return LoadedTable(frame=frame, path=path, encoding=encoding, notes=tuple(notes), format=fmt,
                       row_lines=row_lines, roles=roles, panel=panel, row_word=row_word,
                       row_names=None if row_names is None else list(row_names),
                       evaluation=evaluation)


def decode(data: bytes, shown: str) -> str:
    """UTF-8 text (a BOM is dropped); other encodings through the delimited reader's rules."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:

        return delimited.decode(data, shown).text
