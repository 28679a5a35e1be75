"""Any evaluation written out as one flat table, the workbench items layout
(:mod:`workbench.io.formats.items_layout`): one row per record and scorer (long) or one row per
record with a column per scorer (wide), every record's status and usage beside it, ids as exact
text.  ``workbench items FILE... -o OUT`` and File > Export items write it; opening the file
again gives the same table, roles and evaluation, so every analysis gives the same records.

The file is written atomically: to a temporary file beside the target, renamed over it once it
is whole; a failed write leaves no file (and an earlier file at the target unchanged).
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import tempfile
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError, WorkbenchError
from ..core.numbers import plural
from ..io import LoadedTable, to_text
from ..io.evaluation import LABELS
from ..io.formats import items_layout as lay
from .reading import evaluation_of

#: Output formats by extension.
FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx"}
#: Excel's limit on the characters of one cell.
XLSX_CELL = 32767


@dataclass(frozen=True)
class Written:
    """What an export wrote."""

    path: str
    rows: int
    records: int
    scorers: int
    layout: str

    def sentence(self) -> str:
        return (f"Wrote {plural(self.rows, 'row')} ({plural(self.records, 'record')} x "
                f"{plural(self.scorers, 'scorer')}, {self.layout}) to {self.path}.")


def _kind(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series):
        return "bool"
    if pd.api.types.is_integer_dtype(series):
        return "int"
    if pd.api.types.is_float_dtype(series):
        return "float"
    return "text"


def items_frame(table: LoadedTable, *, wide: bool = False) -> tuple[pd.DataFrame, dict[str, str]]:
    """The export's table (headers with their tags) and each header's cell kind (text or
    number)."""
    if getattr(table, "large", None) is not None:
        raise DataError(f"File '{table.name}' is read page by page (too large to hold); exporting its "
                        "items needs the whole table: filter it first, or export it with a tool that streams.")
    ev = evaluation_of(table)
    frame = table.frame
    n = len(frame)
    scorers = [s for s in ev.scorers if s.column in frame.columns]
    owned = {c for s in scorers for c in (s.column, s.labels, s.error) if c}
    if table.roles:
        roles = dict(table.roles)
    else:  # a plain table: the roles every analysis guesses from its header, written down
        from ..io.roles import guess_roles

        roles = dict(guess_roles(table))
    declares = {ev.item: "item", ev.repeat: "repeat", ev.system: "system", ev.error: "error",
                ev.limit: "limit", getattr(ev, "status", None): "status", ev.annotator: "annotator"}
    usage = {c: k for k, c in ev.usage.items()}
    record_cols = [c for c in frame.columns if c not in owned]
    out: dict[str, np.ndarray] = {}
    kinds: dict[str, str] = {}
    top = {"tool": ev.tool, "version": ev.tool_version, "format": table.format, "panel": table.panel,
           "reduction": ev.reduction, "repeat_source": ev.repeat_source or None, "row_word": table.row_word,
           "metadata": json.dumps(list(ev.metadata), ensure_ascii=False) if ev.metadata else None,
           "usage": json.dumps(dict(ev.usage), ensure_ascii=False) if ev.usage else None,
           "columns": json.dumps([str(c) for c in frame.columns], ensure_ascii=False)}
    header = lay.RECORD + lay.tag_text(top)
    out[header] = np.arange(1, n + 1, dtype=np.int64)
    kinds[header] = "int"
    fixed = set(lay.LONG) | {lay.RECORD, lay.RUN_CONFIG}
    for c in record_cols:
        kind = _kind(frame[c])
        tags = {"type": kind, "na": kind == "text" and bool(frame[c].isna().any()) or None,
                "role": roles.get(c), declares.get(c): True if declares.get(c) else None,
                "usage": usage.get(c), "metadata": c in ev.metadata or None,
                "name": c if (c in fixed or c.startswith(("score:", "label:", "status:", "error:"))) else None}
        name = f"{c} (record)" if tags["name"] else c
        head = name + lay.tag_text({k: v for k, v in tags.items() if k})
        out[head] = _cells(table, c, kind)
        kinds[head] = "text" if kind == "text" else "number"
    configs = {r.name: json.dumps(dict(r.config), ensure_ascii=False, sort_keys=True) for r in ev.runs}
    if configs:
        head = lay.RUN_CONFIG + lay.tag_text({"type": "text"})
        if ev.system in frame.columns:
            names = to_text(table, ev.system)
            out[head] = np.array([configs.get(str(s), "") for s in names], dtype=object)
        else:
            out[head] = np.full(n, next(iter(configs.values())), dtype=object)
        kinds[head] = "text"
    per = [_scorer_cells(table, ev, s, roles) for s in scorers]
    if wide:
        for s, (values, labels, status, errors, decl) in zip(scorers, per):
            out[f"score:{s.name}" + lay.tag_text(decl)] = values
            kinds[f"score:{s.name}" + lay.tag_text(decl)] = "number"
            if s.labels or s.scale == LABELS:
                out[f"label:{s.name}"], kinds[f"label:{s.name}"] = labels, "text"
            out[f"status:{s.name}"], kinds[f"status:{s.name}"] = status, "text"
            if s.error:
                out[f"error:{s.name}"], kinds[f"error:{s.name}"] = errors, "text"
        return pd.DataFrame(out), kinds
    k = len(scorers)
    if k == 0:  # no scorer (counts per task, a ranking): one row per record, its scorer cells blank
        per = [(np.full(n, np.nan), np.full(n, "", dtype=object), np.full(n, "", dtype=object),
                np.full(n, "", dtype=object), {})]
        scorers_named = np.full(n, "", dtype=object)
        k = 1
    else:
        scorers_named = np.tile(np.array([s.name for s in scorers], dtype=object), n)
    long: dict[str, np.ndarray] = {h: np.repeat(v, k) for h, v in out.items()}
    first = [h for h in out if lay.parse_header(h)[1].get("item") or lay.parse_header(h)[1].get("repeat")
             or lay.parse_header(h)[1].get("system")]
    long["scorer"] = scorers_named
    for i, name in enumerate(("value", "label", "status", "scorer_error")):
        long[name] = np.stack([p[i] for p in per], axis=1).reshape(-1) if n else np.array([], dtype=object)
    long["scorer_declaration"] = np.tile(np.array([lay.tag_text(p[4])[2:-1] if p[4] else "" for p in per],
                                                  dtype=object), n)
    kinds.update({"scorer": "text", "value": "number", "label": "text", "status": "text",
                  "scorer_error": "text", "scorer_declaration": "text"})
    order = [next(iter(out))] + first + list(lay.LONG[:5]) + [h for h in out if h not in first and h != next(iter(out))] \
        + ["scorer_declaration"]
    return pd.DataFrame({h: long[h] for h in order}), kinds


def _cells(table: LoadedTable, column: str, kind: str) -> np.ndarray:
    if kind == "text":
        return np.asarray(table.cell_text(column), dtype=object)
    values = table.frame[column]
    if kind in ("int", "bool"):
        return values.to_numpy(dtype=np.int64)
    return values.to_numpy(dtype=float)


def _scorer_cells(table: LoadedTable, ev, s, roles: dict) -> tuple:
    """(values, labels, statuses, errors, declaration tags) of one scorer over the records."""
    frame = table.frame
    n = len(frame)
    series = frame[s.column]
    text_scorer = not pd.api.types.is_numeric_dtype(series)
    values = np.full(n, np.nan) if text_scorer else pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
    labels_col = s.labels if s.labels in frame.columns else (s.column if text_scorer else None)
    labels = (np.asarray(table.cell_text(labels_col), dtype=object) if labels_col
              else np.full(n, "", dtype=object))
    errors = (np.asarray(table.cell_text(s.error), dtype=object) if s.error in frame.columns
              else np.full(n, "", dtype=object))
    record_error = (np.asarray(to_text(table, ev.error), dtype=object) if ev.error in frame.columns
                    else np.full(n, "", dtype=object))
    bad = np.array([str(a).strip() not in ("", "0", "false", "False") or str(b).strip() != ""
                    for a, b in zip(record_error, errors)], dtype=bool) if n else np.zeros(0, dtype=bool)
    blank = np.array([str(x).strip() == "" for x in labels], dtype=bool) if text_scorer else np.isnan(values)
    status = np.where(bad, lay.ERROR, np.where(blank, lay.UNSCORED, lay.SCORED)).astype(object)
    primary = ev.primary or (ev.scorers[0].name if ev.scorers else None)
    decl = {"column": s.column, "type": "text" if text_scorer else _kind(series),
            "na": text_scorer and bool(series.isna().any()) or None, "kind": s.kind,
            "scale": s.scale, "role": roles.get(s.column), "labels": s.labels,
            "labels_role": roles.get(s.labels) if s.labels else None, "error": s.error,
            "weight": s.weight, "threshold": s.threshold, "lower_is_better": not s.higher_is_better,
            "passed": s.passed, "group": s.group, "models": "|".join(s.models) or None,
            "metric": s.metric, "detail": s.detail or None,
            "reported": repr(float(s.reported)) if getattr(s, "reported", None) is not None else None,
            "reported_n": getattr(s, "reported_n", None), "primary": s.name == primary}
    if text_scorer and not s.labels:  # labels only (a judge's words): kept as the scorer's own column
        decl["labels"] = s.column
    return values, labels, status, errors, decl


# --- writing ------------------------------------------------------------------------------------

def write_items(table: LoadedTable, path: str | os.PathLike[str], *, wide: bool = False) -> Written:
    """Write ``table``'s items to ``path`` (.csv, .parquet or .xlsx), atomically."""
    target = os.path.abspath(os.fspath(path))
    fmt = FORMATS.get(os.path.splitext(target)[1].lower())
    if fmt is None:
        raise DataError(f"The items cannot be written to '{target}': give a file name ending in .csv, .parquet "
                        "or .xlsx.")
    folder = os.path.dirname(target)
    if os.path.isdir(target) or not os.path.isdir(folder):
        raise DataError(f"The items cannot be written to '{target}': "
                        + ("it is a folder." if os.path.isdir(target) else f"the folder '{folder}' does not exist."))
    frame, kinds = items_frame(table, wide=wide)
    scorers = sum(1 for h in frame.columns if str(h).startswith("score:")) if wide else \
        int(pd.Series(frame["scorer"]).nunique()) if len(frame) else 0
    with _atomic(target) as tmp:
        {"csv": _write_csv, "parquet": _write_parquet, "xlsx": _write_xlsx}[fmt](frame, kinds, tmp, target)
    records = len(table.frame)
    return Written(target, len(frame), records, scorers, "wide" if wide else "long")


