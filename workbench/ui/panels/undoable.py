"""Undo for a panel's form: what the user changes becomes one step of the window's history.

The panel remembers the state of its fields as the program last set it (a new file, a session,
choices refilled from the data: everything done under ``_loading``).  A change the user makes
is compared with that state and handed to the window's history as a :class:`FormStep`;
undoing it puts the fields back as if the user had set them (the panel's own reactions run:
Compare refills its systems), so the panel runs again and the answer follows the settings.
Every panel gets this from its base class, whatever its fields.
"""

from __future__ import annotations

import time

from PySide6.QtGui import QUndoCommand

from .fields import field_state, set_value

#: spin-box steps on one field closer together than this (seconds) are one undo step
MERGE_SECONDS = 2.0
_FORM_STEP_ID = 4801


class FormHistory:
    """Mixed into :class:`~workbench.ui.panels.base.AnalysisPanel` (which declares the
    ``edit_made`` signal and calls :meth:`_edit_started` first on every field's change)."""

    @property
    def _loading(self) -> bool:
        return self.__dict__.get("_loading_now", False)

    @_loading.setter
    def _loading(self, on: bool) -> None:
        self.__dict__["_loading_now"] = on
        if not on:  # the program set the fields: that is the state a user's change starts from
            self._commit_form()

    def form_state(self) -> dict[str, tuple]:
        """Each field's (value, shown text)."""
        return {name: field_state(ctl) for name, ctl in getattr(self, "_controls", {}).items()}

    def _commit_form(self) -> None:
        self.__dict__["_committed_form"] = self.form_state()

    def _edit_started(self, *_args) -> None:
        """The first slot of every field's change: the state before it is the committed one
        (a panel's own reaction may refill other fields before :meth:`_record_edit`)."""
        if not self._loading and self.__dict__.get("_edit_before") is None:
            self.__dict__["_edit_before"] = self.__dict__.get("_committed_form") or {}

    def _record_edit(self) -> None:
        """Called from ``_changed`` (a user's change): hand the difference to the history."""
        before = self.__dict__.pop("_edit_before", None)
        if before is None:
            before = self.__dict__.get("_committed_form") or {}
        after = self.form_state()
        self.__dict__["_committed_form"] = after
        if self.__dict__.get("_replaying"):
            return
        changed = tuple(n for n in after if n in before and before[n][0] != after[n][0])
        if changed:
            self.edit_made.emit(FormStep(self, before, after, changed))

    def _record_typing(self) -> None:
        """A pause in typing runs the panel (its debounce): what was typed is then a step too,
        before Enter or leaving the field confirms it."""
        if not self._loading and not getattr(self, "closed", False):
            self._record_edit()

    def apply_form_state(self, state: dict[str, tuple]) -> None:
        """Put the fields back to ``state`` (undo/redo), in the form's order, as a user would:
        the panel reacts and runs, and no new step is recorded."""
        self.__dict__["_replaying"] = True
        try:
            changed = False
            for name, ctl in self._controls.items():
                if name in state and field_state(ctl)[0] != state[name][0]:
                    set_value(ctl, state[name][0])
                    changed = True
            if changed:  # a text or file field says nothing when set: the panel runs from here
                self._changed()
        finally:
            self.__dict__["_replaying"] = False
            self.__dict__.pop("_edit_before", None)
        self._commit_form()
        self._update_visibility()

    def field_label(self, name: str) -> str:
        return self._controls[name].spec.label


class FormStep(QUndoCommand):
    """A change of one or more fields of a panel: "Cut-offs k 1,3,5 -> 1,2,4 (Ranking)"."""

    def __init__(self, panel, before: dict, after: dict, changed: tuple[str, ...]) -> None:
        super().__init__()
        self.panel, self.before, self.after, self.changed = panel, before, after, changed
        self.at = time.monotonic()
        self._done = True  # pushed after the change was made: the first redo does nothing
        self._name()

    def _name(self) -> None:
        parts = [f"{self.panel.field_label(n)} {self.before[n][1]} -> {self.after[n][1]}"
                 for n in self.changed[:2]]
        more = f" and {len(self.changed) - 2} more" if len(self.changed) > 2 else ""
        self.setText(f"{'; '.join(parts)}{more} ({self.panel.module.TITLE})")

    def id(self) -> int:  # noqa: A003 - Qt's name
        return _FORM_STEP_ID

    def mergeWith(self, other) -> bool:  # noqa: N802 - Qt's name
        """Steps of one spin box in quick succession (arrow keys, typing digits) are one."""
        if not isinstance(other, FormStep) or other.panel is not self.panel \
                or other.changed != self.changed or len(self.changed) != 1 \
                or other.at - self.at > MERGE_SECONDS:
            return False
        kind = self.panel._controls[self.changed[0]].spec.kind
        if kind not in ("int", "float"):
            return False
        self.after, self.at = other.after, other.at
        self._name()
        if self.before[self.changed[0]][0] == self.after[self.changed[0]][0]:
            self.setObsolete(True)  # back where it started: no step
        return True

    def undo(self) -> None:
        self.panel.apply_form_state(self.before)

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.panel.apply_form_state(self.after)


__all__ = ["MERGE_SECONDS", "FormHistory", "FormStep"]
