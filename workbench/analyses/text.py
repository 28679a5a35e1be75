"""Text analysis: exact match, token F1, BLEU, chrF and ROUGE, per item and per system."""

from __future__ import annotations

from contextlib import contextmanager

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..core.numbers import of_total, plural, verb
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..core.errors import DataError
from ..io import LoadedTable, to_text
from ..metrics import headline_ci as hc
from ..metrics import text as tm
from ..metrics import text_variants as tv
from ..metrics.corpus_paired import CONFIDENCE_RESAMPLES, corpus_interval_from_sums
from . import _intervals
from . import _rows
from ._last_run import LastRun
from ._common import Resolver, base_signature, check_unique, codes_of, in_memory, system_column

#: lm-eval output types whose rows hold generated text (workbench/io/formats/lmeval.py).
GENERATION = ("generate_until",)

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
    #: BLEU's sacrebleu tokenizer: 13a (sacrebleu's default) | intl | char | none | zh
    bleu_tokenize: str = "13a"
    #: BLEU's sacrebleu smoothing: exp (default) | floor | add-k | none (sacrebleu's default values)
    bleu_smooth: str = "exp"
    #: chrF's word n-gram order: 0 (chrF, default) | 2 (chrF++)
    chrf_word_order: int = 0
    #: ROUGE's tokenizer: default (rouge-score's, [a-z0-9] only) | unicode (words of any script)
    rouge_tokenizer: str = "default"
    #: group column (a task): metrics per group, never pooled across groups (default: the
    #: group a format reader names, an lm-eval file's task)
    group: str | None = None
    #: column marking rows that ended with an error (default: the file format's 'error' column)
    error: str | None = None
    #: errored rows: exclude (left out) or failure (scored with an empty prediction)
    errored: str = "exclude"
    #: bootstrap resamples and seed of the headline intervals (corpus BLEU and chrF: sacrebleu's
    #: 1,000 resamples, with this seed)
    ci_resamples: int = hc.RESAMPLES
    ci_seed: int = hc.SEED


def check_options(options: Options) -> None:
    """Every option's type and range, before any work (an :class:`OptionError` sentence)."""
    from . import _checks

    _checks.columns(options, ("prediction", "reference", "id", "system", "group", "error"))
    _rows.check(options.errored)
    tm.normalize("", options.normalize)
    _conventions(options).check()
    hc.check_resamples(options.ci_resamples, options.ci_seed)


def _conventions(options: Options) -> tv.TextConventions:
    return tv.TextConventions(options.bleu_tokenize, options.bleu_smooth, options.chrf_word_order,
                              options.rouge_tokenizer)


def _scope(table: LoadedTable, options: Options):
    """The rows that enter the text metrics: rows of tasks that generate text (an lm-eval file's
    loglikelihood and multiple-choice rows hold log-likelihoods, not text), without errored rows
    unless they are to count as failures.  Returns the table, the errored mask on it, notes and
    signature entries."""
    notes: list[str] = []
    sig: dict[str, str] = {}
    n = len(table.frame)
    keep = np.ones(n, dtype=bool)
    kind_col = _rows.role_column(table, "output_type")
    if kind_col is not None:
        kinds = np.asarray(to_text(table, kind_col), dtype=object)
        text_rows = np.isin(kinds, GENERATION)
        if not text_rows.any():
            raise DataError(f"File '{table.name}' has no rows of a task that generates text (column "
                            f"'{kind_col}' holds {', '.join(sorted(set(kinds)))}); the text metrics "
                            "need generated text (an lm-eval generate_until task).")
        if not text_rows.all():
            group = _rows.role_column(table, "group")
            names = np.asarray(to_text(table, group), dtype=object) if group else kinds
            left = {}
            for name, kind in zip(names[~text_rows], kinds[~text_rows]):
                key = (name, kind)
                left[key] = left.get(key, 0) + 1
            notes.append(f"{int((~text_rows).sum())} of {n} rows are of tasks without generated text "
                         f"({'; '.join(f'{t}: {k}, {c} rows' for (t, k), c in left.items())}); their "
                         f"column '{kind_col}' says so, and they never enter a text metric.")
        keep &= text_rows
        sig["rows"] = "generated-text-only"
    err = _rows.find(table, options.error, options.errored)
    if err.active:
        sub = _rows.Errored(err.column, err.mode, err.mask & keep,
                            _rows.describe(table, np.flatnonzero(err.mask & keep)))
        notes += sub.note(failure_means="scored with an empty prediction")
        sig.update(sub.signature())
        if err.mode == "exclude":
            keep &= ~err.mask
    rows = np.flatnonzero(keep)
    if rows.size == 0:
        raise DataError(f"File '{table.name}' has no row left to score once its errored rows are "
                        "left out; set --errors fail to count them as failures.")
    if rows.size < n:
        table = table.take(rows)
    errored = err.mask[rows] if err.active and err.mode == "failure" else np.zeros(rows.size, bool)
    return table, errored, notes, sig


