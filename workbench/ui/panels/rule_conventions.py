"""The Release rule panel's "Conventions": the rule judged again under each convention its
conditions state, one changed at a time (:mod:`workbench.rules.conventions`, as
``workbench gate --conventions``), shown as a table under the decision card with its sentence."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton

from ..models import FrameModel
from ..widgets import TableView

TOOLTIP = ("Judge the rule again under each alternative convention its conditions state (ranking "
           "gain, ties, no-relevant and unjudged policies, relevance threshold; latency percentile "
           "method), one changed at a time, and say whether the verdict holds under each.")


def button(on_click) -> QPushButton:
    out = QPushButton("Conventions")
    out.setObjectName("ruleConventions")
    out.setToolTip(TOOLTIP)
    out.clicked.connect(lambda: on_click())
    return out


def view() -> TableView:
    """The verdict under each convention (hidden until a result has them)."""
    out = TableView(FrameModel())
    out.setObjectName("ruleConventionsTable")
    out.setVisible(False)
    return out


def job(rule, tables, changed: bool, reading=None):
    """The worker's job: the rule evaluated, then judged under each convention."""
    from ...core.progress import Scaled
    from ...rules import evaluate
    from ...rules.conventions import with_conventions

    def run(progress):
        result = evaluate(rule, tables, rule_changed_after_results=changed,
                          progress=Scaled(progress, 0.0, 0.2), reading=reading)
        return with_conventions(rule, tables, result, Scaled(progress, 0.2, 1.0), reading=reading)

    return run


def show(table_view: TableView, result) -> str | None:
    """Fill the view from the result's conventions table and return its sentence; None (the
    view hidden) for a result without one."""
    import pandas as pd

    from ...analyses.conventions import TABLE
    from ...rules.conventions import verdict_sentence

    try:
        frame = result.table(TABLE).frame
    except KeyError:
        clear(table_view)
        return None
    shown = frame.assign(holds=frame["holds"].map(lambda h: "yes" if bool(h) else "NO"))
    table_view.frame_model().set_frame(
        pd.DataFrame(shown[["convention", "value", "holds"]]),
        headers={"convention": "Convention", "value": "Verdict", "holds": "Holds"})
    table_view.fit_columns()
    table_view.setVisible(True)
    return verdict_sentence(frame)


def clear(table_view: TableView) -> None:
    import pandas as pd

    table_view.frame_model().set_frame(pd.DataFrame())
    table_view.setVisible(False)
