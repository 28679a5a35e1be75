"""The declarative form of a panel: a :class:`Field` per option, the widget that edits it,
and the reading and writing of its value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QAbstractSpinBox, QCheckBox, QComboBox, QDoubleSpinBox, QFileDialog, QHBoxLayout,
                               QLabel, QLineEdit, QPushButton, QSpinBox, QWidget)

AUTO = "(automatic)"
NONE = "(none)"


@dataclass(frozen=True)
class Field:
    """One control of a panel's form."""

    name: str                      # the Options field it sets (or a panel-only setting)
    label: str
    kind: str                      # column | choice | bool | int | float | cutoffs | file | text
    tooltip: str = ""
    roles: tuple[str, ...] = ()    # column: roles that fill it automatically
    choices: tuple[tuple[str, str], ...] = ()  # choice: (value, label)
    minimum: float = 0
    maximum: float = 1_000_000
    decimals: int = 3
    step: float = 1
    forms: tuple[str, ...] = ()    # shown only when the panel's "form" is one of these
    optional: bool = True          # column: may be left empty
    default: Any = None            # panel-only settings


@dataclass
class _Control:
    spec: Field
    widget: QWidget
    row_label: QLabel


@dataclass
class Control:
    spec: Field
    widget: QWidget
    row_label: QLabel


def make_control(spec: Field, changed, choice_changed, text_edited, started=None) -> "Control":
    """The widget of one field and its label; ``changed`` is called when the user changes it,
    ``choice_changed`` when a choice is made (the form may show other fields), ``text_edited``
    at each keystroke of a text field; ``started``, if given, before any other slot of a change
    (the state before it is the one an undo step goes back to)."""
    def on_change(signal) -> None:
        if started is not None:
            signal.connect(started)  # connected first: Qt calls slots in connection order
        signal.connect(changed)

    tip = spec.tooltip
    if spec.kind == "column":
        w = combo()
        on_change(w.currentIndexChanged)
    elif spec.kind == "choice":
        w = combo()
        for value, label in spec.choices:
            w.addItem(label, value)
        if spec.default is not None:
            w.setCurrentIndex(max(0, w.findData(spec.default)))
        on_change(w.currentIndexChanged)
        w.currentIndexChanged.connect(choice_changed)
    elif spec.kind == "bool":
        w = QCheckBox()
        on_change(w.toggled)
    elif spec.kind == "int":
        w = QSpinBox()
        w.setRange(int(spec.minimum), int(spec.maximum))
        w.setSingleStep(int(spec.step))
        w.setGroupSeparatorShown(True)
        on_change(w.valueChanged)
    elif spec.kind == "float":
        w = QDoubleSpinBox()
        w.setRange(spec.minimum, spec.maximum)
        w.setDecimals(spec.decimals)
        w.setSingleStep(spec.step)
        on_change(w.valueChanged)
    elif spec.kind in ("cutoffs", "text"):
        w = QLineEdit()
        on_change(w.editingFinished)
        w.textEdited.connect(lambda _t: text_edited())
    elif spec.kind == "file":
        w = FileField()
        on_change(w.changed)
    else:  # pragma: no cover - a programming error in a panel
        raise ValueError(spec.kind)
    w.setToolTip(tip)
    w.setObjectName(spec.name)
    w.setProperty("optionField", True)  # the window's keys work from inside it (ui/keys.py)
    w.setAccessibleName(spec.label)  # what a screen reader says on arriving in the field
    w.setAccessibleDescription(tip or spec.label)
    label = QLabel(spec.label)
    label.setToolTip(tip)
    label.setBuddy(w)
    if isinstance(w, FileField):
        w.name_parts(spec.label)
    return Control(spec, w, label)


def value_of(ctl: "Control", auto_column):
    """The value a control holds (a column left automatic: ``auto_column(spec)``)."""
    spec, w = ctl.spec, ctl.widget
    if spec.kind == "column":
        chosen = w.currentData()
        return chosen if chosen is not None else auto_column(spec)
    if spec.kind == "choice":
        return w.currentData()
    if spec.kind == "bool":
        return w.isChecked()
    if spec.kind == "int":
        return int(w.value())
    if spec.kind == "float":
        return float(w.value())
    if spec.kind == "cutoffs":
        return w.text().strip()
    if spec.kind == "text":
        text = w.text().strip()
        return text or None
    if spec.kind == "file":
        return w.path() or None
    raise ValueError(spec.kind)  # pragma: no cover


def field_state(ctl: "Control") -> tuple[Any, str]:
    """What a control holds, as an undo step remembers it: (its value as :func:`set_value`
    takes it back, the text the user sees).  A column left automatic is None."""
    spec, w = ctl.spec, ctl.widget
    if spec.kind in ("column", "choice"):
        return w.currentData(), w.currentText()
    if spec.kind == "bool":
        return w.isChecked(), "on" if w.isChecked() else "off"
    if spec.kind in ("int", "float"):
        return w.value(), w.text()
    if spec.kind in ("cutoffs", "text"):
        return w.text(), w.text() or "(empty)"
    if spec.kind == "file":
        return w.path(), (w.path().replace("\\", "/").rsplit("/", 1)[-1] or "none")
    raise ValueError(spec.kind)  # pragma: no cover


