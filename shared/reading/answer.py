"""The one typed answer a person reads, on an edge and on the cloud alike (made by shared.reading.compose, through
the one entry point shared.reading.read.answer_question)."""

from __future__ import annotations

from dataclasses import dataclass

from shared.reading.claims import ClaimFinding
from shared.reading.confidence import CANT_TELL, Confidence, Evidence
from shared.reading.span_reader import Found


@dataclass(frozen=True)
class Answer:
    """The answer a person reads, and how it was made."""

    text: str
    """The whole answer shown: the short answer, then a supporting sentence and its source."""
    short: str
    """The answer alone: a name, yes or no, a date, a phrase ("" for can't tell or an extract)."""
    reader: str
    """What made it: vote (the samples' choice), extractive (a model-free reader), generated (a sample), fact,
    dates, speaker, claims (a yes/no verdict read claim by claim), unsettled (a verdict withheld), declined, or
    fallback (an extract of the evidence for lack of a usable generation)."""
    support: Found | None = None
    """The evidence sentence shown beside the short answer."""
    confidence: Confidence = CANT_TELL
    """How sure the answer is (shared.reading.confidence): its probability and word; can't tell for a decline or a
    withheld verdict. Computed and applied in shared.reading.compose alone."""
    evidence: Evidence | None = None
    """What the confidence was computed from (None for a decline)."""
    withheld: str = ""
    """The verdict withheld for its low confidence (the text then says can't tell)."""
    claims: tuple[ClaimFinding, ...] = ()
    """For a yes/no question: each claim, the sentence that bears most on it, and the model's support for it."""

    @property
    def verdict(self) -> bool:
        """The answer gives a verdict (not a decline, nor the claims' lines of a withheld one)."""
        return self.evidence is not None and not self.withheld

    @property
    def sources(self) -> tuple[str, ...]:
        return () if self.support is None else (self.support.passage.source,)

    def signals(self) -> dict[str, float]:
        """The evidence's numbers behind the confidence (empty without a verdict)."""
        return self.evidence.signals() if self.evidence is not None else {}
