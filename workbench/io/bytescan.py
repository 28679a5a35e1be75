"""Counting a delimited file's bytes a piece at a time, for the proof of
:func:`workbench.io.fastcsv.parse_file`: line breaks, and delimiters outside double quotes, with
the quotes checked (a quote only around a whole field, no line break inside quotes, no NUL byte).

Pieces without quotes are only counted; pieces with quotes are turned into 64-bit words of flags
and the quoted regions found with a prefix XOR of the quote flags (:class:`_Scanner`).  A file
whose parse itself proves every row whole (its last column has no empty cell) is not scanned at
all (:func:`workbench.io.fastcsv.parse_file`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_NL, _CR, _QUOTE = 10, 13, 34

#: Bytes counted at a time by :meth:`_Scanner.feed` (larger pieces are cut to this size).
SCAN_PIECE = 1 << 20

@dataclass(frozen=True)
class _Scan:
    """What the scan of a whole file found."""

    size: int
    newlines: int
    quoted_newlines: int | None  # of the newlines, those inside quotes (0 unless allowed; None: not counted)
    delimiters: int | None  # outside quotes (None: not counted)
    refused: str  # why the file needs the usual way ("" when it does not)
    last: int  # the last byte (-1 for an empty file)


_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


def _bits(mask: np.ndarray) -> np.ndarray:
    """A bool array as little-endian 64-bit words: bit j of word w is element 64 w + j."""
    packed = np.packbits(mask, bitorder="little")
    pad = -packed.size % 8
    if pad:
        packed = np.concatenate((packed, np.zeros(pad, np.uint8)))
    return packed.view("<u8")


_BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Set bits per 64-bit word (numpy >= 2 has a ufunc for it)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    return _BYTE_BITS[words.view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.uint8)


def _prefix_xor(words: np.ndarray) -> np.ndarray:
    """Bit j of each word becomes the XOR of its bits 0..j (inside or outside quotes)."""
    out = words ^ (words << np.uint64(1))
    for shift in (2, 4, 8, 16, 32):
        out ^= out << np.uint64(shift)
    return out


class _Scanner:
    """Counts of a file fed a piece at a time: line breaks, and delimiters outside double
    quotes, with the quotes checked: a quote only around a whole field (after a delimiter,
    line break, CR, quote or the start; before one of those or the end), doubled inside it.

    Pieces without quotes are only counted (two vectorised compares).  Pieces with quotes
    are turned into 64-bit words of flags and the quoted regions found with a prefix XOR
    of the quote flags, carried from word to word and piece to piece, so no position array
    of the file's size is built.  What makes the proof of :func:`parse_file` impossible
    (a NUL byte, a line break inside quotes unless ``newlines_in_quotes``, a quote inside a
    field or text after a closing quote, an unclosed quote) is recorded in ``refused`` and
    ends the counting.
    """

    def __init__(self, sep: int, *, newlines_in_quotes: bool = False) -> None:
        self.sep = sep
        self.newlines_in_quotes = newlines_in_quotes  # a line break inside quotes is no refusal
        self.ok = np.array([sep, _NL, _CR, _QUOTE], dtype=np.uint8)
        self.allowed = np.zeros(256, dtype=bool)  # the bytes a quote may follow or precede
        self.allowed[self.ok] = True
        self.size = self.newlines = self.delimiters = self.quoted_newlines = 0
        self.inside = False  # the next byte is inside quotes
        self.after_ok = True  # the byte before the next one may precede an opening quote
        self.check_first = False  # the next byte must be able to follow a closing quote
        self.refused = ""
        self.last = -1
        self.quotes = 0  # the quotes of the last piece with quotes

    def feed(self, raw: bytearray | bytes, piece: np.ndarray, start: int = 0) -> None:
        """Count ``piece``: the numpy view of the bytes of ``raw`` from ``start`` on.

        A large piece is counted :data:`SCAN_PIECE` bytes at a time: the flags of a piece with
        quotes are several passes over its bytes, which then stay in the CPU's cache (4 MB
        pieces took twice as long as 1 MB ones)."""
        for at in range(0, piece.size, SCAN_PIECE):
            self._feed(raw, piece[at:at + SCAN_PIECE], start + at)

    def _refused_at(self, raw: bytearray | bytes, piece: np.ndarray, start: int) -> bool:
        """Whether the piece is refused before it is counted: a NUL byte in it, or its first
        byte after a closing quote (the previous piece's last byte) that cannot follow one."""
        if raw.find(b"\x00", start, start + piece.size) >= 0:
            self.refused = "a NUL byte"
        elif self.check_first and not self.allowed[piece[0]]:
            self.refused = "text after a closing quote"
        return bool(self.refused)

    def _feed(self, raw: bytearray | bytes, piece: np.ndarray, start: int) -> None:
        got = piece.size
        if not got or self.refused or self._refused_at(raw, piece, start):
            return
        if raw.find(b'"', start, start + got) < 0 and not self.inside:
            self.newlines += int(np.count_nonzero(piece == _NL))
            self.delimiters += int(np.count_nonzero(piece == self.sep))
            self.check_first = False
        else:
            self._quoted(raw, piece, start)
        self.size += got
        self.last = int(piece[-1])
        self.after_ok = self.last in self.ok

    def _quoted(self, raw: bytearray | bytes, piece: np.ndarray, start: int) -> None:
        got = piece.size
        quotes = _bits(piece == _QUOTE)
        newlines = _bits(piece == _NL)
        seps = _bits(piece == self.sep)
        self.quotes = int(_popcount(quotes).sum())
        inside = _prefix_xor(quotes)
        parity = (inside >> np.uint64(63)).astype(np.uint8)  # each word's quotes (mod 2)
        before = np.cumsum(parity, dtype=np.uint8) - parity  # quotes in earlier words (mod 2)
        before = (before & 1).astype(bool) ^ self.inside
        inside ^= np.negative(before.astype(np.uint64))  # all ones where a quote is open
        ok = quotes | newlines | seps
        self.refused = self._misplaced(quotes, inside, ok, got)
        if self.refused and raw.find(b"\r", start, start + got) >= 0:
            # a carriage return may be what precedes or follows the quote: the flags of the
            # piece's CRs (one more pass over its bytes, only when the quotes need them)
            self.refused = self._misplaced(quotes, inside, ok | _bits(piece == _CR), got)
        quoted_newlines = newlines & inside
        if not self.refused and quoted_newlines.any():
            if self.newlines_in_quotes:
                self.quoted_newlines += int(_popcount(quoted_newlines).sum())
            else:
                self.refused = "a line break inside quotes"
        self.newlines += int(_popcount(newlines).sum())
        self.delimiters += int(_popcount(seps & ~inside).sum())
        self.inside = bool(self.inside ^ (int(parity.sum()) & 1))
        self.check_first = bool(piece[-1] == _QUOTE and not self.inside)

    def _misplaced(self, quotes: np.ndarray, inside: np.ndarray, ok: np.ndarray, got: int) -> str:
        """Why the quotes of a piece of ``got`` bytes are not all around whole fields ("" when
        they are): an opening quote must follow a byte of ``ok`` (a delimiter, line break,
        quote or carriage return; the piece's first byte follows the previous piece's last),
        a closing quote must precede one (the piece's last byte is checked with the next
        piece)."""
        previous = ok << np.uint64(1)
        previous[1:] |= ok[:-1] >> np.uint64(63)
        previous[0] |= np.uint64(self.after_ok)
        following = ok >> np.uint64(1)
        following[:-1] |= ok[1:] << np.uint64(63)
        if got % 64:  # the bytes after the piece are checked with the next piece
            following[-1] |= _ALL << np.uint64(got % 64 - 1)
        else:
            following[-1] |= np.uint64(1) << np.uint64(63)
        if (quotes & inside & ~previous).any():
            return "a quote inside a field"
        if (quotes & ~inside & ~following).any():
            return "text after a closing quote"
        return ""

    def result(self) -> _Scan:
        refused = self.refused or ("an unclosed quote" if self.inside else "")
        return _Scan(self.size, self.newlines, self.quoted_newlines, self.delimiters, refused,
                     self.last)
