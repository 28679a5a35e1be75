"""The fast ``zh``, ``intl`` and ``char`` BLEU tokenizers (workbench/metrics/fast_tokenizers.py) give
sacrebleu's own tokens: on every code point (the CJK set of ``TokenizerZh._is_chinese_char``,
including the ranges its two-character bounds such as ``'\\u20000'`` really give), and on
generated lines mixing CJK, ASCII punctuation, digits next to ``.``, ``,`` and ``-``, spaces of
several kinds and symbols."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics import fast_tokenizers as ft

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar  # noqa: E402
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International  # noqa: E402
from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp  # noqa: E402
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh  # noqa: E402

ALPHABET = ("ab Z09.,-/!?()[]{}<>'\"&;:@#$%^*_+=~`|\\ \t\n\u3000\u00a0\u0660\u00b2\u00bd¡¿«»"
            "東京北京。、（）「」〜ｱｲ가나\u2019\u2026\u20ac€§→😀é\u2a6d\u2a6e\u2001\u2000\u2f81\u2fa1")


def test_the_cjk_set_is_sacrebleus_on_every_code_point():
    zh = TokenizerZh()
    table = ft._tables()["zh"]
    wrong = [cp for cp in range(0x110000) if (cp in table) != zh._is_chinese_char(chr(cp))]
    assert wrong == []
    # the two-character bounds: '\u20000' starts after U+2000, '\u2a6d6' ends at U+2A6D
    assert 0x2000 not in table and 0x2001 in table and 0x2A6D in table and 0x2A6E not in table


def test_the_symbols_of_intl_are_sacrebleus_on_every_code_point():
    pattern = TokenizerV14International()._re[2][0]
    table = ft._intl_tables()["symbols"]  # filled as characters come: look every one up
    wrong = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF
             and (table[c] == f" {chr(c)} ") != bool(pattern.fullmatch(chr(c)))]
    symbols = sum(1 for c, v in table.items() if v != chr(c))
    assert wrong == [] and symbols > 5000
    assert all(v == chr(c) for c, v in table.items() if not pattern.fullmatch(chr(c)))


def test_the_first_rule_is_sacrebleus_on_the_bmp():
    pattern = TokenizerRegexp()._re[0][0]
    table = ft._tables()["rule_one"]
    assert [c for c in range(0x10000) if (c in table) != bool(pattern.fullmatch(chr(c)))] == []


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=40))
def test_generated_lines_give_sacrebleus_tokens(line):
    assert ft.zh(line) == TokenizerZh()(line)
    assert ft.intl(line) == TokenizerV14International()(line)
    assert ft.regexp(line) == TokenizerRegexp()(line)
    assert ft.char(line) == TokenizerChar()(line)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=40))
def test_chrf_word_split_is_sacrebleus(line):
    from sacrebleu.metrics import CHRF

    metric = CHRF(word_order=2)
    assert ft.chrf_words(metric)(line) == metric._remove_punctuation(line)


def _by_words(name: str, line: str) -> list[str]:
    """``line``'s tokens by :func:`ft.word_tokens`, each whitespace word told by hand whether the
    line has white space before and after it (what ``Words.transform_at_edges`` tells it)."""
    fn, edges, lead = ft.word_tokens(name)
    text = line.rstrip()  # what BLEU gives its tokenizer
    words = text.split()
    if not edges:
        return [t for w in words for t in fn(w)]
    out = []
    for i, w in enumerate(words):
        left = i > 0 or (lead and text[:1].isspace())
        out += fn(w, left, i < len(words) - 1)
    return out


_SACREBLEU = {"zh": TokenizerZh, "intl": TokenizerV14International, "char": TokenizerChar}


@pytest.mark.parametrize("name", ["zh", "intl", "char"])
def test_word_by_word_tokens_at_the_lines_ends(name):
    tokenizer = _SACREBLEU[name]()
    # a period after a number stays at the line's end for intl and zh, splits inside it
    for line in ["In 2019.", "2019. was", " .5 and 5.", ".5", "5.", "\t,x y, ", "a.. ..b", "東京。 5,",
                 "(1) 3- -3 1,000", " ¡hola! ", "x\u3000.5", "", "   ", "€5 (ok)!", "a -"]:
        assert _by_words(name, line) == tokenizer(line.rstrip()).split(), line


@settings(max_examples=500, deadline=None, database=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=40))
def test_generated_lines_word_by_word_give_sacrebleus_tokens(line):
    for name, tokenizer in _SACREBLEU.items():
        assert _by_words(name, line) == tokenizer()(line.rstrip()).split()
    assert _by_words("none", line) == line.rstrip().split()


def test_many_random_lines_with_any_characters():
    rng = random.Random(7)
    zh, post, char, intl = TokenizerZh(), TokenizerRegexp(), TokenizerChar(), TokenizerV14International()
    for _ in range(3000):
        line = "".join(chr(rng.choice([rng.randrange(0x20, 0x80), rng.randrange(0x80, 0x3400),
                                      rng.randrange(0x3400, 0xA000), rng.randrange(0xF900, 0x110000)]))
                       for _ in range(rng.randrange(0, 25)))
        if any(0xD800 <= ord(c) <= 0xDFFF for c in line):
            continue
        assert ft.zh(line) == zh(line)
        assert ft.intl(line) == intl(line)
        assert ft.regexp(line) == post(line)
        assert ft.char(line) == char(line)
        for name, tokenizer in (("zh", zh), ("intl", intl), ("char", char)):
            assert _by_words(name, line) == tokenizer(line.rstrip()).split()
