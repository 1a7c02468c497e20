"""The one shown answer: what a person reads, made once on the side that answered, carried in the protocol as a
message of its own (``dgrag.v1.ShownAnswer``) and shown as it is by the CLI, the Python API, the owner's page and
the simulation. Nothing after it recomputes the short answer or the confidence word."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from shared.core.knowledge import CloudAnswer
from shared.core.sureness import sureness_of, unit_interval
from shared.core.trace import AnswerTrace, Decision


class AnsweredBy(StrEnum):
    EDGE = "edge"
    """The asking edge's own model."""
    CLOUD = "cloud"
    """The cloud's model, from the knowledge of the edges it asked."""
    EXTRACT = "extract"
    """No model's answer: the evidence's best sentences (the gate did not trust the local answer and the cloud
    could not answer)."""


@dataclass(frozen=True)
class ShownAnswer:
    """The answer a person reads."""

    text: str
    short: str
    """The answer alone ("" for an extract or a withheld verdict)."""
    probability: float
    """How likely the short answer is right, in [0, 1] (0: no verdict)."""
    sureness: str
    """sure, likely or can't tell: the word for ``probability`` (shared.core.sureness)."""
    answered_by: AnsweredBy
    sources: tuple[str, ...]
    """The documents cited, as ``edge:doc_id`` (an empty edge: the asking edge's own)."""
    reader: str
    """How it was read (span, verdict, unsupported, unsettled, declined, fallback)."""

    @classmethod
    def made(
        cls, text: str, short: str, probability: float, by: AnsweredBy, sources: tuple[str, ...], reader: str
    ) -> ShownAnswer:
        p = round(unit_interval(probability), 3)  # what a person reads; a float32 on the wire rounds back to it
        return cls(text, short, p, sureness_of(p).value, by, sources, reader)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "short": self.short,
            "probability": round(self.probability, 3),
            "sureness": self.sureness,
            "answered_by": self.answered_by.value,
            "sources": list(self.sources),
            "reader": self.reader,
        }


def shown_of_cloud(cloud: CloudAnswer) -> ShownAnswer:
    """The cloud's answer as shown (made once, on the cloud)."""
    sources = tuple(dict.fromkeys(f"{c.edge_id}:{c.chunk.doc_id}" for c in cloud.context))
    return ShownAnswer.made(cloud.answer, cloud.short, cloud.confidence, AnsweredBy.CLOUD, sources, cloud.reader)


def shown_of(trace: AnswerTrace) -> ShownAnswer:
    """The answer an edge shows for ``trace`` (made once, on the edge): the cloud's where the cloud answered, this
    edge's reading where it answered itself, else the extract with no short answer and no confidence."""
    sources = tuple(dict.fromkeys(f"{s.edge_id or ''}:{s.doc_id}" for s in trace.sources))
    if trace.cloud is not None and trace.decision == Decision.CLOUD:
        by, short, reader = AnsweredBy.CLOUD, trace.cloud.short, trace.cloud.reader
    elif trace.decision == Decision.LOCAL:
        by, short, reader = AnsweredBy.EDGE, trace.reading.get("short", ""), trace.reading.get("reader", "")
    else:
        by, short, reader = AnsweredBy.EXTRACT, "", ""
    # the trace's confidence is the cloud's, the local reading's or 0 by the same rule
    return ShownAnswer.made(trace.answer, short, trace.confidence, by, sources, reader)
