#!/usr/bin/env python
"""Issue 13's GUI targets, timed in the real main window (offscreen Qt), not a test.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_gui.py [--quick]

* open a 1M-row x 10-column CSV (``bench_table.make_frame``) through ``MainWindow.open_path``:
  seconds until its first rows are in the data view (``preview_shown``), until the whole table
  and the column roles are (``table_loaded``), and until every panel that runs by itself has
  its answer;
* the Text panel on 100k (prediction, reference) pairs (``bench_table.text_pairs``): seconds
  from opening the file until the Text panel's answer card shows.

The event loop keeps running throughout (the work is on workers); the longest gap between two
timer ticks of 50 ms while loading is printed as "longest GUI stall".  Load average is printed.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    quick = "--quick" in sys.argv
    rows, pairs = (20_000, 2_000) if quick else (1_000_000, 100_000)
    import bench_table as bt
    from PySide6.QtCore import QEventLoop, QSettings, QTimer

    from workbench.ui.app import create_app
    from workbench.ui.main_window import MainWindow

    app = create_app()
    tmp = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    table_csv, text_csv = tmp / "table.csv", tmp / "pairs.csv"
    bt.make_frame(rows, 1).to_csv(table_csv, index=False)
    bt.text_pairs(pairs, 1).to_csv(text_csv, index=False)
    print(f"load average {os.getloadavg()[0]:.2f}; files written", flush=True)

    def open_and_time(path: Path, want_panel: str | None, timeout: float = 300.0):
        win = MainWindow(QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat))
        win.warn = win.inform = lambda *a: print("message:", *a)
        win.ask_unsaved = lambda: "discard"
        win.resize(1280, 800)
        win.show()
        app.processEvents()
        marks: dict[str, float] = {}
        ticks: list[float] = []
        timer = QTimer()
        timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
        timer.start(50)
        start = time.perf_counter()
        win.table_loaded.connect(lambda _t: marks.setdefault("table", time.perf_counter() - start))
        win.preview_shown.connect(lambda _t: marks.setdefault("first rows", time.perf_counter() - start))
        for name, panel in win.panels.items():
            panel.result_ready.connect(lambda _r, name=name: marks.setdefault(name, time.perf_counter() - start))
        win.open_path(str(path))
        # the event loop blocks between events as the application's does (a loop calling
        # processEvents would spin and take the GIL from the workers)
        loop = QEventLoop()

        def check():
            busy = any(p.runner.busy for p in win.panels.values()) or win.loader.busy
            done = "table" in marks and (want_panel is None or want_panel in marks) and not busy \
                and time.perf_counter() - start > marks["table"] + 0.5
            if done or time.perf_counter() - start > timeout:
                loop.quit()

        checker = QTimer()
        checker.timeout.connect(check)
        checker.start(100)
        loop.exec()
        checker.stop()
        timer.stop()
        gaps = [b - a for a, b in zip(ticks, ticks[1:])]
        rows_shown = win.data.model.rowCount() if win.table is not None else 0
        win.dirty = False
        win.shutdown()
        for panel in win.panels.values():
            panel.runner.wait(60000)
        win.deleteLater()
        return marks, max(gaps, default=0.0), rows_shown

    marks, stall, shown = open_and_time(table_csv, None)
    print(f"\n{rows:,}-row x 10-column CSV: first rows on screen after "
          f"{marks.get('first rows', marks.get('table', float('nan'))):.2f} s; "
          f"table and column roles after "
          f"{marks.get('table', float('nan')):.2f} s ({shown:,} rows in the view); longest GUI stall "
          f"{stall:.2f} s; load average {os.getloadavg()[0]:.2f}")
    for name, t in sorted(marks.items(), key=lambda kv: kv[1]):
        if name not in ("table", "first rows"):
            print(f"  panel {name}: answer after {t:.2f} s")
    marks, stall, _ = open_and_time(text_csv, "text")
    print(f"\n{pairs:,} text pairs: table after {marks.get('table', float('nan')):.2f} s, Text panel's "
          f"answer after {marks.get('text', float('nan')):.2f} s; longest GUI stall {stall:.2f} s; "
          f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
