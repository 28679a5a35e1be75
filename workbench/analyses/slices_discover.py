"""Discovery of the Slices analysis: which slices lose most, found honestly.

The paired items are put in the order of their ids (exact text), then split at random (numpy's
``default_rng(seed).permutation``) into a search half (the first floor(n / 2) of the permuted
items) and a hold-out half.  On the search half, every slice of one slice column (depth 1) and,
at depth 2, every combination of the values of two slice columns, with at least ``min_size``
items there, is a candidate; the ``top`` with the lowest difference (the largest candidate
losses) are chosen.  They are then re-estimated on the hold-out half, whose items played no part
in choosing them, with the same interval and test as the slices themselves (adjusted over the
``top`` re-estimated): the search half's difference of a chosen slice is biased by the choice
(the winner's curse), the hold-out half's is not.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from ..core.numbers import format_value, plural
from ..core.result import record
from ..metrics import slices as ms
from . import _slice_stats as st


def _candidates(columns, depth: int):
    """(by, labels, codes) of each set of slices searched."""
    for c in columns:
        yield c.by, c.labels, c.codes
    if depth >= 2:
        for a, b in combinations(columns, 2):
            codes = a.codes * b.size + b.codes
            labels = [f"{la} & {lb}" for la in a.labels for lb in b.labels]
            yield f"{a.by} & {b.by}", labels, codes


def discover(columns, items, base, cand, d, quantum, binary: bool, options, progress, records: list,
             notes: list) -> pd.DataFrame:
    n = int(d.size)
    order = np.argsort(np.asarray(items, dtype=object), kind="stable")
    perm = order[np.random.default_rng(options.seed).permutation(n)]
    search = np.zeros(n, dtype=bool)
    search[perm[: n // 2]] = True
    found = []
    for by, labels, codes in _candidates(columns, options.depth):
        size = len(labels)
        count = np.bincount(codes[search], minlength=size)
        total = np.bincount(codes[search], weights=d[search], minlength=size)
        for k in np.flatnonzero(count >= options.min_size):
            found.append((float(total[k] / count[k]), by, labels[k], codes, int(k), int(count[k])))
        progress.check_cancelled()
    found.sort(key=lambda f: (f[0], f[1], f[2]))
    chosen = found[: options.top]
    rows = []
    hold = ~search
    for rank, (search_diff, by, label, codes, k, n_search) in enumerate(chosen, 1):
        mask = hold & (codes == k)
        m = int(mask.sum())
        if m:
            diff, low, high, p, df = st.set_difference(d[mask], quantum, binary, base[mask], cand[mask])
        else:
            diff = low = high = p = float("nan")
            df = None
        rows.append({"rank": rank, "by": by, "slice": label, "search_items": n_search, "search_diff": search_diff,
                     "holdout_items": m, "holdout_diff": diff, "ci_low": low, "ci_high": high, "p_value": p,
                     "df": df})
    frame = pd.DataFrame(rows, columns=["rank", "by", "slice", "search_items", "search_diff", "holdout_items",
                                        "holdout_diff", "ci_low", "ci_high", "p_value", "df"])
    frame["p_adjusted"] = ms.adjust(frame["p_value"].to_numpy(dtype=float), options.correction) if len(frame) \
        else np.zeros(0)
    records.append(record("slices_searched", len(found), n=int(search.sum())))
    for r in frame.to_dict("records"):
        kw = dict(group=r["slice"], by=r["by"])
        df = None if r["df"] is None or r["df"] != r["df"] else int(r["df"])
        records.append(record("search_diff", r["search_diff"], n=r["search_items"], **kw))
        records.append(record("holdout_diff", r["holdout_diff"], n=r["holdout_items"], ci_low=r["ci_low"],
                              ci_high=r["ci_high"], ci_method=st.ci_words(binary), df=df, **kw))
        records.append(record("holdout_p", r["p_value"], n=r["holdout_items"], df=df, **kw))
        records.append(record("holdout_p_adjusted", r["p_adjusted"], n=len(frame), **kw))
    kind = "points" if binary else "score_diff"
    depth = ("one slice column" if options.depth == 1 or len(columns) < 2 else
             "one slice column or the combinations of two")
    if options.depth >= 2 and len(columns) < 2:
        notes.append("Discovery at depth 2 needs two slice columns (--by A,B); with one it searches that "
                     "column's slices only.")
    worst = ""
    if rows:
        r = rows[0]
        worst = (f" The worst there, {r['by']} = {r['slice']} ({format_value(r['search_diff'], kind)} on "
                 f"{plural(r['search_items'], 'item')}), is {format_value(r['holdout_diff'], kind)} on the other "
                 f"half ({plural(r['holdout_items'], 'item')}).")
    notes.append(f"Discovery searched {plural(len(found), 'slice')} ({depth}, at least {options.min_size} items "
                 f"in the search half) on a random half of the {plural(n, 'item')} (seed {options.seed}); the "
                 f"{plural(len(rows), 'largest loss', 'largest losses')} there "
                 f"{'is' if len(rows) == 1 else 'are'} re-estimated on the other {plural(int(hold.sum()), 'item')}, "
                 f"which played no part in the choice." + worst)
    return frame
