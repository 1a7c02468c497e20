"""Text an edge returns with an echo of the question taken out before the cloud scores it, unless the edge proves it
held the text before the question (shared.core.chunk_commitment).

An edge could return the question itself (or the question with its own sentence appended) as a "chunk": scored
against the question it matches almost perfectly, so it would lead the cloud model's context and back any claim.
A returned text that copies most of the question (runs of :data:`ECHO_RUN` or more words in the question's
order, covering at least :data:`ECHO_SHARE` of the question's words) is scored without those runs: an echo
scores on nothing, an echo with a sentence appended on the sentence alone. An honest passage that shares a
phrase with the question (questions are often written from a passage's words) keeps all of its words.
"""

from __future__ import annotations

import re

ECHO_RUN = 5
"""Consecutive question words (in the question's order) that count as copied from it."""
ECHO_SHARE = 0.6
"""Share of the question's words a text must copy to be an echo."""
_WORD = re.compile(r"\w+", re.UNICODE)


def without_echo(question: str, text: str, run: int = ECHO_RUN) -> str:
    """``text`` without the runs of ``run`` or more consecutive words it shares, in order, with ``question``
    (case-insensitive; what lies between words is ignored) when they cover ECHO_SHARE of the question; else
    ``text`` as it is."""
    asked = [w.casefold() for w in _WORD.findall(question)]
    grams: dict[tuple[str, ...], int] = {}
    for i in range(len(asked) - run + 1):
        grams.setdefault(tuple(asked[i : i + run]), i)
    if not grams:
        return text
    words = list(_WORD.finditer(text))
    folded = [m.group().casefold() for m in words]
    copied = [False] * len(words)
    covered = [False] * len(asked)
    for i in range(len(words) - run + 1):
        at = grams.get(tuple(folded[i : i + run]))
        if at is not None:
            copied[i : i + run] = [True] * run
            covered[at : at + run] = [True] * run
    if sum(covered) < ECHO_SHARE * len(asked):
        return text
    kept, start = [], 0
    for match, gone in zip(words, copied, strict=True):
        if gone:
            kept.append(text[start : match.start()])
            start = match.end()
    kept.append(text[start:])
    left = " ".join(" ".join(kept).split())
    return left if _WORD.search(left) else ""
