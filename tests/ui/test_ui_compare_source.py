"""Compare with its metric taken from another panel's table (issue 14, GUI part): the Ranking
per-query table and the Text per-item table, chosen in the "Metric from" combo box, run through
the Compare analysis; the numbers are checked against pytrec_eval / a hand-written token F1 and
scipy.stats on the per-unit differences, computed here from the file, not from the code under
test.  Also: a new file clears the source, and a source re-run with other options re-runs the
comparison (never stale numbers)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from conftest import open_file, wait_result

pytestmark = pytest.mark.gui


def _ranking_csv(path, queries=30):
    """Two systems ranking the same 8 judged documents per query; 'dense' lifts relevant
    documents a little, so queries go both ways."""
    rng = np.random.default_rng(11)
    rows = []
    for system, lift in (("bm25", 0.0), ("dense", 0.15)):
        for q in range(queries):
            for d in range(8):
                rel = [2, 1, 1, 0, 0, 1, 0, 0][(d + q) % 8]
                rows.append((system, f"q{q}", f"d{d}", round(float(rng.random() + lift * rel), 6), rel))
    frame = pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"])
    frame.to_csv(path, index=False)
    return frame


def _pytrec_ndcg(frame, system, measure="ndcg_cut_10", *, exponential=False):
    import pytrec_eval

    qrels = {}
    for r in frame.itertuples():
        grade = int(r.relevance)
        qrels.setdefault(r.query, {})[r.doc] = (2 ** grade - 1) if exponential else grade
    run = {}
    for r in frame[frame["system"] == system].itertuples():
        run.setdefault(r.query, {})[r.doc] = float(r.score)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {measure})
    out = ev.evaluate(run)
    return pd.Series({q: v[measure] for q, v in out.items()})


def _record(result, metric):
    found = [r for r in result.records if r["metric"] == metric]
    assert len(found) == 1, found
    return found[0]


def _choose(qtbot, combo, data):
    idx = combo.findData(data)
    assert idx >= 0, f"{data!r} not offered: {[combo.itemData(i) for i in range(combo.count())]}"
    combo.setCurrentIndex(idx)


def _run_ranking(qtbot, window, path):
    open_file(qtbot, window, path)
    ranking = window.panels["ranking"]
    result = wait_result(qtbot, ranking, timeout=60000)
    assert result.analysis == "ranking"
    return ranking, result


def _pick_source(qtbot, window, source, metric, base, cand):
    compare = window.panels["compare"]
    window.show_panel("compare")
    compare.runner.wait(30000)

    def chosen(result):  # the run of the last choice (the debounce folds the four into one)
        return f"|metric:{metric}|" in result.signature and any(
            r.get("from") == base and r.get("to") == cand for r in result.records)

    with qtbot.waitSignal(compare.result_ready, timeout=60000, check_params_cb=chosen):
        _choose(qtbot, compare.control("source"), source)
        _choose(qtbot, compare.control("metric"), metric)
        _choose(qtbot, compare.control("source_baseline"), base)
        _choose(qtbot, compare.control("source_candidate"), cand)
    assert not compare.runner.busy
    return compare, compare.last_result


def test_ranking_per_query_table_as_compare_metric(qtbot, window, tmp_path):
    from scipy.stats import ttest_rel, wilcoxon

    path = tmp_path / "runs.csv"
    frame = _ranking_csv(path)
    _run_ranking(qtbot, window, path)
    compare = window.panels["compare"]
    assert "ranking" in compare.source_names()
    # the file's columns cannot be compared as they are (no item column): the sentence offers the table
    qtbot.waitUntil(lambda: not compare.runner.busy and not compare._debounce.isActive(), timeout=30000)
    assert compare.last_result is None
    assert "Or take the metric from the Ranking per-query table under 'Metric from'." in compare.message.text()
    # the metric and system choices are hidden until the source is chosen; the file's are shown
    assert not compare.control("metric").isVisibleTo(compare)
    compare, result = _pick_source(qtbot, window, "ranking", "ndcg@10", "bm25", "dense")
    assert compare.control("metric").isVisibleTo(compare)
    assert not compare.control("form").isVisibleTo(compare)

    base = _pytrec_ndcg(frame, "bm25")
    cand = _pytrec_ndcg(frame, "dense")
    assert len(base) == len(cand) == 30
    d = (cand - base.reindex(cand.index)).to_numpy()
    assert (d > 0).any() and (d < 0).any()  # a real comparison, not all one way
    assert _record(result, "mean_diff")["value"] == pytest.approx(d.mean(), abs=1e-12)
    assert _record(result, "mean_diff")["n"] == 30
    t = ttest_rel(cand.to_numpy(), base.reindex(cand.index).to_numpy())
    assert _record(result, "t_test_p")["value"] == pytest.approx(t.pvalue, rel=1e-9)
    # scipy's defaults (zeros dropped) on the differences rounded to 12 decimals: ties and zeros of
    # per-query nDCG decided as equal numbers, not by float noise (issue 22)
    w = wilcoxon(np.round(d, 12))
    assert _record(result, "wilcoxon_p")["value"] == pytest.approx(w.pvalue, rel=1e-9)
    assert _record(result, "improved")["value"] == int((d > 0).sum())
    assert _record(result, "worse")["value"] == int((d < 0).sum())
    assert {r.get("from") for r in result.records if r.get("from")} == {"bm25"}
    # where the metric came from: signature, first note, what the panel shows
    assert "|metric:ndcg@10|from:ranking.queries|" in result.signature
    assert "source:[" in result.signature and "analysis:ranking" in result.signature
    assert "family:continuous" in result.signature
    assert compare.signature.text() == result.signature
    assert result.notes[0].startswith("Metric: nDCG@10 from the Ranking per-query table")
    assert "n = 30 queries" in result.notes[0]
    assert "nDCG@10 from the Ranking per-query table" in compare.notes.text()
    assert compare.last_error is None and not compare.not_applicable
    # a query is many rows of the file: the changed queries are listed in a tab, not the data table
    assert not compare.show_discordant.isEnabled()
    changed = compare.result_table("discordant").frame_model()
    assert changed.rowCount() == int((d != 0).sum())

    # the source re-run with other options: the comparison is re-run, not left stale
    ranking = window.panels["ranking"]
    gain = ranking.control("gain")
    with qtbot.waitSignal(compare.result_ready, timeout=60000):
        _choose(qtbot, gain, "exponential")
    rerun = compare.last_result
    base_x = _pytrec_ndcg(frame, "bm25", exponential=True)
    cand_x = _pytrec_ndcg(frame, "dense", exponential=True)
    d_x = (cand_x - base_x.reindex(cand_x.index)).to_numpy()
    assert not np.allclose(d_x, d)
    assert _record(rerun, "mean_diff")["value"] == pytest.approx(d_x.mean(), abs=1e-12)
    assert "gain:exponential" in rerun.signature
    assert "re-run on the new table" in compare.message.text()

    # the source's re-run fails: its red error replaces its table, so no comparison is left on
    # screen from a table that is no longer the source's (errors replace results)
    with qtbot.waitSignal(ranking.runner.failed, timeout=60000):
        ranking.control("ks").setText("0")
        ranking.control("ks").editingFinished.emit()
    assert "k" in ranking.message.text() and ranking.last_result is None
    assert compare.last_result is None and compare.signature.text() == ""
    assert "is gone" in compare.message.text()

    # the source back, the comparison chosen again, then the source re-run without the chosen
    # metric: the comparison is taken off, with a sentence
    with qtbot.waitSignal(ranking.result_ready, timeout=60000):
        ranking.control("ks").setText("1,3,5,10")
        ranking.control("ks").editingFinished.emit()
    compare, again = _pick_source(qtbot, window, "ranking", "ndcg@10", "bm25", "dense")
    assert "gain:exponential" in again.signature
    with qtbot.waitSignal(ranking.result_ready, timeout=60000):
        ranking.control("ks").setText("1,3")
        ranking.control("ks").editingFinished.emit()
    assert compare.last_result is None
    assert compare.signature.text() == ""
    assert "no longer has 'ndcg@10'" in compare.message.text()


def _f1(pred: str, ref: str) -> float:
    """SQuAD token F1 on lower-cased whitespace tokens (the texts here have no punctuation)."""
    p, r = pred.lower().split(), ref.lower().split()
    if not p or not r:
        return float(p == r)
    common = sum((Counter(p) & Counter(r)).values())
    if common == 0:
        return 0.0
    prec, rec = common / len(p), common / len(r)
    return 2 * prec * rec / (prec + rec)


def _text_csv(path):
    rng = np.random.default_rng(5)
    words = "refund within seven working days after the request was received by support".split()
    rows = []
    for i in range(40):
        ref = " ".join(words[: 6 + i % 5])
        for system, keep in (("A", 0.6), ("B", 0.75)):
            pred = " ".join(w for w in ref.split() if rng.random() < keep) or "nothing"
            rows.append((system, f"t{i}", pred, ref))
    frame = pd.DataFrame(rows, columns=["system", "id", "prediction", "reference"])
    frame.to_csv(path, index=False)
    return frame


def test_text_per_item_table_as_compare_metric(qtbot, window, tmp_path):
    from scipy.stats import ttest_rel, wilcoxon

    path = tmp_path / "answers.csv"
    frame = _text_csv(path)
    open_file(qtbot, window, path)
    text = window.panels["text"]
    wait_result(qtbot, text, timeout=60000)
    compare = window.panels["compare"]
    assert "text" in compare.source_names()
    compare, result = _pick_source(qtbot, window, "text", "token_f1", "A", "B")

    f1 = {(r.system, r.id): _f1(r.prediction, r.reference) for r in frame.itertuples()}
    ids = [f"t{i}" for i in range(40)]
    a = np.array([f1[("A", i)] for i in ids])
    b = np.array([f1[("B", i)] for i in ids])
    d = b - a
    assert (d > 0).any() and (d < 0).any()
    assert _record(result, "mean_diff")["value"] == pytest.approx(d.mean(), abs=1e-12)
    assert _record(result, "mean_diff")["n"] == 40
    assert _record(result, "t_test_p")["value"] == pytest.approx(ttest_rel(b, a).pvalue, rel=1e-9)
    assert _record(result, "wilcoxon_p")["value"] == pytest.approx(wilcoxon(np.round(d, 12)).pvalue, rel=1e-9)
    assert "|metric:token_f1|from:text.items|" in result.signature
    assert "analysis:text" in result.signature and "norm:case_ws" in result.signature
    assert result.notes[0].startswith("Metric: Token F1 from the Text per-item table")
    assert "n = 40 items" in result.notes[0]
    # items are rows of the file: the flipped ones are one click away (the baseline's rows)
    assert compare.show_discordant.isEnabled()
    rows = compare.discordant_rows()
    assert len(rows) == int((d != 0).sum())
    shown = frame.iloc[rows]
    assert set(shown["system"]) == {"A"}
    assert set(shown["id"]) == {ids[i] for i in np.flatnonzero(d != 0)}

    # sentence BLEU is a per-item score: the note says it is not corpus BLEU
    with qtbot.waitSignal(compare.result_ready, timeout=60000):
        _choose(qtbot, compare.control("metric"), "bleu")
    assert any("not the difference in corpus BLEU" in n for n in compare.last_result.notes)


def test_a_new_file_clears_the_panel_table_source(qtbot, window, tmp_path, examples):
    path = tmp_path / "runs.csv"
    _ranking_csv(path)
    _run_ranking(qtbot, window, path)
    compare, result = _pick_source(qtbot, window, "ranking", "ndcg@10", "bm25", "dense")
    old_mean = _record(result, "mean_diff")["value"]
    assert compare.source_key() == "ranking"

    # a second file (one system, another shape): nothing of the first file's table stays
    open_file(qtbot, window, examples / "paired_14_to_5.csv")
    assert compare.source_names() == ["file"]
    assert compare.source_key() == "file"
    assert compare.control("form").isVisibleTo(compare) and not compare.control("metric").isVisibleTo(compare)
    new = wait_result(qtbot, compare, timeout=60000)
    assert "from:ranking" not in new.signature and "from:ranking" not in compare.signature.text()
    assert all(r.get("value") != old_mean for r in new.records)
    assert "Ranking per-query" not in compare.notes.text()

    # the same runs again: the Ranking table is offered again, from the new file's result
    open_file(qtbot, window, path)
    ranking = window.panels["ranking"]
    wait_result(qtbot, ranking, timeout=60000)
    assert "ranking" in compare.source_names()
    assert compare.source_key() == "file"  # offered, not chosen behind the analyst's back


def _patch_dialogs(monkeypatch, save=None, open_=None):
    from PySide6.QtWidgets import QFileDialog

    if save is not None:
        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(save), "")))
    if open_ is not None:
        monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(open_), "")))


def test_the_source_is_saved_with_the_session_and_chosen_again(qtbot, window, tmp_path, examples, monkeypatch):
    import json

    path = tmp_path / "runs.csv"
    _ranking_csv(path)
    _run_ranking(qtbot, window, path)
    compare, result = _pick_source(qtbot, window, "ranking", "rr", "dense", "bm25")
    session = tmp_path / "runs.wbsession.json"
    _patch_dialogs(monkeypatch, save=session)
    window.save_action.trigger()
    saved = json.loads(session.read_text(encoding="utf-8"))
    assert saved["compare_source"] == {"source": "ranking", "metric": "rr", "baseline": "dense",
                                       "candidate": "bm25"}
    open_file(qtbot, window, examples / "paired_14_to_5.csv")
    wait_result(qtbot, compare, timeout=60000)
    assert compare.source_key() == "file"
    _patch_dialogs(monkeypatch, open_=session)
    with qtbot.waitSignal(compare.result_ready, timeout=60000,
                          check_params_cb=lambda r: "from:ranking" in r.signature) as blocker:
        window.open_session_action.trigger()
    again = blocker.args[0]
    assert compare.source_key() == "ranking"
    assert "|metric:rr|" in again.signature
    mean = [r for r in again.records if r["metric"] == "mean_diff"]
    assert mean[0]["from"] == "dense" and mean[0]["to"] == "bm25"
    assert mean[0]["value"] == pytest.approx(_record(result, "mean_diff")["value"], abs=1e-15)


def test_a_long_run_on_a_panel_table_can_be_cancelled(qtbot, window, tmp_path):
    path = tmp_path / "runs.csv"
    _ranking_csv(path, queries=400)
    _run_ranking(qtbot, window, path)
    compare = window.panels["compare"]
    window.show_panel("compare")
    compare.control("resamples").setValue(1_000_000)
    _choose(qtbot, compare.control("source"), "ranking")
    with qtbot.waitSignal(compare.runner.started, timeout=30000):
        compare.run_now()
    assert compare.busy.isVisible()
    from PySide6.QtCore import Qt

    qtbot.mouseClick(compare.busy.cancel, Qt.MouseButton.LeftButton)
    assert not compare.runner.busy
    assert compare.message.text().startswith("Cancelled")
    compare.runner.wait(60000)
    assert compare.last_result is None
