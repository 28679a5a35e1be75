"""Blessed baselines: a run stored once, with its SHA-256 and conventions, that a gate compares
every new run with.  Nothing here imports Qt.

A baseline is a folder ``DIR/NAME/`` (``DIR`` is ``.workbench/baselines`` next to the release
rule, or in the current folder) holding:

* a byte-for-byte copy of the run's file (its own name kept, so it is read as it was);
* ``baseline.json``: the name, the time it was blessed (UTC), the source path, the file's
  SHA-256 and size, the number of rows and items, and the run's *conventions* (the file's
  format, the item and outcome columns, and whether the outcome is 0/1 or a score).

The folder is written to a temporary name and renamed into place in one step, so a failed
bless leaves nothing half written; an existing name is never overwritten unless asked
(``force``).  A baseline never changes by itself: :func:`check_integrity` recomputes the stored
copy's SHA-256 and says when it no longer matches the one recorded at bless time.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import WorkbenchError
from ..core.session import fsync_folder

DEFAULT_DIR = os.path.join(".workbench", "baselines")
META = "baseline.json"
FORMAT = 1
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
#: the keys of a run's conventions, in the order they are compared and shown
CONVENTION_KEYS = ("format", "item", "outcome", "values")


class BaselineError(WorkbenchError):
    """A baseline that cannot be blessed, found or read: one sentence naming the folder."""


@dataclass(frozen=True)
class Baseline:
    """A blessed run as recorded in its ``baseline.json``."""

    name: str
    folder: str                  # DIR/NAME
    file: str                    # the stored copy's file name
    sha256: str
    size_bytes: int
    blessed_at: str
    source: str
    n_rows: int
    n_items: int | None
    conventions: dict[str, str] = field(default_factory=dict)
    rule: str | None = None
    #: the reading it was blessed under (``scorer``, ``errors``): what a gate reads both files
    #: with when neither its command line nor its rule says
    reading: dict[str, str] = field(default_factory=dict)

    @property
    def path(self) -> str:
        """The stored copy of the run's file."""
        return os.path.join(self.folder, self.file)

    def to_json_dict(self) -> dict[str, Any]:
        return {"name": self.name, "folder": self.folder, "file": self.file, "path": self.path,
                "sha256": self.sha256, "size_bytes": self.size_bytes, "blessed_at": self.blessed_at,
                "source": self.source, "n_rows": self.n_rows, "n_items": self.n_items,
                "conventions": dict(self.conventions), "rule": self.rule, "reading": dict(self.reading)}


def default_dir(rule_path: str | None = None) -> str:
    """``.workbench/baselines`` next to the rule file, else in the current folder."""
    base = os.path.dirname(os.path.abspath(rule_path)) if rule_path else os.getcwd()
    return os.path.join(base, DEFAULT_DIR)


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def conventions_of(table, data: dict[str, str] | None = None) -> tuple[dict[str, str], int | None]:
    """A run's conventions (file format, item and outcome columns, 0/1 or scores) and its
    number of distinct items (None without an item column).  ``data``: the rule's [data]."""
    from ..io import to_text
    from ..io.columns import holds_binary_words

    item, outcome = unit_columns(table, data)
    values = "none"
    if outcome is not None:
        col = table.frame[outcome]
        nums = _numbers(col)
        if nums is not None:
            values = "binary" if set(nums) <= {0.0, 1.0} else "continuous"
        elif holds_binary_words(table, outcome):
            values = "binary"
        else:
            values = "text"
    n_items = len(set(to_text(table, item))) if item is not None else None
    conv = {"format": str(table.format), "item": item or "", "outcome": outcome or "", "values": values}
    return conv, n_items


def role_column(table, data: dict[str, str] | None, role: str) -> str | None:
    """The column playing ``role``: the one the rule's [data] names if the file has it (None if
    it does not), else the reader's or a guess from common names (None when nothing fits)."""
    from ..core.errors import DataError
    from ..rules.inputs import _Cols

    given = (data or {}).get(role)
    if given:
        return given if given in table.frame.columns else None
    try:
        return _Cols(table, {}).get(role, required=False)
    except DataError:
        return None


def tried_item(table) -> str | None:
    """A log with repeated tries (Inspect's epochs, promptfoo's repeats): the column of the item
    its tries share, as the reader declares it (its per-try id column is not the item: an item
    tried twice is one item, compared by its share of tries); None for any other table."""
    evaluation = getattr(table, "evaluation", None)
    item = getattr(evaluation, "item", None)
    repeat = getattr(evaluation, "repeat", None)
    if item and repeat and item in table.frame.columns and repeat in table.frame.columns:
        return item
    return None


def unit_columns(table, data: dict[str, str] | None = None) -> tuple[str | None, str | None]:
    """The unit runs are paired on and its outcome: the item column and its outcome (or score)
    column; a ranking run (no item column, a query column) is paired on its queries, and its
    outcome is per query (computed by the rule's ranking criteria), so None."""
    item = role_column(table, data, "item")
    if not (data or {}).get("item"):
        item = tried_item(table) or item
    if item is None:
        query = role_column(table, data, "query")
        return query, None
    outcome = role_column(table, data, "outcome") or role_column(table, data, "score")
    return item, (outcome if outcome != item else None)


