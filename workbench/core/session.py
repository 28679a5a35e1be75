"""Sessions: a small, human-readable JSON file that reopens the same analyses.

A session records the input file (path, checksum, sheet), the role given to each column,
each analysis panel's options, and the release rule that was registered before the results
were seen.  ``schema`` is versioned; :func:`load_session` migrates older files.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any

from .errors import DataError

SCHEMA = 1


@dataclass
class Session:
    input_path: str | None = None
    input_sha256: str | None = None
    #: several files stacked into one table: each file's path and SHA-256, in order
    #: ([{"path": ..., "sha256": ...}]); empty for one file (and in older files)
    input_files: list[dict[str, str]] = field(default_factory=list)
    sheet: str | None = None
    #: column name -> role (item id, system, prediction...)
    roles: dict[str, str] = field(default_factory=dict)
    #: analysis name -> options as plain JSON values
    panels: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the release rule (TOML text) registered for this evaluation, its hash and when
    rule_text: str | None = None
    rule_sha256: str | None = None
    rule_registered_at: str | None = None
    #: set when the rule was edited after results had been shown
    rule_changed_after_results: bool = False
    results_first_shown_at: str | None = None
    #: the tab shown when the session was saved ("data", an analysis name or "rule"), shown
    #: again when it is opened (older files have none: the data view is shown)
    current_panel: str | None = None
    #: the Cost panel's display currency (a symbol such as "$"; display only, the numbers do
    #: not change).  None: costs in the file's units (also what older files, which have none, mean)
    currency: str | None = None
    #: the Compare panel's metric taken from another panel's table: {"source": "ranking" or
    #: "text", "metric": "ndcg@10", "baseline": ..., "candidate": ...}; None (also what older
    #: files, which have none, mean): Compare on the file's columns
    compare_source: dict[str, str] | None = None
    #: the Runs panel's item-grid filter: {"filter": "a_not_b", "run_a": ..., "run_b": ...};
    #: None (also what older files mean): every item, A the baseline, B the last run
    runs_grid: dict[str, str] | None = None
    #: the reading of the file every panel shares: {"scorer": name or None, "errors":
    #: "exclude" | "fail", "label_map": [[judge, people], ...]}; None (also what older files
    #: mean): the tool's primary scorer, errored records left out
    reading: dict[str, Any] | None = None
    schema: int = SCHEMA

    def set_options(self, analysis: str, options: Any) -> None:
        self.panels[analysis] = options_to_json(options)

    def options_for(self, analysis: str, options_cls: type):
        """The saved options of ``analysis`` as ``options_cls`` (defaults where absent)."""
        return options_from_json(options_cls, self.panels.get(analysis, {}))

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False, sort_keys=False)


def options_to_json(options: Any) -> dict[str, Any]:
    if not is_dataclass(options):
        raise TypeError("options must be a dataclass")
    out = {}
    for f in fields(options):
        v = getattr(options, f.name)
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


class SessionOptionError(DataError, TypeError):
    """A saved option of the wrong JSON type (a hand-edited or damaged session file)."""


def _json_type_ok(annotation: str, value: Any) -> bool:
    """Whether a saved JSON value fits an Options field's annotation (as written in its module:
    ``str | None``, ``float``, ``int``, ``bool``, ``tuple[int, ...]``)."""
    kinds = {part.strip() for part in _annotation_text(annotation).split("|")}
    if value is None:
        return "None" in kinds
    if isinstance(value, bool):
        return "bool" in kinds
    if isinstance(value, str):
        return "str" in kinds or any(k.startswith("tuple") for k in kinds)
    if isinstance(value, int):
        return bool(kinds & {"int", "float"}) or any(k.startswith("tuple") for k in kinds)
    if isinstance(value, float):
        return "float" in kinds or ("int" in kinds and value.is_integer())
    if isinstance(value, list):
        return any(k.startswith("tuple") for k in kinds)
    return False


def _annotation_text(annotation) -> str:
    """``"float"`` for ``float`` or the string ``"float"``; ``"str | None"`` for either form."""
    if isinstance(annotation, str):
        return annotation
    return getattr(annotation, "__name__", None) if isinstance(annotation, type) else str(annotation)


def options_from_json(options_cls: type, data: dict[str, Any]):
    known = {f.name: f for f in fields(options_cls)}
    kwargs = {}
    for name, v in data.items():
        if name not in known:
            continue  # an option that no longer exists: ignore it
        if not _json_type_ok(known[name].type, v):
            raise SessionOptionError(f"option '{name}' must be {_describe(known[name].type)}; "
                                     f"got {json.dumps(v)[:40]}")
        if isinstance(v, float) and _annotation_text(known[name].type).split("|")[0].strip() == "int":
            v = int(v)  # 10000.0 written by another tool: the whole number it is
        kwargs[name] = tuple(v) if isinstance(v, list) else v
    return options_cls(**kwargs)


def _describe(annotation: str) -> str:
    kinds = [part.strip() for part in _annotation_text(annotation).split("|")]
    words = {"str": "text", "float": "a number", "int": "a whole number", "bool": "true or false",
             "None": "null"}
    return " or ".join(words.get(k, "a list of whole numbers" if k.startswith("tuple") else k)
                       for k in kinds)


#: The JSON type each field must have (None is allowed for every optional text field).
_TEXT_FIELDS = ("input_path", "input_sha256", "sheet", "rule_text", "rule_sha256",
                "rule_registered_at", "results_first_shown_at", "current_panel", "currency")


def _check_types(data: dict[str, Any], path) -> None:
    """One sentence for a field of the wrong JSON type (a hand-edited or damaged file)."""
    def bad(name: str, what: str) -> DataError:
        return DataError(f"Session file '{path}': '{name}' must be {what}; got "
                         f"{json.dumps(data[name])[:40]}.")

    for name in _TEXT_FIELDS:
        if data.get(name) is not None and not isinstance(data[name], str):
            raise bad(name, "text or null")
    if "schema" in data and (isinstance(data["schema"], bool) or not isinstance(data["schema"], int)):
        raise bad("schema", "a whole number")
    if "rule_changed_after_results" in data and not isinstance(data["rule_changed_after_results"], bool):
        raise bad("rule_changed_after_results", "true or false")
    if "roles" in data and not (isinstance(data["roles"], dict)
                                and all(isinstance(v, str) for v in data["roles"].values())):
        raise bad("roles", "an object from column names to role names")
    if "input_files" in data and not (
            isinstance(data["input_files"], list)
            and all(isinstance(f, dict) and isinstance(f.get("path"), str) and isinstance(f.get("sha256"), str)
                    for f in data["input_files"])):
        raise bad("input_files", "a list of objects with a path and a sha256")
    if data.get("compare_source") is not None and not (
            isinstance(data["compare_source"], dict)
            and all(isinstance(v, str) for v in data["compare_source"].values())):
        raise bad("compare_source", "an object of text values (source, metric, baseline, candidate) or null")
    if data.get("runs_grid") is not None and not (
            isinstance(data["runs_grid"], dict) and all(isinstance(v, str) for v in data["runs_grid"].values())):
        raise bad("runs_grid", "an object of text values (filter, run_a, run_b) or null")
    if "panels" in data and not (isinstance(data["panels"], dict)
                                 and all(isinstance(v, dict) for v in data["panels"].values())):
        raise bad("panels", "an object from analysis names to objects of options")


def _migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring an older session dict up to :data:`SCHEMA` (none so far)."""
    schema = data.get("schema", 1)
    if schema > SCHEMA:
        raise DataError(f"The session was written by a newer workbench (schema {schema}; this one "
                        f"reads up to {SCHEMA}); update the workbench to open it.")
    data["schema"] = SCHEMA
    return data


