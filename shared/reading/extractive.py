"""Extractive answers: the context sentences that best support a question, quoted with their sources.

When no trustworthy generated answer exists (the gate escalated and the cloud did not answer, or every
generation was degenerate), a person is better served by the documents' own words than by an unverified
generation. The sentences are chosen model-free: most question content words covered, then order in the
context. The answer says plainly that it is an extract.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shared.reading.span_reader import Passage, best_sentences

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
    numbered = [Passage(i, p.text, p.source) for i, p in enumerate(passages)]
    best = best_sentences(question, numbered, limit=max_sentences)
    if not best:
        return EXTRACT_PREFIX + "nothing in the retrieved documents matches the question."
    in_order = sorted(best, key=lambda f: f.at)
    return EXTRACT_PREFIX + " ".join(f"{_clip(f.sentence.strip())} [{f.passage.source}]" for f in in_order)


def is_extractive(answer: str) -> bool:
    """Whether ``answer`` was made by :func:`extractive_answer`."""
    return answer.startswith(EXTRACT_PREFIX)


def _clip(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SENTENCE_CHARS else sentence[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"
