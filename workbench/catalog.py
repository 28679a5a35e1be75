"""The one list of the workbench's analyses: what each is called and where its parts live.

Every place that lists analyses reads this catalogue: the command line (its subcommands and
their help), the window (tabs, the View menu and its shortcuts, the landing panel), the report
(the denominator's word and the per-item sheets), the self-test (one example each) and the
no-display sentence.  Adding an analysis is one entry here plus its parts (see CONTRIBUTING.md):

- ``workbench/analyses/NAME.py``: ``NAME``, ``TITLE``, a frozen ``Options`` and ``run``;
- ``workbench/cli/flags.py``: a function ``NAME(parser)`` adding its flags;
- ``workbench/ui/panels/NAME.py``: the declarative panel class named in ``panel``;
- an example file in ``resources/examples`` listed in ``workbench/ui/examples.py``.

This module imports nothing of the workbench (the parts are named as text and imported when
needed), so anything may read it cheaply: the launcher reads it before Qt or pandas load.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Analysis:
    #: the analysis's name: the subcommand, the report's key, ``analyses/NAME.py``
    name: str
    #: the tab's title ("&&" shows one "&")
    tab: str
    #: the subcommand's one-line help
    help: str
    #: the panel's class in ``workbench/ui/panels/NAME.py``
    panel: str
    #: the word for the denominator of its headline numbers
    unit: str = "items"
    #: tables written on a report sheet of their own (the per-item tables)
    item_tables: frozenset[str] = frozenset()
    #: False for an analysis that reads no file (planning)
    reads_input: bool = True
    #: True when the rows it reads are items: an item's repeats (epochs, --repeat) are reduced
    #: to one row per item first (:mod:`workbench.analyses.reading`); False when it reads tries
    #: (pass@k, repeats), requests (cost) or records (judge, text, ranking)
    items_as_rows: bool = False
    #: False when it reads no scorer's values (text and ranking score their own columns; the
    #: judge and the rubric read labels and criteria)
    scored: bool = True

    @property
    def module_path(self) -> str:
        return f"workbench.analyses.{self.name}"

    def module(self):
        """The analysis module (``Options``, ``run``)."""
        return importlib.import_module(self.module_path)

    def panel_class(self):
        """The panel class (imports Qt)."""
        return getattr(importlib.import_module(f"workbench.ui.panels.{self.name}"), self.panel)


#: In the order of the tabs, the View menu and the command line's help.
ANALYSES: tuple[Analysis, ...] = (
    Analysis("text", "Text", "exact match, token F1, BLEU, chrF, ROUGE", "TextPanel",
             item_tables=frozenset({"items"}), scored=False),
    Analysis("ranking", "Ranking", "P@k, R@k, hit@k, nDCG@k, MRR@k, MRR, MAP", "RankingPanel",
             unit="queries", item_tables=frozenset({"queries"}), scored=False),
    Analysis("passk", "pass@k", "unbiased pass@k and pass^k", "PassKPanel", unit="tasks",
             item_tables=frozenset({"tasks"})),
    Analysis("aggregate", "Aggregation", "micro vs macro, pooled vs mean of ratios, Simpson",
             "AggregatePanel", item_tables=frozenset({"units"}), items_as_rows=True),
    Analysis("compare", "Compare", "paired significance of two systems", "ComparePanel",
             unit="paired items", item_tables=frozenset({"discordant"}), items_as_rows=True),
    Analysis("cost", "Cost && latency", "cost per success, marginal cost, latency percentiles",
             "CostPanel", unit="requests", item_tables=frozenset({"latency_ecdf"})),
    Analysis("plan", "Planning", "interval half-width, MDE, per-try rate (no input file)",
             "PlanPanel", reads_input=False, scored=False),
    Analysis("judge", "Judge", "agreement of a judge with people: kappa, AC1, alpha, corrected "
             "pass rate", "JudgePanel", unit="labelled items", item_tables=frozenset({"disagreements"}),
             scored=False),
    Analysis("rubric", "Rubric", "weighted yes/no criteria: score, pass rate per criterion, what "
             "moved it", "RubricPanel", item_tables=frozenset({"items"}), scored=False, items_as_rows=True),
    Analysis("runs", "Runs", "many runs side by side: items gained and lost, tie groups",
             "RunsPanel", item_tables=frozenset({"grid"}), items_as_rows=True),
    Analysis("repeats", "Repeats", "repeated tries of the same items: flips and the model's own "
             "noise", "RepeatsPanel", item_tables=frozenset({"items"})),
    Analysis("slices", "Slices", "where the candidate wins and loses: paired differences per slice, "
             "adjusted, with heterogeneity and shrinkage", "SlicesPanel", unit="paired items",
             items_as_rows=True),
)

BY_NAME: dict[str, Analysis] = {a.name: a for a in ANALYSES}


def names(*, reads_input: bool | None = None) -> tuple[str, ...]:
    """The analyses' names in catalogue order (only those that read a file, or only those that
    do not, when asked)."""
    return tuple(a.name for a in ANALYSES if reads_input is None or a.reads_input == reads_input)


__all__ = ["ANALYSES", "BY_NAME", "Analysis", "names"]
