"""Help > User guide: the Markdown pages of resources/docs shown offline, opened through the
menu's QAction and its key (F1), links between pages followed, every page and link present."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

pytestmark = pytest.mark.gui

DOCS = Path(__file__).resolve().parents[2] / "resources" / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")
#: words of the work that made the product, not of its users
WORK_WORDS = re.compile(r"\bissue \d|\bissues? \d|seed's|\bhelper\b|worked cases|this session\b|"
                        r"\bthe seed\b", re.I)


def _guide_action(window):
    found = []
    for top in window.menuBar().actions():
        for act in top.menu().actions():
            if act.text().replace("&", "") == "User guide":
                found.append((top.text().replace("&", ""), act))
    assert len(found) == 1, found
    menu, action = found[0]
    assert menu == "Help"
    return action


def _anchor_point(browser, href):
    """The viewport position of the first link to ``href`` on the page shown."""
    doc = browser.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.isValid() and frag.charFormat().anchorHref() == href:
                cursor = QTextCursor(doc)
                cursor.setPosition(frag.position() + 1)
                browser.ensureCursorVisible()
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                return browser.cursorRect(cursor).center()
            it += 1
        block = block.next()
    # tables: their cells are frames of their own
    for frame in doc.rootFrame().childFrames():
        for cell_block in _blocks_of(frame):
            it = cell_block.begin()
            while not it.atEnd():
                frag = it.fragment()
                if frag.isValid() and frag.charFormat().anchorHref() == href:
                    cursor = QTextCursor(doc)
                    cursor.setPosition(frag.position() + 1)
                    browser.setTextCursor(cursor)
                    browser.ensureCursorVisible()
                    return browser.cursorRect(cursor).center()
                it += 1
    raise AssertionError(f"no link to {href} on {browser.source().toString()}")


def _blocks_of(frame):
    cursor = frame.firstCursorPosition()
    block = cursor.block()
    end = frame.lastPosition()
    while block.isValid() and block.position() <= end:
        yield block
        block = block.next()


def _open_by_action(qtbot, window):
    from workbench.ui.guide import UserGuide

    _guide_action(window).trigger()
    guide = window.findChild(UserGuide)
    assert guide is not None
    qtbot.waitUntil(guide.isVisible, timeout=5000)
    return guide


def test_help_user_guide_opens_on_getting_started_and_follows_a_link(qtbot, window):
    guide = _open_by_action(qtbot, window)
    assert guide.isWindow() and guide.windowTitle().startswith("User guide")
    assert guide.current_page() == "getting-started.md"
    text = guide.browser.toPlainText()
    assert text.startswith("Getting started")
    assert "Every panel leads with its answer card" in text
    assert guide.list.currentItem().text() == "Getting started"

    # a click on a link to another page shows that page in place, and Back returns
    point = _anchor_point(guide.browser, "file-formats.md")
    QTest.mouseClick(guide.browser.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.NoModifier, point)
    qtbot.waitUntil(lambda: guide.current_page() == "file-formats.md", timeout=5000)
    assert guide.browser.toPlainText().startswith("File formats")
    assert "item_id,conversation,baseline,candidate" in guide.browser.toPlainText()
    assert guide.list.currentItem().text() == "File formats"
    assert guide.back_button.isEnabled()
    guide.back_button.click()
    qtbot.waitUntil(lambda: guide.current_page() == "getting-started.md", timeout=5000)

    # the page list opens a page; the contents page links every panel's page
    row = next(i for i in range(guide.list.count())
               if guide.list.item(i).data(Qt.ItemDataRole.UserRole) == "panel-compare.md")
    guide.list.itemClicked.emit(guide.list.item(row))
    assert guide.current_page() == "panel-compare.md"
    assert "is the candidate really better" in guide.browser.toPlainText()
    guide.contents_button.click()
    assert guide.current_page() == "index.md"
    point = _anchor_point(guide.browser, "panel-ranking.md")  # a link inside a table
    QTest.mouseClick(guide.browser.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.NoModifier, point)
    qtbot.waitUntil(lambda: guide.current_page() == "panel-ranking.md", timeout=5000)

    # the same action again raises the same window
    again = _open_by_action(qtbot, window)
    assert again is guide
    guide.close()


def test_f1_opens_the_guide(qtbot, window):
    from workbench.ui.guide import UserGuide

    assert _guide_action(window).shortcut().toString() == "F1"
    window.activateWindow()
    window.setFocus()
    QTest.keyClick(window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: window.findChild(UserGuide) is not None
                    and window.findChild(UserGuide).isVisible(), timeout=5000)
    window.findChild(UserGuide).close()


def test_the_guide_renders_at_1280x800(qtbot, window, tmp_path):
    guide = _open_by_action(qtbot, window)
    for page in ("getting-started.md", "panel-ranking.md"):
        guide.open_page(page)
        guide.resize(1280, 800)
        qtbot.wait(50)
        image = guide.grab()
        assert (image.width(), image.height()) == (1280, 800)
        path = tmp_path / f"guide-{page[:-3]}.png"
        assert image.save(str(path)) and path.stat().st_size > 20_000
    # wide screenshots are scaled to the page, tables get cell padding
    guide.open_page("panel-ranking.md")
    tables = [f for f in guide.browser.document().rootFrame().childFrames()
              if f.format().isTableFormat()]
    assert tables and all(t.format().toTableFormat().cellPadding() == 4 for t in tables)
    assert guide.browser.document().size().width() <= guide.browser.viewport().width() + 1
    # a pipe in a code span of a table is escaped for GitHub and shown bare here
    guide.open_page("panel-compare.md")
    text = guide.browser.toPlainText()
    assert "cc:max(0,|b-c|-1)" in text and "\\|" not in text
    guide.close()


def test_every_page_is_listed_and_every_link_and_image_resolves():
    from workbench.ui.guide import ORDER, pages

    files = sorted(p.name for p in DOCS.glob("*.md"))
    assert {"index.md", "getting-started.md", "file-formats.md", "release-rules.md",
            "command-line.md", "performance.md"} <= set(files)
    assert set(ORDER) == set(files), "a page missing from the guide's list, or listed but absent"
    assert [name for name, _ in pages(DOCS)] == list(ORDER)
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for name in files:
        text = (DOCS / name).read_text(encoding="utf-8")
        assert text.startswith("# "), name
        if name != "index.md":
            assert f"]({name})" in index, f"index.md does not link {name}"
        for target, _fragment in LINK.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            assert (DOCS / target).resolve().exists(), f"{name}: broken link {target}"


def test_the_guide_speaks_the_users_words():
    for path in sorted(DOCS.glob("*.md")) + [DOCS.parents[1] / "README.md"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not WORK_WORDS.search(line), f"{path.name}:{number}: {line}"


#: the real signatures the pages describe: an example run of each analysis (the rule's card
#: comes from the gate on the 14-to-5 example)
RUNS = {
    "panel-text.md": ("text", "examples/text_extraction.csv"),
    "panel-ranking.md": ("ranking", "examples/ranking_seed.csv"),
    "panel-passk.md": ("passk", "examples/passk_counts.csv"),
    "panel-aggregation.md": ("aggregate", "examples/claims.csv", "--numerator", "correct_claims",
                             "--denominator", "claims", "--unit", "conversation"),
    "panel-compare.md": ("compare", "examples/paired_14_to_5.csv", "--baseline", "baseline",
                         "--candidate", "candidate", "--item", "item_id"),
    "panel-cost-latency.md": ("cost", "examples/cost_latency.csv"),
    "panel-planning.md": ("plan", "--rate", "0.8", "--n", "200"),
    "panel-release-rule.md": ("gate", "rules/seed_14_to_5.toml", "examples/paired_14_to_5.csv"),
    "panel-slices.md": ("slices", "examples/slices_languages.csv", "--by", "language"),
}


def _signature(argv):
    import json
    import subprocess
    import sys

    res = DOCS.parent
    args = [str(res / a) if a.startswith(("examples/", "rules/")) else a for a in argv]
    proc = subprocess.run([sys.executable, "-m", "workbench", *args, "--json"], capture_output=True,
                          text=True, timeout=120, cwd=res.parent)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["signature"]


def test_every_panel_has_its_page_with_its_signature_keys():
    """Each panel's page states the signature keys of its analysis' conventions, and they are
    the keys the analysis really writes (ranking/text systems-compared and the aggregate's group
    form are checked on the pages only: they need other example files)."""
    keys = {
        "panel-text.md": ["norm:", "f1:squad-v2-bag", "bleu:[", "chrf:[", "rouge:", "systems-compared:["],
        "panel-ranking.md": ["k:", "ties:", "gain:", "disc:log2(rank+1)", "idcg:all-judged", "rel:>=1",
                             "norel:", "unjudged:", "judged:pooled", "missing-query:zero", "p@k-denom:k"],
        "panel-passk.md": ["pass@k:1-C(n-c,k)/C(n,k)", "pass^k:C(c,k)/C(n,k)", "n<k:excluded", "agg:mean-over-tasks"],
        "panel-aggregation.md": ["micro:sum/sum", "macro:mean-of-group-rates", "ci:wilson-95",
                                 "pooled:sum(num)/sum(den)", "den=0:excluded-from-mean"],
        "panel-compare.md": ["family:", "sign:exact-two-sided,mid-p", "wilcoxon:zero:wilcox", "bs:10000",
                             "seed:12345", "bs-unit:", "mde:2.8*sqrt(d/n)"],
        "panel-cost-latency.md": ["cps:total-cost/successes", "cpr:mean", "pct:linear", "same-cost:rel-1e-9"],
        "panel-planning.md": ["z:1.959964", "half-width:wald", "items-needed:", "per-try:1-(1-P)^(1/k)"],
        "panel-slices.md": ["family:", "form:", "pairs:by-item-id", "by:language", "bins:none", "blank:(blank)",
                            "labels:exact-text", "min-size:20", "sign:exact-two-sided", "mcnemar:chi2-1df",
                            "adjusted:sign-test", "ci-diff:normal-paired-95", "ci-system:wilson-95",
                            "correction:holm", "fcr:BY2005,q:0.05,select:p-adjusted<0.05,level:1-Rq/m",
                            "se:sd(d,ddof=1)/sqrt(n)", "heterogeneity:cochran-q,chi2",
                            "tau2:dersimonian-laird,truncated-0", "re-ci:normal-95",
                            "shrink:d_re+tau2/(tau2+se2)*(d-d_re)"],
        "panel-release-rule.md": ["rule-sha256:", "verdict:any-fail>any-inconclusive>pass", "at-limit:rel-tol-10^-9",
                                  "evalset:common-ids", "errored:excluded", "more-items:", "rule-changed:"],
    }
    not_in_this_run = {"systems-compared:[", "micro:sum/sum", "macro:mean-of-group-rates", "ci:wilson-95",
                       "wilcoxon:zero:wilcox"}
    for page, wanted in keys.items():
        text = (DOCS / page).read_text(encoding="utf-8")
        signature = _signature(RUNS[page])
        for key in wanted:
            assert key in text, f"{page} does not state {key}"
            if key not in not_in_this_run:
                assert key in signature, f"{page}: {key} is not in the real signature {signature}"
