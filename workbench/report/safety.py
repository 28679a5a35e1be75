"""What keeps the report safe to open and safe to write.

* **Formula injection.**  Text taken from an input file (a prediction, an item id, a system
  name...) that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return would be run as
  a formula by a spreadsheet that re-parses it.  The writer never lets XlsxWriter guess:
  every text goes through ``write_string`` (the workbook is opened with ``strings_to_formulas``,
  ``strings_to_urls`` and ``strings_to_numbers`` off), and such text also gets Excel's
  "quote prefix" style, so that editing the cell keeps it text.
* **Sheet names** follow Excel's rules: none of ``[ ] : * ? / \\``, no leading or trailing
  apostrophe, at most 31 characters, not the reserved ``History``, unique ignoring case.
* **Atomic output.**  The workbook is written to a temporary file in the target folder and
  renamed over the target only once it is complete, so a failure (disk full, no permission,
  file locked by Excel) leaves an earlier report as it was; the temporary file is removed and
  the problem is raised as a :class:`~workbench.core.errors.WorkbenchError` naming the path and
  the cause.  Every exit path cleans up: a failure, Ctrl-C (``KeyboardInterrupt``) and SIGTERM
  (turned into :class:`Terminated` while the file is written, in the main thread) all remove the
  temporary file, and a zip archive left half-written by a full disk is released quietly (no
  ``Exception ignored in ZipFile.__del__`` when it is collected).
"""

from __future__ import annotations

import errno
import os
import re
import signal
import threading
import uuid
import zipfile
from contextlib import contextmanager
from typing import Iterator

from ..core.errors import WorkbenchError
from ..core.session import fsync_folder

#: Excel's limits.
MAX_SHEET_NAME = 31
MAX_CELL_TEXT = 32_767

#: Leading characters that make a spreadsheet treat text as a formula (OWASP's CSV-injection list).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

