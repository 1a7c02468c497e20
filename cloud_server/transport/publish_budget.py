"""How much summary work one edge's session may cause the cloud: messages and embeddings per minute.

Every summary an edge publishes is embedded by the cloud; a session is one call, so the per-call rate limit does
not see the messages inside it. Each edge gets two token buckets: sync/delta messages, and summaries embedded
(unchanged summaries are not embedded again and cost nothing). A full sync of the most the cloud keeps for an
edge fits an idle bucket, so an honest reconnect is never refused; a flood is, naming the limit.
"""

from __future__ import annotations

import math

from cloud_server.sessions.summary_intake import MAX_SUMMARIES_PER_EDGE
from shared.core.errors import ResourceExhaustedError
from shared.transport.call_limits import CallBuckets

PUBLISH_BURST = 20
"""Summary messages one session may send at once."""


class PublishBudget:
    """Per edge: summary messages and summaries embedded a minute."""

    def __init__(self, publishes_per_minute: float, summaries_per_minute: float) -> None:
        self._messages = CallBuckets(publishes_per_minute, PUBLISH_BURST)
        self._summaries = CallBuckets(summaries_per_minute, MAX_SUMMARIES_PER_EDGE)
        self._rates = (publishes_per_minute, summaries_per_minute)

    def spend(self, edge_id: str, embeddings: int) -> None:
        """Count one summary message of ``edge_id`` that makes the cloud embed ``embeddings`` summaries; raise
        ResourceExhaustedError (naming the setting) when it is over either budget."""
        if (wait := self._messages.take(edge_id)) > 0:
            raise ResourceExhaustedError(
                f"edge {edge_id!r} sent more than {self._rates[0]:g} summary messages a minute "
                f"(session_publishes_per_minute); reconnect in {math.ceil(wait)} s and batch changes into fewer deltas"
            )
        if embeddings and (wait := self._summaries.take(edge_id, embeddings)) > 0:
            raise ResourceExhaustedError(
                f"edge {edge_id!r} asked the cloud to embed more than {self._rates[1]:g} summaries a minute "
                f"(session_summaries_per_minute); retry in {min(math.ceil(wait), 3600)} s"
            )