@contextlib.contextmanager
def _atomic(target: str):
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=os.path.dirname(target))
    os.close(fd)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise WorkbenchError(f"The items could not be written to '{target}' ({err.strerror or err}); "
                                 + ("the earlier file there is unchanged." if os.path.exists(target)
                                    else "no file was written.")) from None
        raise


def _text(value, kind: str) -> str:
    if kind == "text":
        return "" if value is None else str(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return repr(float(value))


def _write_csv(frame: pd.DataFrame, kinds: dict[str, str], tmp: str, target: str) -> None:
    cols = list(frame.columns)
    arrays = [frame[c].to_numpy() for c in cols]
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(cols)
        for i in range(len(frame)):
            writer.writerow([_text(a[i], kinds[c]) for a, c in zip(arrays, cols)])


def _write_parquet(frame: pd.DataFrame, kinds: dict[str, str], tmp: str, target: str) -> None:
    from ..io import parquet

    out = pd.DataFrame({c: (pd.Series([("" if v is None else str(v)) for v in frame[c]], dtype=object)
                            if kinds[c] == "text" else frame[c]) for c in frame.columns})
    try:
        parquet.write(out, tmp, index=False)
    except ImportError:
        raise DataError(f"The items cannot be written to '{target}': this installation has no Parquet "
                        "writer (pyarrow or fastparquet); write .csv or .xlsx instead.") from None


def _exact_sheet_class():
    """XlsxWriter's worksheet writing each number with all its digits (its own writes 16
    significant digits, which changes the last bit of some doubles: the export is exact)."""
    from xlsxwriter.worksheet import Worksheet

    class ExactSheet(Worksheet):
        def _xml_number_element(self, number, attributes=()):
            attr = "".join(f' {k}="{self._escape_attributes(v)}"' for k, v in attributes)
            self.fh.write(f"<c{attr}><v>{float(number)!r}</v></c>")

    return ExactSheet


def _write_xlsx(frame: pd.DataFrame, kinds: dict[str, str], tmp: str, target: str) -> None:
    import xlsxwriter

    book = xlsxwriter.Workbook(tmp, {"strings_to_numbers": False, "strings_to_formulas": False,
                                     "strings_to_urls": False, "nan_inf_to_errors": False,
                                     "constant_memory": True})
    sheet = book.add_worksheet("items", worksheet_class=_exact_sheet_class())
    cols = list(frame.columns)
    for j, c in enumerate(cols):
        if len(c) > XLSX_CELL:
            raise DataError(f"The items cannot be written to '{target}': a header holds more than "
                            f"{XLSX_CELL:,} characters, Excel's limit; write .csv or .parquet instead.")
        sheet.write_string(0, j, c)
    arrays = [frame[c].to_numpy() for c in cols]
    for i in range(len(frame)):
        for j, (a, c) in enumerate(zip(arrays, cols)):
            v = a[i]
            if kinds[c] == "text":
                text = "" if v is None else str(v)
                if len(text) > XLSX_CELL:
                    raise DataError(f"The items cannot be written to '{target}': the cell of column "
                                    f"'{lay.parse_header(c)[0]}', row {i + 2} holds {len(text):,} characters, more than "
                                    f"Excel's {XLSX_CELL:,}; write .csv or .parquet instead.")
                if text:
                    sheet.write_string(i + 1, j, text)
            elif v is not None and not (isinstance(v, float) and math.isnan(v)):
                sheet.write_number(i + 1, j, float(v))
    book.close()


__all__ = ["FORMATS", "Written", "items_frame", "write_items"]
