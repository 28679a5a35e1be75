"""sacrebleu's ``zh`` and ``char`` BLEU tokenizers, computed faster and giving the same tokens.

The conventions table tokenizes every distinct text once per BLEU tokenizer; sacrebleu's ``zh``
tokenizer walks each line character by character in Python and then applies the ``re``
post-tokenizer (four ``re.sub`` with templates, each match expanded in Python).  Two of those
steps map one character at a time, which ``str.translate`` does in C:

* ``zh``'s first step puts spaces around every character of its CJK ranges
  (``TokenizerZh._is_chinese_char``; the set is read from sacrebleu's own ranges, compared as
  sacrebleu compares them: a range bound such as ``'\\u20000'`` is a two-character string, so the
  range it gives is the one of string comparison, kept as it is);
* the ``re`` post-tokenizer's first rule, ``([{-~[-` -&(-+:-@/])`` to `` \\1 ``: a class of single
  ASCII characters, so every occurrence is matched and padded, which is a per-character map.

The other three rules (``.`` and ``,`` next to non-digits, ``-`` after a digit) depend on the
neighbouring character and are applied with sacrebleu's own compiled patterns, in its order.
``char`` is ``" ".join(line)``, as sacrebleu's generator join.  Equality with sacrebleu is
tested on generated text and on every code point (``tests/test_fast_tokenizers.py``).
"""

from __future__ import annotations

import threading

_LOCK = threading.Lock()
_TABLES: dict = {}


def _post():
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    return TokenizerRegexp()


def _rule_one_table() -> dict:
    """The ``re`` post-tokenizer's first rule as a translate table (tested on the BMP)."""
    pattern, _repl = _post()._re[0]
    return {c: f" {chr(c)} " for c in range(0x80) if pattern.fullmatch(chr(c))}


def _chinese_ranges() -> list[tuple[int, int]]:
    """sacrebleu's ``_is_chinese_char`` as ranges of code points: for each (start, end) of its
    list, the single characters c with ``start <= c <= end`` as Python compares strings (a
    monotone test in c, so the first and last such code point bound it)."""
    from sacrebleu.tokenizers.tokenizer_zh import _UCODE_RANGES

    top = 0x10FFFF
    out = []
    for start, end in _UCODE_RANGES:
        lo, hi = 0, top + 1  # the first code point c with start <= chr(c)
        while lo < hi:
            mid = (lo + hi) // 2
            if start <= chr(mid):
                hi = mid
            else:
                lo = mid + 1
        first = lo
        lo, hi = -1, top  # the last code point c with chr(c) <= end
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if chr(mid) <= end:
                lo = mid
            else:
                hi = mid - 1
        if first <= lo:
            out.append((first, lo))
    return out


def _zh_table() -> dict:
    return {c: f" {chr(c)} " for first, last in _chinese_ranges() for c in range(first, last + 1)}


def _tables():
    with _LOCK:
        if not _TABLES:
            post = _post()
            _TABLES.update(rule_one=_rule_one_table(), zh=_zh_table(),
                           rules=[(p, r) for p, r in post._re[1:]])
    return _TABLES


def regexp(line: str) -> str:
    """sacrebleu's ``TokenizerRegexp()(line)``."""
    t = _tables()
    line = line.translate(t["rule_one"])
    for pattern, repl in t["rules"]:
        line = pattern.sub(repl, line)
    return " ".join(line.split())


def zh(line: str) -> str:
    """sacrebleu's ``TokenizerZh()(line)``."""
    return regexp(line.strip().translate(_tables()["zh"]))


def char(line: str) -> str:
    """sacrebleu's ``TokenizerChar()(line)``."""
    return " ".join(line)


#: The tokenizers given here, by sacrebleu's name.
TOKENIZERS = {"zh": zh, "char": char}