def load_session(path: str | os.PathLike[str]) -> Session:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise DataError(f"Session file '{path}' does not exist.") from None
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"Session file '{path}' cannot be read ({err}).") from None
    except json.JSONDecodeError as err:
        raise DataError(f"Session file '{path}' is not valid JSON (line {err.lineno}, column "
                        f"{err.colno}: {err.msg}).") from None
    if not isinstance(data, dict):
        raise DataError(f"Session file '{path}' must hold a JSON object.")
    _check_types(data, path)
    data = _migrate(data)
    known = {f.name for f in fields(Session)}
    session = Session(**{k: v for k, v in data.items() if k in known})
    base = os.path.dirname(os.path.abspath(path))
    if session.input_files:  # the stacked files, each beside the session when relative
        session.input_files = [dict(f, path=os.path.normpath(os.path.join(base, f["path"])))
                               for f in session.input_files]
        session.input_path = " + ".join(f["path"] for f in session.input_files)
    elif session.input_path and not os.path.isabs(session.input_path):
        session.input_path = os.path.normpath(os.path.join(base, session.input_path))
    return session


def changed_inputs(session: Session, table) -> list[str]:
    """The files of a reopened session whose bytes differ from when it was saved (their
    SHA-256), one sentence each; [] when every file is as it was (or nothing was recorded)."""
    if session.input_files:
        now = dict(getattr(table, "parts", ()) or ())
        return [f"'{f['path']}' changed since the session was saved (SHA-256 {f['sha256'][:12]}… "
                f"then, {now[f['path']][:12]}… now)"
                for f in session.input_files if f["path"] in now and now[f["path"]] != f["sha256"]]
    if session.input_sha256 and table.sha256 != session.input_sha256:
        return [f"'{table.path}' changed since the session was saved (SHA-256 "
                f"{session.input_sha256[:12]}… then, {table.sha256[:12]}… now)"]
    return []


def save_session(session: Session, path: str | os.PathLike[str]) -> None:
    """Write atomically: a temporary file in the same folder, then a rename."""
    atomic_write_text(path, session.to_json() + "\n")


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is always either its old bytes or all of the
    new ones: a temporary file in the same folder, flushed to disk, renamed over ``path``, and
    the folder's entry flushed too.  A writer killed at any moment leaves the previous file as
    it was (at worst a stray ``.wb-*.tmp`` beside it).  The file keeps the mode of the one it
    replaces."""
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(prefix=".wb-", suffix=".tmp", dir=folder)
    try:
        mode = _mode_of(target)
        if mode is not None and hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_folder(folder)


def _mode_of(target: str) -> int | None:
    """The mode of the file being replaced (kept by its new bytes); None for a new file."""
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        return None


def fsync_folder(folder: str) -> None:
    """Flush a folder's entries (a rename into it) to disk where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # Windows cannot open a folder; its rename is flushed with the file
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
