"""Passages and the model-free sentence reader: the sentences of the evidence that bear most on a question.

Passages are the numbered evidence an answer cites. Sentences are scored by the question's content words they
cover.

An *extract* quotes the sentences that best support the question, each with its source. It is shown when no
trustworthy generated answer exists (the gate escalated and the cloud did not answer, or every sample was
degenerate). It says plainly that it is an extract.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shared.core.text import content_words, sentences


@dataclass(frozen=True)
class Passage:
    """One numbered piece of evidence."""

    number: int
    text: str
    source: str
    """Where it came from, e.g. ``doc-12`` or ``business:doc-12``."""

    @property
    def citation(self) -> str:
        """How an answer cites it: ``[2: business:doc-12]``."""
        return f"[{self.number}: {self.source}]"


@dataclass(frozen=True)
class Found:
    """A reader's answer: the short answer, the sentence that supports it and its passage."""

    short: str
    sentence: str
    passage: Passage
    score: float
    at: int = 0
    """The sentence's place among all the passages' sentences (reading order)."""


def stems(text: str) -> set[str]:
    """The first five letters of each content word: how readers compare a question's words with a text's."""
    return {w[:5] for w in content_words(text)}


def best_sentences(question: str, passages: Sequence[Passage], limit: int = 1) -> list[Found]:
    """The sentences covering most of the question's content words (ties: earlier first)."""
    terms = stems(question)
    scored: list[tuple[float, Found]] = []
    at = 0
    for passage in passages:
        for sentence in sentences(passage.text):
            at += 1
            covered = len(stems(sentence) & terms)
            if covered:
                scored.append((covered / (len(terms) or 1), Found(sentence, sentence, passage, covered, at)))
    scored.sort(key=lambda t: (-t[0], t[1].at))
    return [found for _, found in scored[:limit]]


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
