"""The bridge from the GUI to the one presentation policy (``workbench.report.present``):
answer sentences, display names and number formats.  The GUI never formats a float itself."""

from __future__ import annotations

try:  # the policy module arrives with the "present" branch
    from ..report import present as _present
except ImportError:  # pragma: no cover - until it is merged
    _present = None


def available() -> bool:
    return _present is not None


def answer(result, currency: str | None = None):
    """The panel's answer (``sentences``, ``badge``, ``tone``), or None without a policy."""
    if _present is None or result is None:
        return None
    return _present.answer(result, currency=currency or None)
