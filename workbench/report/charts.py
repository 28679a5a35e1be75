"""Native Excel charts (XlsxWriter's chart API) mirroring the workbench's own charts.

* compare: the difference with its normal and bootstrap 95% intervals (error bars), and the
  bootstrap distribution;
* aggregate: per-group rates with their intervals (named by their methods), per-segment bars per version, pooled ratio
  vs mean of ratios;
* cost: success rate per system with its intervals (named by their methods), success rate against cost per success
  (one point per system), latency percentiles;
* passk: pass@k and pass^k curves over k; ranking: metrics over the cut-off k; text: metrics
  per system; plan: half-width, MDE and pass@k curves.

Every series points at cells of the workbook.  Error bars need their lengths in cells, so a
small "chart data" table with formulas (``rate - ci_low``, ``ci_high - rate``) is written under
the table it derives from.  Every font is named (Arial) and the axes are kept visible, so the
charts render alike in Excel and LibreOffice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from ..core.result import AnalysisResult
from .layout import CHART_H, CHART_W, Block, Chart, Refs
from .present import excel_format, interval_words, is_measure
from .styles import chart_font

Key = Callable[[str], str]
MAX_SERIES = 12
#: More categories than this make a bar chart unreadable: such charts are left out.
MAX_CATEGORIES = 60
#: Axis formats: differences of rates in points (the cells hold points), scores as decimals.
POINTS_AXIS = "+0.0;-0.0;0.0"
SCORE_AXIS = "0.0"
PALETTE = ("#1F5A96", "#D9822B", "#2E8540", "#B5322F", "#6C4F9E", "#8C6D3F", "#C55A9B",
           "#5F6B73", "#9AA531", "#1FA0B3", "#E0A526", "#3D3D3D")


@dataclass
class ChartPlan:
    #: table name -> chart-data blocks written right after that table
    after: dict[str, list[Block]] = field(default_factory=dict)
    charts: list[Chart] = field(default_factory=list)


def _has(result: AnalysisResult, name: str) -> pd.DataFrame | None:
    try:
        frame = result.table(name).frame
    except KeyError:
        return None
    return frame if len(frame) else None


def _name(text: object) -> str:
    """A series name as literal text (XlsxWriter reads a leading '=' as a cell reference)."""
    text = str(text)
    return " " + text if text.startswith("=") else text


def _axis(title: str | None = None, num_format: str | None = None, *, grid: bool = False,
          **extra) -> dict:
    axis = {"num_font": chart_font(8), "name_font": chart_font(9), "visible": True,
            "line": {"color": "#7F7F7F"}, **extra}
    if title:
        axis["name"] = title
    if num_format:
        axis["num_format"] = num_format
    if grid:
        axis["major_gridlines"] = {"visible": True, "line": {"color": "#E3E3E3"}}
    return axis


def new_chart(wb, kind: str, title: str, *, subtype: str | None = None, x: dict | None = None,
              y: dict | None = None, legend: bool = True):
    opts = {"type": kind}
    if subtype:
        opts["subtype"] = subtype
    chart = wb.add_chart(opts)
    chart.set_title({"name": title, "name_font": chart_font(11, True), "overlay": False})
    chart.set_legend({"position": "bottom", "font": chart_font(9)} if legend else {"none": True})
    chart.set_x_axis(x or _axis())
    chart.set_y_axis(y or _axis(grid=True))
    chart.set_size({"width": CHART_W, "height": CHART_H})
    chart.set_chartarea({"border": {"color": "#BFBFBF"}, "fill": {"color": "#FFFFFF"}})
    chart.set_plotarea({"fill": {"color": "#FFFFFF"}})
    return chart


def _error_bars(R: Refs, key: str, minus: str, plus: str, start: int = 0, stop: int | None = None) -> dict:
    return {"type": "custom", "minus_values": R.chart_formula(key, minus, start, stop),
            "plus_values": R.chart_formula(key, plus, start, stop), "end_style": 1,
            "line": {"color": "#404040", "width": 1.25}}


def nice_range(values, *, include_zero: bool = True, pad: float = 0.08) -> dict:
    """Axis ``min``/``max`` that show every value (error bars included), rounded outward.

    >>> nice_range([0.003, 0.087])
    {'min': 0, 'max': 0.1}
    """
    v = [float(x) for x in values if x is not None and np.isfinite(x)]
    if include_zero:
        v.append(0.0)
    if not v:
        return {}
    low, high = min(v), max(v)
    span = (high - low) or max(abs(high), 0.01)
    lo = low - pad * span if low < 0 else low   # no padding past zero
    hi = high + pad * span if high > 0 else high
    step = 10 ** math.floor(math.log10(span / 2))
    out = {"min": round(math.floor(lo / step) * step, 10), "max": round(math.ceil(hi / step) * step, 10)}
    if out["min"] == out["max"]:
        out["max"] = out["min"] + step
    return {k: (0 if v == 0 else v) for k, v in out.items()}


def _colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _interval_block(key: str, source_key: str, labels: list, value: pd.Series, low: pd.Series,
                    high: pd.Series, value_col: str, low_col: str, high_col: str,
                    label_name: str, title: str, kind: str = "rate") -> Block:
    """Chart data: the lengths of the error bars, as formulas over the source table."""
    v = pd.to_numeric(value, errors="coerce").to_numpy(float)
    frame = pd.DataFrame({label_name: labels,
                          "minus": v - pd.to_numeric(low, errors="coerce").to_numpy(float),
                          "plus": pd.to_numeric(high, errors="coerce").to_numpy(float) - v})
    return Block(key, title, frame, formats={"minus": kind, "plus": kind},
                 legend=[f"minus = {value_col} - {low_col}; plus = {high_col} - {value_col}: "
                         f"the lengths of the error bars in the chart below."],
                 formulas={
                     "minus": lambda R, i: f"{R.cell(source_key, value_col, i, True)}-{R.cell(source_key, low_col, i, True)}",
                     "plus": lambda R, i: f"{R.cell(source_key, high_col, i, True)}-{R.cell(source_key, value_col, i, True)}",
                 })


# -- compare -------------------------------------------------------------------------------

def _compare(result: AnalysisResult, key: Key) -> ChartPlan:
    plan = ChartPlan()
    intervals, boot = _has(result, "intervals"), _has(result, "bootstrap")
    if intervals is not None:
        ik, ck = key("intervals"), key("chart:intervals")
        plan.after["intervals"] = [_interval_block(
            ck, ik, list(intervals["interval"]), intervals["diff"], intervals["ci_low"],
            intervals["ci_high"], "diff", "ci_low", "ci_high", "interval",
            "Chart data: error bars of the intervals", kind="points")]

        # the cells hold points (100 x the difference), so the axis is in points too
        bounds = nice_range([100 * float(v) for v in list(intervals["ci_low"]) + list(intervals["ci_high"])
                             + list(intervals["diff"])])

        def diff_chart(wb, R: Refs, sheet: str):
            chart = new_chart(wb, "line", "Difference (candidate - baseline) with 95% intervals",
                              x=_axis(label_position="low"),
                              y=_axis("difference (percentage points)", POINTS_AXIS, grid=True, **bounds),
                              legend=False)
            chart.add_series({
                "name": "difference", "categories": R.chart_range(ik, "interval"),
                "values": R.chart_range(ik, "diff"), "line": {"none": True},
                "marker": {"type": "diamond", "size": 9, "fill": {"color": _colour(0)},
                           "border": {"color": _colour(0)}},
                "y_error_bars": _error_bars(R, ck, "minus", "plus"),
                "data_labels": {"value": True, "position": "right", "num_format": excel_format("points"),
                                "font": chart_font(8)},
            })
            return chart

        plan.charts.append(diff_chart)
    if boot is not None and boot["resamples"].sum() > 0:
        bk = key("bootstrap")
        lattice = "difference" in boot
        x_col = "difference" if lattice else "bin_low"
        every = max(1, math.ceil(len(boot) / 12))

        def boot_chart(wb, R: Refs, sheet: str):
            chart = new_chart(wb, "column", "Bootstrap distribution of the difference",
                              x=_axis("difference (percentage points)" if lattice else
                                      "difference (bin start, percentage points)", POINTS_AXIS,
                                      label_position="low", interval_unit=every, interval_tick=every),
                              y=_axis("resamples", "#,##0", grid=True), legend=False)
            chart.add_series({"name": "resamples", "categories": R.chart_range(bk, x_col),
                              "values": R.chart_range(bk, "resamples"), "gap": 10,
                              "fill": {"color": _colour(0)}, "border": {"none": True}})
            return chart

        plan.charts.append(boot_chart)
    return plan


# -- aggregate -----------------------------------------------------------------------------

def _aggregate(result: AnalysisResult, key: Key) -> ChartPlan:
    plan = ChartPlan()
    groups, pivot, summary = _has(result, "groups"), _has(result, "versions"), _has(result, "summary")
    measure = is_measure(result)  # means in their own unit, not rates
    if groups is not None and groups["group"].nunique() <= MAX_CATEGORIES:
        gk, ck = key("groups"), key("chart:groups")
        has_v = "version" in groups
        versions = list(dict.fromkeys(str(v) for v in groups["version"])) if has_v else [None]
        versions = versions[:MAX_SERIES]
        labels = list(dict.fromkeys(str(g) for g in groups["group"]))
        where = {(str(v) if has_v else None, str(g)): i
                 for i, (v, g) in enumerate(zip(groups["version"] if has_v else [None] * len(groups),
                                                groups["group"]))}
        data: dict[str, list] = {"group": labels}
        formulas: dict = {}
        formats: dict[str, str] = {}
        for v in versions:
            prefix = f"{v} " if v is not None else ""
            rows = [where.get((v, g)) for g in labels]

            def col(source: str, rows=rows):
                return [float(groups[source].iloc[j]) if j is not None else math.nan for j in rows]

            rate, low, high = np.array(col("rate")), np.array(col("ci_low")), np.array(col("ci_high"))
            data[f"{prefix}rate"] = rate
            data[f"{prefix}minus"] = rate - low
            data[f"{prefix}plus"] = high - rate
            for name in ("rate", "minus", "plus"):
                formats[f"{prefix}{name}"] = "score" if measure else "rate"

            def ref(rows=rows):
                return lambda R, i: (R.cell(gk, "rate", rows[i], True) if rows[i] is not None else None)

            def minus(rows=rows):
                return lambda R, i: (f"{R.cell(gk, 'rate', rows[i], True)}-{R.cell(gk, 'ci_low', rows[i], True)}"
                                     if rows[i] is not None else None)

            def plus(rows=rows):
                return lambda R, i: (f"{R.cell(gk, 'ci_high', rows[i], True)}-{R.cell(gk, 'rate', rows[i], True)}"
                                     if rows[i] is not None else None)

            formulas[f"{prefix}rate"], formulas[f"{prefix}minus"], formulas[f"{prefix}plus"] = ref(), minus(), plus()
        words = interval_words(groups["ci_method"].dropna() if "ci_method" in groups else [])
        plan.after["groups"] = [Block(ck, "Chart data: per-group rates and the lengths of their error bars",
                                      pd.DataFrame(data), formats=formats, formulas=formulas,
                                      legend=["rate = the group's rate above; minus = rate - ci_low; "
                                              f"plus = ci_high - rate ({words})."])]
        n = len(labels)

        def group_chart(wb, R: Refs, sheet: str):
            chart = new_chart(wb, "column", f"{'Mean' if measure else 'Rate'} per group with {words}s",
                              x=_axis(label_position="low"),
                              y=(_axis("mean, in the measure's own unit", "0.000", grid=True) if measure else
                                 _axis("rate", "0%", grid=True, min=0, max=1)), legend=has_v)
            for s, v in enumerate(versions):
                prefix = f"{v} " if v is not None else ""
                series = {"name": _name(v if v is not None else "rate"),
                          "categories": R.chart_range(ck, "group", 0, n),
                          "values": R.chart_range(ck, f"{prefix}rate", 0, n),
                          "fill": {"color": _colour(s)}, "border": {"none": True}, "gap": 60}
                if np.isfinite(data[f"{prefix}minus"]).any():
                    series["y_error_bars"] = _error_bars(R, ck, f"{prefix}minus", f"{prefix}plus", 0, n)
                chart.add_series(series)
            return chart

        plan.charts.append(group_chart)
    if pivot is not None and len(pivot) <= MAX_CATEGORIES:
        pk = key("versions")
        vcols = [c for c in pivot.columns if c != "group"][:MAX_SERIES]

        def segment_chart(wb, R: Refs, sheet: str):
            chart = new_chart(wb, "column", "Rate per version and segment",
                              x=_axis(label_position="low"),
                              y=_axis("rate", "0%", grid=True, min=0, max=1))
            for s, v in enumerate(vcols):
                chart.add_series({"name": R.header_cell(pk, v), "categories": R.chart_range(pk, "group"),
                                  "values": R.chart_range(pk, v), "fill": {"color": _colour(s)},
                                  "border": {"none": True}, "gap": 60})
            return chart

        plan.charts.append(segment_chart)
    if summary is not None and "measure" in summary:
        sk = key("summary")

        def ratio_chart(wb, R: Refs, sheet: str):
            chart = new_chart(wb, "column", "Pooled ratio vs mean of ratios",
                              x=_axis(label_position="low"), y=_axis("ratio", "0%", grid=True, min=0),
                              legend=False)
            chart.add_series({"name": "value", "categories": R.chart_range(sk, "measure"),
                              "values": R.chart_range(sk, "value"), "fill": {"color": _colour(0)},
                              "border": {"none": True}, "gap": 80,
                              "data_labels": {"value": True, "num_format": "0.0%", "font": chart_font(8)}})
            return chart

        plan.charts.append(ratio_chart)
    return plan


# -- cost ----------------------------------------------------------------------------------

def _cost(result: AnalysisResult, key: Key) -> ChartPlan:
    plan = ChartPlan()
    systems = _has(result, "systems")
    if systems is None or len(systems) > MAX_CATEGORIES:
        return plan
    sk, ck = key("systems"), key("chart:systems")
    plan.after["systems"] = [_interval_block(
        ck, sk, list(systems["system"]), systems["success_rate"], systems["ci_low"], systems["ci_high"],
        "success_rate", "ci_low", "ci_high", "system",
        "Chart data: error bars of the success rates")]

    words = interval_words(systems["ci_method"].dropna() if "ci_method" in systems else [])

    def rate_chart(wb, R: Refs, sheet: str):
        chart = new_chart(wb, "column", f"Success rate per system with {words}s",
                          x=_axis(label_position="low"), y=_axis("success rate", "0%", grid=True, min=0, max=1),
                          legend=False)
        chart.add_series({"name": "success rate", "categories": R.chart_range(sk, "system"),
                          "values": R.chart_range(sk, "success_rate"), "fill": {"color": _colour(0)},
                          "border": {"none": True}, "gap": 80,
                          "y_error_bars": _error_bars(R, ck, "minus", "plus")})
        return chart

    plan.charts.append(rate_chart)
    finite = [i for i, v in enumerate(pd.to_numeric(systems["cost_per_success"], errors="coerce"))
              if np.isfinite(v)]
    if finite:
        def scatter(wb, R: Refs, sheet: str):
            chart = new_chart(wb, "scatter", "Success rate vs cost per success",
                              x=_axis("cost per success (as in the file)", excel_format("cost"), grid=True),
                              y=_axis("success rate", "0%", grid=True))
            b = R.block(sk)
            rows = finite if len(finite) <= MAX_SERIES else None
            if rows is None:  # too many systems for a legend: one series
                chart.add_series({"name": "systems",
                                  "categories": R.chart_range(sk, "cost_per_success"),
                                  "values": R.chart_range(sk, "success_rate"),
                                  "marker": {"type": "circle", "size": 7}})
                return chart
            for s, i in enumerate(rows):
                chart.add_series({
                    "name": [b.sheet, b.sheet_row(i), b.col("system")],
                    "categories": R.chart_range(sk, "cost_per_success", i, i + 1),
                    "values": R.chart_range(sk, "success_rate", i, i + 1),
                    "marker": {"type": "circle", "size": 9, "fill": {"color": _colour(s)},
                               "border": {"color": _colour(s)}},
                })
            return chart

        plan.charts.append(scatter)
    lat = [c for c in ("latency_p50", "latency_p95", "latency_p99") if c in systems]
    if lat:
        def latency(wb, R: Refs, sheet: str):
            chart = new_chart(wb, "column", "Latency percentiles per system",
                              x=_axis(label_position="low"), y=_axis("latency (as in the file)", grid=True, min=0))
            for s, c in enumerate(lat):
                chart.add_series({"name": c.replace("latency_", ""), "categories": R.chart_range(sk, "system"),
                                  "values": R.chart_range(sk, c), "fill": {"color": _colour(s)},
                                  "border": {"none": True}, "gap": 60})
            return chart

        plan.charts.append(latency)
    return plan


# -- passk ---------------------------------------------------------------------------------

def _runs(values: list) -> list[tuple[object, int, int]]:
    out: list[tuple[object, int, int]] = []
    for i, v in enumerate(values):
        if out and out[-1][0] == v:
            out[-1] = (v, out[-1][1], i + 1)
        else:
            out.append((v, i, i + 1))
    return out


def _passk(result: AnalysisResult, key: Key) -> ChartPlan:
    plan = ChartPlan()
    summary = _has(result, "summary")
    if summary is None or "k" not in summary:
        return plan
    sk = key("summary")
    runs = _runs([str(s) for s in summary["system"]])[: MAX_SERIES // 2]
    single = len(runs) == 1

    def curve(wb, R: Refs, sheet: str):
        chart = new_chart(wb, "scatter", "pass@k and pass^k by k (mean over tasks)",
                          subtype="straight_with_markers",
                          x=_axis("k", "0", grid=True, min=0), y=_axis("", SCORE_AXIS, grid=True, min=0, max=1))
        for s, (system, start, stop) in enumerate(runs):
            for metric, dash in (("pass@k", "solid"), ("pass^k", "dash")):
                label = metric if single else f"{system} {metric}"
                chart.add_series({"name": _name(label), "categories": R.chart_range(sk, "k", start, stop),
                                  "values": R.chart_range(sk, metric, start, stop),
                                  "line": {"color": _colour(s), "width": 2, "dash_type": dash},
                                  "marker": {"type": "circle" if metric == "pass@k" else "square",
                                             "size": 6, "fill": {"color": _colour(s)},
                                             "border": {"color": _colour(s)}}})
        return chart

    plan.charts.append(curve)
    return plan


# -- ranking -------------------------------------------------------------------------------

def _ranking(result: AnalysisResult, key: Key) -> ChartPlan:
    plan = ChartPlan()
    summary = _has(result, "summary")
    if summary is None:
        return plan
    ks = sorted({int(c.split("@")[1]) for c in summary.columns if c.startswith("ndcg@")})
    if not ks:
        return plan
    sk, ck = key("summary"), key("chart:ranking")
    systems = [str(s) for s in summary["system"]][:MAX_SERIES] if "system" in summary else ["(all)"]
    single = len(systems) == 1
    metrics = [m for m in ("ndcg", "p", "r", "hit") if f"{m}@{ks[0]}" in summary] if single else ["ndcg"]
    names = {"ndcg": "nDCG@k", "p": "P@k", "r": "R@k", "hit": "Hit@k"}
    data: dict[str, list] = {"k": ks}
    formulas: dict = {}
    columns = []
    for s, system in enumerate(systems):
        for m in metrics:
            col = names[m] if single else f"{system} nDCG@k"
            columns.append(col)
            data[col] = [float(summary[f"{m}@{k}"].iloc[s]) for k in ks]
            formulas[col] = (lambda s, m: lambda R, i: R.cell(sk, f"{m}@{ks[i]}", s, True))(s, m)
    plan.after["summary"] = [Block(ck, "Chart data: metrics by cut-off k", pd.DataFrame(data),
                                   formats={c: "score" for c in columns} | {"k": "count"},
                                   formulas=formulas,
                                   legend=["The values of the table above, one row per k, for the chart."])]

    def by_k(wb, R: Refs, sheet: str):
        chart = new_chart(wb, "scatter", "Ranking metrics by cut-off k", subtype="straight_with_markers",
                          x=_axis("k", "0", grid=True, min=0), y=_axis("", SCORE_AXIS, grid=True, min=0, max=1.05))
        # lines that coincide (R@k and hit@k are often equal) stay visible: each later series is
        # drawn narrower, dashed, with its own marker, on top of the wider ones
        styles = [("solid", "circle", 3.0), ("solid", "square", 2.5), ("round_dot", "triangle", 2.0),
                  ("dash", "diamond", 1.5)]
        for s, col in enumerate(columns):
            dash, marker, width = styles[s % len(styles)] if single else ("solid", "circle", 2.0)
            chart.add_series({"name": _name(col), "categories": R.chart_range(ck, "k"),
                              "values": R.chart_range(ck, col),
                              "line": {"color": _colour(s), "width": width, "dash_type": dash},
                              "marker": {"type": marker, "size": 8 - s if single else 6,
                                         "fill": {"none": True} if single and s else {"color": _colour(s)},
                                         "border": {"color": _colour(s), "width": 1.5}}})
        return chart

    plan.charts.append(by_k)
    return plan


# -- text ----------------------------------------------------------------------------------

def _text(result: AnalysisResult, key: Key) -> ChartPlan:
    plan = ChartPlan()
    summary = _has(result, "summary")
    if summary is None:
        return plan
    metrics = [m for m in ("exact_match", "token_f1", "rouge1", "rouge2", "rougeL") if m in summary]
    if not metrics:
        return plan
    sk, ck = key("summary"), key("chart:text")
    systems = [str(s) for s in summary["system"]][:MAX_SERIES]
    from .present import display_name

    data: dict[str, list] = {"metric": [display_name(m) for m in metrics]}  # the chart's categories
    formulas: dict = {}
    for s, system in enumerate(systems):
        data[system] = [float(summary[m].iloc[s]) for m in metrics]
        formulas[system] = (lambda s: lambda R, i: R.cell(sk, metrics[i], s, True))(s)
    frame = pd.DataFrame(data)
    plan.after["summary"] = [Block(ck, "Chart data: metrics per system", frame,
                                   formats={s: "score" for s in systems} | {"metric": "text"},
                                   cell_kind=lambda col, i: ("rate" if metrics[i] == "exact_match" and col != "metric"
                                                             else None),
                                   formulas=formulas,
                                   legend=["The 0-1 metrics of the table above, one row per metric, for "
                                           "the chart (BLEU and chrF are on a 0-100 scale and left out)."])]

    def bars(wb, R: Refs, sheet: str):
        chart = new_chart(wb, "column", "Text metrics per system", x=_axis(label_position="low"),
                          y=_axis("0-1 scale (exact match as a share)", SCORE_AXIS, grid=True, min=0, max=1),
                          legend=len(systems) > 1)
        b = R.block(ck)
        for s, system in enumerate(frame.columns[1:]):
            chart.add_series({"name": [b.sheet, b.header_row, b.col(system)],
                              "categories": R.chart_range(ck, "metric"), "values": R.chart_range(ck, system),
                              "fill": {"color": _colour(s)}, "border": {"none": True}, "gap": 60})
        return chart

    plan.charts.append(bars)
    return plan


# -- plan ----------------------------------------------------------------------------------

def _plan(result: AnalysisResult, key: Key) -> ChartPlan:
    plan = ChartPlan()
    specs = [("rate_interval", "items", ["wald_half_width", "unpaired_difference_needed"],
              "95% half-width of a rate by number of items", "items", "percentage points", "0.0"),
             ("mde", "items", ["mde"], "Minimum detectable paired difference by number of items", "items",
              "percentage points", "0.0"),
             ("per_try", "k", ["pass@k", "pass^k"], "pass@k and pass^k at the implied per-try rate", "k",
              "", SCORE_AXIS)]
    for table, x, ys, title, x_title, y_title, y_format in specs:
        if _has(result, table) is None:
            continue
        tk = key(table)

        def chart(wb, R: Refs, sheet: str, tk=tk, x=x, ys=ys, title=title, x_title=x_title,
                  y_title=y_title, y_format=y_format):
            c = new_chart(wb, "scatter", title, subtype="straight_with_markers",
                          x=_axis(x_title, "#,##0", grid=True), y=_axis(y_title, y_format, grid=True, min=0))
            for s, y in enumerate(ys):
                c.add_series({"name": y.replace("_", " "), "categories": R.chart_range(tk, x),
                              "values": R.chart_range(tk, y), "line": {"color": _colour(s), "width": 2},
                              "marker": {"type": "circle", "size": 5, "fill": {"color": _colour(s)},
                                         "border": {"color": _colour(s)}}})
            return c

        plan.charts.append(chart)
    return plan


RECIPES: dict[str, Callable[[AnalysisResult, Key], ChartPlan]] = {
    "compare": _compare, "aggregate": _aggregate, "cost": _cost, "passk": _passk,
    "ranking": _ranking, "text": _text, "plan": _plan,
}


def charts_for(result: AnalysisResult, key: Key) -> ChartPlan:
    recipe = RECIPES.get(result.analysis)
    if recipe is None:
        return ChartPlan()
    try:
        return recipe(result, key)
    except (KeyError, ValueError, TypeError):  # a table shaped unlike the analysis's own
        return ChartPlan()
