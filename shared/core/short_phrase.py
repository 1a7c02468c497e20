"""The short phrase that answers an open question, cut out of the model's sampled sentences.

A small model answers "What is the building's policy that Adam reminds Li Hua about?" with "The building's policy
that Adam reminds Li Hua about is a recycling policy." The answer is what the sentence adds to the question: the
restated words are skipped, then the first clause of the rest is kept ("recycling policy"). Among several samples
the phrase the others agree with most (content words they share) is chosen, so one sample's stray phrase does not
win.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shared.core.answer_format import declares_missing
from shared.core.degeneracy import content_words

PHRASE_WORDS = 10
"""Longest phrase kept."""
_LEAD = frozenset(
    "the a an answer is was are were that to be will would of about for in on he she they it his her its their "
    "has have had did does do this these those so by at with as question according context who what which where "
    "when how why i we me my our can could should might may must just really think guess maybe also definitely "
    "totally probably personally honestly".split()
)
"""Words skipped before the phrase, besides the question's own."""
_CLAUSE_END = re.compile(
    r"[.;:!?\n(\[]|,\s|\s(?:which|because|who|whom|where|while|since|but|so that)\s", re.IGNORECASE
)
_WORD = re.compile(r"[\w'’-]+")


def _stem(word: str) -> str:
    return word.casefold()[:5]


def answer_phrase(question: str, answer: str) -> str:
    """What ``answer`` adds to ``question``, up to its first clause's end, without the question's words it starts
    or ends with ('' when nothing is added or the answer declines)."""
    text = answer.strip()
    if not text or declares_missing(text):
        return ""
    asked = {_stem(w) for w in _WORD.findall(question)}
    words = list(_WORD.finditer(text))
    i = 0
    while i < len(words) and (_stem(words[i].group()) in asked or words[i].group().casefold() in _LEAD):
        i += 1
    if i == len(words):
        return ""
    rest = text[words[i].start() :]
    if end := _CLAUSE_END.search(rest):
        rest = rest[: end.start()]
    rest = _without_restated_tail(rest, asked)
    return " ".join(rest.split()[:PHRASE_WORDS]).strip(" ,.'\"“”‘’")


def _without_restated_tail(phrase: str, asked: set[str]) -> str:
    """``phrase`` without a trailing restatement of the question that opens with a function word: "string lights
    to brighten the area" -> "string lights" ("recycling policy" keeps "policy": no function word opens it)."""
    words = list(_WORD.finditer(phrase))
    j = len(words)
    while j > 1 and (_stem(words[j - 1].group()) in asked or words[j - 1].group().casefold() in _LEAD):
        j -= 1
    tail = [w.group().casefold() for w in words[j:]]
    cut = next((j + k for k, w in enumerate(tail) if w in _LEAD), len(words))
    return phrase[: words[cut - 1].end()] if 0 < cut < len(words) else phrase


def agreed_phrase(question: str, answers: Sequence[str]) -> str:
    """The phrase of ``answers`` whose content words the other samples' phrases share most (ties: the shorter,
    then the earlier); '' when no sample adds anything to the question."""
    phrases = [p for p in (answer_phrase(question, a) for a in answers) if content_words(p)]
    words = [set(content_words(p)) for p in phrases]
    best: tuple[tuple[int, int, int], str] | None = None
    for i, phrase in enumerate(phrases):
        shared = sum(len(words[i] & words[j]) for j in range(len(phrases)) if j != i)
        key = (shared, -len(phrase.split()), -i)
        if best is None or key > best[0]:
            best = (key, phrase)
    return best[1] if best else ""