#: The default conventions' scores kept while the conventions table recomputes the analysis
#: on one table (:func:`reusing_scores`): a BLEU tokenizer, a smoothing, chrF++ or the ROUGE
#: tokenizer recompute only their own metric.  None: nothing kept.
_REUSE: dict | None = None


@contextmanager
def reusing_scores():
    """Within: :func:`run` on the same table object with options that differ only in BLEU,
    chrF or ROUGE conventions computes the other metrics once; and, as the conventions table
    that uses this reads only the scores, its items table leaves out the texts and the means
    get no interval of their own (the corpus scores keep theirs)."""
    global _REUSE
    _REUSE = {}
    try:
        yield
    finally:
        _REUSE = None


def _base_key(reuse_key):
    """The reuse key without the normalisation and the stemmer (which change only some scores)."""
    table_id, opts = reuse_key
    return ("base", table_id, replace(opts, normalize="case_ws", stemmer=False))


def _reused_scores(reuse_key, table, preds, refs, options: Options):
    """The scores kept for these options, or derived from those of another normalisation or
    stemmer setting (:func:`workbench.metrics.text.rescore`); None: compute them."""
    if _REUSE is None:
        return None
    if reuse_key not in _REUSE and _base_key(reuse_key) not in _REUSE:
        last = _LAST.get(table, any_key=True)  # the panel's own run on this table object
        if last is not None and _base_key((reuse_key[0], last[0])) == _base_key(reuse_key):
            _REUSE[(reuse_key[0], last[0])] = last[1]
            _REUSE[_base_key(reuse_key)] = (last[1], last[0].normalize, last[0].stemmer)
    if reuse_key in _REUSE:
        return _REUSE[reuse_key]
    base = _REUSE.get(_base_key(reuse_key))
    if base is None:
        return None
    scores = tm.rescore(base[0], preds, refs, normalize=options.normalize, stemmer=options.stemmer,
                        base_normalize=base[1], base_stemmer=base[2])
    _REUSE[reuse_key] = scores
    return scores


