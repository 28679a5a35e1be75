"""The self-test's steps and their bookkeeping: the expected headline numbers of the worked
examples, one line per step, waiting on signals, and the checks of the guide, the example
sessions, the file formats, the stemmer and the Excel report (see :mod:`.selftest`)."""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field

#: Headline numbers of the seed's worked cases: example file -> (metric, expected value).
#: The first record with the metric is compared (absolute tolerance :data:`TOLERANCE`);
#: a ``bool`` must match exactly.
EXPECTED: dict[str, tuple[str, object]] = {
    "paired_14_to_5.csv": ("sign_test_p", 0.0636),
    "ranking_seed.csv": ("mrr", 0.6111),
    "ranking_graded.csv": ("ndcg@3", 0.9134),
    "passk_counts.csv": ("pass@3", 0.7083),
    "multilingual.csv": ("micro", 0.87),
    "simpson.csv": ("simpson", True),
    "claims.csv": ("mean_of_ratios", 0.6),
    "cost_latency.csv": ("cost_per_success", 0.0146),
    "text_extraction.csv": ("exact_match", 0.4),
    "slices_languages.csv": ("diff", 0.041),
}
TOLERANCE = 6e-5
#: Example sessions: the panel whose result is checked, its metric and value (the rule's
#: session is checked by its decision card), and a convention its signature must state.
EXPECTED_SESSIONS: dict[str, tuple[str, object, str]] = {
    "paired_14_to_5.wbsession.json": ("verdict", "PASS", "rule-changed:no"),
    "ranking_graded.wbsession.json": ("ndcg@3", 0.834, "gain:exponential"),
    "cost_latency.wbsession.json": ("cost_per_success", 0.0146, "pct:nearest_rank"),
}


@dataclass
class Outcome:
    ok: bool = True
    steps: int = 0
    failures: list[str] = field(default_factory=list)

    def step(self, ok: bool, label: str, detail: str = "") -> bool:
        self.steps += 1
        if not ok:
            self.ok = False
            self.failures.append(f"{label}: {detail}" if detail else label)
        say(f"{'ok  ' if ok else 'FAIL'} {label}{' - ' + detail if detail else ''}")
        return ok


_LOG = None


def say(line: str) -> None:
    """Print one line (a windowed Windows build has no stdout: then a log file in the temp folder)."""
    global _LOG
    stream = sys.stdout
    if stream is None:
        if _LOG is None:
            _LOG = open(os.path.join(tempfile.gettempdir(), "workbench-self-test.log"), "w",
                        encoding="utf-8")
        stream = _LOG
    print(line, file=stream, flush=True)


def wait(signals, timeout_s: float):
    """Run an event loop until one of ``signals`` fires or the time runs out.

    Returns ``(index of the signal, its arguments)`` or ``(None, None)`` on time-out.
    """
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    fired: list = []
    slots = []
    for i, sig in enumerate(signals):
        def slot(*args, _i=i):
            if not fired:
                fired.append((_i, args))
            loop.quit()
        sig.connect(slot)
        slots.append((sig, slot))
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    timer.start(int(timeout_s * 1000))
    loop.exec()
    timer.stop()
    for sig, slot in slots:
        try:
            sig.disconnect(slot)
        except (RuntimeError, TypeError):  # pragma: no cover - already gone
            pass
    return fired[0] if fired else (None, None)


def check_value(result, metric: str, expected) -> tuple[bool, str]:
    values = [r["value"] for r in result.records if r["metric"] == metric]
    if not values:
        return False, f"no {metric} record in the result"
    got = values[0]
    if isinstance(expected, bool):
        return got is expected, f"{metric} = {got} (expected {expected})"
    ok = isinstance(got, (int, float)) and not isinstance(got, bool) and math.isfinite(got) \
        and abs(got - float(expected)) <= TOLERANCE
    shown = f"{got:.4f}" if isinstance(got, float) else str(got)
    return ok, f"{metric} = {shown} (seed {expected}), n={n_of(result, metric)}"


def n_of(result, metric: str):
    for r in result.records:
        if r["metric"] == metric:
            return r.get("n", "-")
    return "-"


