"""``--locale NAME``: the locale of the numbers in the desktop workbench for one run (read by
the launcher and by :func:`workbench.ui.app.run`; no Qt here)."""

from __future__ import annotations

import re


def take_locale(argv: list[str]) -> tuple[str | None, list[str], str | None]:
    """``--locale NAME`` (or ``--locale=NAME``) of the desktop workbench taken out of the
    arguments: (the name, the other arguments, a sentence when it is malformed)."""
    rest, locale = [], None
    args = iter(argv)
    for arg in args:
        if arg == "--locale" or arg.startswith("--locale="):
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            if not re.fullmatch(r"C|POSIX|[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*", value or ""):
                return None, rest, (f"--locale needs a locale name such as de_DE, fr_FR, en_US or C; "
                                    f"got '{value}'.")
            locale = value
        else:
            rest.append(arg)
    return locale, rest, None
