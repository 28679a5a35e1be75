"""Vectorised sufficient statistics of BLEU, chrF, ROUGE and token F1 for many pairs at once.

Each function reproduces a reference library's *statistics* exactly (integers: n-gram counts,
clipped matches, LCS lengths); the scores are computed from them with the libraries' own
floating-point formulas (see ``metrics/text.py``).  Nothing here loops over items in Python
except the rare pairs named below.

Design (measured on 100k pairs; the per-pair reference libraries are 50-150 µs per pair):

* **One split of the joined text.**  The texts, interleaved (prediction, reference, ...), are
  joined with a marker character that occurs in none of them (an ASCII control that is not
  whitespace, else a private-use code point), split on whitespace once and hashed once
  (``pandas.factorize``).  Every tokeniser (13a's rules, rouge-score's lower-case
  ``[a-z0-9]+`` and Porter stemmer, the SQuAD and case_ws normalisations) then runs once per
  *distinct* word (:meth:`Words.transform`): each of their rules looks at most one character
  either side, and a whitespace neighbour is the same as the edge of a space-padded word.
  13a's whole-line pre-processing (``<skipped>``, ``-\\n``, entities) splits again when a text
  holds one of its patterns.
* **N-gram matches by sorting short rows.**  Each pair is a row: its hypothesis, ``N - 1``
  fillers, its reference.  Every start position's key ``(row, s[i], ..., s[i+N-1], side)`` is
  packed in one ``uint64`` (symbols numbered from 1, densely per pair when the corpus has too
  many; 0 = past the end of the reference, a free value past the end of the hypothesis, so
  that n-grams running past the ends never match), rows of similar length are sorted
  together (numpy's vectorised sort of rows of up to 256 keys, ~2 ns per key here), and the
  groups of equal first-n symbols are the distinct n-grams: ``sum(min(hyp count, ref
  count))`` for every order n from one sort, each group's counts from running sums.
  Pairs whose symbols do not fit (more than 2**15 distinct words, or 2**10 distinct
  characters, in one pair) are counted with ``collections.Counter`` one by one.
* **LCS bit-parallel** (Allison-Dix / Hyyrö): with the shorter side as a bit vector, one
  ``uint64`` per pair when it has at most 64 tokens (all such pairs advance together in
  numpy), Python's big integers otherwise.

Pure numpy: numba would need llvmlite in the installer (forbidden there, ~120 MB) and a JIT
at the first analysis of a session; the numpy path reaches the target without it.
"""

from __future__ import annotations

import os

import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ..core.errors import Cancelled

#: marker characters tried, in order: ASCII controls that are not whitespace for ``str.split``
#: (fast ASCII paths of ``str`` when the texts are ASCII), then private-use code points
_MARKERS = tuple(chr(c) for c in (*range(0x01, 0x09), *range(0x0E, 0x1C), 0x7F)) + \
    tuple(chr(c) for c in range(0xE000, 0xE000 + 64))

# --------------------------------------------------------------------------- joining


def _marker(texts: Sequence[str]) -> str:
    """A character that occurs in none of ``texts``."""
    joined = "".join(texts)
    for m in _MARKERS:
        if m not in joined:
            return m
    present = set(joined)  # pragma: no cover - 91 candidates all present
    for c in range(0xF0000, 0xFFFFE):  # pragma: no cover
        if chr(c) not in present:
            return chr(c)
    raise RuntimeError("no free marker character")  # pragma: no cover


def _joined(texts: Sequence[str], marker: str | None) -> tuple[str, str]:
    """(marker, the texts joined as ``m + " " + f" {m} ".join(texts)``); without a given
    marker the first free one, checked by counting it in the joined text (one join)."""
    if not texts:
        return marker or _MARKERS[0], ""
    for m in ((marker,) if marker else _MARKERS[:4]):
        joined = m + " " + f" {m} ".join(texts)
        if marker or joined.count(m) == len(texts):
            return m, joined
    m = _marker(texts)  # the first four markers all in the texts
    return m, m + " " + f" {m} ".join(texts)


