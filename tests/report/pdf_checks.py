"""Reading a report rendered to PDF by LibreOffice: pages, the sheet each page belongs to (its
footer names it), the share of each page that holds anything, and its text."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
PDFTOPPM = shutil.which("pdftoppm")
PDFTOTEXT = shutil.which("pdftotext")
#: A page holding less than this share of its height (a sheet's only page excepted) is near-blank.
NEAR_BLANK = 0.15


def to_pdf(xlsx: Path, outdir: Path, profile: Path) -> Path:
    proc = subprocess.run([SOFFICE, f"-env:UserInstallation=file://{profile}", "--headless",
                           "--convert-to", "pdf", "--outdir", str(outdir), str(xlsx)],
                          capture_output=True, text=True, timeout=300)
    pdf = outdir / (xlsx.stem + ".pdf")
    assert proc.returncode == 0 and pdf.exists(), proc.stdout + proc.stderr
    return pdf


def page_text(pdf: Path, page: int | None = None) -> str:
    args = [PDFTOTEXT, "-layout"] + (["-f", str(page), "-l", str(page)] if page else []) + [str(pdf), "-"]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def page_count(pdf: Path) -> int:
    return page_text(pdf).count("\f") or 1


def pages(pdf: Path, folder: Path, dpi: int = 40) -> list[dict]:
    """One dict per page: ``sheet`` (from the footer), ``fill`` (share of the page's height
    between its first and last inked row, the footer left out), ``png`` and ``text``."""
    from PIL import Image
    import numpy as np

    stem = folder / (pdf.stem + "-page")
    subprocess.run([PDFTOPPM, "-r", str(dpi), "-png", str(pdf), str(stem)], check=True, timeout=300)
    pngs = sorted(folder.glob(pdf.stem + "-page-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    out = []
    for i, png in enumerate(pngs, 1):
        text = page_text(pdf, i)
        footer = [ln for ln in text.splitlines() if "Page " in ln and " of " in ln]
        sheet = footer[-1].split("Page ")[0].strip() if footer else "?"
        grey = np.asarray(Image.open(png).convert("L"))
        body = grey[: int(grey.shape[0] * 0.9)]  # the footer sits in the bottom margin
        inked = np.flatnonzero((body < 200).any(axis=1))
        fill = (inked.max() - inked.min() + 1) / grey.shape[0] if len(inked) else 0.0
        out.append({"sheet": sheet, "fill": float(fill), "png": png, "text": text})
    return out


def near_blank(page_list: list[dict]) -> list[tuple[int, str, float]]:
    """Pages that hold next to nothing, other than a sheet's only page."""
    per_sheet: dict[str, int] = {}
    for p in page_list:
        per_sheet[p["sheet"]] = per_sheet.get(p["sheet"], 0) + 1
    return [(i, p["sheet"], round(p["fill"], 3)) for i, p in enumerate(page_list, 1)
            if per_sheet[p["sheet"]] > 1 and p["fill"] < NEAR_BLANK]