#: The last run's default-convention scores, for the conventions table that may follow on the
#: same table object: key the options without the conventions.
_LAST = LastRun()


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    in_memory(table, TITLE)
    check_options(options)  # validates the options before any work
    reuse_key = (id(table), replace(options, bleu_tokenize="13a", bleu_smooth="exp",
                                    chrf_word_order=0, rouge_tokenizer="default"))
    source = table
    table, errored, scope_notes, scope_sig = _scope(table, options)
    res = Resolver(table)
    pred_col = res.required(options.prediction, "prediction", "--prediction")
    ref_col = res.required(options.reference, "reference", "--reference")
    id_col = res.optional(options.id, "id", "--id")
    group_col = options.group or (_rows.role_column(table, "group") if table.roles else None)
    if options.group:
        res.optional(group_col, "group", "--group")
    # several systems are never pooled: a system column is found as the file's reading finds it
    sys_col = system_column(table, options.system, (pred_col, ref_col, id_col, group_col, options.error),
                            res.notes)
    # an id the user gave (not the one the file's format names) is the item
    given = options.id is not None and (table.roles or {}).get(options.id) not in ("item", "id")
    item_col, rep_col = _tries_of(source, table, id_col, given=given)
    if item_col != id_col:  # the reading's item, not the id of each output: said once
        res.notes[:] = [n for n in res.notes if not n.startswith(f"Column '{id_col}' was taken as")]
    if item_col:
        check_unique(table, [item_col] + ([rep_col] if rep_col else []) + ([sys_col] if sys_col else []),
                     "item id")

    preds = to_text(table, pred_col)
    if errored.any():  # errored rows counted as failures: scored as an empty prediction
        preds = [("" if e else p) for p, e in zip(preds, errored)]
    refs = to_text(table, ref_col)
    n_rows = len(preds)
    ids = to_text(table, item_col) if item_col else [str(x) for x in table.lines_of(range(n_rows))]
    lines = table.lines_of(range(n_rows))
    if sys_col:
        sys_codes, sys_labels = codes_of(table, sys_col)
    else:
        sys_codes, sys_labels = np.zeros(n_rows, dtype=np.int64), [None]
    if group_col:
        grp_codes, grp_labels = codes_of(table, group_col)
    else:
        grp_codes, grp_labels = np.zeros(n_rows, dtype=np.int64), [None]

    scores = _reused_scores(reuse_key, source, preds, refs, options)
    if scores is None:
        scores = tm.score_pairs(preds, refs, normalize=options.normalize,
                                stemmer=options.stemmer, progress=progress)
        if _REUSE is not None:
            _REUSE[reuse_key] = scores
            _REUSE.setdefault(_base_key(reuse_key), (scores, options.normalize, options.stemmer))
        else:
            _LAST.remember(source, reuse_key[1], scores)
    conv = _conventions(options)
    scores = tv.apply(scores, preds, refs, conv, stemmer=options.stemmer)
    objects = {"bleu": conv.bleu_metric(), "chrf": conv.chrf_metric()}
    norm_preds, norm_refs = scores.norm_predictions, scores.norm_references
    em, f1, rouge = scores.exact_match, scores.token_f1, scores.rouge
    s_bleu, s_chrf = scores.bleu, scores.chrf
    blind = scores.rouge_blind
    bleu_stats, chrf_stats = scores.bleu_stats, scores.chrf_stats
    tries = None
    if rep_col:  # an item's tries (epochs, seeds) are one item: the mean of its tries
        tries = _Tries.of(ids, sys_codes, grp_codes)
    if tries is not None:
        em, f1, s_bleu, s_chrf = (tries.mean(a) for a in (em, f1, s_bleu, s_chrf))
        rouge = {t: tries.mean(v) for t, v in rouge.items()}
        bleu_stats, chrf_stats = tries.summed(bleu_stats), tries.summed(chrf_stats)
        sys_codes, grp_codes = sys_codes[tries.first], grp_codes[tries.first]
        ids, lines, preds_shown, refs_shown, norm_preds, norm_refs = (
            [seq[i] for i in tries.first] for seq in (ids, lines, preds, refs, norm_preds, norm_refs))
    else:
        preds_shown, refs_shown = preds, refs

    records, summary_rows, ci_entries = [], [], []
    bleu_sig = tm.bleu_signature(options.bleu_tokenize, options.bleu_smooth)
    chrf_sig = tm.chrf_signature(options.chrf_word_order)
    cells = [(c, label, g, glabel) for c, label in enumerate(sys_labels)
             for g, glabel in enumerate(grp_labels)]
    for code, label, g, glabel in cells:
        progress.check_cancelled()
        mask = (sys_codes == code) & (grp_codes == g)
        idx = np.flatnonzero(mask)
        n = int(idx.size)
        if n == 0:
            continue
        bleu = tm.corpus_bleu_from_statistics(bleu_stats[idx], options.bleu_tokenize,
                                              options.bleu_smooth)
        chrf = tm.corpus_chrf_from_statistics(chrf_stats[idx], options.chrf_word_order)
        values = {
            "exact_match": float(em[mask].mean()),
            "token_f1": float(f1[mask].mean()),
            "bleu": bleu,
            "chrf": chrf,
            **{t: float(rouge[t][mask].mean()) for t in tm.ROUGE_TYPES},
        }
        # within the conventions table (``_REUSE``) the means' intervals are not read: it
        # takes each mean's interval from the items table, and only the corpus scores' here
        lean = _REUSE is not None
        cis = _cell_cis({} if lean else {"exact_match": em[mask], "token_f1": f1[mask],
                                         **{t: rouge[t][mask] for t in tm.ROUGE_TYPES}},
                        {"bleu": (bleu, _canonical_stats(bleu_stats, idx, (code, g))),
                         "chrf": (chrf, _canonical_stats(chrf_stats, idx, (code, g)))},
                        options, objects)
        for metric, value in values.items():
            ci = cis.get(metric)
            records.append(record(metric, value, system=label, group=glabel, n=n,
                                  **(_intervals.fields(ci) if ci is not None else {})))
            if ci is not None:
                ci_entries.append((_intervals.who(metric, label, glabel), ci))
        summary_rows.append({"system": label if label is not None else "(all)",
                             **({"group": glabel} if group_col else {}), "items": n,
                             **({"tries": int(tries.count[mask].sum())} if tries is not None
                                else {"exact_matches": int(em[mask].sum())}), **values})

    notes = scope_notes + list(res.notes) + _intervals.notes(ci_entries)
    if tries is not None:
        notes.append(tries.note(n_rows, rep_col, item_col, id_col))
    unit = "output" if tries is not None else "item"
    if group_col and len(grp_labels) > 1:
        notes.append(f"Column '{group_col}' has {len(grp_labels)} groups ("
                     f"{', '.join(grp_labels[:8])}{' ...' if len(grp_labels) > 8 else ''}): each "
                     "is scored on its own, and no metric is pooled across them.")
    if blind.any() and options.rouge_tokenizer == "unicode":
        notes.append(
            f"{of_total(int(blind.sum()), n_rows, unit)} {verb(blind.sum(), 'contains', 'contain')} "
            "letters outside a-z; ROUGE here keeps them (the unicode tokenizer: words of any "
            "script), where rouge-score's default tokenizer would drop them.")
    elif blind.any():
        notes.append(
            f"{of_total(int(blind.sum()), n_rows, unit)} {verb(blind.sum(), 'contains', 'contain')} "
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
        **({"group": [grp_labels[c] for c in grp_codes]} if group_col else {}),
        "line": lines,
        **({"tries": tries.count} if tries is not None else {}),
        # the conventions table (``_REUSE``) reads the scores, not the texts
        **({} if _REUSE is not None else {"prediction": preds_shown, "reference": refs_shown,
                                          "normalized_prediction": norm_preds,
                                          "normalized_reference": norm_refs}),
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
        "rouge": conv.rouge_signature(options.stemmer),
        "item-bleu": "sentence,eff:yes" + ("" if options.bleu_smooth == "exp" else f",smooth:{options.bleu_smooth}"),
        **({"groups": "separate"} if group_col else {}),
        **({"tries": f"mean-per-item:{rep_col},corpus:summed-stats,n:items"} if tries is not None else {}),
        **_intervals.signature(options.ci_resamples, options.ci_seed),
        "ci-corpus": f"sacrebleu-confidence,B={CONFIDENCE_RESAMPLES},sorted,clipped",
        **scope_sig,
    })
    rate_fmt = {"exact_match": "rate", "token_f1": "float", "rouge1": "float", "rouge2": "float",
                "rougeL": "float", "bleu": "float", "chrf": "float", "items": "int"}
    tables = (
        Table("summary", "Text metrics per system", pd.DataFrame(summary_rows), columns={
            "items": "items scored (the denominator of every mean)",
            "exact_match": f"share of items whose normalised ({options.normalize}) prediction equals the reference",
            "token_f1": "mean SQuAD-v2 token F1 (2PR/(P+R) of the bag of normalised tokens)",
            "bleu": f"sacrebleu corpus BLEU (tokenizer {options.bleu_tokenize}, smoothing "
                    f"{options.bleu_smooth}), 0-100",
            "chrf": "sacrebleu corpus " + ("chrF++" if options.chrf_word_order else "chrF") + ", 0-100",
            "rouge1": "mean ROUGE-1 F", "rouge2": "mean ROUGE-2 F", "rougeL": "mean ROUGE-L F",
        }, formats=rate_fmt),
        Table("items", "Per-item scores", items, formats=rate_fmt),
    )
    if sys_col and len(sys_labels) > 1:  # paired tests per metric: workbench/analyses/paired.py
        from dataclasses import replace as _replace

        from .paired import text_systems_compared
        parts = []
        for glabel in grp_labels:  # per group: never pooled across groups
            frame = tables[1].frame
            if glabel is not None:
                frame = frame[frame["group"] == glabel].drop(columns=["group"])
            sc_table, sc_records, sc_notes, sig["systems-compared"] = text_systems_compared(
                frame, has_ids=item_col is not None, objects=objects,
                stats={"bleu": bleu_stats, "chrf": chrf_stats})
            if glabel is not None:
                sc_records = [{**r, "group": glabel} for r in sc_records]
                sc_notes = [f"{group_col} '{glabel}': {n}" for n in sc_notes]
                sc_table = _replace(sc_table, frame=sc_table.frame.assign(group=glabel))
            parts.append(sc_table)
            records, notes = records + sc_records, notes + sc_notes
        if len(parts) > 1:
            parts[0] = _replace(parts[0], frame=pd.concat([p.frame for p in parts],
                                                          ignore_index=True))
        tables = tables + (parts[0],)
    return AnalysisResult(NAME, signature(sig), tuple(records), tables, tuple(notes), table.path)


