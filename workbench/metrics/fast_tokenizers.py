"""sacrebleu's ``zh``, ``intl`` and ``char`` BLEU tokenizers, computed faster and giving the same
tokens.

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
neighbouring character and are applied with sacrebleu's own compiled patterns, in its order,
only to a line holding the character they need (no rule adds or removes one).  ``intl``'s last
rule, ``(\\p{S})`` to `` \\1 ``, is a per-character map too (its symbols read once from
sacrebleu's own pattern over every code point); its two punctuation rules run, with its own
patterns, on a line that holds a ``\\p{P}`` character (each needs one).  ``char`` is
``" ".join(line)``, as sacrebleu's generator join.  Equality with sacrebleu is
tested on generated text and on every code point (``tests/test_fast_tokenizers.py``).

:func:`word_tokens` gives each tokenizer word by word (the conventions table calls it once per
distinct whitespace word instead of once per text).  Every rule above looks at most one
character either side and never at two white space characters, and a white space character is
never a digit, punctuation or a symbol; so a line's tokens are those of its whitespace words,
one after the other, each tokenized with one space on each side where the line has white space
there.  Only the line's ends differ: ``intl`` and ``zh`` do not pad the line (``13a`` does), so
a word at the end of a line sees nothing after it (``2019.`` keeps its period there, as
sacrebleu's own documentation of ``intl`` says), and a first word sees nothing before it
unless the line starts with white space (``zh`` strips the line, ``intl`` does not).
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
    if "zh" in _TABLES:  # built (never changed after)
        return _TABLES
    with _LOCK:
        if "zh" not in _TABLES:
            post = _post()
            _TABLES.update(rule_one=_rule_one_table(), zh=_zh_table(),
                           rules=[(p, r) for p, r in post._re[1:]])
    return _TABLES


def _intl_tables():
    built = _TABLES.get("intl")
    if built is not None:
        return built
    with _LOCK:
        if "intl" not in _TABLES:
            import regex
            from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International

            rules = TokenizerV14International()._re
            _TABLES["intl"] = {
                "punctuation": regex.compile(r"\p{P}").search,
                "rules": [(p, r) for p, r in rules[:2]],
                "symbols": _Symbols(rules[2][0].fullmatch),
            }
    return _TABLES["intl"]


class _Symbols(dict):
    """``str.translate``'s table of sacrebleu's intl rule (\\p{S}) -> " c ": filled a character at
    a time as lines bring them (each character decided once by the rule's own pattern), instead
    of deciding all 1.1 million code points first (1.3 s); a character that is not a symbol maps
    to itself."""

    def __init__(self, fullmatch):
        super().__init__()
        self._fullmatch = fullmatch

    def __missing__(self, code: int) -> str:
        c = chr(code)
        out = f" {c} " if self._fullmatch(c) else c
        self[code] = out
        return out


def regexp(line: str, join: bool = True):
    """sacrebleu's ``TokenizerRegexp()(line)`` (``join=False``: its tokens, a list)."""
    t = _tables()
    line = line.translate(t["rule_one"])
    (period, period_repl), (period_after, after_repl), (dash, dash_repl) = t["rules"]
    if "." in line or "," in line:
        line = period_after.sub(after_repl, period.sub(period_repl, line))
    if "-" in line:
        line = dash.sub(dash_repl, line)
    return " ".join(line.split()) if join else line.split()


def intl(line: str, join: bool = True):
    """sacrebleu's ``TokenizerV14International()(line)`` (``join=False``: its tokens)."""
    t = _intl_tables()
    if t["punctuation"](line):
        for pattern, repl in t["rules"]:
            line = pattern.sub(repl, line)
    tokens = line.translate(t["symbols"]).split()
    return " ".join(tokens) if join else tokens


def zh(line: str) -> str:
    """sacrebleu's ``TokenizerZh()(line)``."""
    return regexp(line.strip().translate(_tables()["zh"]))


def char(line: str) -> str:
    """sacrebleu's ``TokenizerChar()(line)``."""
    return " ".join(line)


#: The tokenizers given here, by sacrebleu's name.
TOKENIZERS = {"zh": zh, "intl": intl, "char": char}


def chrf_words(metric):
    """sacrebleu's ``CHRF._remove_punctuation`` of ``metric`` (chrF++'s word split): a line
    without any of its punctuation characters is split on white space, as that function then
    does; any other line goes to the function itself."""
    import re

    remove = metric._remove_punctuation
    search = re.compile("[" + re.escape("".join(sorted(metric._PUNCTS))) + "]").search

    def words(line: str) -> list[str]:
        return line.split() if search(line) is None else remove(line)

    return words


def _padded(word: str, left: bool, right: bool) -> str:
    return f"{' ' if left else ''}{word}{' ' if right else ''}"


def _intl_word(word: str, left: bool, right: bool) -> list[str]:
    return intl(_padded(word, left, right), join=False)


def _zh_word(word: str, left: bool, right: bool) -> list[str]:
    return regexp(_padded(word.translate(_tables()["zh"]), left, right), join=False)


def word_tokens(name: str):
    """``(fn, edges, lead)``: the BLEU tokenizer ``name`` (``intl``, ``zh``, ``char``, ``none``)
    word by word.  Without ``edges``, ``fn(word)`` gives the word's tokens; with ``edges``,
    ``fn(word, left, right)``, where ``left``/``right`` say whether the word has white space
    before/after it in the line as the tokenizer sees it (``lead``: a line's leading white space
    counts, as ``intl`` does not strip it; ``zh`` strips both ends)."""
    if name == "none":
        return (lambda word: [word]), False, False
    if name == "char":
        return list, False, False
    if name == "intl":
        return _intl_word, True, True
    if name == "zh":
        return _zh_word, True, False
    raise ValueError(f"no word-by-word form of the {name!r} tokenizer")
