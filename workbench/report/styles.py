"""Fonts, number formats and cell styles of the report.

The font is named explicitly (Arial, which LibreOffice renders with the metric-compatible
Liberation Sans) instead of the theme font Calibri, which LibreOffice lacks on most Linux
machines and replaces with a wider face that overflows the columns.
"""

from __future__ import annotations

from typing import Any

from .present import excel_format

FONT = "Arial"
FONT_SIZE = 10
#: Excel's row height for one line of Arial 10, in points.
LINE_HEIGHT = 12.75

#: The analyses' old format hints (``Table.formats``) -> the presentation kinds
#: (:mod:`.present` decides every number format; these names stay accepted).
LEGACY_KINDS = {"money": "cost", "int": "count", "float": "score"}
DATETIME_FORMAT = "yyyy-mm-dd hh:mm:ss"

COLOURS = {
    "PASS": ("#1E6B32", "#D7F0DD"),
    "FAIL": ("#9C1C1C", "#F8D7D7"),
    "INCONCLUSIVE": ("#7A5200", "#FCEBC5"),
}
GREY = "#595959"
HEADER_FILL = "#E8EEF5"
BORDER_COLOUR = "#B7C4D4"


def chart_font(size: float = 9, bold: bool = False, **extra: Any) -> dict:
    return {"name": FONT, "size": size, "bold": bold, **extra}


class Styles:
    """Creates each XlsxWriter format once and hands it out by name and number kind."""

    def __init__(self, workbook, currency: str | None = None) -> None:
        self._wb = workbook
        self._cache: dict[tuple, Any] = {}
        self.currency = currency

    def get(self, **props: Any):
        key = tuple(sorted(props.items()))
        fmt = self._cache.get(key)
        if fmt is None:
            # font_scheme "none": Excel would otherwise show the theme's font (Calibri)
            base = {"font_name": FONT, "font_size": FONT_SIZE, "font_scheme": "none", "valign": "top"}
            base.update(props)
            fmt = self._wb.add_format(base)
            self._cache[key] = fmt
        return fmt

    def number_format(self, kind: str | None, value: Any = None) -> str | None:
        """The Excel format of a cell of ``kind`` (a :mod:`.present` kind) holding ``value``."""
        if not kind or kind == "plain":
            return None
        if kind == "text":
            return "@"
        return excel_format(LEGACY_KINDS.get(kind, kind), currency=self.currency, value=value)

    def cell(self, kind: str | None = None, *, value: Any = None, guard: bool = False,
             bold: bool = False, **extra: Any):
        """A data cell: the number format of ``kind`` (for ``value``); ``guard`` adds Excel's
        quote prefix (text that looks like a formula stays text when edited)."""
        props: dict[str, Any] = dict(extra)
        num = self.number_format(kind, value)
        if num:
            props["num_format"] = num
        if guard:
            props["quote_prefix"] = True
        if bold:
            props["bold"] = True
        return self.get(**props)

    def boolean(self):
        """Booleans show TRUE/FALSE in LibreOffice too (it shows 1/0 under General)."""
        return self.get(num_format='"TRUE";"TRUE";"FALSE"', align="center")

    def datetime(self):
        return self.get(num_format=DATETIME_FORMAT, align="left")

    @property
    def heading(self):
        return self.get(bold=True, font_size=14)

    @property
    def block_title(self):
        return self.get(bold=True, font_size=11)

    @property
    def label(self):
        return self.get(bold=True)

    @property
    def header(self):
        return self.header_cell()

    def header_cell(self, *, align: str | None = None, guard: bool = False):
        """A table's header, aligned as its cells: ``"right"`` over numbers (which Excel
        right-aligns), ``"center"`` over a status column."""
        props: dict[str, Any] = {"bold": True, "bg_color": HEADER_FILL, "bottom": 1,
                                 "border_color": BORDER_COLOUR, "text_wrap": False}
        if align:
            props["align"] = align
        if guard:
            props["quote_prefix"] = True
        return self.get(**props)

    def wrapped(self, kind: str | None = None, *, guard: bool = False):
        """A data cell whose long text wraps inside the column."""
        props: dict[str, Any] = {"text_wrap": True}
        num = "@" if kind == "text" else None
        if num:
            props["num_format"] = num
        if guard:
            props["quote_prefix"] = True
        return self.get(**props)

    def text(self, *, wrap: bool = True, grey: bool = False, small: bool = False,
             italic: bool = False, guard: bool = False):
        props: dict[str, Any] = {"text_wrap": wrap, "align": "left"}
        if grey:
            props["font_color"] = GREY
        if small:
            props["font_size"] = FONT_SIZE - 1
        if italic:
            props["italic"] = True
        if guard:
            props["quote_prefix"] = True
        return self.get(**props)

    @property
    def link(self):
        return self.get(font_color="#1F4E9A", underline=1, bold=True)

    def status(self, value: str, *, big: bool = False):
        fg, bg = COLOURS.get(str(value).upper(), ("#000000", "#FFFFFF"))
        props: dict[str, Any] = {"bold": True, "font_color": fg, "bg_color": bg, "align": "center"}
        if big:
            props["font_size"] = 14
        return self.get(**props)