def _tries_of(source: LoadedTable, table: LoadedTable, id_col: str | None, *,
              given: bool) -> tuple[str | None, str | None]:
    """The column naming the items and the column of their tries (an Inspect log's epochs, a
    plain table's seed or epoch), as the file's reading has them (the id column when the user
    ``given`` it); without tries, the id column and ``None``."""
    from ..io.evaluation import item_column
    from .reading import evaluation_of

    evaluation = evaluation_of(source)
    columns = table.frame.columns
    rep_col = evaluation.repeat if evaluation.repeat in columns else None
    if rep_col is None:
        return id_col, None
    item = id_col if given else item_column(columns, evaluation)
    item = item if item in columns and item != rep_col else id_col
    return (item, rep_col) if item else (id_col, None)


@dataclass(frozen=True)
class _Tries:
    """Rows grouped by (system, group, item): each item's tries reduced to one item."""

    inverse: np.ndarray  # the item (of this table) of each row
    first: np.ndarray  # the first row of each item
    count: np.ndarray  # the tries of each item

    @classmethod
    def of(cls, ids, sys_codes: np.ndarray, grp_codes: np.ndarray) -> "_Tries | None":
        item_codes, uniques = pd.factorize(np.asarray(ids, dtype=object), sort=False)
        key = (sys_codes.astype(np.int64) * (int(grp_codes.max(initial=0)) + 1) + grp_codes) \
            * max(len(uniques), 1) + item_codes
        inverse, keys = pd.factorize(key, sort=False)
        if len(keys) == len(key):
            return None  # one try per item: nothing to reduce
        _, first = np.unique(inverse, return_index=True)
        return cls(inverse, first, np.bincount(inverse, minlength=len(keys)))

    def mean(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.inverse, weights=values, minlength=self.count.size) / self.count

    def summed(self, stats: np.ndarray) -> np.ndarray:
        """Corpus statistics (one row per try) summed per item (BLEU and chrF over every try)."""
        order = np.argsort(self.inverse, kind="stable")
        starts = np.concatenate(([0], np.cumsum(self.count)[:-1]))
        return np.add.reduceat(stats[order], starts, axis=0)

    def note(self, rows: int, rep_col: str, item_col: str, id_col: str | None) -> str:
        low, high = int(self.count.min()), int(self.count.max())
        each = f"{low}" if low == high else f"{low} to {high}"
        by_output = f" (column '{id_col}' names each output)" if id_col and id_col != item_col else ""
        return (f"Each item's tries (column '{rep_col}': {each} per item) are one item, never "
                f"independent items: {rows:,} outputs -> {self.count.size:,} items of column "
                f"'{item_col}'{by_output}. Every mean is over items, of each item's mean "
                f"over its tries, and every interval resamples items; corpus BLEU and chrF sum "
                f"the statistics of all {rows:,} outputs, resampled by item.")


