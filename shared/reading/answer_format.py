"""What the model is asked for and how its output is checked before anyone reads it.

:class:`Sampling` says how many answers the model writes for one question and how. :func:`declares_missing`
spots an answer that says it lacks the information (the gate's refusal detection reads it).

A sample is *degenerate* when a person must never be shown it. A 135M model under sampling sometimes loops ("the
company the company ..."), explodes into a list ("Theft / A. Theft of assets / ..."), echoes its own
instructions, or writes about something the context never mentions. Each check is cheap and explainable. A
degenerate sample counts as a refusal for the gate and is never shown.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shared.core import prompts
from shared.core.text import content_words, words

MISSING = "Insufficient information."


_DECLINES = re.compile(
    r"insufficient information|not enough information|no information|not (?:mentioned|provided|stated|specified|"
    r"given|available|included|clear)|does not (?:say|mention|provide|contain|specify|state)|doesn't (?:say|mention|"
    r"provide|contain)|cannot (?:be )?(?:determine|answer|find|tell)|can't (?:determine|answer|tell)|unable to|"
    r"i (?:do not|don't) know|unknown|no mention|not sure|unclear|no (?:context|data|details)",
    re.IGNORECASE,
)


def declares_missing(answer: str) -> bool:
    """True when the answer says it lacks the information, or is empty (model-free): the gate counts such an
    answer as a refusal, and the reader neither shows nor votes with it."""
    return bool(_DECLINES.search(answer)) or not answer.strip()


@dataclass(frozen=True)
class Sampling:
    """How the model samples its answers to one question (one answer is always greedy)."""

    n: int
    max_tokens: int
    temperature: float
    seed: int | None
    top_p: float = 1.0
    top_k: int = 0
    min_p: float = 0.0
    repeat_penalty: float = 1.0


ANSWER_INSTRUCTIONS = (prompts.ANSWER_PASSAGES.split("{question}", 1)[1],)
"""The answer prompt's own words (without passages and question): an answer repeating them echoes the prompt."""


def degeneracy(question: str, context: str, answers: Sequence[str]) -> list[str | None]:
    """Why each answer must not be shown (shared.reading.answer_format), None for the ones that read as answers."""
    return [degenerate_reason(a, question, context, ANSWER_INSTRUCTIONS) for a in answers]


_LIST_ITEM = re.compile(r"^\s*(?:[-*•·]|\(?[0-9]{1,2}[.)]|\(?[A-Za-z][.)])\s+\S")

LOOP_NGRAM = 3
"""A word 3-gram repeated this many times (or more) is a loop."""
LOOP_REPEATS = 3
MIN_DISTINCT_SHARE = 0.45
"""Below this share of distinct 3-grams (in an answer of 12+ words) the text is going round in circles."""
LIST_ITEMS = 4
"""This many list-item lines make a list explosion (a short answer is one or two sentences)."""
ECHO_NGRAM = 6
"""An answer sharing a run of this many words with the instructions echoes the prompt."""
MIN_GROUNDED_SHARE = 0.25
"""An answer whose content words are found in the question or context less often than this is unrelated."""
MIN_CONTENT_WORDS = 5
"""Answers with fewer content words are too short to call unrelated."""


def _ngrams(tokens: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def loop_reason(text: str) -> str | None:
    """Why ``text`` repeats itself, or None."""
    tokens = words(text)
    grams = _ngrams(tokens, LOOP_NGRAM)
    if grams:
        gram, count = Counter(grams).most_common(1)[0]
        if (count >= LOOP_REPEATS and len(set(gram)) > 1) or count >= LOOP_REPEATS + 2:
            return f"repetition loop: {' '.join(gram)!r} {count} times"
        if len(tokens) >= 12 and len(set(grams)) / len(grams) < MIN_DISTINCT_SHARE:
            return f"repetition loop: {len(set(grams))} distinct of {len(grams)} word triples"
    run = 1
    for previous, token in itertools.pairwise(tokens):
        run = run + 1 if token == previous else 1
        if run >= 4:
            return f"repetition loop: {token!r} {run} times in a row"
    return None


PUNCTUATION = frozenset(".,;:'\"()-?")
SYMBOL_RUN = 4
"""A symbol or emoji repeated this many times in a row (spaces between allowed) is a loop."""
SYMBOL_SHARE = 0.3
"""Text of 8+ symbols or emoji making up more than this share of its non-space characters is no answer."""


def symbol_reason(text: str) -> str | None:
    """Why ``text`` loops on symbols or emoji (🎉 🎉 🎉 🎉, ★★★★, !!!!!), or None (words are :func:`loop_reason`'s)."""
    symbols = [c for c in text if not c.isspace() and not c.isalnum() and c not in PUNCTUATION]
    run, previous = 0, ""
    for c in (c for c in text if not c.isspace()):
        run = run + 1 if c == previous and c not in PUNCTUATION and not c.isalnum() else 1
        previous = c
        if run >= SYMBOL_RUN:
            return f"symbol loop: {c!r} {run} times in a row"
    visible = sum(1 for c in text if not c.isspace())
    if len(symbols) >= 8 and len(symbols) > SYMBOL_SHARE * visible:
        return f"symbol loop: {len(symbols)} of {visible} characters are symbols"
    return None


def list_reason(text: str) -> str | None:
    """Why ``text`` is a list explosion, or None."""
    lines = [line for line in text.splitlines() if line.strip()]
    items = [line for line in lines if _LIST_ITEM.match(line)]
    if len(items) >= LIST_ITEMS:
        return f"list explosion: {len(items)} list items"
    return None


def echo_reason(text: str, instructions: Iterable[str]) -> str | None:
    """Why ``text`` echoes the prompt's instructions (not its context), or None."""
    grams = set(_ngrams(words(text), ECHO_NGRAM))
    if not grams:
        return None
    for instruction in instructions:
        shared = grams & set(_ngrams(words(instruction), ECHO_NGRAM))
        if shared:
            return f"prompt echo: {' '.join(next(iter(sorted(shared))))!r}"
    return None


def unrelated_reason(text: str, grounding: str) -> str | None:
    """Why ``text`` is unrelated to ``grounding`` (the question and the context), or None."""
    content = content_words(text)
    if len(content) < MIN_CONTENT_WORDS or not grounding.strip():
        return None
    known = set(words(grounding))
    stems = {w[:5] for w in known}
    grounded = sum(1 for w in content if w in known or w[:5] in stems)
    share = grounded / len(content)
    if share < MIN_GROUNDED_SHARE:
        return f"unrelated to the context: {grounded}/{len(content)} content words found there"
    return None


def degenerate_reason(text: str, question: str = "", context: str = "", instructions: Iterable[str] = ()) -> str | None:
    """The first reason ``text`` must not be shown as an answer, or None when it reads as an answer."""
    stripped = text.strip()
    if not stripped:
        return None  # an empty answer is a refusal, which the gate already counts
    if question and words(stripped) == words(question):
        return "prompt echo: the answer repeats the question"
    return (
        loop_reason(stripped)
        or symbol_reason(stripped)
        or list_reason(stripped)
        or echo_reason(stripped, instructions)
        or unrelated_reason(stripped, f"{question}\n{context}")
    )
