"""The date or time phrase a sentence names, as a person would say it back: "7 PM on Saturday", "Saturday at 7 PM",
"next Tuesday", "2023-10-06", "20260122_15:00".

A day of the week joined to a time counts as one phrase (an answer of "7 PM" to "when is the lecture?" drops the
day); a phrase the question itself names ("... on 20260805?") is not the answer.
"""

from __future__ import annotations

import re

from shared.core.text import occurs_in

_DAY = r"(?:(?:next|this|last)\s+)?(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)(?:\s+next\s+week)?"
_CLOCK = r"\d{1,2}(?::\d{2})?\s?(?:AM|PM|am|pm|a\.m\.|p\.m\.)"
_STAMP = r"\d{8}(?:_\d{1,2}:\d{2})?"
_ISO = r"\d{4}-\d{2}-\d{2}(?:T[\d:+]+)?"
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|"
    r"Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s*\d{4})?"
)
_PHRASES = (
    re.compile(rf"\b{_DAY},?\s+(?:at|from|around)\s+{_CLOCK}"),
    re.compile(rf"\b{_CLOCK}\s+(?:on|this|next)\s+{_DAY}\b"),
    re.compile(rf"\b(?:{_STAMP}|{_ISO}|{_MONTH})\b"),
    re.compile(rf"\b{_CLOCK}"),
    re.compile(rf"\b{_DAY}\b"),
)
"""Most specific first: a day with its time, a calendar date, a time, a day."""
_ANY_DATE = re.compile(rf"\b(?:{_STAMP}|{_ISO}|{_MONTH}|{_CLOCK})")


def date_phrase(text: str, question: str = "") -> str | None:
    """The most specific date or time phrase of ``text`` that ``question`` does not name (first in the text among
    equally specific ones), or None."""
    for pattern in _PHRASES:
        for m in pattern.finditer(text):
            phrase = m.group(0).strip()
            if not _named(phrase, question):
                return phrase
    return None


def _named(phrase: str, question: str) -> bool:
    """``question`` names ``phrase``, or the day of a time stamp ("20260805" of "20260805_16:00")."""
    day = phrase.split("_", 1)[0]
    return bool(question) and (occurs_in(phrase, question) or (day != phrase and occurs_in(day, question)))


def first_date(text: str) -> str | None:
    """The first calendar date, time stamp or clock time of ``text`` (a chat's time line, an article's date)."""
    m = _ANY_DATE.search(text)
    return m.group(0) if m else None