def _canonical_stats(full: np.ndarray, idx: np.ndarray, cell) -> np.ndarray:
    """The rows ``idx`` of the corpus statistics ``full``, sorted (a canonical order, so that
    the file's row order never changes an interval), as float64; kept while the conventions
    table reuses scores (the same statistics object under several conventions)."""
    key = ("canonical", id(full), cell)
    hit = _REUSE.get(key) if _REUSE is not None else None
    if hit is not None and hit[0] is full:
        return hit[1]
    sub = full[idx]
    out = sub[np.lexsort(sub.T[::-1])].astype(np.float64)
    if _REUSE is not None:
        _REUSE[key] = (full, out)
    return out


def _corpus_sums(stats: dict[str, np.ndarray], resamples: int, seed: int) -> dict[str, np.ndarray]:
    """Each corpus statistics matrix's resampled sums (:func:`~workbench.metrics.headline_ci.
    resampled_sums`, the same draws for each); within the conventions table (``_REUSE``) kept per
    matrix object, which several conventions share (a normalisation changes no BLEU statistics)."""
    out, todo = {}, []
    for metric, st in stats.items():
        hit = _REUSE.get(("corpus-sums", id(st), resamples, seed)) if _REUSE is not None else None
        if hit is not None and hit[0] is st:
            out[metric] = hit[1]
        else:
            todo.append(metric)
    if todo:
        for metric, sums in zip(todo, hc.resampled_sums([stats[m] for m in todo], [resamples] * len(todo),
                                                        seed=seed)):
            out[metric] = sums
            if _REUSE is not None:
                _REUSE[("corpus-sums", id(stats[metric]), resamples, seed)] = (stats[metric], sums)
    return out


