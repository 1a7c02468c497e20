"""Extractive answers: the context sentences that best support a question, quoted with their sources.

When no trustworthy generated answer exists (the gate escalated and the cloud did not answer, or every
generation was degenerate), a person is better served by the documents' own words than by an unverified
generation. The sentences are chosen model-free: most question content words covered, then order in the
context. The answer says plainly that it is an extract.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shared.degeneracy import content_words
from shared.text import sentences

EXTRACT_PREFIX = "Extract from the documents (not a generated answer): "
MAX_SENTENCES = 2
MAX_SENTENCE_CHARS = 300


@dataclass(frozen=True)
class SourcedText:
    """A piece of context and where it came from."""

    text: str
    source: str
    """Shown after each quoted sentence, e.g. ``doc-12`` or ``business:doc-12``."""


def extractive_answer(question: str, passages: Sequence[SourcedText], max_sentences: int = MAX_SENTENCES) -> str:
    """The best-supported sentences of ``passages`` for ``question``, each followed by its source;
    says that nothing was found when no sentence shares a content word with the question."""
    terms = {w[:5] for w in content_words(question)}
    scored: list[tuple[float, int, str, str]] = []
    order = 0
    for passage in passages:
        for sentence in sentences(passage.text):
            order += 1
            covered = {w[:5] for w in content_words(sentence)} & terms
            if covered:
                scored.append((len(covered) / (len(terms) or 1), -order, sentence.strip(), passage.source))
    if not scored:
        return EXTRACT_PREFIX + "nothing in the retrieved documents matches the question."
    best = sorted(scored, reverse=True)[:max_sentences]
    best.sort(key=lambda item: -item[1])  # back into reading order
    quoted = " ".join(f"{_clip(s)} [{src}]" for _, _, s, src in best)
    return EXTRACT_PREFIX + quoted


def is_extractive(answer: str) -> bool:
    """Whether ``answer`` was made by :func:`extractive_answer`."""
    return answer.startswith(EXTRACT_PREFIX)


def _clip(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SENTENCE_CHARS else sentence[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"
