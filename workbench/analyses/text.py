"""Text analysis: exact match, token F1, BLEU, chrF and ROUGE, per item and per system."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.numbers import of_total, plural, verb
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, to_text
from ..metrics import text as tm
from ._common import Resolver, base_signature, check_unique, codes_of

NAME = "text"
TITLE = "Text metrics"


@dataclass(frozen=True)
class Options:
    prediction: str | None = None
    reference: str | None = None
    id: str | None = None
    system: str | None = None
    #: exact-match / token-F1 normalisation: none | case_ws | squad
    normalize: str = "case_ws"
    #: Porter stemmer in ROUGE (rouge-score's ``use_stemmer``)
    stemmer: bool = False


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    tm.normalize("", options.normalize)  # validates the option before any work
    res = Resolver(table)
    pred_col = res.required(options.prediction, "prediction", "--prediction")
    ref_col = res.required(options.reference, "reference", "--reference")
    id_col = res.optional(options.id, "id", "--id")
    sys_col = options.system
    if sys_col:
        res.optional(sys_col, "system", "--system")
    if id_col:
        check_unique(table, [id_col] + ([sys_col] if sys_col else []), "item id")

    preds = to_text(table, pred_col)
    refs = to_text(table, ref_col)
    n_rows = len(preds)
    ids = to_text(table, id_col) if id_col else [str(x) for x in table.lines_of(range(n_rows))]
    if sys_col:
        sys_codes, sys_labels = codes_of(table, sys_col)
    else:
        sys_codes, sys_labels = np.zeros(n_rows, dtype=np.int64), [None]

    scores = tm.score_pairs(preds, refs, normalize=options.normalize, stemmer=options.stemmer,
                            progress=progress)
    norm_preds, norm_refs = scores.norm_predictions, scores.norm_references
    em, f1, rouge = scores.exact_match, scores.token_f1, scores.rouge
    s_bleu, s_chrf = scores.bleu, scores.chrf
    blind = scores.rouge_blind

    records, summary_rows = [], []
    bleu_sig = chrf_sig = ""
    for code, label in enumerate(sys_labels):
        progress.check_cancelled()
        mask = sys_codes == code
        idx = np.flatnonzero(mask)
        n = int(idx.size)
        bleu, bleu_sig = tm.corpus_bleu_from_statistics(scores.bleu_stats[idx]), tm.bleu_signature()
        chrf, chrf_sig = tm.corpus_chrf_from_statistics(scores.chrf_stats[idx]), tm.chrf_signature()
        values = {
            "exact_match": float(em[mask].mean()),
            "token_f1": float(f1[mask].mean()),
            "bleu": bleu,
            "chrf": chrf,
            **{t: float(rouge[t][mask].mean()) for t in tm.ROUGE_TYPES},
        }
        for metric, value in values.items():
            records.append(record(metric, value, system=label, n=n))
        summary_rows.append({"system": label if label is not None else "(all)", "items": n,
                             "exact_matches": int(em[mask].sum()), **values})

    notes = list(res.notes)
    if blind.any():
        notes.append(
            f"{of_total(int(blind.sum()), n_rows, 'item')} {verb(blind.sum(), 'contains', 'contain')} "
            f"letters outside a-z (for example "
            f"non-Latin script); rouge-score's tokenizer keeps only [a-z0-9] and silently drops "
            f"them, so ROUGE is meaningless for those items.")
    empty_pred = sum(1 for p in preds if not p.strip())
    if empty_pred:
        notes.append(f"{of_total(empty_pred, n_rows, 'prediction')} {verb(empty_pred, 'is', 'are')} empty; "
                     f"{verb(empty_pred, 'it scores', 'they score')} 0 unless the "
                     f"reference is empty too (token F1 then scores 1, as in SQuAD v2).")
    empty_ref = sum(1 for r in refs if not r.strip())
    if empty_ref:
        notes.append(f"{of_total(empty_ref, n_rows, 'reference')} {verb(empty_ref, 'is', 'are')} empty.")

    items = pd.DataFrame({
        "item": ids,
        **({"system": [sys_labels[c] for c in sys_codes]} if sys_col else {}),
        "line": table.lines_of(range(n_rows)),
        "prediction": preds,
        "reference": refs,
        "normalized_prediction": norm_preds,
        "normalized_reference": norm_refs,
        "exact_match": em,
        "token_f1": f1,
        "bleu": s_bleu,
        "chrf": s_chrf,
        **{t: rouge[t] for t in tm.ROUGE_TYPES},
    })
    sig = base_signature(NAME)
    sig.update({
        "norm": options.normalize,
        "f1": "squad-v2-bag",
        "bleu": f"[{bleu_sig}]",
        "chrf": f"[{chrf_sig}]",
        "rouge": f"rouge-score-{tm.rouge_version()},tok:ascii,stem:{'yes' if options.stemmer else 'no'},"
                 f"F,mean-over-items",
        "item-bleu": "sentence,eff:yes",
    })
    rate_fmt = {"exact_match": "rate", "token_f1": "float", "rouge1": "float", "rouge2": "float",
                "rougeL": "float", "bleu": "float", "chrf": "float", "items": "int"}
    tables = (
        Table("summary", "Text metrics per system", pd.DataFrame(summary_rows), columns={
            "items": "items scored (the denominator of every mean)",
            "exact_match": f"share of items whose normalised ({options.normalize}) prediction equals the reference",
            "token_f1": "mean SQuAD-v2 token F1 (2PR/(P+R) of the bag of normalised tokens)",
            "bleu": "sacrebleu corpus BLEU, 0-100",
            "chrf": "sacrebleu corpus chrF, 0-100",
            "rouge1": "mean ROUGE-1 F", "rouge2": "mean ROUGE-2 F", "rougeL": "mean ROUGE-L F",
        }, formats=rate_fmt),
        Table("items", "Per-item scores", items, formats=rate_fmt),
    )
    if sys_col and len(sys_labels) > 1:  # paired tests per metric: workbench/analyses/paired.py
        from .paired import text_systems_compared
        sc_table, sc_records, sc_notes, sig["systems-compared"] = text_systems_compared(
            tables[1].frame, has_ids=id_col is not None)
        tables, records, notes = tables + (sc_table,), records + sc_records, notes + sc_notes
    return AnalysisResult(NAME, signature(sig), tuple(records), tables, tuple(notes), table.path)
