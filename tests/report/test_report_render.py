"""The report as LibreOffice renders it: converted headless to PDF, pages rendered to PNG.

Skipped, saying why, where LibreOffice (``soffice``/``libreoffice``) or poppler's ``pdftoppm``
is not installed (on Debian: ``apt-get install libreoffice-calc-nogui poppler-utils``).  Set
``WORKBENCH_RENDER_DIR`` to keep the PDF and PNGs for looking at them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from report_checks import run_example

from workbench.report import write_report

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
PDFTOPPM = shutil.which("pdftoppm")
PDFTOTEXT = shutil.which("pdftotext")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice/libreoffice) is not installed: "
                       "apt-get install libreoffice-calc-nogui"),
    pytest.mark.skipif(PDFTOPPM is None, reason="pdftoppm (poppler-utils) is not installed: "
                       "apt-get install poppler-utils"),
]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    keep = os.environ.get("WORKBENCH_RENDER_DIR")
    folder = Path(keep) if keep else tmp_path_factory.mktemp("render")
    folder.mkdir(parents=True, exist_ok=True)
    from test_report_gate import gate_result

    compare, table = run_example("compare", "paired_14_to_5.csv",
                                 dict(baseline="baseline", candidate="candidate", item="item_id"))
    cost, cost_table = run_example("cost", "cost_latency.csv",
                                   dict(system="system", success="success", cost="cost", latency="latency_s"))
    xlsx = folder / "report.xlsx"
    write_report(xlsx, [compare, gate_result("INCONCLUSIVE", changed=False), cost], source=table,
                 title="Release review")
    profile = tmp_path_factory.mktemp("lo-profile")
    proc = subprocess.run([SOFFICE, f"-env:UserInstallation=file://{profile}", "--headless",
                           "--convert-to", "pdf", "--outdir", str(folder), str(xlsx)],
                          capture_output=True, text=True, timeout=240)
    pdf = folder / "report.pdf"
    assert proc.returncode == 0 and pdf.exists(), proc.stdout + proc.stderr
    subprocess.run([PDFTOPPM, "-r", "60", "-png", str(pdf), str(folder / "page")], check=True, timeout=240)
    pages = sorted(folder.glob("page-*.png"))
    return pdf, pages


def _text(pdf: Path, page: int | None = None) -> str:
    if PDFTOTEXT is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    args = [PDFTOTEXT, "-layout"] + (["-f", str(page), "-l", str(page)] if page else []) + [str(pdf), "-"]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def test_pdf_pages_are_rendered(rendered):
    pdf, pages = rendered
    assert len(pages) >= 4
    assert all(p.stat().st_size > 5_000 for p in pages)


def test_first_page_is_the_summary_with_the_verdict_first(rendered):
    pdf, _ = rendered
    first = _text(pdf, 1)
    lines = [line.strip() for line in first.splitlines() if line.strip()]
    assert lines[0] == "Release review"
    assert lines[1].startswith("Release verdict") and "INCONCLUSIVE" in lines[1]
    assert "Input and provenance" in first and "paired_14_to_5.csv" in first
    assert "'candidate' 77.0% vs 'baseline' 72.5% on 200 paired items" in first
    assert "#####" not in first  # every number fits its column


def test_numbers_and_formula_values_show(rendered):
    pdf, _ = rendered
    text = _text(pdf)
    assert "workbench:0.1.0|analysis:compare" in text
    assert "$0.0146" in text  # cost per success, a formula with its stored value
    assert "0.0636" in text  # the exact sign test p, 4 decimals
    assert "#####" not in text


def test_charts_are_drawn(rendered):
    """The pages with charts hold the series colour of the charts' bars and markers."""
    Image = pytest.importorskip("PIL.Image")
    import numpy as np

    _, pages = rendered
    series_blue = np.array([0x1F, 0x5A, 0x96])
    coloured = []
    for page in pages:
        pixels = np.asarray(Image.open(page).convert("RGB"), dtype=int)
        coloured.append(int((np.abs(pixels - series_blue) <= 24).all(axis=2).sum()))
    assert sum(c > 600 for c in coloured) >= 2, coloured  # the compare and the cost charts
