"""Screenshots of the real window under an X server (Xvfb + openbox), for the README and review.

    Xvfb :57 -screen 0 1280x800x24 &  DISPLAY=:57 openbox &
    DISPLAY=:57 PYTHONPATH=. python tests/ui/capture_screenshots.py resources/screenshots 1280x800
    (a third argument keeps only the named shots, e.g. ``ranking-two-systems``; the Conventions
    tabs are taken in a pass of their own: WB_SHOT_CONVENTIONS=0 for the others, then
    ``compare,ranking,text`` with it set)

Drives the window through its menus (QAction.trigger), waits for each panel's result, then
grabs the whole screen with ImageMagick's ``import -window root`` (what a user sees: window
frame, menus, docks) and stores a 48-colour PNG (no dithering: small files, crisp text).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, QTimer

SHOTS = [  # (name, example file or session, panel)
    ("compare", "paired_14_to_5.csv", "compare"),
    ("ranking", "ranking_graded.csv", "ranking"),
    ("passk", "passk_counts.csv", "passk"),
    ("aggregate-simpson", "simpson.csv", "aggregate"),
    ("cost", "cost_latency.csv", "cost"),
    ("text", "text_extraction.csv", "text"),
    ("plan", None, "plan"),
    ("rule", "paired_14_to_5.wbsession.json", "rule"),
    ("data", "multilingual.csv", "data"),
    ("ranking-two-systems", "two_systems.csv", "ranking"),  # written by two_system_runs()
    ("compare-from-ranking", "two_systems.csv", "compare"),  # Metric from: the Ranking per-query table
    ("judge", "judge_labels.csv", "judge"),
    ("rubric", "rubric_answers.csv", "rubric"),
    ("runs", "runs_nightly.csv", "runs"),
    ("repeats", "repeats_epochs.csv", "repeats"),
    ("slices", "slices_languages.csv", "slices"),
    # a Parquet file over the memory budget, read page by page (written by large_run(); the
    # budget is lowered to 2% of the RAM so that 2M rows are over it)
    ("large-data", "large_run.parquet", "data"),
    ("large-ranking", "large_run.parquet", "ranking"),
    # the same run as a CSV, copied once by DuckDB and read page by page
    ("large-csv-data", "large_run.csv", "data"),
    # a request log too large to load (its load share lowered too): Cost reads only its columns
    ("large-cost", "large_log.parquet", "cost"),
]

#: the Conventions tab shown too (at 1280x800): the headline under every other convention
CONVENTIONS_SHOTS = {"compare": "compare", "ranking": "ranking", "text": "text"}

#: a "Metric from" source to choose in Compare before the shot (Compare's combo box)
COMPARE_SOURCE = {"compare-from-ranking": "ranking"}


CHART_SHOTS = {  # the charts also shown (at 1280x800 only, to keep the folder small)
    "compare": ("CompareIntervalChart", "BootstrapChart"),
    "aggregate-simpson": ("SegmentBarChart",),
    "cost": ("CostPerSuccessChart", "LatencyChart"),
    "text": ("TextScoreChart",),
    "plan": ("PlanMdeChart",),
    "passk": ("PassKChart",),
    "ranking-two-systems": ("SystemsDiffChart",),
    "judge": ("ConfusionChart", "LabelShareChart"),
    "rubric": ("CriterionRateChart", "ContributionChart"),
    "runs": ("ItemGrid", "RunGroupsChart"),
    "repeats": ("ItemShareChart", "NoiseSplitChart"),
    "slices": ("ForestChart",),
}


def two_system_runs(folder: Path) -> Path:
    """Two retrieval runs (bm25, dense) over 40 queries with graded judgments: the Ranking
    panel's "Systems compared" table and its chart of differences (fixed seed)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(2026)
    rows = []
    for system, lift in (("bm25", 0.0), ("dense", 0.25)):
        for q in range(1, 41):
            for d in range(1, 13):
                grade = 2 if d == 1 else (1 if d <= 4 else 0)
                rows.append((system, f"q{q}", f"q{q}-d{d}", round(float(rng.random() + lift * grade), 4), grade))
    path = folder / "two_systems.csv"
    pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"]).to_csv(path, index=False)
    return path


def large_run(folder: Path, rows: int = 2_000_000, kind: str = "parquet") -> Path:
    """A ranking run of ``rows`` rows (100 documents per query, graded labels) as Parquet
    (or CSV)."""
    import duckdb

    path = folder / f"large_run.{kind}"
    duckdb.connect().execute(
        f"COPY (SELECT 'q' || lpad(CAST(i // 100 AS VARCHAR), 6, '0') AS query, "
        f"'d' || (hash(i) % 1000000) || '-' || (i % 100) AS doc, "
        f"round((hash(i * 7) % 100000) / 100000.0, 4) AS score, "
        f"CAST(hash(i * 13) % 4 AS INTEGER) AS relevance FROM range({rows}) t(i)) "
        f"TO '{path}' ({'FORMAT parquet' if kind == 'parquet' else 'HEADER'})")
    return path


