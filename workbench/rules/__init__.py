"""Release rules, the decision card and the gate: "set the bar before the run".

A release rule (a TOML file; format in :mod:`workbench.rules.spec`) is written before the
results are seen.  :func:`evaluate` judges each of its conditions on the loaded INPUT tables
and returns the decision card as an :class:`~workbench.core.result.AnalysisResult` with
``analysis="gate"``, so the command line, the GUI and the Excel report render the same
numbers.  Nothing here imports Qt.

API
===

* :func:`load_rule` (path) / :func:`parse_rule` (text) -> :class:`Rule`; problems raise
  :class:`RuleError` (a :class:`~workbench.core.errors.WorkbenchError`: one sentence naming the
  file, line, key and value).  ``Rule.sha256`` is the SHA-256 of the rule text;
  ``Rule.describe()`` gives one sentence per condition for a pre-registration view.
* :func:`evaluate` (rule, tables, rule_changed_after_results=False, progress) -> the card.
  Records: ``verdict`` (PASS / FAIL / INCONCLUSIVE), ``rule_changed_after_results`` (bool), then
  one record per condition (``metric`` = the condition's metric, ``value`` = observed, ``ci_low``,
  ``ci_high``, ``n``, ``from``/``to`` = baseline/candidate, or ``system`` for an absolute bar).
  Tables: ``card`` (columns :data:`CARD_COLUMNS`), ``items`` (the eval-set check: ids scored by
  each system, missing, added, common) and ``rule`` (name, file, sha256, ..., the text).
* :func:`card_rows` (display strings per condition), :func:`render_text`, :func:`to_json_dict`,
  :func:`verdict_of`, :func:`exit_code` (0 PASS, 1 FAIL, 3 INCONCLUSIVE).

Verdict semantics
=================

Every condition is judged on a two-sided interval at level ``1 - alpha`` (95% by default) of
its observed value ``x`` -- ``[L, U]`` -- and, for paired conditions, a two-sided test at
``alpha`` whose p-value is Holm-adjusted over the rule's tests (``multiplicity = "holm"``).

*No drop beyond a margin* (``max_drop = m``; the limit is ``-m``; ``bound = "lower"``):

* PASS if ``L >= -m``: a drop larger than allowed is ruled out.  No significant *gain* is
  required -- the rule does not ask for one.  When the gain is not significant the card says
  so ("do not report the gain as an improvement").
* FAIL if ``U < -m`` (surely worse than allowed), or if the rule's test finds a significant
  difference (adjusted ``p < alpha``) in the worse direction *and* the observed drop is beyond
  the margin (``x < -m``).  A significant drop *within* the margin is allowed by the rule.
* INCONCLUSIVE otherwise (the interval contains ``-m``).

*A required gain* (``min_gain = g``; the limit is ``g``):

* PASS if ``L > g`` and the rule's test is significant in the better direction (both must
  agree; with ``test = "none"`` the interval alone).
* FAIL if ``U < g`` (surely short of the gain), or if the test finds a significant difference in
  the worse direction (``x < 0``).
* INCONCLUSIVE otherwise -- including an interval above ``g`` with a test that is not
  significant ("borderline").

*A ceiling* (``max = c`` on the candidate's value, or ``max_increase = r`` on its relative
change over the baseline; ``bound = "upper"``): PASS if ``U <= limit``, FAIL if ``L > limit``,
INCONCLUSIVE otherwise.

``bound = "point"`` judges the observed value alone (PASS or FAIL).  A value that cannot be
computed (no success, no common item) is INCONCLUSIVE.  The rule's verdict is FAIL if any
condition fails, else INCONCLUSIVE if any is inconclusive, else PASS.

The seed's 14-to-5 case (200 items: 14 wins, 5 losses, 181 ties; +4.5 points, 95% interval
about [+0.3, +8.7]; exact sign test p = 0.064) under "success must not drop by more than 1
point, exact sign test" is PASS: a drop of more than a point is ruled out, and the card notes
that the gain is not significant and must not be reported as an improvement.  The same data
under "success must improve" (``min_gain = 0``, sign test) is INCONCLUSIVE -- the seed's
"borderline: neither ship-because-p<0.05 nor no effect".

What else the card says
=======================

* Inconclusive paired comparison: about how many more items would detect the rule's margin
  (or, with a zero threshold, the observed difference) at the observed discordance,
  ``n = d (2.8 / mde)^2`` (ranking: ``n = (2.8 sd / mde)^2`` over queries).
* Several comparisons: "With N comparisons expect about N x alpha false positives", and the
  Holm-adjusted p-values the verdicts use.
* Eval-set check: when the baseline and candidate were scored on different item (or query) ids,
  the counts of missing and added ids, and the comparison on the common ids only.
* ``rule_changed_after_results=True``: "rule changed after results were seen" on every card row,
  in the notes, in the ``rule`` table and as a record.
"""

from __future__ import annotations

from .card import card_rows, exit_code, render_text, rule_changed, to_json_dict, verdict_of
from .evaluate import CARD_COLUMNS, CHANGED_NOTE, EXIT_CODES, evaluate
from .outcome import FAIL, INCONCLUSIVE, PASS
from .verdict import holm, judge, overall
from .spec import Condition, Rule, RuleError, load_rule, parse_rule

#: A starting point for a new rule (the GUI's "new rule" text).
TEMPLATE = '''\
# Release rule: written before the results are seen.
[rule]
name = "candidate release"
baseline = "v1"             # system names (long form) or column names (wide form)
candidate = "v2"
alpha = 0.05

[data]
item = "item_id"
system = "system"
outcome = "success"

[[condition]]
metric = "success"          # paired difference of success rates
max_drop = 0.01             # must not drop by more than 1 point ...
bound = "lower"             # ... judged on the lower bound of the 95% interval
interval = "bootstrap"
test = "sign"               # exact sign test, chosen in advance
resamples = 10000
seed = 12345
'''

__all__ = [
    "CARD_COLUMNS", "CHANGED_NOTE", "Condition", "EXIT_CODES", "FAIL", "INCONCLUSIVE", "PASS",
    "Rule", "RuleError", "TEMPLATE", "card_rows", "evaluate", "exit_code", "holm", "judge",
    "load_rule", "overall", "parse_rule", "render_text", "rule_changed", "to_json_dict",
    "verdict_of",
]
