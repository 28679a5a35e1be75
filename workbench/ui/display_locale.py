"""Numbers in the analyst's locale, by choice: the decimal separator and the thousands
separator the window and its cards show (``0,692`` and ``1.049`` in German).

The choice is the window's alone.  It sets the separators of the GUI thread
(:func:`workbench.core.numbers.set_display_separators`) and Qt's default locale (the spin boxes
read and write numbers in it); what is written to files keeps numbers as numbers (the Excel
report: Excel shows them in its own locale) or locale-free (CSV, JSON, the command line), and
a copied table's tab-separated text keeps full precision with a decimal point.

The choice: ``--locale NAME`` for one run (``de_DE``, ``fr_FR``, ``en_US``, ``C``), else the one
made in Edit > Settings (saved), else the system's locale.
"""

from __future__ import annotations

from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QAbstractSpinBox, QApplication

from ..core import numbers

#: the settings key of the choice ("" or absent: the system's locale)
KEY = "display/locale"

#: the locales offered in Settings (any other name works on the command line)
OFFERED = ("en_US", "en_GB", "de_DE", "de_CH", "fr_FR", "es_ES", "it_IT", "nl_NL", "pt_BR", "sv_SE",
           "pl_PL", "da_DK", "fi_FI", "nb_NO", "cs_CZ", "ru_RU", "tr_TR", "ja_JP", "zh_CN", "ko_KR", "C")


def qlocale(name: str | None) -> QLocale:
    """The locale of a name ("" or None: the system's)."""
    return QLocale(name) if name else QLocale.system()


def valid(name: str) -> bool:
    """Whether Qt knows ``name`` (an unknown name falls back to "C" in Qt: refused instead)."""
    if name in ("C", "POSIX"):
        return True
    loc = QLocale(name)
    return loc.language() != QLocale.Language.C


def separators(name: str | None) -> tuple[str, str]:
    """(decimal separator, thousands separator) of a locale."""
    loc = qlocale(name)
    decimal, group = loc.decimalPoint(), loc.groupSeparator()
    if not decimal:
        decimal = "."
    if group == decimal or not group:
        group = "\u202f" if decimal == "," else ","
    return decimal, group


def describe(name: str | None) -> str:
    """"German (Germany), de_DE: 0,692 · 1.049 · 72,5%"."""
    return f"{label(name)}: {example(name)}"


def label(name: str | None) -> str:
    loc = qlocale(name)
    if loc.language() == QLocale.Language.C:
        return "C (no locale: a decimal point, comma grouping)"
    place = QLocale.territoryToString(loc.territory()) if hasattr(loc, "territory") else ""
    lang = QLocale.languageToString(loc.language())
    return f"{lang} ({place}), {loc.name()}" if place else f"{lang}, {loc.name()}"


def example(name: str | None) -> str:
    """Three numbers as they read in that locale."""
    decimal, group = separators(name)
    swap = {".": decimal, ",": group}
    return " · ".join("".join(swap.get(ch, ch) for ch in text) for text in ("0.692", "1,049", "72.5%"))


def chosen(settings, override: str | None = None) -> str:
    """The locale in force: the run's ``--locale``, else the saved choice, else "" (system)."""
    if override:
        return override
    value = settings.value(KEY, "") if settings is not None else ""
    return value if isinstance(value, str) else ""


def apply(name: str | None) -> None:
    """Numbers on the GUI thread and in the spin boxes in the locale ``name`` ("" = system).
    Call it on the GUI thread; the window then draws its numbers again."""
    decimal, group = separators(name)
    numbers.set_display_separators(decimal, group)
    loc = qlocale(name)
    loc.setNumberOptions(QLocale.NumberOption.DefaultNumberOptions)
    QLocale.setDefault(loc)
    app = QApplication.instance()
    if app is not None:
        for box in app.allWidgets():
            if isinstance(box, QAbstractSpinBox):
                box.setLocale(loc)
                box.update()


def reset() -> None:
    """The window closes: the GUI thread's numbers and Qt's default locale as they were at start."""
    numbers.set_display_separators()
    QLocale.setDefault(QLocale.system())


__all__ = ["KEY", "OFFERED", "apply", "chosen", "describe", "example", "label", "qlocale", "reset",
           "separators", "valid"]