def every_analysis_tried(outcome: Outcome, results: list) -> None:
    """Every analysis of the catalogue that reads a file answered on one example."""
    from .. import catalog

    answered = {r.analysis for r in results}
    untried = [name for name in catalog.names(reads_input=True) if name not in answered]
    outcome.step(not untried, "every analysis",
                 f"no example answered for {', '.join(untried)}" if untried else
                 f"{len(answered)} analyses answered on their examples")


def guide(outcome: Outcome, window, app, shots: str | None) -> None:
    """Help > User guide (its menu action) opens offline on the getting-started page, and every
    page of the guide is in the installation and shows its title."""
    label = "user guide"
    action = getattr(window, "guide_action", None)
    if action is None:
        outcome.step(False, label, "Help > User guide is missing from the menu")
        return
    try:
        from .guide import FIRST_PAGE, docs_dir, pages

        t0 = time.monotonic()
        action.trigger()
        app.processEvents()
        guide = getattr(window, "_user_guide", None)
        if guide is None or not guide.isVisible():
            outcome.step(False, label, "Help > User guide did not open a window")
            return
        first = guide.browser.toPlainText()
        listed = pages()
        if guide.current_page() != FIRST_PAGE or "Getting started" not in first:
            outcome.step(False, label, f"opened on {guide.current_page()!r}, not the getting-started page")
            guide.close()
            return
        if shots:
            guide.resize(1280, 800)
            app.processEvents()
            guide.grab().save(os.path.join(shots, "guide.png"))
        empty = []
        for name, title in listed:
            guide.open_page(name)
            app.processEvents()
            if guide.current_page() != name or title not in guide.browser.toPlainText():
                empty.append(name)
        guide.open_page(FIRST_PAGE)
        guide.close()
        outcome.step(not empty and len(listed) > 1, label,
                     f"{len(listed)} pages from {docs_dir()} in {(time.monotonic() - t0) * 1000:.0f} ms"
                     if not empty else
                     f"pages not shown: {', '.join(empty)}")
    except Exception as err:  # noqa: BLE001 - a self-test reports, it does not crash
        outcome.step(False, label, f"{type(err).__name__}: {err}")


def screenshot_start(window, app, about_html: str, folder: str) -> None:
    """The start page, and the About box as Qt draws it (application icon, versions)."""
    from PySide6.QtWidgets import QMessageBox

    app.processEvents()
    window.grab().save(os.path.join(folder, "start.png"))
    box = QMessageBox(window)
    box.setWindowTitle("About Eval Workbench")
    box.setIconPixmap(app.windowIcon().pixmap(64, 64))
    box.setText(about_html)
    box.show()
    app.processEvents()
    box.grab().save(os.path.join(folder, "about.png"))
    box.close()
    box.deleteLater()


def screenshot_example(window, panel, app, folder: str, name: str) -> None:
    """The window on the panel's results, and again on its first chart tab (pyqtgraph)."""
    from PySide6.QtWidgets import QTabWidget

    window.grab().save(os.path.join(folder, f"{name}.png"))
    for tabs in panel.findChildren(QTabWidget):
        if tabs.count() > 1 and tabs.tabText(0) == "Results":
            tabs.setCurrentIndex(1)
            app.processEvents()
            window.grab().save(os.path.join(folder, f"{name}-chart.png"))
            tabs.setCurrentIndex(0)
            break


def example_sessions(outcome: Outcome, window, timeout: float) -> None:
    """Each bundled example session reopens its file, options and rule, and runs."""
    from .examples import EXAMPLE_SESSIONS

    for example in EXAMPLE_SESSIONS:
        label = f"example session {example.file}"
        metric, expected, convention = EXPECTED_SESSIONS.get(example.file, (None, None, ""))
        if not example.path.is_file():
            outcome.step(False, label, f"missing file {example.path}")
            continue
        which, args = wait_for_load(window, example, timeout)
        if which != 0:
            why = args[0] if which == 1 else f"not loaded within {timeout:.0f} s"
            outcome.step(False, label, f"loading failed: {why}")
            continue
        panel = window.rule_panel if example.panel == "rule" else window.panels[example.panel]
        if panel.runner.busy or getattr(panel, "_debounce", None) and panel._debounce.isActive():
            which, args = wait([panel.result_ready, panel.runner.failed], timeout)
            if which != 0:
                outcome.step(False, label, f"no result: {args[0] if args else 'timed out'}")
                continue
        result = panel.last_result
        if result is None:
            outcome.step(False, label, "no result was shown")
            continue
        if metric == "verdict":
            got = result.value("verdict")
            ok, detail = got == expected, f"rule card {got} (expected {expected})"
        elif metric is not None:
            ok, detail = check_value(result, metric, expected)
        else:
            ok, detail = bool(result.records), f"{len(result.records)} records"
        if convention not in result.signature:
            ok, detail = False, f"{detail}; signature lacks {convention!r}: {result.signature}"
        outcome.step(ok, label, detail)