def _cell_cis(means: dict[str, np.ndarray], corpus: dict[str, tuple[float, np.ndarray]],
              options: Options, objects: dict | None = None) -> dict[str, hc.MeanCI]:
    """The intervals of one system's (and group's) headlines from one set of resamples of its
    items: the means' percentile bootstrap (t beside) and the corpus scores' sacrebleu
    ``--confidence`` interval (its first 1,000 resamples, the draws sacrebleu makes with this
    seed).  Each matrix's rows are in a canonical order (the means' sorted by their values
    here, the corpus statistics given sorted, :func:`_canonical_stats`), so the row order of
    the file never changes an interval."""
    n = len(next(iter(means.values()))) if means else len(next(iter(corpus.values()))[1])
    b_corpus = hc.effective_resamples(CONFIDENCE_RESAMPLES, n)
    stats = {m: st for m, (_, st) in corpus.items()}
    shared: dict[str, np.ndarray] = {}

    def sample_means(matrix: np.ndarray, drawn: int) -> np.ndarray:
        sums = hc.resampled_sums([matrix, *stats.values()], [drawn, *[b_corpus] * len(stats)],
                                 seed=options.ci_seed)
        shared.update(zip(stats, sums[1:]))
        return sums[0] / n

    cis = _intervals.mean_cis(means, resamples=options.ci_resamples, seed=options.ci_seed,
                              sample_means=sample_means)
    if not shared:  # every mean was a rate (or none asked for): the corpus scores draw on their own
        shared.update(_corpus_sums(stats, b_corpus, options.ci_seed))
    for metric, (score, _) in corpus.items():
        mean, half, samples = corpus_interval_from_sums(metric, shared[metric], (objects or {}).get(metric))
        degenerate = hc.is_degenerate(samples, score)
        # mean +- half can pass the 0-100 range (sacrebleu does not clip); here it is clipped
        low, high = max(0.0, mean - half), min(100.0, mean + half)
        cis[metric] = hc.MeanCI(score, n, low, high, float("nan"), float("nan"), degenerate,
                                "sacrebleu-bootstrap", b_corpus)
    return cis
