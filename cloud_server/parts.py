"""The cloud's services as one value: what ``build_cloud`` makes and the transport serves."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cloud_server.answering.global_query import GlobalQueryService
from cloud_server.routing.claim_check import ClaimLedger
from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.sessions.edge_registry import EdgeRegistry, EdgeStatus


@dataclass
class CloudParts:
    """The cloud's services, built once; tests and the simulation inject fakes for the models."""

    registry: EdgeRegistry
    index: SummaryIndex
    queries: GlobalQueryService

    def edge_statuses(self) -> list[EdgeStatus]:
        return edge_statuses(self.registry, self.index, self.queries.claims)


def edge_statuses(registry: EdgeRegistry, index: SummaryIndex, claims: ClaimLedger) -> list[EdgeStatus]:
    """Every edge seen since start: its session, the summaries held, and how far its claims are believed."""
    trust = {t.edge_id: t for t in claims.report()}
    out = []
    for s in registry.statuses(index.counts_by_edge()):
        t = trust.get(s.edge_id)
        if t is not None:
            s = dataclasses.replace(
                s, trust=t.trust, over_claim=t.disagreement, checked=t.observations, flagged=t.flagged
            )
        out.append(s)
    return out
