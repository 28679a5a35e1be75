"""User-facing errors.

Every expected problem is raised as a :class:`WorkbenchError` whose message is one
sentence for the user: what is wrong, where (file, column, line or item id), what was
found and how to fix it.  The command line prints the message and exits 2; the GUI
shows it in a message box.  Anything that is *not* a ``WorkbenchError`` is a bug.
"""

from __future__ import annotations


class WorkbenchError(Exception):
    """A problem the user can fix; ``str(err)`` is a complete sentence."""


class DataError(WorkbenchError):
    """The input data is not what the analysis needs (missing column, bad value...)."""


class OptionError(WorkbenchError):
    """An option has an invalid value (``k`` must be >= 1; got k=0.)."""


class Cancelled(Exception):
    """Raised by :meth:`Progress.check_cancelled` when the user cancelled the run."""


def describe_lines(lines, limit: int = 5) -> str:
    """Render a list of 1-based line numbers compactly: ``"lines 3, 7, 9 and 12 more"``."""
    lines = [int(x) for x in lines]
    if not lines:
        return "no line"
    head = ", ".join(str(x) for x in lines[:limit])
    more = len(lines) - limit
    word = "line" if len(lines) == 1 else "lines"
    return f"{word} {head}" + (f" and {more} more" if more > 0 else "")
