"""An edge without models for the swarm (``dgrag sim swarm``): the real session (edge_node.transport.cloud_session:
hello, full sync or the difference from what the cloud holds, heartbeats, backoff) over the real transport, with
its own credential, publishing fixed summaries and answering probes and knowledge requests from them.

A probe is scored by the share of the question's words one of its summaries holds; a knowledge request gets its
summaries back as chunks. Everything it sends is counted by kind (messages and bytes on the wire, as the audit log
would record them), which is how the swarm measures what a restart makes edges send again.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, cast

from shared.config import PrivacyConfig
from shared.core.knowledge import EdgeKnowledge, KnowledgeChunk, ProbeScores, SummaryCard, SummaryChanges
from shared.core.query_vectors import QueryVectors
from shared.core.summary_digest import HeldSummary, reconcile
from simulation.edge_parts import LeakGuard, Outbound, OutboundPolicy

_WORD = re.compile(r"\w+")


class Tally:
    """What one edge sent, by kind: messages and bytes (stands in for the audit log)."""

    def __init__(self) -> None:
        self.messages: Counter[str] = Counter()
        self.bytes: Counter[str] = Counter()

    def record(self, kind: str, to: str, size: int, **details: Any) -> None:
        self.messages[kind] += 1
        self.bytes[kind] += size


class CannedEdge:
    """The runtime a CloudSession drives, for one swarm edge holding ``texts`` as its summaries."""

    def __init__(self, edge_id: str, texts: Sequence[str]) -> None:
        self.edge_id = edge_id
        self.audit = Tally()
        self.outbound = OutboundPolicy(edge_id, PrivacyConfig(answers="quote"), cast(LeakGuard, None), b"")
        self._cards = tuple(
            SummaryCard(f"{edge_id}/sg-{i:03d}", 1, text, tuple(_names(text)), 4, 3) for i, text in enumerate(texts)
        )
        self._words = [set(_WORD.findall(t.lower())) for t in texts]

    def on_summaries_changed(self, listener: Callable[[], None]) -> None:
        """The summaries never change."""

    async def resync(self, held: Sequence[HeldSummary] | None) -> SummaryChanges:
        full = SummaryChanges(self._cards, (), 1, full=True)
        return full if held is None else reconcile(full, held) or full

    async def delta_after(self, seq: int, root: bytes = b"") -> SummaryChanges | None:
        return None

    async def mark_published(self, up_to_seq: int) -> None:
        return None

    def _matches(self, question: str) -> list[float]:
        asked = set(_WORD.findall(question.lower()))
        return [len(asked & words) / max(len(asked), 1) for words in self._words]

    async def probe(self, question: str, given: QueryVectors | None = None) -> ProbeScores:
        best = max(self._matches(question), default=0.0)
        return ProbeScores(self.edge_id, best, best, best, best, term_coverage=best, lexical=best)

    async def outbound_for(self, question: str, given: QueryVectors | None = None) -> Outbound:
        scores = self._matches(question)
        chunks = tuple(
            KnowledgeChunk(f"doc-{i}", i, card.text, score, len(card.text.split()))
            for i, (card, score) in enumerate(zip(self._cards, scores, strict=True))
        )
        return Outbound(EdgeKnowledge(self.edge_id, chunks=chunks, evidence=max(scores, default=0.0), answers="quote"))


def _names(text: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b", text)))[:5]
