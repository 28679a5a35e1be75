"""The Text panel's convention fields: choosing chrF++, another BLEU tokenizer or the Unicode ROUGE
tokenizer in the form reruns the analysis with that option (values checked against sacrebleu)."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import open_file, wait_result

pytestmark = pytest.mark.gui


def test_text_form_sets_the_new_conventions(qtbot, window, tmp_path):
    from sacrebleu.metrics import BLEU, CHRF

    preds = ["The cat sat on the mat.", "東京大学に行きます。", "naïve résumé", "a dog"]
    refs = ["the cat sat on the mat", "東京大学へ行きます。", "naive resume", "the dog ran"]
    path = tmp_path / "pairs.csv"
    pd.DataFrame({"prediction": preds, "reference": refs}).to_csv(path, index=False)
    open_file(qtbot, window, path)
    panel = window.panels["text"]
    wait_result(qtbot, panel)
    for name, data in (("chrf_word_order", 2), ("bleu_tokenize", "char"), ("rouge_tokenizer", "unicode")):
        combo = panel.control(name)
        with qtbot.waitSignal(panel.result_ready, timeout=30000) as blocker:
            combo.setCurrentIndex(combo.findData(data))
        result = blocker.args[0]
    assert panel.options().chrf_word_order == 2
    assert "nw:2" in result.signature and "tok:char" in result.signature and "tok:unicode-w" in result.signature
    assert result.value("chrf") == pytest.approx(CHRF(word_order=2).corpus_score(preds, [refs]).score, abs=1e-9)
    assert result.value("bleu") == pytest.approx(BLEU(tokenize="char").corpus_score(preds, [refs]).score, abs=1e-9)
