"""Text as an attacker's transforms leave it: the form copied-text checks compare.

A model told to "repeat the context, but ..." can hide a copy in many reversible ways: words joined by ``_`` or
in CamelCase, accents or combining marks added, invisible characters inserted, letters swapped for look-alikes of
another script, letters spelled out one by one, digits between the words, every word reversed, ROT13, base64. The
checks (shared.core.verbatim) compare texts in their *skeleton*:

- Unicode NFKD, then every combining mark, format character and other default-ignorable code point dropped
  (zero-width spaces, U+034F, variation selectors, tag characters, the Hangul fillers);
- each remaining character mapped to the Latin letter or digit it is confusable with (the Unicode confusables
  data, UTS #39, from the maintained ``confusable-homoglyphs`` package), then case folded;
- words split at ``_``, at a lower-to-upper case change and between letters and digits.

:func:`variants` gives the decodings an answer may hide a copy in (ROT13, base64 runs, every word reversed); the
checks also compare the skeleton's letters alone (spacing, joining, spelling out and inserted digits gone).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt)."""
_DROPPED_CATEGORIES = frozenset({"Mn", "Me", "Cf"})
_WORD = re.compile(r"\d+(?:[.,'\u00a0\u202f]\d{3})+|[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]|\d+|[^\W\d_A-Za-z]+")
_DIGIT_GROUPING = re.compile(r"[.,'\u00a0\u202f]")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
MIN_DECODED_PRINTABLE = 0.9
"""A base64 run counts as hiding text when this share of what it decodes to is printable."""


def ignorable(ch: str) -> bool:
    code = ord(ch)
    return unicodedata.category(ch) in _DROPPED_CATEGORIES or any(lo <= code <= hi for lo, hi in _IGNORABLE)


@functools.lru_cache(maxsize=1)
def _confusable_map() -> dict[str, str]:
    """Character -> the ASCII letter or digit it can be mistaken for (loaded on first use)."""
    from confusable_homoglyphs.confusables import confusables_data

    out: dict[str, str] = {}
    for char, looks in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_looks = sorted(x["c"] for x in looks if len(x["c"]) == 1 and x["c"].isascii() and x["c"].isalnum())
        if ascii_looks:
            out[char] = ascii_looks[0]
    return out


@dataclass(frozen=True)
class Cleaned:
    """A text's skeleton characters, each with the index of the original character it came from."""

    text: str
    origin: tuple[int, ...]


def clean(text: str) -> Cleaned:
    """The skeleton's characters (before word splitting and case folding), mapped back to ``text``."""
    confusable = _confusable_map()
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            chars.append(ch)
            origin.append(i)
            continue
        for part in unicodedata.normalize("NFKD", ch):
            if ignorable(part):
                continue
            for out in unicodedata.normalize("NFKC", confusable.get(part, part)):
                chars.append(out)
                origin.append(i)
    return Cleaned("".join(chars), tuple(origin))


@dataclass(frozen=True)
class Word:
    word: str
    """The skeleton word (case folded)."""
    start: int
    end: int
    """Where it stands in the original text (characters)."""


def skeleton_words(text: str) -> Iterator[Word]:
    """The skeleton's words with their places in ``text``."""
    cleaned = clean(text)
    for m in _WORD.finditer(cleaned.text):
        word = m.group()
        if word[:1].isdigit():
            word = _DIGIT_GROUPING.sub("", word)
        yield Word(word.casefold(), cleaned.origin[m.start()], cleaned.origin[m.end() - 1] + 1)


_LEET = (
    str.maketrans({"4": "a", "@": "a", "3": "e", "1": "i", "!": "i", "0": "o", "5": "s", "$": "s", "7": "t"}),
    str.maketrans({"4": "a", "@": "a", "3": "e", "1": "l", "|": "l", "0": "o", "5": "s", "$": "s", "7": "t"}),
)


def variants(text: str) -> list[str]:
    """Texts ``text`` may hide a copy in besides itself: ROT13, each base64 run decoded, every word reversed, the
    words in reverse order, the whole text reversed, and leetspeak read as letters (1 as i, then as l)."""
    said = [w.word for w in skeleton_words(text)]
    out = [
        codecs.encode(text, "rot13"),
        " ".join(w[::-1] for w in said),
        " ".join(reversed(said)),
        text[::-1],
        *(text.translate(table) for table in _LEET),
    ]
    for run in _BASE64.findall(text):
        if decoded := _decoded(run):
            out.append(decoded)
    return out


def _decoded(run: str) -> str:
    try:
        data = base64.b64decode(run + "=" * (-len(run) % 4), validate=False)
        text = data.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return ""
    printable = sum(1 for ch in text if ch.isprintable() or ch.isspace())
    return text if text and printable / len(text) >= MIN_DECODED_PRINTABLE else ""