class Words:
    """The whitespace tokens (``str.split()``) of many texts, from one split of the joined
    text and one hashing of the tokens: ``codes`` per position (0 = the marker that starts
    each text), ``vocab`` the distinct tokens (``vocab[0]`` the marker).

    Every tokeniser used here works token by token *within* whitespace tokens (each rule
    looks at one character either side, and a whitespace neighbour is the same as the edge
    of a space-padded token), so a text's tokens are the concatenation of ``fn(word)`` over
    its words, and ``fn`` runs once per distinct word (:meth:`transform`)."""

    def __init__(self, texts: Sequence[str], joined: str | None = None, marker: str | None = None):
        self.n_texts = len(texts)
        if joined is None:
            marker, joined = _joined(texts, marker)
            #: the joined texts, when built here: 13a's pre-processing looks for its patterns
            #: in it once (and lets it go)
            self.joined: str | None = joined
        else:
            self.joined = None
        self.marker = marker or _marker(texts)
        m = self.marker
        codes, uniques = pd.factorize(np.asarray(joined.split(), dtype=object), sort=False)
        self.codes = codes.astype(np.int64, copy=False)
        self.vocab = list(uniques)
        if self.n_texts and (self.vocab[0] != m or int((self.codes == 0).sum()) != self.n_texts):
            raise RuntimeError("marker mismatch in text tokenisation")  # pragma: no cover

    def transform(self, fn: Callable[[str], list[str]]) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """(ids, lengths per text, vocabulary) of the tokens ``fn(word)`` of each text."""
        outs = [[self.marker]] + [fn(w) for w in self.vocab[1:]]
        return self._expanded(self.codes, outs)

    def transform_at_edges(self, fn: Callable[[str, bool, bool], list[str]],
                           lead_space: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """:meth:`transform` for a tokeniser whose rules see the line's ends: ``fn(word, left,
        right)``, ``left`` (``right``) True when the word has white space before (after) it
        in its text, False for a text's first (last) word -- unless ``lead_space[text]`` says
        the text starts with white space, which its first word then has before it.  ``fn``
        runs once per distinct (word, left, right)."""
        codes = self.codes
        if codes.size == 0:
            return self._expanded(codes, [[self.marker]])
        is_marker = codes == 0
        first = np.empty(codes.size, dtype=bool)
        first[0] = False
        first[1:] = is_marker[:-1] & ~is_marker[1:]
        last = np.empty(codes.size, dtype=bool)
        last[-1] = not is_marker[-1]
        last[:-1] = is_marker[1:] & ~is_marker[:-1]
        if lead_space is not None and lead_space.any():
            text_of = np.cumsum(is_marker.view(np.int8), dtype=np.int64) - 1
            first &= ~np.asarray(lead_space, dtype=bool)[text_of]
        key = codes * 4 + first.view(np.int8) + 2 * last.view(np.int8)
        kcodes, kinds = pd.factorize(key, sort=False)  # the marker (key 0) first
        kinds = kinds.astype(np.int64)
        vocab = self.vocab
        outs = [[self.marker]] + [fn(vocab[k >> 2], not k & 1, not k & 2) for k in kinds[1:].tolist()]
        return self._expanded(kcodes.astype(np.int64, copy=False), outs)

    def _expanded(self, codes: np.ndarray, outs: list[list[str]]) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """(ids, lengths per text, vocabulary) of the tokens ``outs[code]`` at each position."""
        counts = np.fromiter((len(o) for o in outs), dtype=np.int64, count=len(outs))
        flat = [t for o in outs for t in o]
        out_codes, out_vocab = pd.factorize(np.asarray(flat, dtype=object), sort=False)
        out_codes = out_codes.astype(np.int64, copy=False)
        if (counts == 1).all():
            expanded = out_codes[codes]
        else:
            offsets = np.cumsum(counts) - counts
            cnt = counts[codes]
            total = int(cnt.sum())
            first = np.cumsum(cnt) - cnt
            within = np.arange(total, dtype=np.int64) - np.repeat(first, cnt)
            expanded = out_codes[np.repeat(offsets[codes], cnt) + within]
        is_marker = expanded == 0
        where = np.flatnonzero(is_marker)
        lengths = np.diff(np.append(where, expanded.size)) - 1
        return expanded[~is_marker] - 1, lengths, list(out_vocab[1:])

    @staticmethod
    def strings(ids: np.ndarray, lengths: np.ndarray, vocab: list[str]) -> list[str]:
        """``" ".join(tokens)`` of each text."""
        toks = np.asarray(vocab, dtype=object)[ids].tolist() if ids.size else []
        ends = np.cumsum(lengths)
        return [" ".join(toks[a:b]) for a, b in zip((ends - lengths).tolist(), ends.tolist())]


# --------------------------------------------------------------------------- tokenisers

# sacrebleu's TokenizerRegexp (13a's post-tokenizer), rule for rule
_13A_RULES = (
    (re.compile(r'([\{-\~\[-\` -\&\(-\+\:-\@\/])'), r' \1 '),
    (re.compile(r'([^0-9])([\.,])'), r'\1 \2 '),
    (re.compile(r'([\.,])([^0-9])'), r' \1 \2'),
    (re.compile(r'([0-9])(-)'), r'\1 \2 '),
)
_13A_ANY = re.compile(r'[\{-\~\[-\` -\&\(-\+\:-\@\/\.,-]')
_13A_PRE = ("<skipped>", "-\n", "&quot;", "&amp;", "&lt;", "&gt;")


def _tok13a_word(word: str) -> list[str]:
    if not _13A_ANY.search(word):
        return [word]
    line = f" {word} "
    for rx, repl in _13A_RULES:
        line = rx.sub(repl, line)
    return line.split()


def tokenize_13a(words: Words, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """sacrebleu's ``Tokenizer13a()(text.rstrip())`` of every text, as (ids, lengths, vocab).

    The 13a pre-processing (``<skipped>``, ``-\\n``, newlines, four HTML entities) works on
    the whole line; when no text holds one of its patterns it leaves the whitespace tokens as
    they are, and the regexp rules run once per distinct word.  Otherwise the pre-processed
    joined text is split again."""
    # (in the marker-joined text when there is one: no pattern spans a marker or a space)
    joined_raw = words.joined if words.joined is not None else "".join(texts)
    words.joined = None
    if any(p in joined_raw for p in _13A_PRE):
        m = words.marker
        line = f" {m} " + f" {m} ".join(t.rstrip() for t in texts) + " "
        line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
        if "&" in line:
            line = (line.replace("&quot;", '"').replace("&amp;", "&")
                    .replace("&lt;", "<").replace("&gt;", ">"))
        words = Words(texts, joined=line, marker=m)
    return words.transform(_tok13a_word)


_ROUGE_TOKEN = re.compile("[a-z0-9]+")
_ROUGE_VALID = re.compile("^[a-z0-9]+$")


def tokenize_rouge(words: Words, stemmer) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """rouge-score's ``tokenize.tokenize(text, stemmer)`` of every text: lower-case, the runs
    of ``[a-z0-9]``, the stemmer (when given) on tokens longer than 3 characters, then only
    tokens that are still ``^[a-z0-9]+$``; once per distinct word."""
    if stemmer is None:
        return words.transform(lambda w: _ROUGE_TOKEN.findall(w.lower()))
    cache: dict[str, str] = {}

    def stem(t: str) -> str:
        s = cache.get(t)
        if s is None:
            s = cache[t] = str(stemmer.stem(t)) if len(t) > 3 else t
        return s

    def fn(w: str) -> list[str]:
        return [s for s in (stem(t) for t in _ROUGE_TOKEN.findall(w.lower())) if _ROUGE_VALID.match(s)]

    return words.transform(fn)


#: the characters ``str.split()`` splits on (``str.isspace``), as code points
_SPACE_CPS = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.int64)


def chars_joined(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """sacrebleu chrF's characters (``"".join(text.split())``) of every text, as code points
    (``uint32``) and lengths: one encoding of the joined text, whitespace dropped by a table."""
    n = len(texts)
    lens = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    cps = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    if cps.size == 0:
        return np.zeros(0, dtype=np.uint32), np.zeros(n, dtype=np.int64)
    table = np.zeros(max(int(cps.max()), int(_SPACE_CPS[-1])) + 1, dtype=bool)
    table[_SPACE_CPS] = True
    space = table[cps]
    # whitespace per text: a sum per text (a running sum of the boolean array would cost ten
    # times more: numpy's bool-to-int64 cumsum has no fast loop); one False appended so that
    # every start is an index, and empty texts (whose "sum" is the next element) set to 0
    spaces = np.add.reduceat(np.append(space, False).view(np.uint8), np.cumsum(lens) - lens,
                             dtype=np.int64)
    spaces[lens == 0] = 0
    return cps[~space], lens - spaces


# --------------------------------------------------------------------------- pair layout


class Pairs:
    """Symbols of ``n`` (hypothesis, reference) pairs laid out pair by pair: pair p's
    hypothesis, then its reference -- the tokenisation of the interleaved texts
    ``[h0, r0, h1, r1, ...]`` (see :func:`interleave`), so ids are shared by both sides."""

    def __init__(self, ids: np.ndarray, lengths: np.ndarray, n: int) -> None:
        self.n = n
        self.sym = ids
        self.len_h = lengths[0::2].astype(np.int64)
        self.len_r = lengths[1::2].astype(np.int64)
        pair_len = self.len_h + self.len_r
        self.pair_start = np.concatenate(([0], np.cumsum(pair_len)[:-1])).astype(np.int64)
        self.vocab = int(ids.max()) + 1 if ids.size else 1

    def local_symbols(self) -> tuple[np.ndarray, np.ndarray]:
        """Symbols renumbered 0..d-1 within each pair (d = the pair's distinct symbols), and
        d per pair.  Hashing ``(pair, symbol)``: codes come in order of first appearance,
        which is pair by pair, so a pair's codes are a contiguous range."""
        if self.sym.size == 0:
            return self.sym.copy(), np.zeros(self.n, dtype=np.int64)
        pair_len = self.len_h + self.len_r
        pair_of = np.repeat(np.arange(self.n, dtype=np.int64), pair_len)
        codes = pd.factorize(pair_of * self.vocab + self.sym, sort=False)[0].astype(np.int64)
        nonempty = np.flatnonzero(pair_len > 0)
        base = np.zeros(self.n, dtype=np.int64)
        base[nonempty] = codes[self.pair_start[nonempty]]
        local = codes - base[pair_of]
        distinct = np.zeros(self.n, dtype=np.int64)
        distinct[nonempty] = np.maximum.reduceat(local, self.pair_start[nonempty]) + 1
        return local, distinct


def interleave(hyps: Sequence[str], refs: Sequence[str]) -> list[str]:
    out = [""] * (2 * len(hyps))
    out[0::2] = hyps
    out[1::2] = refs
    return out


def _bits(x: int) -> int:
    return max(1, int(x).bit_length())


#: positions sorted at a time (rows x width of one block): small enough that the block's
#: arrays stay in the CPU's caches (2**18 measured a third faster than 2**20 here)
BLOCK = 1 << 18


def clipped_matches(pairs: Pairs, order: int, tick: Callable[[float], None] | None = None) -> np.ndarray:
    """``matches[p, n-1]`` = sum over the distinct n-grams g of pair p's hypothesis of
    ``min(count in hypothesis, count in reference)``, for n = 1..order (sacrebleu's
    "correct", rouge-score's "intersection", SQuAD's "num_same").

    Each pair is a row of a block (pairs of similar length together, see :func:`_row_width`),
    each position's key ``(s[i], ..., s[i+order-1], side)`` packed into a ``uint64`` (past
    the end: 0 after the reference, a free value after the hypothesis when there is one),
    the rows sorted (numpy's vectorised sort of short rows is ~2 ns per key here); the
    groups of equal first-n symbols in a row are its distinct n-grams."""
    n = pairs.n
    out = np.zeros((n, order), dtype=np.int64)
    if pairs.sym.size == 0:
        return out
    pair_len = pairs.len_h + pairs.len_r
    fallback = np.zeros(n, dtype=bool)
    global_bits = _bits(pairs.vocab)  # symbols 1..vocab, 0 = past the end
    if order * global_bits + 1 <= 64:
        sym, b = pairs.sym + 1, global_bits
        top = pairs.vocab  # the largest symbol
    else:
        local, distinct = pairs.local_symbols()
        sym = local + 1
        need = np.array([_bits(int(d)) for d in range(int(distinct.max()) + 1)])[distinct]
        fallback = order * need + 1 > 64
        b = int(need[~fallback].max()) if (~fallback).any() else 1
        top = int(distinct[~fallback].max()) if (~fallback).any() else 0
    # a free symbol value after each hypothesis: its n-grams past its end then differ from
    # the reference's (which end in 0), so those groups never match and need no masking
    filler = 0
    if SPARE_FILLER:
        if top >= (1 << b) - 1 and order * (b + 1) + 1 <= 64:
            b += 1
        if top < (1 << b) - 1:
            filler = (1 << b) - 1
    width = _row_width(pair_len + order - 1)
    todo = np.flatnonzero((pair_len > 0) & ~fallback)
    total = float(pair_len.sum())
    blocks = []
    for w in np.unique(width[todo]):
        idx = todo[width[todo] == w]
        rows = max(1, BLOCK // int(w))
        blocks += [(idx[k:k + rows], int(w)) for k in range(0, idx.size, rows)]

    def work(item):
        block, w = item
        return block, _block_matches(pairs, sym, b, order, block, w, filler)

    done = 0.0
    for block, res in _in_threads(work, blocks):
        out[block] = res
        done += float(pair_len[block].sum())
        if tick is not None:
            tick(done / total)
    for p in np.flatnonzero(fallback):
        _matches_counter(pairs, order, int(p), out)
    return out


#: Blocks of n-gram keys are sorted and counted on this many threads (numpy releases the GIL
#: while sorting and counting; the results do not depend on it).
THREADS = 2


def _in_threads(fn, items):
    """``fn`` over ``items`` on :data:`THREADS` threads, results yielded in order; when the
    consumer stops (a cancelled analysis raises from its progress tick), blocks not yet
    started are dropped."""
    threads = min(THREADS, os.cpu_count() or 1, len(items))
    if threads <= 1:
        yield from map(fn, items)
        return
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=threads)
    try:
        yield from pool.map(fn, items)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class Background:
    """Counting jobs (numpy, which releases the GIL) on one thread beside the caller, who
    meanwhile tokenises the next metric's texts in Python (which holds it).  Jobs run in the
    order submitted; each gets a ``tick(fraction)`` that records its progress, calls
    ``check()`` (a progress's ``check_cancelled``, which raises when the run was cancelled)
    and raises :class:`~workbench.core.errors.Cancelled` once :meth:`close` was called, so a
    job stops at its next block.  Use as a context manager: leaving it (also by
    an exception) stops the jobs not yet finished and waits for the thread."""

    def __init__(self, check: Callable[[], None] | None = None) -> None:
        import threading
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="text-counting")
        self._stop = threading.Event()
        self._check = check or (lambda: None)
        self.fraction: dict[str, float] = {}

    def submit(self, name: str, fn: Callable, *args):
        """``fn(*args, tick)`` on the thread; its future."""
        self.fraction[name] = 0.0

        def tick(f: float) -> None:
            if self._stop.is_set():
                raise Cancelled("the run was stopped")
            self._check()
            self.fraction[name] = f

        return self._pool.submit(fn, *args, tick)

    def close(self) -> None:
        self._stop.set()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> "Background":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _row_width(length: np.ndarray) -> np.ndarray:
    """Row width for sequences of ``length``: multiples of 32 up to 256 (numpy sorts rows
    that short with its vectorised sorting networks, ~2 ns per key here), multiples of 128
    up to 2048, then powers of two."""
    length = np.maximum(length, 1)
    pow2 = 1 << np.ceil(np.log2(length)).astype(np.int64)
    return np.where(length <= 256, -(-length // 32) * 32,
                    np.where(length <= 2048, -(-length // 128) * 128, pow2))


#: use a free symbol value after each hypothesis when there is one (tests turn it off to
#: check the masking that takes its place otherwise)
SPARE_FILLER = True


def _block_matches(pairs, sym, b, order, block, w, filler=0) -> np.ndarray:
    """Rows: the hypothesis, ``order - 1`` times ``filler``, the reference, zeros up to ``w``.
    With ``filler`` 0 the groups whose n-th symbol is past the end are masked out."""
    gap = order - 1
    lh = pairs.len_h[block][:, None]
    lr = pairs.len_r[block][:, None]
    col = np.arange(w, dtype=np.int64)[None, :]
    in_ref = col >= lh
    src = pairs.pair_start[block][:, None] + col - gap * in_ref
    real = (col < lh) | (in_ref & (col >= lh + gap) & (col < lh + gap + lr))
    s = np.zeros((block.size, w + gap), dtype=np.uint64)
    s[:, :w] = np.where(real, sym[np.clip(src, 0, sym.size - 1)],
                        np.where(col < lh + gap, np.uint64(filler), np.uint64(0)) if filler else 0)
    del src, real
    ub = np.uint64(b)
    key = s[:, :w].copy()
    for k in range(1, order):
        key <<= ub
        key |= s[:, k:k + w]
    del s
    key <<= np.uint64(1)
    key |= in_ref
    gram_bits = order * b + 1
    row_in_key = _bits(block.size) + gram_bits <= 64
    if row_in_key:
        # the row number above the n-gram: groups never span rows, no row array needed
        key |= np.arange(block.size, dtype=np.uint64)[:, None] << np.uint64(gram_bits)
    key.sort(axis=1)
    flat = key.ravel()
    row = None if row_in_key else np.arange(flat.size, dtype=np.int64) // w
    mask_b = np.uint64((1 << b) - 1)
    res = np.zeros((block.size, order), dtype=np.int64)
    row_ids = np.arange(block.size + 1, dtype=np.int64)
    row_keys = row_ids.astype(np.uint64) << np.uint64(gram_bits) if row_in_key else None
    refs_before = row_bounds = None
    # per group (equal first-n symbols): its size and reference count from where it starts and
    # ends in a running count of reference entries (``np.add.reduceat`` over many short
    # groups is ~20x slower); its row's sum from a running sum at the rows' boundaries
    for n in range(1, order + 1):
        if refs_before is None:
            refs_before = np.empty(flat.size + 1, dtype=np.uint64)
            refs_before[0] = 0
            np.cumsum(flat & np.uint64(1), out=refs_before[1:])
            if row is None:  # the keys ascend through the rows: where each row starts
                row_bounds = np.searchsorted(flat, row_keys)
        g = flat >> np.uint64((order - n) * b + 1)
        change = np.empty(g.size + 1, dtype=bool)  # group starts, and the end
        change[0] = change[-1] = True
        np.not_equal(g[1:], g[:-1], out=change[1:-1])
        if row is not None:
            change[1:-1] |= row[1:] != row[:-1]
        bounds = np.flatnonzero(change)
        starts = bounds[:-1]
        size = np.diff(bounds)
        refc = np.diff(refs_before[bounds]).view(np.int64)
        m = np.minimum(size - refc, refc)
        if not filler:
            m[(g[starts] & mask_b) == 0] = 0  # the n-th symbol is past the end: no n-gram
        if row is None:
            groups_before = np.searchsorted(starts, row_bounds)
        else:
            groups_before = np.searchsorted(row[starts], row_ids)
        m_before = np.empty(m.size + 1, dtype=np.int64)
        m_before[0] = 0
        np.cumsum(m, out=m_before[1:])
        res[:, n - 1] = np.diff(m_before[groups_before])
        if n == order:
            break
        # only groups found on both sides can hold longer matches: keep their entries when
        # that surely drops enough of them to pay for the copy (each dropped group drops at
        # least one entry)
        keep_group = m > 0
        kept_groups = int(np.count_nonzero(keep_group))
        if kept_groups == 0:
            break
        if keep_group.size - kept_groups > 0.25 * flat.size:
            keep = np.repeat(keep_group, size)
            flat = flat[keep]
            refs_before = None
            if row is not None:
                row = row[keep]
    return res


def _matches_counter(pairs, order, p, out) -> None:
    """One pair with more distinct symbols than 64-bit keys hold: ``collections.Counter``."""
    a = int(pairs.pair_start[p])
    h = pairs.sym[a:a + pairs.len_h[p]].tolist()
    r = pairs.sym[a + pairs.len_h[p]:a + pairs.len_h[p] + pairs.len_r[p]].tolist()
    for n in range(1, order + 1):
        ch = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
        cr = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
        out[p, n - 1] = sum((ch & cr).values())


# --------------------------------------------------------------------------- LCS


# ROUGE-L's longest common subsequences, split out (one name for the callers: eng.lcs_lengths)
from ._text_lcs import LCS_PACK_LIMIT, lcs_lengths  # noqa: E402,F401
