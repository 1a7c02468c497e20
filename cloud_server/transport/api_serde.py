"""The cloud API's messages built from the cloud's own values (its edges' status); the shared records' protos
are in shared.transport.serde."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from cloud_server.sessions.edge_registry import EdgeStatus
from shared.proto.dgrag.v1 import cloud_pb2


def list_edges_reply(statuses: Sequence[EdgeStatus]) -> cloud_pb2.ListEdgesReply:
    """Every edge the cloud knows, with its liveness, summaries and how far its claims are believed."""
    return cloud_pb2.ListEdgesReply(edges=[cloud_pb2.EdgeInfo(**dataclasses.asdict(s)) for s in statuses])
