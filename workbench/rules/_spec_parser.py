"""The release rule's parser and validator: TOML text to a :class:`Rule`, every problem a
:class:`RuleError` naming the file, line, section, key and value (the format is described in
:mod:`workbench.rules.spec`)."""

from __future__ import annotations

import difflib
import math
import os
import re
import tomllib
from typing import Any

from ..core import numbers
from ..core.session import sha256_text
from ._spec_model import (ALL_CONDITION_KEYS, ALL_THRESHOLD_KEYS, COMMON_KEYS, COST, COST_METRICS, Condition,
                          DATA_KEYS, DEFAULT_RESAMPLES, DEFAULT_SEED, FORMAT, INTERVALS, JUDGE, JUDGE_METRICS,
                          KIND_KEYS, KNOWN_METRICS_TEXT, LATENCY, MAX_RESAMPLES, PAIRED, RANKING,
                          RANKING_PLAIN, RULE_KEYS, Rule, RuleError, SLICES, SLICE_METRIC, TESTS, THRESHOLDS,
                          _EFFORT)


_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9_\-]+)\s*\]\s*(#.*)?$")
_ARRAY_SECTION = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_\-]+)\s*\]\]\s*(#.*)?$")
_LATENCY = re.compile(r"^latency_p(\d+(?:\.\d+)?)$")
_RANKING = re.compile(r"^(ndcg|p|r|hit|mrr)@(\d+)$")


class _Parser:
    def __init__(self, text: str, source: str, base_dir: str | None) -> None:
        self.text = text
        self.source = source
        self.name = os.path.basename(source) if source else "<rule>"
        self.base_dir = base_dir

    # messages ------------------------------------------------------------------------------------
    def fail(self, place: str, problem: str, *, section: str | None = None, index: int | None = None,
             key: str | None = None) -> RuleError:
        line = self._line_of(section, index, key) if section else None
        where = f"Rule file '{self.name}'" + (f" line {line}" if line else "")
        return RuleError(f"{where}, {place}: {problem}.")

    def _line_of(self, section: str, index: int | None, key: str | None) -> int | None:
        """Best-effort line of ``key`` in ``[section]`` (or the index-th ``[[section]]``)."""
        current, count, start = None, 0, None
        key_re = re.compile(rf"^\s*(\"{re.escape(key)}\"|{re.escape(key)})\s*=") if key else None
        for no, line in enumerate(self.text.splitlines(), 1):
            m_arr = _ARRAY_SECTION.match(line)
            m_sec = None if m_arr else _SECTION.match(line)
            if m_arr or m_sec:
                name = (m_arr or m_sec).group(1)
                if m_arr and name == section:
                    count += 1
                    current = (name, count)
                else:
                    current = (name, None)
                if current == (section, index):
                    start = no
                    if key_re is None:
                        return no
                continue
            if current == (section, index) and key_re is not None and key_re.match(line):
                return no
        return start

    # parsing -------------------------------------------------------------------------------------
    def parse(self) -> Rule:
        text = self.text[1:] if self.text.startswith("\ufeff") else self.text
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            msg = str(err)
            m = _TOML_POSITION.search(msg)
            if m:
                msg = msg[:m.start()]
                raise RuleError(f"Rule file '{self.name}' is not valid TOML at line {m.group(1)}, "
                                f"column {m.group(2)}: {msg[:1].lower() + msg[1:]}.") from None
            raise RuleError(f"Rule file '{self.name}' is not valid TOML: {msg}.") from None

        unknown = [k for k in doc if k not in ("rule", "data", "condition")]
        if unknown:
            raise self.fail("top level", f"unknown section or key '{unknown[0]}'{self._suggest(unknown[0], ('rule', 'data', 'condition'))}; "
                            f"a rule has [rule], [data] and [[condition]] tables")
        rule = doc.get("rule")
        if rule is None:
            raise RuleError(f"Rule file '{self.name}' has no [rule] table; start it with [rule] "
                            f"and baseline = \"...\", candidate = \"...\".")
        if not isinstance(rule, dict):
            raise self.fail("top level", "'rule' must be a table ([rule])")
        self._unknown_keys(rule, RULE_KEYS, "[rule]", "rule", None)
        fmt = rule.get("format", FORMAT)
        if isinstance(fmt, bool) or not isinstance(fmt, int) or fmt != FORMAT:
            raise self.fail("[rule]", f"key 'format' must be {FORMAT} (the only rule format so far); "
                            f"got {_show(fmt)}", section="rule", key="format")
        name = self._text(rule, "name", "[rule]", "rule", None, required=False) or \
            os.path.splitext(self.name)[0]
        baseline = self._text(rule, "baseline", "[rule]", "rule", None, required=True,
                              hint="name the baseline system (or column), e.g. baseline = \"v1\"")
        candidate = self._text(rule, "candidate", "[rule]", "rule", None, required=True,
                               hint="name the candidate system (or column), e.g. candidate = \"v2\"")
        if baseline == candidate:
            raise self.fail("[rule]", f"keys 'baseline' and 'candidate' must differ; both are "
                            f"{_show(baseline)}", section="rule", key="candidate")
        alpha = self._number(rule, "alpha", "[rule]", "rule", None, default=0.05)
        if not 0 < alpha < 0.5:
            raise self.fail("[rule]", f"key 'alpha' must be between 0 and 0.5 (e.g. 0.05); got "
                            f"{_show(alpha)}", section="rule", key="alpha")
        multiplicity = self._choice(rule, "multiplicity", ("holm", "none"), "[rule]", "rule", None,
                                    default="holm")
        registered = self._text(rule, "registered", "[rule]", "rule", None, required=False)
        description = self._text(rule, "description", "[rule]", "rule", None, required=False)
        scorer = self._text(rule, "scorer", "[rule]", "rule", None, required=False)
        errors = self._choice(rule, "errors", ("exclude", "fail"), "[rule]", "rule", None,
                              default=None) if "errors" in rule else None

        data = self._data(doc.get("data", {}), "[data]", "data", None)

        conds = doc.get("condition")
        if conds is None:
            raise RuleError(f"Rule file '{self.name}' has no [[condition]]; add at least one, e.g. "
                            f"[[condition]] metric = \"success\" max_drop = 0.01.")
        if not isinstance(conds, list) or not all(isinstance(c, dict) for c in conds):
            raise self.fail("top level", "'condition' must be written as [[condition]] tables")
        if not conds:
            raise RuleError(f"Rule file '{self.name}' has no [[condition]]; add at least one.")
        conditions = tuple(self._condition(c, i + 1, baseline, candidate, data)
                           for i, c in enumerate(conds))
        return Rule(text=self.text, sha256=sha256_text(self.text), source=self.source, name=name,
                    baseline=baseline, candidate=candidate, alpha=float(alpha),
                    multiplicity=multiplicity, conditions=conditions, data=data,
                    registered=registered, description=description, base_dir=self.base_dir,
                    scorer=scorer, errors=errors)

    def _condition(self, c: dict, index: int, baseline: str, candidate: str,
                   data: dict[str, str]) -> Condition:
        sec = "condition"
        metric_raw = c.get("metric")
        place = f"[[condition]] {index}"
        if metric_raw is None:
            raise self.fail(place, f"key 'metric' is missing; name what is judged ({KNOWN_METRICS_TEXT})",
                            section=sec, index=index)
        if not isinstance(metric_raw, str):
            raise self.fail(place, f"key 'metric' must be text; got {_show(metric_raw)}",
                            section=sec, index=index, key="metric")
        metric = metric_raw.strip()
        kind, k, pct = self._metric(metric, place, index)
        place = f"[[condition]] {index} ({metric})"
        self._condition_keys(c, kind, metric, place, sec, index)
        tkey, threshold = self._threshold(c, kind, place, sec, index)
        bound, interval, test, resamples, seed = self._judged_on(c, kind, metric, tkey, place, sec, index)
        input_ = None
        if "input" in c:
            input_ = self._integer(c, "input", place, sec, index)
            if input_ < 1:
                raise self.fail(place, f"key 'input' is the position of an INPUT file, 1 for the "
                                f"first; got {_show(input_)}", section=sec, index=index, key="input")
        base = self._text(c, "baseline", place, sec, index, required=False) or baseline
        cand = self._text(c, "candidate", place, sec, index, required=False) or candidate
        if base == cand:
            raise self.fail(place, f"the baseline and candidate must differ; both are {_show(base)}",
                            section=sec, index=index, key="candidate")
        merged = dict(data)
        if "data" in c:
            merged.update(self._data(c["data"], place + " data", sec, index))
        note = self._text(c, "note", place, sec, index, required=False)

        options = self._kind_options(c, kind, place, sec, index)
        return Condition(index=index, metric=metric, kind=kind, threshold_key=tkey,
                         threshold=float(threshold), bound=bound, interval=interval, test=test,
                         resamples=resamples, seed=seed, baseline=base, candidate=cand, data=merged,
                         input=input_, k=k, percentile=pct, options=options, note=note)

    def _condition_keys(self, c: dict, kind: str, metric: str, place: str, sec: str, index: int) -> None:
        """Every key of the condition applies to its kind of metric."""
        allowed = COMMON_KEYS + THRESHOLDS[kind] + KIND_KEYS[kind]
        for key in c:
            if key in allowed:
                continue
            if key in ALL_CONDITION_KEYS:
                if key in ALL_THRESHOLD_KEYS:
                    why = (f"{numbers.article(metric)} condition takes {' or '.join(THRESHOLDS[kind])}, not "
                           f"'{key}'")
                else:
                    why = f"key '{key}' does not apply to {numbers.article(metric)} condition"
                raise self.fail(place, why, section=sec, index=index, key=key)
            raise self.fail(place, f"unknown key '{key}'{self._suggest(key, allowed)} (known keys: "
                            f"{', '.join(allowed)})", section=sec, index=index, key=key)

    def _threshold(self, c: dict, kind: str, place: str, sec: str, index: int) -> tuple[str, float]:
        """The condition's one threshold: (its key, its value)."""
        given = [t for t in THRESHOLDS[kind] if t in c]
        if not given:
            raise self.fail(place, f"no threshold; give one of {' or '.join(THRESHOLDS[kind])} "
                            f"(e.g. {THRESHOLDS[kind][0]} = {0.01 if kind in (PAIRED, RANKING) else 0.1})",
                            section=sec, index=index)
        if len(given) > 1:
            raise self.fail(place, f"keys {given[0]} and {given[1]} are both given; a condition "
                            f"takes one threshold (write two conditions for two bars)",
                            section=sec, index=index, key=given[1])
        tkey = given[0]
        threshold = self._number(c, tkey, place, sec, index)
        if threshold < 0:
            raise self.fail(place, f"key '{tkey}' must not be negative (it is an amount; the "
                            f"direction is in its name); got {_show(c[tkey])}",
                            section=sec, index=index, key=tkey)
        if kind == JUDGE and threshold > 1:
            raise self.fail(place, f"key 'min' is an agreement coefficient, at most 1 (e.g. min = 0.6); got "
                            f"{_show(c[tkey])}", section=sec, index=index, key=tkey)
        if kind in (PAIRED, RANKING) and threshold >= 1 or kind == SLICES and threshold >= 1 and \
                c.get("scores", "binary") != "continuous":
            raise self.fail(place, f"key '{tkey}' is a difference of fractions and must be below 1 "
                            f"(0.01 is one point); got {_show(c[tkey])}",
                            section=sec, index=index, key=tkey)
        return tkey, threshold

    def _judged_on(self, c: dict, kind: str, metric: str, tkey: str, place: str, sec: str, index: int):
        """How the condition is judged: (bound, interval, test, resamples, seed)."""
        conservative = "lower" if kind in (PAIRED, RANKING, JUDGE) else "upper"
        bound = self._choice(c, "bound", ("lower", "upper", "point"), place, sec, index,
                             default="point" if kind == JUDGE else conservative)
        if bound not in (conservative, "point"):
            raise self.fail(place, f"key 'bound' = {_show(bound)} does not fit {tkey}: it is judged on "
                            f"the {conservative} bound of the interval (or 'point', the observed value "
                            f"alone)", section=sec, index=index, key="bound")
        if kind in (COST, LATENCY, JUDGE):
            if c.get("test", "none") != "none":
                raise self.fail(place, f"key 'test' does not apply to {numbers.article(metric)} condition (it is judged "
                                f"on its bootstrap interval; tests are for success and ranking "
                                f"conditions); got {_show(c['test'])}", section=sec, index=index, key="test")
            if kind != JUDGE and c.get("interval", "bootstrap") != "bootstrap":
                raise self.fail(place, f"key 'interval' must be \"bootstrap\" for {numbers.article(metric)} condition "
                                f"(the only interval for it); got {_show(c['interval'])}",
                                section=sec, index=index, key="interval")
        interval = self._choice(c, "interval", INTERVALS[kind], place, sec, index,
                                default=INTERVALS[kind][0])
        test_default = "sign" if kind in (PAIRED, RANKING) else "none"
        test = self._choice(c, "test", TESTS[kind], place, sec, index, default=test_default)
        resamples = self._integer(c, "resamples", place, sec, index, default=DEFAULT_RESAMPLES)
        if not 1000 <= resamples <= MAX_RESAMPLES:
            raise self.fail(place, f"key 'resamples' must be between 1,000 and {MAX_RESAMPLES:,} "
                            f"(10000 is usual); got {_show(resamples)}",
                            section=sec, index=index, key="resamples")
        seed = self._integer(c, "seed", place, sec, index, default=DEFAULT_SEED)
        if seed < 0:
            raise self.fail(place, f"key 'seed' must be a whole number >= 0; got {_show(seed)}",
                            section=sec, index=index, key="seed")
        return bound, interval, test, resamples, seed

    def _kind_options(self, c: dict, kind: str, place: str, sec: str, index: int) -> dict[str, Any]:
        """The conventions of a ranking, judge or latency condition."""
        options: dict[str, Any] = {}
        if kind == RANKING:
            from ..analyses import ranking as rk
            from ..metrics.ranking import GAINS

            options["gain"] = self._choice(c, "gain", GAINS, place, sec, index, default="linear")
            options["ties"] = self._choice(c, "ties", rk.TIES, place, sec, index, default="trec_eval")
            options["no_relevant"] = self._choice(c, "no_relevant", rk.NO_RELEVANT, place, sec, index,
                                                  default="zero")
            options["unjudged"] = self._choice(c, "unjudged", rk.UNJUDGED, place, sec, index,
                                               default="skip")
            options["relevance_threshold"] = self._number(c, "relevance_threshold", place, sec, index,
                                                          default=1.0)
        if kind == JUDGE:
            items = self._integer(c, "min_items", place, sec, index, default=1)
            if items < 1:
                raise self.fail(place, f"key 'min_items' must be a whole number >= 1; got {_show(items)}",
                                section=sec, index=index, key="min_items")
            options["min_items"] = items
            positive = self._text(c, "positive", place, sec, index, required=False)
            if positive is not None:
                options["positive"] = positive
            options["level"] = self._choice(c, "level", ("auto", "nominal", "ordinal", "interval"), place, sec,
                                            index, default="auto")
        if kind == SLICES:
            items = self._integer(c, "min_items", place, sec, index, default=20)
            if items < 1:
                raise self.fail(place, f"key 'min_items' must be a whole number >= 1; got {_show(items)}",
                                section=sec, index=index, key="min_items")
            options["min_items"] = items
            by = self._text(c, "by", place, sec, index, required=False)
            if by is not None:
                options["by"] = by
            bins = self._integer(c, "bins", place, sec, index, default=0)
            if bins < 0 or bins == 1:
                raise self.fail(place, f"key 'bins' must be 0 (no bins) or at least 2; got {_show(bins)}",
                                section=sec, index=index, key="bins")
            options["bins"] = bins
            options["scores"] = self._choice(c, "scores", ("binary", "continuous"), place, sec, index,
                                             default="binary")
        if kind == LATENCY:
            from ..metrics.cost import PERCENTILE_METHODS

            options["percentile_method"] = self._choice(c, "percentile_method",
                                                        tuple(PERCENTILE_METHODS), place, sec, index,
                                                        default="linear")
        return options

    def _metric(self, metric: str, place: str, index: int):
        if metric == "success":
            return PAIRED, None, None
        if metric in RANKING_PLAIN:
            return RANKING, None, None
        m = _RANKING.match(metric)
        if m:
            k = int(m.group(2))
            if k < 1:
                raise self.fail(place, f"key 'metric' has cut-off {k} in {_show(metric)}; K must be >= 1",
                                section="condition", index=index, key="metric")
            return RANKING, k, None
        if metric in COST_METRICS:
            return COST, None, None
        m = _EFFORT.match(metric)  # steps_per_success (a cost of its own), steps_p50 (a percentile)
        if m and m.group(2) == "per_success":
            return COST, None, None
        if metric in JUDGE_METRICS:
            return JUDGE, None, None
        if metric == SLICE_METRIC:
            return SLICES, None, None
        q = m.group(3) if m else (_LATENCY.match(metric) or [None, None])[1]
        if q is not None:  # latency_p95, tool_calls_p50: a percentile
            if not 0 < float(q) < 100:
                raise self.fail(place, f"key 'metric' asks for percentile {float(q):g} in {_show(metric)}; "
                                f"it must be between 0 and 100", section="condition", index=index,
                                key="metric")
            return LATENCY, None, float(q)
        known = ["success", "ndcg@10", "p@10", "r@10", "hit@10", "mrr", "map", "cost_per_success",
                 "cost_per_request", "latency_p95", *JUDGE_METRICS, SLICE_METRIC]
        raise self.fail(place, f"key 'metric' names an unknown metric {_show(metric)}"
                        f"{self._suggest(metric, known)}; known: {KNOWN_METRICS_TEXT}",
                        section="condition", index=index, key="metric")

    def _data(self, data: Any, place: str, section: str, index: int | None) -> dict[str, str]:
        if not isinstance(data, dict):
            raise self.fail(place, f"must be a table of column names (e.g. {{ item = \"item_id\" }}); "
                            f"got {_show(data)}", section=section, index=index,
                            key="data" if section == "condition" else None)
        self._unknown_keys(data, DATA_KEYS, place, section, index)
        out = {}
        for key in data:
            out[key] = self._text(data, key, place, section, index, required=True)
        if "qrels" in out and self.base_dir and not os.path.isabs(out["qrels"]):
            out["qrels"] = os.path.normpath(os.path.join(self.base_dir, out["qrels"]))
        return out

    # typed getters ---------------------------------------------------------------------------------
    def _unknown_keys(self, table: dict, allowed, place: str, section: str, index: int | None) -> None:
        for key in table:
            if key not in allowed:
                raise self.fail(place, f"unknown key '{key}'{self._suggest(key, allowed)} (known keys: "
                                f"{', '.join(allowed)})", section=section, index=index, key=key)

    def _text(self, table: dict, key: str, place: str, section: str, index: int | None, *,
              required: bool, hint: str = "") -> str | None:
        if key not in table:
            if required:
                raise self.fail(place, f"key '{key}' is missing" + (f"; {hint}" if hint else ""),
                                section=section, index=index)
            return None
        value = table[key]
        if not isinstance(value, str):
            quoted = f"; write it in quotes, e.g. {key} = \"{value}\"" if isinstance(value, (int, float)) \
                and not isinstance(value, bool) else ""
            raise self.fail(place, f"key '{key}' must be text; got {_show(value)}{quoted}",
                            section=section, index=index, key=key)
        if not value.strip():
            raise self.fail(place, f"key '{key}' must not be empty", section=section, index=index, key=key)
        return value.strip()

    def _number(self, table: dict, key: str, place: str, section: str, index: int | None, *,
                default: float | None = None) -> float:
        if key not in table:
            if default is None:
                raise self.fail(place, f"key '{key}' is missing", section=section, index=index)
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(place, f"key '{key}' must be a number; got {_show(value)}",
                            section=section, index=index, key=key)
        if not math.isfinite(value):
            raise self.fail(place, f"key '{key}' must be a finite number; got {_show(value)}",
                            section=section, index=index, key=key)
        return float(value)

    def _integer(self, table: dict, key: str, place: str, section: str, index: int | None, *,
                 default: int | None = None) -> int:
        if key not in table:
            if default is None:
                raise self.fail(place, f"key '{key}' is missing", section=section, index=index)
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(place, f"key '{key}' must be a whole number; got {_show(value)}",
                            section=section, index=index, key=key)
        return int(value)

    def _choice(self, table: dict, key: str, choices, place: str, section: str, index: int | None, *,
                default: str) -> str:
        if key not in table:
            return default
        value = table[key]
        if not isinstance(value, str) or value not in choices:
            raise self.fail(place, f"key '{key}' must be one of {', '.join(choices)}; got {_show(value)}"
                            + (self._suggest(value, choices) if isinstance(value, str) else ""),
                            section=section, index=index, key=key)
        return value

    @staticmethod
    def _suggest(word: str, options) -> str:
        close = difflib.get_close_matches(str(word), list(options), n=1, cutoff=0.6)
        return f" (did you mean '{close[0]}'?)" if close else ""


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")  # as TOML writes them
    if isinstance(value, float) and value == int(value) and abs(value) < 1e15:
        return repr(value)
    return str(value)