_FORBIDDEN_IN_SHEET_NAME = re.compile(r"[\[\]:*?/\\]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TRUNCATED = " [...truncated: Excel holds at most 32,767 characters in a cell]"


def looks_like_formula(text: str) -> bool:
    """True for text a spreadsheet could take as a formula.

    >>> looks_like_formula("=1+1"), looks_like_formula("@SUM(A1)"), looks_like_formula("refund")
    (True, True, False)
    """
    return text.startswith(FORMULA_TRIGGERS)


def cell_text(text: str) -> str:
    """Text that fits in one Excel cell (cut at 32,767 characters, saying so).

    Excel counts UTF-16 code units (a character beyond U+FFFF, such as an emoji, is two), so
    the cut is made in those units and never splits such a character."""
    if len(text) <= MAX_CELL_TEXT // 2:
        return text
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * MAX_CELL_TEXT:
        return text
    keep = units[: 2 * (MAX_CELL_TEXT - len(_TRUNCATED))]
    if 0xD8 <= keep[-1] <= 0xDB:  # the first half of a surrogate pair: cut before it
        keep = keep[:-2]
    return keep.decode("utf-16-le", "surrogatepass") + _TRUNCATED


def sanitize_sheet_name(name: str, fallback: str = "Sheet") -> str:
    """A name Excel accepts: forbidden characters removed, control characters made spaces,
    no leading/trailing apostrophe, at most 31 characters.

    >>> sanitize_sheet_name("text: a/b [v2]?")
    'text ab v2'
    >>> len(sanitize_sheet_name("x" * 40))
    31
    """
    clean = _CONTROL.sub(" ", _FORBIDDEN_IN_SHEET_NAME.sub("", str(name)))
    clean = " ".join(clean.split()).strip("'").strip()
    clean = clean[:MAX_SHEET_NAME].strip().strip("'").strip()
    if not clean or clean.lower() == "history":  # 'History' is reserved by Excel
        clean = fallback if clean.lower() != "history" else f"{clean} (1)"
    return clean


class SheetNames:
    """Hands out unique, valid sheet names: ``compare``, ``compare (2)``... (ignoring case, as
    Excel does), shortening the base so that the suffix fits in 31 characters.

    >>> names = SheetNames()
    >>> names.claim("Summary"), names.claim("summary"), names.claim("a" * 40)[-5:]
    ('Summary', 'summary (2)', 'aaaaa')
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, wanted: str) -> str:
        base = sanitize_sheet_name(wanted)
        name, number = base, 1
        while name.lower() in self._taken:
            number += 1
            suffix = f" ({number})"
            name = base[: MAX_SHEET_NAME - len(suffix)].rstrip().rstrip("'") + suffix
        self._taken.add(name.lower())
        return name


def quote_sheet(name: str) -> str:
    """A sheet name as it appears in a formula: ``'my sheet'`` (apostrophes doubled).

    >>> quote_sheet("it's")
    "'it''s'"
    """
    return "'" + name.replace("'", "''") + "'"


_CAUSES = {code: text for code, text in (
    (getattr(errno, name, None), text) for name, text in (
        ("EACCES", "permission denied (if the file is open in Excel, close it and try again)"),
        ("EPERM", "the operation is not permitted"),
        ("ENOENT", "the folder does not exist"),
        ("ENOTDIR", "a part of the path is not a folder"),
        ("ENOSPC", "the disk is full"),
        ("EDQUOT", "the disk quota is exceeded"),
        ("EROFS", "the file system is read-only"),
        ("EISDIR", "it is a folder"),
        ("EBUSY", "the file is in use by another program"),
        ("ENAMETOOLONG", "the file name is too long"),
        ("EFBIG", "the file is too large for the file system"),
    )) if code is not None}


def describe_os_error(err: BaseException) -> str:
    """A short cause for a failed write: ``"the disk is full"``."""
    os_err = find_os_error(err)
    if os_err is not None:
        cause = _CAUSES.get(os_err.errno or -1)
        if cause:
            return cause
        return os_err.strerror or str(os_err)
    return str(err) or type(err).__name__


def find_os_error(err: BaseException | None) -> OSError | None:
    """The OSError behind ``err`` (XlsxWriter wraps it in its own exception types)."""
    seen = 0
    while err is not None and seen < 10:
        if isinstance(err, OSError):
            return err
        wrapped = [a for a in getattr(err, "args", ()) if isinstance(a, OSError)]
        if wrapped:
            return wrapped[0]
        err = err.__cause__ or err.__context__
        seen += 1
    return None


def is_write_failure(err: BaseException) -> bool:
    """An error of the file system (as opposed to a bug of the writer)."""
    from xlsxwriter.exceptions import FileCreateError, FileSizeError

    return isinstance(err, (OSError, FileCreateError, FileSizeError)) or find_os_error(err) is not None


class Terminated(SystemExit):
    """SIGTERM arrived while a report was being written (exit status 128 + 15)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(128 + signum)
        self.signum = signum


@contextmanager
def _terminate_as_exception() -> Iterator[None]:
    """While the block runs (in the main thread), SIGTERM raises :class:`Terminated` so that the
    ``finally`` clauses that remove the temporary file run; the earlier handler comes back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = signal.getsignal(signal.SIGTERM)
    except (ValueError, OSError):  # pragma: no cover (no signals here)
        yield
        return
    if previous not in (signal.SIG_DFL, None):  # someone else handles SIGTERM: leave it to them
        yield
        return

    def handler(signum, frame):  # noqa: ARG001
        raise Terminated(signum)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def release_zip_files(err: BaseException | None) -> None:
    """Close, without writing anything more, the zip archives a failed write left open.

    XlsxWriter zips the workbook in a local ``ZipFile``; when the disk fills up midway the
    exception's traceback keeps it alive, and when it is collected ``ZipFile.__del__`` tries
    to finish the archive, fails again and prints "Exception ignored in ZipFile.__del__".
    Detaching its file (closed here, its error ignored) makes that close a no-op."""
    seen: set[int] = set()
    todo = [err]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        todo += [e.__cause__, e.__context__] + [a for a in getattr(e, "args", ()) if isinstance(a, BaseException)]
        tb = e.__traceback__
        while tb is not None:
            for value in list(tb.tb_frame.f_locals.values()):
                if isinstance(value, zipfile.ZipFile) and value.fp is not None:
                    fp, value.fp = value.fp, None
                    try:
                        fp.close()
                    except OSError:
                        pass
            tb = tb.tb_next


@contextmanager
def atomic_target(path: str | os.PathLike[str]) -> Iterator[str]:
    """Yield a temporary file name beside ``path``; on success rename it over ``path``.

    On any failure (an error, Ctrl-C, SIGTERM) the temporary file is removed and the earlier
    file at ``path`` is left as it was; a failure of the file system is raised as a
    :class:`WorkbenchError` that names the path and the cause, anything else (a bug, an
    interruption) is re-raised unchanged.
    """
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    if os.path.isdir(target):
        raise WorkbenchError(f"The report cannot be written to '{target}': it is a folder; "
                             f"give a file name ending in .xlsx.")
    if not os.path.isdir(folder):
        raise WorkbenchError(f"The report cannot be written to '{target}': the folder "
                             f"'{folder}' does not exist.")
    tmp = os.path.join(folder, f".{os.path.basename(target)}.{uuid.uuid4().hex[:12]}.tmp")
    with _terminate_as_exception():
        try:
            # created with the usual permissions (umask applies), or the earlier report's
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            os.close(fd)
            if os.path.exists(target):
                os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        except OSError as err:
            _remove(tmp)
            raise WorkbenchError(f"The report cannot be written to '{target}': "
                                 f"{describe_os_error(err)}.") from err
        except BaseException:
            _remove(tmp)
            raise
        try:
            yield tmp
            with open(tmp, "rb+") as fh:  # the bytes are on disk before the rename
                os.fsync(fh.fileno())
            os.replace(tmp, target)
            fsync_folder(folder)
        except BaseException as err:
            release_zip_files(err)
            _remove(tmp)
            if isinstance(err, WorkbenchError):
                raise
            if isinstance(err, Exception) and is_write_failure(err):
                raise WorkbenchError(
                    f"The report could not be written to '{target}': {describe_os_error(err)}; "
                    f"{'the earlier report there is unchanged' if os.path.exists(target) else 'no file was written'}."
                ) from err
            raise


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
