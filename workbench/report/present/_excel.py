"""Excel number formats that show each kind of number as :func:`format_value` does."""

from __future__ import annotations

from typing import Any
from ...core.numbers import (_FLOOR, _SCALE, DECIMALS, KINDS, SIGNED_AMOUNTS, _cost_decimals, _decimals_for,
                             _is_missing, _p_decimals, format_value)


_FIXED_EXCEL = {"count": "#,##0", "plain": "General"}



def _zeros(decimals: int) -> str:
    return "0." + "0" * decimals if decimals > 0 else "0"



def _quote(text: str) -> str:
    return '"' + text.replace('"', "") + '"'



def excel_value(value: Any, kind: str) -> Any:
    """The number a cell of ``kind`` holds: the value itself, except ``points`` and ``margin``
    (differences of rates, held in points: x 100)."""
    if kind in ("points", "margin") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) * 100.0
    return value



def excel_format(kind: str, *, currency: str | None = None, value: Any = None) -> str:
    """The Excel number format that shows a cell of ``kind`` as :func:`format_value` does.

    Without ``value`` the format of the kind (p-values: ``[<0.001]"< 0.001";0.000``, which shows
    3 significant digits from 0.1 up; costs: two decimals from 1 up, four below).  With
    ``value`` (the stored number, before :func:`excel_value`) the format that displays exactly
    ``format_value(value, kind)``; the report writes every numeric cell this way.
    """
    if kind in _FIXED_EXCEL:
        if kind == "count" and value is not None and not _is_missing(value) \
                and not isinstance(value, bool) and float(value) != int(float(value)):
            return "#,##0.00"
        return _FIXED_EXCEL[kind]
    if kind == "p":
        if value is None or _is_missing(value):
            return '[<0.001]"< 0.001";0.000'
        v = float(value)
        return '"< 0.001"' if v < 0.001 else _zeros(_p_decimals(v))
    if kind in SIGNED_AMOUNTS:  # a difference of costs or latencies: the amount's format, signed
        base = excel_format(SIGNED_AMOUNTS[kind], currency=currency, value=value)
        if value is None or _is_missing(value) or ";" in base or "[" in base:
            return base
        return f"+{base};-{base};{base}"
    if kind == "cost":
        if value is None or _is_missing(value):
            body = "[>=1]#,##0.00;[<=-1]-#,##0.00;0.0000"
            if currency:
                cur = currency.strip()
                pre, post = (("", " " + cur) if cur.isalpha() and len(cur) > 1 else (cur, ""))
                body = (f"[>=1]{_quote(pre)}#,##0.00{_quote(post)};[<=-1]-{_quote(pre)}#,##0.00"
                        f"{_quote(post)};{_quote(pre)}0.0000{_quote(post)}").replace('""', "")
            return body
        body = "#,##0" + ("." + "0" * _cost_decimals(float(value)) if _cost_decimals(float(value)) else "")
        if currency:
            cur = currency.strip()
            if cur.isalpha() and len(cur) > 1:
                return f'{body}" {cur}";-{body}" {cur}"'
            return f"{_quote(cur)}{body};-{_quote(cur)}{body}"
        return body
    if kind not in DECIMALS:
        raise ValueError(f"unknown number kind {kind!r}; one of {', '.join(KINDS)}")
    decimals = DECIMALS[kind]
    if value is not None and not _is_missing(value) and not isinstance(value, bool):
        shown = float(value) * _SCALE.get(kind, 1.0)
        if shown != 0 and abs(shown) < _FLOOR[kind]:
            return _quote(format_value(value, kind))  # "< 0.0001%": the text, the number kept
        decimals = _decimals_for(kind, shown)
    num = ("#,##0" if kind in ("latency", "statistic", "bleu") else "0") + (
        "." + "0" * decimals if decimals else "")
    if kind == "rate":
        return num + "%"
    if kind == "relative":
        return f"+{num}%;-{num}%;{num}%"
    if kind == "points":
        return f'+{num}" pts";-{num}" pts";{num}" pts"'
    if kind == "margin":
        return f'{num}" pts"'
    if kind == "score_diff":
        return f"+{num};-{num};{num}"
    return num