def large_log(folder: Path, rows: int = 2_000_000) -> Path:
    """A request log of ``rows`` rows (three models, success, cost, latency, a prompt) as
    Parquet."""
    import duckdb

    path = folder / "large_log.parquet"
    duckdb.connect().execute(
        f"COPY (SELECT ['base', 'cand', 'large'][1 + CAST(hash(i) % 3 AS INTEGER)] AS model, "
        f"CAST(hash(i * 3) % 100 < 60 + 10 * (hash(i) % 3) AS INTEGER) AS passed, "
        f"round(0.001 * (1 + hash(i) % 3) * (0.5 + (hash(i * 5) % 1000) / 1000.0), 6) AS cost, "
        f"round(300 + (hash(i * 7) % 100000) / 100.0 * (1 + hash(i) % 3), 1) AS latency_ms, "
        f"'Answer with the passages, citing each: ' || i AS prompt FROM range({rows}) t(i)) "
        f"TO '{path}' (FORMAT parquet)")
    return path


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def settle(window, timeout_ms: int = 60000) -> None:
    waited = 0
    while waited < timeout_ms:
        busy = window.loader.busy or window.rule_panel.runner.busy or any(
            p.runner.busy or p._debounce.isActive() for p in window.panels.values())
        if not busy:
            break
        wait(100)
        waited += 100
    wait(400)


def grab(path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.png"
        subprocess.run(["import", "-window", "root", str(raw)], check=True)
        subprocess.run(["convert", str(raw), "+dither", "-colors", "48", f"PNG8:{path}"], check=True)
    print(path, path.stat().st_size // 1024, "KiB", flush=True)


def main(out: str, size: str, only: str | None = None) -> int:
    from workbench.ui.app import create_app
    from workbench.ui.examples import EXAMPLE_SESSIONS, EXAMPLES
    from workbench.ui.main_window import MainWindow

    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    app = create_app()
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings)
    window.warn = lambda title, text: print("warning:", title, text)
    window.ask_unsaved = lambda: "discard"
    width, height = (int(x) for x in size.split("x"))
    window.show()
    window.setGeometry(0, 0, width, height)
    window.showMaximized()
    wait(800)
    if not only:
        grab(out_dir / f"start-{size}.png")
    by_file = {e.file: e for e in (*EXAMPLES, *EXAMPLE_SESSIONS)}
    generated = two_system_runs(Path(tempfile.mkdtemp()))
    large = None
    for name, file, panel in SHOTS:
        if only and name not in only.split(","):
            continue
        if file in ("large_run.parquet", "large_run.csv", "large_log.parquet"):
            from workbench.engines import budget

            budget.MEMORY_SHARE = 0.02
            if file == "large_log.parquet":
                budget.LOAD_SHARE = 0.005  # a log (not a ranking run) paged too
            if large is None or large.name != file:
                folder = Path(tempfile.mkdtemp())
                large = (large_log(folder) if file == "large_log.parquet"
                         else large_run(folder, kind=file.rsplit(".", 1)[1]))
                window.open_path(str(large))
            settle(window, 180000)
        elif file == generated.name:
            if window.table is None or window.table.path != str(generated):
                window.open_path(str(generated))
            settle(window)
        elif file is not None:
            window.open_example(by_file[file])
            settle(window)
        window.view_actions[panel].trigger()  # through the View menu's action
        settle(window)
        if name in COMPARE_SOURCE:
            combo = window.panels["compare"].control("source")
            combo.setCurrentIndex(combo.findData(COMPARE_SOURCE[name]))
            settle(window)
        grab(out_dir / f"{name}-{size}.png")
        if size == "1280x800" and panel in window.panels:
            for chart_name in CHART_SHOTS.get(name, ()):
                p = window.panels[panel]
                # the Runs panel's item grid (filters, table, heat map) is a tab of its own
                p.tabs.setCurrentWidget(p.grid_view if chart_name == "ItemGrid" else p.chart(chart_name))
                wait(500)
                grab(out_dir / f"{name}-{chart_name}-{size}.png")
                if name == "aggregate-simpson":  # the README's picture: the answer, then the bars
                    shutil.copyfile(out_dir / f"{name}-{chart_name}-{size}.png", out_dir / "main-window.png")
            window.panels[panel].tabs.setCurrentIndex(0)
        if name in ("compare", "rule", "cost", "judge", "rubric", "runs", "repeats"):
            window.presentation_action.trigger()
            settle(window)
            wait(600)
            grab(out_dir / f"presentation-{name}-{size}.png")
            window.presentation_action.trigger()
            settle(window)
        # last: presentation mode after the Conventions tab's chart is drawn crashes Qt's font
        # change (a PySide6 6.11 fault, seen on main too), so its shot comes after
        if size == "1280x800" and name in CONVENTIONS_SHOTS and os.environ.get("WB_SHOT_CONVENTIONS") != "0":
            p = window.panels[panel]
            p.tabs.setCurrentWidget(p.conventions_tab)
            wait(300)
            while p.conventions_tab.runner.busy:
                wait(200)
            wait(600)
            grab(out_dir / f"conventions-{CONVENTIONS_SHOTS[name]}-{size}.png")
            p.tabs.setCurrentIndex(0)
    window.dirty = False
    window.shutdown()
    app.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))  # OUT SIZE [ONLY: comma-separated shot names]
