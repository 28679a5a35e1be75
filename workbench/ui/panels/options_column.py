"""A panel's options column: its title, the form of its fields, Run now and its own actions,
in a scroll area that never widens the window."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QGroupBox, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from .fields import make_control


def build_options_column(panel) -> QScrollArea:
    """The column, its form in ``panel.form``, its controls in ``panel._controls``, its button in
    ``panel.run_button`` and the scroll area in ``panel.options_scroll``."""
    form_box = QWidget()
    form_layout = QVBoxLayout(form_box)
    title = QLabel(f"<b>{panel.module.TITLE}</b>")
    form_layout.addWidget(title)
    group = QGroupBox("Options and conventions")
    panel.form = QFormLayout(group)
    panel.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    # a narrow options column puts each field under its label instead of widening the window
    panel.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    for spec in panel.FIELDS:
        ctl = make_control(spec, panel._changed, panel._update_visibility, panel._debounce.start,
                           started=panel._edit_started)
        panel.form.addRow(ctl.row_label, ctl.widget)
        panel._controls[spec.name] = ctl
    form_layout.addWidget(group)
    panel.run_button = QPushButton("Run now")
    panel.run_button.setObjectName("runButton")
    panel.run_button.setToolTip("Results update by themselves when an option changes.")
    panel.run_button.setAccessibleName(f"Run {panel.module.TITLE.lower()} now")
    panel.run_button.setAccessibleDescription("Results update by themselves when an option changes; "
                                             "this runs the analysis again at once.")
    panel.run_button.clicked.connect(panel.run_now)
    form_layout.addWidget(panel.run_button)
    for widget in panel.extra_actions():
        form_layout.addWidget(widget)
    form_layout.addStretch(1)
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setWidget(form_box)
    scroll.setMinimumWidth(240)  # fit_options_width widens it to its fields
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    panel.options_scroll = scroll
    return scroll


__all__ = ["build_options_column"]
