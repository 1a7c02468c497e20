"""The one typed answer a person reads, on an edge and on the cloud alike (made through the one entry point
shared.reading.read.answer_question), and how its text is written: the short answer, then one supporting sentence
of the evidence and its source."""

from __future__ import annotations

from dataclasses import dataclass

from shared.core.text import truncate_chars
from shared.reading.confidence import CANT_TELL, Confidence, Evidence
from shared.reading.span_reader import Found

SUPPORT_CHARS = 240
"""The longest supporting sentence shown (cut with an ellipsis)."""


@dataclass(frozen=True)
class Answer:
    """The answer a person reads, and how it was made."""

    text: str
    """The whole answer shown: the short answer, then a supporting sentence and its source."""
    short: str
    """The answer alone: a name, yes or no, a date, a phrase ("" for can't tell or an extract)."""
    reader: str
    """What made it (shared.reading.passage_reader): span (words of a passage), verdict (Yes or No), unsupported
    (words no passage holds), unsettled (a verdict withheld), declined, or fallback (an extract of the evidence for
    lack of a usable generation)."""
    support: Found | None = None
    """The evidence sentence shown beside the short answer."""
    confidence: Confidence = CANT_TELL
    """How sure the answer is (shared.reading.confidence): its probability and word; can't tell for a decline or a
    withheld verdict. Computed and applied in shared.reading.compose; nothing after it changes it."""
    evidence: Evidence | None = None
    """What the confidence was computed from (None for a decline)."""
    withheld: str = ""
    """The short answer withheld: a verdict for its low confidence, or words no passage holds (the text says so)."""

    @property
    def verdict(self) -> bool:
        """The answer gives a verdict (not a decline, nor the sentence shown for a withheld one)."""
        return self.evidence is not None and not self.withheld

    @property
    def sources(self) -> tuple[str, ...]:
        return () if self.support is None else (self.support.passage.source,)

    def signals(self) -> dict[str, float]:
        """The evidence's numbers behind the confidence (empty without a verdict)."""
        return self.evidence.signals() if self.evidence is not None else {}


def with_support(short: str, support: Found | None, reader: str, repeat_support: bool = True) -> Answer:
    """``Short answer. "Supporting sentence" [n: source]`` (the sentence left out when it is the answer, or when
    ``repeat_support`` is False)."""
    head = short.strip().rstrip(".")
    if support is None:
        return Answer(f"{head}.", head, reader)
    cite = support.passage.citation
    if not repeat_support or support.sentence.strip().rstrip(".") == head:
        return Answer(f"{head}. {cite}", head, reader, support)
    sentence = truncate_chars(" ".join(support.sentence.split()), SUPPORT_CHARS)
    return Answer(f'{head}. "{sentence}" {cite}', head, reader, support)


def cited(short: str, support: Found | None, reader: str) -> Answer:
    """``Short answer. [n: source]``: the answer for an asker who may not receive the evidence's text."""
    cite = f" {support.passage.citation}" if support else ""
    return Answer(f"{short}.{cite}", short, reader, support)
