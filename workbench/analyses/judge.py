"""Can we trust the grader?  A judge's labels against people's labels, and its biases.

Input: one row per item with the judge's label and one or more human labels (blank where
nobody labelled); labels are binary (pass/fail), categories or ordinal grades.  Labels are the
cells' exact text, like ids: "PASS" and "Pass " are two labels (a note names such near-twins).

Output: raw agreement, Cohen's kappa with its asymptotic SE and interval (and linear and
quadratic weighted kappa for ordinal labels), Gwet's AC1 and PABAK beside it, Krippendorff's
alpha over the judge and the people and over the people alone, the confusion matrix and the
disagreeing items; for pass/fail labels the judge's sensitivity and specificity, its pass rate
and that rate corrected for its errors (:func:`workbench.metrics.agreement.corrected_rate`);
with a column of verdicts on the swapped pair, position bias; with the two answers' lengths,
length bias.  Agreement is measured against the first human column ("the people").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import format_value, plural
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..core.role_names import HUMAN_BESIDE_JUDGE, ROLE_NAMES, human_column
from ..io import LoadedTable, require_columns, to_float, to_text
from ..metrics import agreement as ag
from ..metrics.intervals import SMALL_N, proportion_interval, rate_interval_method
from ._common import ITEM_NAMES, base_signature, check_unique, pick_column, in_memory

NAME = "judge"
TITLE = "Judge"
LEVELS = ("auto",) + ag.LEVELS

JUDGE_NAMES = tuple(ROLE_NAMES["judge"])  # the reading's names: one judge column for every panel
#: the people's label's names (the reading's): beside the judge's column a plain ``label`` or
#: ``gold`` too; never a column naming who labelled (``annotator``, ``rater``: the annotator role)
HUMAN_NAMES = (*ROLE_NAMES["human"], *HUMAN_BESIDE_JUDGE)
POSITIVE_WORDS = ("pass", "passed", "yes", "y", "true", "t", "1", "correct", "good", "accept",
                  "accepted", "ok", "c")
NEGATIVE_WORDS = ("fail", "failed", "no", "n", "false", "f", "0", "incorrect", "bad", "reject",
                  "rejected", "i")
#: raw agreement at least this high with kappa below ``PARADOX_KAPPA``: the kappa paradox note
PARADOX_AGREEMENT, PARADOX_KAPPA = 0.8, 0.4


@dataclass(frozen=True)
class Options:
    item: str | None = None
    judge: str | None = None
    #: human label columns; the first is the one agreement and correction use
    human: tuple[str, ...] | None = None
    #: the label that means "pass" (exact text); guessed from pass/yes/true/1/correct...
    positive: str | None = None
    #: auto | nominal | ordinal | interval (auto: ordinal when every label is a number and
    #: there are more than two, else nominal)
    level: str = "auto"
    #: the judge's verdicts (A or B) with the two answers shown in the other order
    swap_judge: str | None = None
    #: the lengths of answers A and B (length bias)
    length_a: str | None = None
    length_b: str | None = None
    #: the first human column is the majority of the others (each annotator's column, set by the
    #: reading: people's labels by annotator): agreement's reference, left out of Krippendorff's
    #: alpha, which is over the annotators themselves (a majority of them would count them twice)
    majority: bool = False


def check_options(options: Options) -> None:
    if options.level not in LEVELS:
        raise OptionError(f"`level` must be one of {', '.join(LEVELS)}; got level={options.level!r}.")
    if (options.length_a is None) != (options.length_b is None):
        raise OptionError("Length bias needs both --length-a and --length-b.")


def _as_number(label: str):
    try:
        value = float(label)
    except ValueError:
        return None
    return value if np.isfinite(value) else None


def _categories(labels: list[str], positive: str | None) -> tuple[list[str], bool]:
    """The categories in order, and whether they are numbers (numeric order)."""
    nums = [_as_number(x) for x in labels]
    if labels and all(v is not None for v in nums):
        return [x for _, x in sorted(zip(nums, labels))], True
    if positive is not None and len(labels) == 2 and positive in labels:
        return [x for x in labels if x != positive] + [positive], False
    return sorted(labels), False


def _near_twins(labels: list[str]) -> list[list[str]]:
    """Labels that differ only in case or surrounding spaces ("PASS", "Pass ")."""
    groups: dict[str, list[str]] = {}
    for x in labels:
        groups.setdefault(x.strip().casefold(), []).append(x)
    return [sorted(g) for g in groups.values() if len(g) > 1]


def _guess_positive(labels: list[str]) -> str | None:
    if len(labels) != 2:
        return None
    pos = [x for x in labels if x.strip().casefold() in POSITIVE_WORDS]
    neg = [x for x in labels if x.strip().casefold() in NEGATIVE_WORDS]
    if len(pos) == 1 and len(neg) == 1 and pos[0] != neg[0]:
        return pos[0]
    return None


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    in_memory(table, TITLE)
    check_options(options)
    notes: list[str] = []
    judge_col = pick_column(table, options.judge, "judge", "--judge", notes, names=JUDGE_NAMES)
    humans = [options.human] if isinstance(options.human, str) else list(options.human or ())
    for col in humans:
        require_columns(table, [col])
    bias_only = options.swap_judge is not None or options.length_a is not None
    if not humans:
        named = human_column([str(c) for c in table.frame.columns], judge_col)
        guess = pick_column(table, None, "human label", "--human", notes, names=(named,) if named else (),
                            required=not bias_only)
        humans = [guess] if guess and guess != judge_col else []
    if judge_col in humans:
        raise OptionError("The judge column cannot also be a human label column.")
    item_col = pick_column(table, options.item, "item", "--item", notes, names=ITEM_NAMES, required=False)
    n_rows = len(table.frame)
    if item_col:
        check_unique(table, [item_col], "item id")
        items = to_text(table, item_col)
    else:
        items = [f"line {x}" for x in table.lines_of(range(n_rows))]
    lines = table.lines_of(np.arange(n_rows))
    judge = to_text(table, judge_col)
    records: list[dict] = []
    tables: list[Table] = []
    sig = base_signature(NAME)
    sig.update({"judge": "column", "labels": "exact-text"})
    progress.advance(0.1, "agreement")
    if humans:
        _agreement(table, options, judge_col, humans, judge, items, lines, records, tables, notes, sig)
    if options.swap_judge is not None:
        _position_bias(table, judge_col, options.swap_judge, judge, records, tables, notes, sig)
    if options.length_a is not None:
        _length_bias(table, judge_col, options, judge, records, notes, sig)
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), table.path,
                          json_tables=tuple(t.name for t in tables if t.name in ("confusion", "disagreements")))


def _agreement(table, options, judge_col, humans, judge, items, lines, records, tables, notes, sig):
    human_text = [to_text(table, c) for c in humans]
    first = human_text[0]
    all_labels = sorted({x for x in judge if x != ""} | {x for col in human_text for x in col if x != ""})
    if options.positive is not None and options.positive not in all_labels:
        raise DataError(f"File '{table.name}': no judge or human label is '{options.positive}' (--positive); "
                        f"the labels are: {', '.join(repr(x) for x in all_labels[:12])}.")
    for twins in _near_twins(all_labels):
        where = [str(lines[i]) for i, x in enumerate(judge) if x in twins[1:]][:3]
        for col in human_text:
            where += [str(lines[i]) for i, x in enumerate(col) if x in twins[1:]][:3 - len(where)]
        notes.append(f"Labels {', '.join(repr(x) for x in twins)} differ only in case or spaces; they are "
                     f"kept apart as labels of their own (labels are exact text; e.g. line "
                     f"{', '.join(where[:3])}). Correct the file if they mean the same.")
    positive = options.positive or _guess_positive(all_labels)
    cats, numeric = _categories(all_labels, positive)
    level = options.level
    if level == "auto":
        level = "ordinal" if numeric and len(cats) > 2 else "nominal"
        _note_grades_read_as_nominal(table, cats, numeric, judge, human_text, lines, notes)
    if level != "nominal" and not numeric:
        raise DataError(f"File '{table.name}': the {level} level needs labels that are numbers (grades such as "
                        f"1-5), so that their order is known; the labels are: "
                        f"{', '.join(repr(x) for x in cats[:12])}.")
    code = {c: i for i, c in enumerate(cats)}
    j_codes = np.array([code.get(x, -1) for x in judge])
    h_codes = np.array([code.get(x, -1) for x in first])
    both = (j_codes >= 0) & (h_codes >= 0)
    n = int(both.sum())
    n_judge = int((j_codes >= 0).sum())
    blank_judge = len(judge) - n_judge
    unlabelled = int(((j_codes >= 0) & (h_codes < 0)).sum())
    if n == 0:
        raise DataError(f"File '{table.name}': no item has both a judge label (column '{judge_col}') and a "
                        f"human label (column '{humans[0]}'), so agreement cannot be measured.")
    k = len(cats)
    tab = ag.confusion_table(j_codes[both], h_codes[both], k)
    po = float(np.trace(tab)) / n
    records.append(record("agreement", po, n=n, **_rate_fields(int(np.trace(tab)), n)))
    kappa = ag.cohens_kappa(tab)
    records.append(record("kappa", kappa.value, n=n, ci_low=kappa.low, ci_high=kappa.high, ci_method=KAPPA_CI))
    records.append(record("kappa_se", kappa.se, n=n))
    if kappa.why:
        notes.append(f"Cohen's kappa is undefined: {kappa.why}.")
    elif kappa.low < -1 or kappa.high > 1:
        notes.append(f"Kappa's normal interval ({kappa.low:.2f} to {kappa.high:.2f}) runs past the -1 to 1 "
                     f"range: with {plural(n, 'labelled item')} the asymptotic interval is a rough guide only "
                     f"(shown as computed, as statsmodels gives it).")
    if level in ("ordinal", "interval"):
        for w in ("linear", "quadratic"):
            wk = ag.cohens_kappa(tab, weights=w)
            records.append(record(f"kappa_{w}", wk.value, n=n, ci_low=wk.low, ci_high=wk.high, ci_method=KAPPA_CI))
    ac1 = ag.gwet_ac1(tab)
    records.append(record("ac1", ac1.value, n=n, ci_low=ac1.low, ci_high=ac1.high, ci_method="gwet-se,t(n-1)-95"))
    records.append(record("pabak", ag.pabak(tab), n=n))
    if (kappa.value == kappa.value and po >= PARADOX_AGREEMENT and kappa.value < PARADOX_KAPPA):
        shares = tab.sum(1) / n
        top = cats[int(np.argmax(shares))]
        notes.append(f"High agreement ({format_value(po, 'rate')}) with a low kappa ({kappa.value:.2f}): "
                     f"the labels are skewed ('{top}' is {format_value(float(shares.max()), 'rate')} of the "
                     f"judge's labels), so chance agreement is high and kappa is small (the kappa paradox); "
                     f"AC1 ({ac1.value:.2f}) and PABAK ({ag.pabak(tab):.2f}) are less sensitive to prevalence.")
    # Krippendorff's alpha beside kappa in every case (with one person and no gap too, where it
    # differs from kappa by its small-sample correction): the judge with the people, and the
    # people alone
    values = np.array([float(c) for c in cats]) if numeric else np.arange(k, dtype=float)
    alpha_level = level

    def coded(col):
        return np.array([values[code[x]] if x in code else np.nan for x in col])

    raters = human_text[1:] if options.majority and len(human_text) > 1 else human_text
    data = np.vstack([coded(judge)] + [coded(col) for col in raters])
    a_all = ag.krippendorff_alpha(data, level=alpha_level)
    units = int((np.isfinite(data).sum(0) >= 2).sum())
    records.append(record("alpha", a_all, group="judge and people", n=units))
    if options.majority and len(human_text) > 1:
        sig["alpha-people"] = "each-annotator(majority-left-out)"
    if len(raters) > 1:
        people = data[1:]
        a_people = ag.krippendorff_alpha(people, level=alpha_level)
        records.append(record("alpha", a_people, group="people alone",
                              n=int((np.isfinite(people).sum(0) >= 2).sum())))
    sig["alpha"] = f"krippendorff-{alpha_level}"
    # confusion matrix and disagreements
    matrix = pd.DataFrame(tab, columns=[f"human: {c}" for c in cats])
    matrix.insert(0, "judge", cats)
    tables.append(Table("confusion", f"Judge (rows) x people (columns), {plural(n, 'item')}", matrix,
                        formats={c: "int" for c in matrix.columns if c != "judge"}))
    idx = np.flatnonzero(both & (j_codes != h_codes))
    dis = pd.DataFrame({"item": [items[i] for i in idx], "line": [int(lines[i]) for i in idx],
                        "judge": [judge[i] for i in idx], "human": [first[i] for i in idx]})
    tables.append(Table("disagreements", "Items where the judge and the people disagree", dis,
                        formats={"line": "int", "judge": "text", "human": "text"}))
    records.append(record("disagreements", int(idx.size), n=n))
    for i, jc in enumerate(cats):  # the whole confusion matrix: judge said jc, people said hc
        for j, hc in enumerate(cats):
            records.append(record("confusion", int(tab[i, j]), n=n, from_=jc, to=hc, group="judge x people"))
    if blank_judge:
        notes.append(f"{plural(blank_judge, 'item')} {'has' if blank_judge == 1 else 'have'} no judge label "
                     f"and {'is' if blank_judge == 1 else 'are'} left out.")
    if unlabelled:
        notes.append(f"{plural(unlabelled, 'item')} judged but not labelled by people (column "
                     f"'{humans[0]}'): agreement is measured on the {plural(n, 'labelled item')}.")
    sig.update({"reference": f"first-human:{humans[0]}", "humans": str(len(humans)), "level": level,
                "agreement-ci": RATE_CI, "kappa-ci": "asymptotic-se(fleiss-cohen-everitt),normal-95",
                "ac1-ci": "gwet-se,t(n-1)-95", "pabak": "(K*po-1)/(K-1)",
                "weights": "linear,quadratic-on-category-order" if level != "nominal" else "none"})
    if len(cats) == 2:
        _binary(table, cats, positive, tab, j_codes, h_codes, both, n_judge, records, notes, sig)
    elif options.positive is not None:
        notes.append(f"--positive '{options.positive}' is not used: the labels are {len(cats)} "
                     f"({', '.join(repr(c) for c in cats[:8])}{' …' if len(cats) > 8 else ''}), and "
                     f"sensitivity, specificity and the corrected pass rate need exactly two (pass and "
                     f"fail); agreement, kappa, AC1 and alpha are over all {len(cats)}.")


def _note_grades_read_as_nominal(table, cats, numeric, judge, human_text, lines, notes) -> None:
    """``--level auto`` reads grades as ordinal only when every label is a number: when most are
    (1-5 grades) but a few are text ("n/a"), the note names those labels and their lines, since
    the level falls to nominal and weighted kappa is not given."""
    if numeric:
        return
    words = [c for c in cats if _as_number(c) is None]
    grades = [c for c in cats if _as_number(c) is not None]
    if len(grades) < 3 or len(words) > len(grades):
        return
    rows = sorted({i for col in [judge, *human_text] for i, x in enumerate(col) if x in words})
    notes.append(f"The labels are taken as nominal categories, not ordinal grades: {plural(len(grades), 'label')} "
                 f"are numbers ({', '.join(repr(g) for g in grades[:6])}{' ...' if len(grades) > 6 else ''}) but "
                 f"{', '.join(repr(w) for w in words[:4])} {'is' if len(words) == 1 else 'are'} not "
                 f"({table.describe_rows(rows)}), so the weighted kappas are "
                 f"not given. Blank such cells (a missing label) or set --level ordinal after correcting them.")


def _binary(table, cats, positive, tab, j_codes, h_codes, both, n_judge, records, notes, sig):
    if positive is None:
        notes.append(f"Pass/fail readings need to know which label means pass (labels "
                     f"{', '.join(repr(c) for c in cats)}); set --positive to get sensitivity, "
                     f"specificity and the corrected pass rate.")
        return
    pos = cats.index(positive)
    neg = 1 - pos
    m1 = int(tab[:, pos].sum())   # people said pass
    m0 = int(tab[:, neg].sum())   # people said fail
    tp, tn = int(tab[pos, pos]), int(tab[neg, neg])
    q1 = tp / m1 if m1 else float("nan")
    q0 = tn / m0 if m0 else float("nan")
    if m1:
        records.append(record("sensitivity", q1, n=m1, **_rate_fields(tp, m1)))
    if m0:
        records.append(record("specificity", q0, n=m0, **_rate_fields(tn, m0)))
    records.append(record("human_pass_rate", m1 / (m0 + m1), n=m0 + m1, **_rate_fields(m1, m0 + m1)))
    passes = int((j_codes == pos).sum())
    p = passes / n_judge
    records.append(record("judge_pass_rate", p, n=n_judge, **_rate_fields(passes, n_judge)))
    records.append(record("judge_pass_human_fail", int(tab[pos, neg]), n=int(both.sum())))
    records.append(record("judge_fail_human_pass", int(tab[neg, pos]), n=int(both.sum())))
    corr = ag.corrected_rate(p, q0, q1, n_judge, m0, m1)
    if corr.why:
        notes.append(f"The judge's pass rate cannot be corrected: {corr.why}.")
        records.append(record("corrected_pass_rate", None, n=n_judge))
    else:
        records.append(record("corrected_pass_rate", corr.theta, n=n_judge, ci_low=corr.low, ci_high=corr.high,
                              ci_method="lee2025-smoothed-plugin-95,clipped[0,1]"))
        notes.append(f"Corrected pass rate: (p + q0 - 1) / (q0 + q1 - 1) with the judge's pass rate p = "
                     f"{format_value(p, 'rate')} on {plural(n_judge, 'item')}, specificity q0 = "
                     f"{format_value(q0, 'rate')} on {plural(m0, 'item')} people failed and sensitivity q1 = "
                     f"{format_value(q1, 'rate')} on {plural(m1, 'item')} people passed; its interval "
                     f"carries the uncertainty of all three (Lee et al. 2025).")
        plan = ag.lee_labels_needed(p, q0, q1, n_judge, m0, m1)
        extra, more_fail, more_pass = plan if plan is not None else (None, None, None)
        records += [record("human_labels_needed", extra, n=m0 + m1),
                    record("human_labels_needed_fail", more_fail, n=m0),
                    record("human_labels_needed_pass", more_pass, n=m1)]
        if extra is None:
            notes.append("No number of further human labels brings the corrected pass rate to +-5 points: "
                         "the judge's pass rate on these items alone spreads it wider (more judged items would).")
        elif extra:
            notes.append(f"About {extra:,} more human labels, {more_fail:,} on items people fail and {more_pass:,} on "
                         f"items they pass, would bring the corrected pass rate's interval to +-5 points: Lee et "
                         f"al.'s (2025) allocation of the {m0 + m1 + extra:,} labels in all (m1 = m / (1 + (1/p - 1) "
                         f"sqrt(kappa)), kappa the ratio of the judge's smoothed error rates, the {m0 + m1:,} labels "
                         f"in hand as the pilot), the half-width by the delta method.")
        if corr.raw != corr.theta:
            notes.append(f"The corrected rate computes to {corr.raw:.3f}, outside 0-1, and is shown clipped to "
                         f"{format_value(corr.theta, 'rate')}: the judge's error rates measured on the "
                         f"labelled items do not fit its pass rate on all items.")
    sig.update({"positive": positive, "sens-spec-ci": RATE_CI,
                "corrected": "rogan-gladen,ci:lee2025-smoothed-plugin-95,clipped[0,1]",
                "labels-plan": "lee2025-allocation(pilot:labels-in-hand),delta-method,half-width:0.05"})


def _winners(table, column: str) -> np.ndarray:
    """A/B verdicts as 0 (A), 1 (B), -1 (tie or blank); other values refused."""
    text = to_text(table, column)
    out = np.full(len(text), -1)
    bad = []
    for i, x in enumerate(text):
        w = x.strip().casefold()
        if w in ("a", "model_a", "answer_a", "first"):
            out[i] = 0
        elif w in ("b", "model_b", "answer_b", "second"):
            out[i] = 1
        elif w in ("", "tie", "draw", "equal", "both", "neither"):
            continue
        else:
            bad.append(i)
    if bad:
        raise DataError(f"File '{table.name}', column '{column}': a verdict must name the winner, A or B "
                        f"(or tie); found {', '.join(repr(text[i]) for i in bad[:3])} on "
                        f"{table.describe_rows(bad[:3])} ({plural(len(bad), 'row')} in all).")
    return out


def _binom_p(k: int, n: int) -> float:
    from scipy.stats import binomtest

    return float(binomtest(k, n, 0.5).pvalue) if n else float("nan")


def _position_bias(table, judge_col, swap_col, judge, records, tables, notes, sig):
    require_columns(table, [swap_col])
    a = _winners(table, judge_col)
    b = _winners(table, swap_col)  # answers swapped: B was shown first
    both = (a >= 0) & (b >= 0)
    pairs = int(both.sum())
    flips = int((both & (a != b)).sum())  # the same position won both times
    if pairs:
        records.append(record("position_flip_share", flips / pairs, n=pairs))
    first_wins = int((a == 0).sum() + (b == 1).sum())
    decided = int((a >= 0).sum() + (b >= 0).sum())
    if decided:
        records.append(record("first_position_win_share", first_wins / decided, n=decided,
                              **_rate_fields(first_wins, decided)))
        records.append(record("position_p", _binom_p(first_wins, decided), n=decided))
    notes.append(f"Position bias: of {plural(pairs, 'pair')} judged in both orders, {flips} "
                 f"({format_value(flips / pairs if pairs else float('nan'), 'rate')}) changed their winner when "
                 f"the answers were swapped; the answer shown first won {first_wins} of {plural(decided, 'decided verdict')} "
                 f"(exact binomial test against 50%).")
    sig["position"] = "flip-share,first-win-share:binomial-exact"


def _length_bias(table, judge_col, options, judge, records, notes, sig):
    w = _winners(table, judge_col)
    la = to_float(table, options.length_a, allow_missing=True)
    lb = to_float(table, options.length_b, allow_missing=True)
    ok = (w >= 0) & np.isfinite(la) & np.isfinite(lb) & (la != lb)
    longer = np.where(la > lb, 0, 1)
    n = int(ok.sum())
    wins = int((ok & (w == longer)).sum())
    if n:
        records.append(record("longer_win_share", wins / n, n=n, **_rate_fields(wins, n)))
        records.append(record("length_p", _binom_p(wins, n), n=n))
    notes.append(f"Length bias: on {plural(n, 'decided verdict')} between answers of different length, the "
                 f"longer answer won {wins} ({format_value(wins / n if n else float('nan'), 'rate')}; exact "
                 f"binomial test against 50%).")
    sig["length"] = "longer-win-share:binomial-exact"


#: the interval of a rate: Wilson, exact below 30 items or at 0% or 100% (issue 28)
RATE_CI = f"wilson-95,clopper-pearson(n<{SMALL_N},0%,100%)"


def _rate_fields(successes, n) -> dict:
    """A rate's interval as record fields, its method named (``wilson-95`` or ``clopper-pearson-95``)."""
    k, m = int(successes), int(n)
    if m <= 0:
        return {}
    lo, hi = proportion_interval(k, m, rate_interval_method(k, m))
    return {"ci_low": lo, "ci_high": hi, "ci_method": f"{rate_interval_method(k, m)}-95"}


#: kappa's interval (weighted kappa's too), as its record's ``ci_method``
KAPPA_CI = "asymptotic-se(fleiss-cohen-everitt),normal-95"

