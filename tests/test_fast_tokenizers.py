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
    table = ft._intl_tables()["symbols"]
    wrong = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF
             and (c in table) != bool(pattern.fullmatch(chr(c)))]
    assert wrong == [] and len(table) > 5000


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


def test_token_lists_are_the_split_lines():
    for line in ["東京 is big.", " a-1 2-b, c.d ", "x\u3000y\tz", "", "€5 (ok)!"]:
        assert ft.TOKEN_LISTS["zh"](line) == TokenizerZh()(line).split()
        assert ft.TOKEN_LISTS["intl"](line) == TokenizerV14International()(line).split()
        assert ft.TOKEN_LISTS["char"](line) == TokenizerChar()(line).split()


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
            assert ft.TOKEN_LISTS[name](line) == tokenizer(line).split()