def _numbers(col) -> set[float] | None:
    import pandas as pd

    vals = pd.to_numeric(col.dropna(), errors="coerce")
    if vals.isna().any():
        return None
    return set(vals.astype(float).unique().tolist())


def check_name(name: str) -> str:
    name = (name or "").strip()
    if not _NAME.match(name):
        raise BaselineError(f"Baseline name '{name}' is not usable: use letters, digits, '.', '_' "
                            f"or '-' (up to 100, starting with a letter or digit), e.g. 'v1.2'.")
    return name


def bless(run_path: str, name: str, folder: str, *, force: bool = False, data: dict[str, str] | None = None,
          rule: str | None = None, sheet: str | None = None, now: str | None = None,
          scorer: str | None = None, errors: str | None = None) -> Baseline:
    """Store ``run_path`` as baseline ``name`` in ``folder``; refuse an existing name unless
    ``force``.  The copy's SHA-256 is checked against the source's before it is renamed in.
    ``scorer`` / ``errors``: the reading it is blessed under (a log's scorer whose column is
    the outcome; errored records left out or counted as failures), recorded with it."""
    from ..io import load_table

    name = check_name(name)
    target = os.path.join(folder, name)
    if os.path.exists(target) and not force:
        raise BaselineError(f"A baseline named '{name}' already exists in '{folder}' (blessed "
                            f"{_when(target)}); a baseline never changes by itself: choose another "
                            f"name or give --force to replace it.")
    if not os.path.isfile(run_path):
        raise BaselineError(f"Run file '{run_path}' does not exist or is not a file.")
    table = load_table(run_path, sheet=sheet)
    reading = {k: v for k, v in (("scorer", scorer), ("errors", errors)) if v}
    if reading:
        from ..analyses.reading import Reading, choose, evaluation_of
        from .evaluate import read_under

        under = Reading(**reading)
        under.check()  # a sentence for an unknown errors word
        if scorer:  # a sentence naming the file's scorers for an unknown one
            choose(evaluation_of(table), scorer, table)
        table = read_under(table, under)
    conv, n_items = conventions_of(table, data)
    try:
        os.makedirs(folder, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise BaselineError(f"The baselines folder '{folder}' cannot be written "
                            f"({err.strerror or err}).") from None
    try:
        copy = os.path.join(tmp, os.path.basename(run_path))
        sha = _copy_hashed(run_path, copy)
        if sha != file_sha256(copy):
            raise BaselineError(f"The copy of '{run_path}' in '{folder}' does not match the file "
                                f"(SHA-256 differs); nothing was blessed.")
        meta = Baseline(name=name, folder=target, file=os.path.basename(run_path), sha256=sha,
                        size_bytes=os.path.getsize(copy), blessed_at=now or _now(),
                        source=os.path.abspath(run_path), n_rows=len(table.frame), n_items=n_items,
                        conventions=conv, rule=os.path.abspath(rule) if rule else None, reading=reading)
        record = {"format": FORMAT, **meta.to_json_dict()}
        for key in ("folder", "path"):
            record.pop(key)
        _write_json(os.path.join(tmp, META), record)
        fsync_folder(tmp)
        _move_into_place(tmp, target, force)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return meta


def _copy_hashed(src: str, dst: str) -> str:
    h = hashlib.sha256()
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        for chunk in iter(lambda: fin.read(1 << 20), b""):
            h.update(chunk)
            fout.write(chunk)
        fout.flush()
        os.fsync(fout.fileno())
    return h.hexdigest()


def _write_json(path: str, obj: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())


def _move_into_place(tmp: str, target: str, force: bool) -> None:
    """Rename the finished folder to ``target``; with ``force`` the old one is set aside first
    (``NAME.old-PID``) and removed only once the new one is in place.  A writer killed between
    the two renames leaves the old baseline set aside: :func:`recover` puts it back."""
    old = None
    if os.path.exists(target):
        if not force:
            raise BaselineError(f"A baseline named '{os.path.basename(target)}' appeared in "
                                f"'{os.path.dirname(target)}' while blessing; nothing was replaced.")
        old = target + f".old-{os.getpid()}"
        os.rename(target, old)
    try:
        os.rename(tmp, target)
    except OSError:
        if old is not None:
            os.rename(old, target)
        raise
    fsync_folder(os.path.dirname(target))
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def recover(folder: str, name: str) -> bool:
    """Put back a baseline whose replacement (``bless --force``) was interrupted between its two
    renames: ``NAME`` is missing and ``NAME.old-PID`` holds the previous one, whole.  True when
    one was put back."""
    target = os.path.join(folder, name)
    if os.path.exists(target) or not os.path.isdir(folder):
        return False
    aside = sorted((e for e in os.listdir(folder) if e.startswith(f"{name}.old-")
                    and os.path.isfile(os.path.join(folder, e, META))),
                   key=lambda e: os.path.getmtime(os.path.join(folder, e)), reverse=True)
    for entry in aside:
        try:
            os.rename(os.path.join(folder, entry), target)
        except OSError:
            continue
        return True
    return False


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _when(folder: str) -> str:
    try:
        with open(os.path.join(folder, META), encoding="utf-8") as fh:
            return str(json.load(fh).get("blessed_at", "at an unknown time"))
    except (OSError, ValueError):
        return "at an unknown time"


def list_baselines(folder: str) -> list[Baseline]:
    """The baselines in ``folder`` by name (folders without a readable ``baseline.json`` are
    skipped); an absent folder has none."""
    if not os.path.isdir(folder):
        return []
    out = []
    for entry in sorted(os.listdir(folder)):
        if ".old-" in entry and not entry.startswith("."):  # a replacement cut short: put back
            recover(folder, entry.split(".old-")[0])
    for entry in sorted(os.listdir(folder)):
        if entry.startswith(".") or ".old-" in entry:
            continue
        try:
            out.append(read(folder, entry))
        except BaselineError:
            continue
    return out


def names(folder: str) -> list[str]:
    return [b.name for b in list_baselines(folder)]


def read(folder: str, name: str) -> Baseline:
    """The baseline ``name`` in ``folder``; an unknown name is one sentence naming the folder and
    the known names."""
    target = os.path.join(folder, name)
    meta_path = os.path.join(target, META)
    if not os.path.isfile(meta_path) and recover(folder, name):
        pass  # a replacement cut short: the previous baseline is back
    if not os.path.isfile(meta_path):
        known = names(folder)
        listed = ", ".join(known) if known else "none yet"
        raise BaselineError(f"No baseline named '{name}' in '{folder}' (known baselines: {listed}); "
                            f"bless one with 'workbench baseline bless RUN --name {name}'.")
    try:
        with open(meta_path, encoding="utf-8") as fh:
            raw = json.load(fh)
        return Baseline(name=str(raw["name"]), folder=target, file=str(raw["file"]),
                        sha256=str(raw["sha256"]), size_bytes=int(raw["size_bytes"]),
                        blessed_at=str(raw["blessed_at"]), source=str(raw["source"]),
                        n_rows=int(raw["n_rows"]),
                        n_items=None if raw.get("n_items") is None else int(raw["n_items"]),
                        conventions={k: str(v) for k, v in dict(raw.get("conventions") or {}).items()},
                        rule=raw.get("rule"),
                        reading={k: str(v) for k, v in dict(raw.get("reading") or {}).items()
                                 if k in ("scorer", "errors")})
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise BaselineError(f"Baseline '{name}' in '{folder}' cannot be read: its {META} is damaged "
                            f"({err.__class__.__name__}: {err}); bless the run again.") from None


def check_integrity(b: Baseline) -> str | None:
    """None when the stored copy is there and its SHA-256 is the recorded one; else the
    sentence saying what changed."""
    if not os.path.isfile(b.path):
        return (f"the stored copy '{b.path}' of baseline '{b.name}' is missing, so the baseline "
                f"cannot be trusted; bless the run again")
    try:
        now = file_sha256(b.path)
    except OSError as err:
        return f"the stored copy '{b.path}' of baseline '{b.name}' cannot be read ({err.strerror or err})"
    if now != b.sha256:
        return (f"the stored copy of baseline '{b.name}' ('{b.path}') has changed on disk since it "
                f"was blessed {b.blessed_at} (SHA-256 {now[:12]}… now, {b.sha256[:12]}… then)")
    return None


def convention_differences(base: dict[str, str], run: dict[str, str]) -> list[str]:
    """The conventions on which a baseline and a run differ, in words (empty when none)."""
    words = {"format": "file format", "item": "item column", "outcome": "outcome column",
             "values": "outcome values"}
    out = []
    for key in CONVENTION_KEYS:
        a, b = base.get(key, ""), run.get(key, "")
        if a != b:
            out.append(f"{words[key]} '{a or 'none'}' in the baseline but '{b or 'none'}' in the run")
    return out


def find(name: str, folders: list[str]) -> Baseline:
    """The baseline ``name`` in the first of ``folders`` that has it; else one sentence naming
    every folder looked in and the names known there."""
    name = (name or "").strip()
    seen = []
    for folder in dict.fromkeys(os.path.abspath(f) for f in folders):
        if os.path.isfile(os.path.join(folder, name, META)):
            return read(folder, name)
        seen.append(folder)
    known = sorted({n for f in seen for n in names(f)})
    listed = ", ".join(known) if known else "none yet"
    where = " or ".join(f"'{f}'" for f in seen)
    raise BaselineError(f"No baseline named '{name}' in {where} (known baselines: {listed}); "
                        f"bless one with 'workbench baseline bless RUN --name {name}' or give --dir.")