def set_value(ctl: "Control", value) -> None:
    """Show ``value`` in the control (a column not in the data is added as a choice)."""
    spec, w = ctl.spec, ctl.widget
    if spec.kind in ("column", "choice"):
        idx = w.findData(value)
        if idx < 0 and spec.kind == "column" and value is not None:
            w.addItem(str(value), value)
            idx = w.count() - 1
        w.setCurrentIndex(max(idx, 0))
    elif spec.kind == "bool":
        w.setChecked(bool(value))
    elif spec.kind in ("int", "float"):
        if value is not None:
            w.setValue(value)
    elif spec.kind == "cutoffs":
        w.setText(",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value))
    elif spec.kind == "text":
        w.setText("" if value is None else str(value))
    elif spec.kind == "file":
        w.set_path(value or "")


#: the reading's flags, set in the window by the 'What this file holds' dock, with their values
_READING_FLAGS = (
    (r"--errors (?:exclude\|fail|exclude|fail)\b", "the 'Errors' choice of 'What this file holds'"),
    (r"--scorer (?:NAME\b|'[^']*'|\S+)", "the 'Scorer' choice of 'What this file holds'"),
)


def _column_flags() -> frozenset:
    """Flags that name a column by its role (``--error``, ``--tokens``): set in the Columns dock."""
    from ...io.evaluation import USAGE_KEYS
    from ...io.roles import ROLE_NAMES

    return frozenset(ROLE_NAMES) | frozenset(USAGE_KEYS) | {"error", "tokens", "annotator", "limit"}


def gui_words(text: str, labels: dict[str, str]) -> str:
    """A sentence of the engine (shared with the command line) in the window's words: a
    command-line flag (``--relevance``) becomes the option on the left that sets it; the
    reading's (``--scorer``, ``--errors``) the choice of the reading dock."""
    import re

    if "--" not in text:
        return text
    for pattern, words in _READING_FLAGS:
        text = re.sub(pattern, words, text)

    def option(match) -> str:
        name = match.group(1).replace("-", "_")
        label = labels.get(name)
        if label:
            return f"the '{label}' option on the left"
        if name in _column_flags():  # a column's role the panel has no option for: the Columns dock
            return "the column's 'Taken as' choice in the Columns dock"
        return match.group(0)

    return re.sub(r"(?<![\w-])--([a-z][a-z0-9-]*)", option, text) if "--" in text else text


def combo() -> QComboBox:
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(10)
    return combo


class FileField(QWidget):
    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("none")
        self.edit.editingFinished.connect(self.changed)
        browse = QPushButton("…")
        browse.setFixedWidth(32)
        browse.clicked.connect(self._browse)
        clear = QPushButton("×")
        clear.setFixedWidth(28)
        clear.clicked.connect(lambda: (self.edit.clear(), self.changed.emit()))
        self.browse_button, self.clear_button = browse, clear
        layout.addWidget(self.edit, 1)
        layout.addWidget(browse)
        layout.addWidget(clear)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Judgments (qrels) file", "",
                                              "Tables (*.csv *.tsv *.txt *.xlsx *.parquet);;All files (*)")
        if path:
            self.edit.setText(path)
            self.changed.emit()

    def name_parts(self, label: str) -> None:
        """Accessible names of the path, the browse button and the clear button."""
        self.setFocusProxy(self.edit)
        self.edit.setAccessibleName(label)
        self.edit.setAccessibleDescription(f"The path of the {label.lower()}; empty: none.")
        self.browse_button.setAccessibleName(f"Choose the {label.lower()}…")
        self.browse_button.setToolTip(f"Choose the {label.lower()}")
        self.clear_button.setAccessibleName(f"No {label.lower()}")
        self.clear_button.setToolTip(f"Clear the {label.lower()}")

    def path(self) -> str:
        return self.edit.text().strip()

    def set_path(self, path: str) -> None:
        self.edit.setText(path)


def fit_options_width(panel) -> None:
    """The options column as wide as its labels and its widest choice (a combo's closed
    text is never cut: "(automatic): quer"), up to a third of the window; the splitter gives it
    that room and the results the rest."""
    fm = panel.fontMetrics()
    label_w = label_short = field_w = 0
    for ctl in panel._controls.values():
        label_w = max(label_w, fm.horizontalAdvance(ctl.row_label.text()))
        # where room is short a long label goes above its field (the form wraps long rows)
        label_short = max(label_short, min(fm.horizontalAdvance(ctl.row_label.text()),
                                           fm.averageCharWidth() * 22))
        w = ctl.widget
        if isinstance(w, QComboBox):
            texts = [w.itemText(i) for i in range(w.count())] or [""]
            need = max(fm.horizontalAdvance(t) for t in texts) + 52  # frame and arrow
        elif isinstance(w, QAbstractSpinBox):
            need = w.sizeHint().width()
        else:
            need = 0
        field_w = max(field_w, need)
    window = panel.window().width() if panel.window() is not None else 0
    cap = max(320, int(window * 0.34)) if window > 400 else 440
    want = label_w + field_w + 70  # form spacing, group box and scroll margins
    if want > cap:
        want = label_short + field_w + 70
    width = max(300, min(want, cap))
    panel.options_scroll.setMinimumWidth(width)
    sizes = panel.splitter.sizes()
    if len(sizes) == 2 and sum(sizes) > 0 and sizes[0] < width:
        panel.splitter.setSizes([width, max(200, sum(sizes) - width)])
