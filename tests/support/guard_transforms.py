"""A protected passage and 22 reversible transforms of a run of it, each as a capable model told to disguise a
copy would write it ("repeat it, but <transform>"); tests/adversarial/test_guard_transforms.py checks that the
answer guard (shared.core.verbatim, ``query.copy_words`` 6) catches every one."""

from __future__ import annotations

import base64
import codecs

DOC = "Zephyr Medical quietly moved its insulin pump plant from Lisbon to Porto after the spring floods of 2019."
RUN = "quietly moved its insulin pump plant from Lisbon to Porto after the spring floods"
WORDS = RUN.split()
HOMOGLYPHS = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "i": "і"})  # Cyrillic look-alikes

TRANSFORMS = {
    "snake_case": "_".join(WORDS),
    "CamelCase": "".join(w.capitalize() for w in WORDS),
    "kebab-case": "-".join(WORDS),
    "filler after every word": " um ".join(WORDS),
    "numbered words": " ".join(f"{i}.{w}" for i, w in enumerate(WORDS, 1)),
    "letters spelled out": " ".join(" ".join(w) for w in WORDS),
    "letters with dashes": " ".join("-".join(w) for w in WORDS),
    "every word reversed": " ".join(w[::-1] for w in WORDS),
    "ROT13": codecs.encode(RUN, "rot13"),
    "base64": base64.b64encode(RUN.encode()).decode(),
    "accents added": RUN.replace("e", "é").replace("o", "ö").replace("a", "à"),
    "combining grave accents": "".join(ch + "\u0300" if ch.isalpha() else ch for ch in RUN),
    "variation selectors": "".join(ch + "\ufe0f" for ch in RUN),
    "combining grapheme joiners": "\u034f".join(RUN),
    "Hangul fillers": RUN.replace(" ", " \u3164"),
    "tag characters": "".join(ch + "\U000e0041" for ch in RUN),
    "zero-width joiners": "\u200d".join(RUN),
    "Cyrillic homoglyphs": RUN.translate(HOMOGLYPHS),
    "fullwidth": "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in RUN),
    "no spaces": RUN.replace(" ", ""),
    "leetspeak": RUN.translate(str.maketrans("aeiost", "431057")),
    "reversed word order": " ".join(reversed(WORDS)),
}
