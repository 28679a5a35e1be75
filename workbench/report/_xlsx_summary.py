"""The report's summary sheet: the gates' verdicts, the inputs (name, path, size, SHA-256,
rows), the analyses and their headline numbers."""

from __future__ import annotations

import datetime as dt
import os

from .. import __version__
from .present import answer
from .layout import Gap, Heading, Item, Line
from ._xlsx_gate import _gate_items
from ._xlsx_records import _headline_block


def _summary_items(results, order, main_of, source, title, notes, currency=None) -> list[Item]:
    items: list[Item] = [Heading(title)]
    gates = [results[i] for i in order if results[i].analysis == "gate"]
    for gate in gates:
        items += _gate_items(gate, currency)
    if any(results[i].analysis != "gate" for i in order):
        items.append(Heading("Analyses", "section"))
    shown = {os.path.abspath(p) for p in _source_paths(source)}
    for i in order:
        r = results[i]
        if r.analysis == "gate":
            continue
        items.append(Line(main_of[i], answer(r, currency=currency).text, link=main_of[i], style="answer"))
        if r.input and not {os.path.abspath(p) for p in _source_paths(r.input)} <= shown:
            items.append(Line("input", r.input, style="signature"))
        items.append(Line("signature", r.signature, style="signature"))
    items += [Gap(), Heading("Input and provenance", "section")]
    items += _provenance(source, results)
    items += [Line("Written (UTC)", dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)),
              Line("Workbench", f"Eval Workbench {__version__}")]
    items += [Line("Note", note, style="note") for note in notes]
    items += [Gap(), _headline_block(results, order, main_of)]
    return items


def _tables_of(source) -> list:
    """The LoadedTables in ``source`` (one, a sequence of them, or none)."""
    if source is None or isinstance(source, (str, os.PathLike)):
        return []
    if hasattr(source, "frame") and hasattr(source, "path"):
        return [source]
    if isinstance(source, (list, tuple)):
        return [t for t in source if hasattr(t, "frame") and hasattr(t, "path")]
    return []


def _source_paths(source) -> list[str]:
    """The input paths named by ``source``; a text naming several files ("a.csv, b.csv", as the
    gate passes them) is split only when every part is an existing file."""
    if isinstance(source, (str, os.PathLike)):
        return _split_paths(os.fspath(source))
    return [p for t in _tables_of(source) for p in _split_paths(t.path)]


def _split_paths(path: str) -> list[str]:
    """A path, or the files it names: several files given together ("a.csv, b.csv", as the
    gate passes them) or stacked into one table ("a.run + b.run") are split when every part
    is an existing file."""
    for sep in (", ", " + "):
        if not os.path.isfile(path) and sep in path:
            parts = path.split(sep)
            if all(os.path.isfile(p) for p in parts):
                return parts
    return [path]


def _provenance(source, results) -> list[Item]:
    """Name, path, size, SHA-256 and rows of each input."""
    tables = _tables_of(source)
    items: list[Item] = []
    if tables:
        for n, t in enumerate(tables, 1):
            label = "Input file" if len(tables) == 1 else f"Input {n}"
            items += [Line(label, t.name), Line("Path", t.path),
                      Line("Size", int(t.size_bytes), style="bytes"),
                      Line("SHA-256", t.sha256 or "(not computed)"),
                      Line("Rows", int(len(t.frame)), kind="int")]
            if getattr(t, "sheet", None):
                items.append(Line("Sheet", str(t.sheet)))
        return items
    if isinstance(source, (str, os.PathLike)):
        paths = _source_paths(source)
        for n, path in enumerate(paths, 1):
            if os.path.isfile(path):
                label = "Input file" if len(paths) == 1 else f"Input {n}"
                items += [Line(label, os.path.basename(path)), Line("Path", os.path.abspath(path)),
                          Line("Size", int(os.path.getsize(path)), style="bytes"),
                          Line("SHA-256", _sha256(path))]
            else:
                items.append(Line("Input", path))
        return items
    inputs = list(dict.fromkeys(r.input for r in results if r.input))
    return [Line("Input file", inp) for inp in inputs] or [Line("Input file", "none (no input file)")]


def _sha256(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as err:
        return f"(cannot be read: {err.strerror or err})"
    return digest.hexdigest()
