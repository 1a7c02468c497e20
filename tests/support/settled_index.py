"""The cloud's summary index for tests of what it finds: each write returns once its summaries are embedded."""

from __future__ import annotations

from collections.abc import Sequence

from cloud_server.routing.summary_index import SummaryIndex
from shared.core.knowledge import SummaryCard, SummaryTombstone

SETTLE_S = 60.0


class SettledSummaryIndex(SummaryIndex):
    """:class:`SummaryIndex` whose writes wait for the background embedding (tests/unit/cloud_server/routing/
    test_background_embedding.py tests the waiting itself)."""

    def replace_edge(self, edge_id: str, cards: Sequence[SummaryCard]) -> int:
        fresh = super().replace_edge(edge_id, cards)
        assert self.settle(SETTLE_S), "the summaries were not embedded in time"
        return fresh

    def apply_delta(self, edge_id: str, upserts: Sequence[SummaryCard], tombstones: Sequence[SummaryTombstone]) -> None:
        super().apply_delta(edge_id, upserts, tombstones)
        assert self.settle(SETTLE_S), "the summaries were not embedded in time"