def wait_for_load(window, example, timeout: float):
    from PySide6.QtCore import QTimer

    # start the load from inside the loop, so a very fast load cannot be missed
    QTimer.singleShot(0, lambda: window.open_example(example))
    return wait([window.table_loaded, window.load_failed], timeout)


def formats(outcome: Outcome, workdir: str, tables: list) -> None:
    """Parquet (pyarrow, or fastparquet in the bundle) and XLSX (openpyxl) inputs load as the
    CSV did."""
    from ..io import load_table, parquet

    if not tables:
        return
    frame = tables[0].frame
    for ext, write in ((".parquet", lambda f, p: parquet.write(f, p, index=False)),
                       (".xlsx", lambda f, p: f.to_excel(p, index=False))):
        path = os.path.join(workdir, f"round-trip{ext}")
        label = f"{ext[1:]} input" + (f" ({parquet.engine()})" if ext == ".parquet" else "")
        try:
            write(frame, path)
            back = load_table(path)
            same = back.frame.shape == frame.shape and list(map(str, back.frame.columns)) == \
                list(map(str, frame.columns))
            outcome.step(same, label, f"{len(back.frame)} rows x {back.frame.shape[1]} columns"
                         + ("" if same else f", expected {frame.shape}"))
        except Exception as err:  # noqa: BLE001
            outcome.step(False, label, f"{type(err).__name__}: {err}")


def stemmer(outcome: Outcome, tables: list) -> None:
    """ROUGE with NLTK's Porter stemmer (rouge-score's use_stemmer), which the examples leave off."""
    from dataclasses import replace

    from ..analyses import REGISTRY

    table = next((t for t in tables if os.path.basename(str(t.path)) == "text_extraction.csv"), None)
    if table is None:
        return
    try:
        module = REGISTRY["text"]
        result = module.run(table, replace(module.Options(), stemmer=True))
        value = result.value("rouge1") if result.find("rouge1") else None
        outcome.step(isinstance(value, float), "ROUGE with the Porter stemmer",
                     f"rouge1 = {value:.4f}" if isinstance(value, float) else "no rouge1 value")
    except Exception as err:  # noqa: BLE001
        outcome.step(False, "ROUGE with the Porter stemmer", f"{type(err).__name__}: {err}")


def export(outcome: Outcome, workdir: str, results: list, tables: list) -> None:
    label = "report"
    if not results:
        outcome.step(False, label, "no results to export")
        return
    try:
        from ..report import write_report
    except ImportError as err:
        outcome.step(False, label, f"the report writer (workbench.report.write_report) cannot be "
                     f"imported: {err}")
        return
    path = os.path.join(workdir, "self-test-report.xlsx")
    t0 = time.monotonic()
    try:
        write_report(path, results, source=tables, title="Eval Workbench self-test")
    except Exception as err:  # noqa: BLE001
        outcome.step(False, label, f"writing failed: {type(err).__name__}: {err}")
        for line in traceback.format_exc().rstrip().splitlines():
            say("     " + line)
        return
    ms = (time.monotonic() - t0) * 1000
    if not os.path.isfile(path):
        outcome.step(False, label, f"{path} was not written")
        return
    try:
        from openpyxl import load_workbook

        wb = load_workbook(path, read_only=True)
        sheets = list(wb.sheetnames)
        wb.close()
    except Exception as err:  # noqa: BLE001
        outcome.step(False, label, f"the report cannot be read back: {type(err).__name__}: {err}")
        return
    size = os.path.getsize(path)
    outcome.step(len(sheets) >= 2, label,
                 f"{len(results)} results, {len(sheets)} sheets, {size / 1024:.0f} KiB in {ms:.0f} ms")


def plain(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())
