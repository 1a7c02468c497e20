"""The public Python API of the cloud: wire its services (``build_cloud``), serve them (``serve_cloud``), run a
config file's cloud (``run_cloud``), and
talk to a running cloud with an application's credentials (:class:`CloudClient`).

    async with CloudClient("127.0.0.1:50051", "ops", token) as cloud:
        answer = await cloud.global_query("Which edges know about the Oslo lab?")
        print(answer.answer, answer.edges_asked)
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

import grpc

from cloud_server.answering.global_query import GlobalQueryService
from cloud_server.parts import CloudParts
from cloud_server.routing.router import Candidates, ProbeStrategy, RoutingStrategy
from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.routing.summary_store import SummaryStore
from cloud_server.run import run_cloud
from cloud_server.sessions.edge_registry import EdgeRegistry, EdgeStatus
from cloud_server.sessions.tokens import TokenBook
from cloud_server.transport.server import serve_cloud
from shared.config import CloudConfig
from shared.core.constants import DEFAULT_MAX_MESSAGE_BYTES
from shared.core.errors import DgragError
from shared.core.knowledge import CloudAnswer, CloudQuery, SummaryMatch
from shared.core.model_api import Embedder, TextGenerator
from shared.models.calibration_files import calibration_for
from shared.models.tokenizer import Tokenizer
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport import serde
from shared.transport.connection_hints import explained
from shared.transport.grpc_transport import ClientTls, auth_metadata, open_channel

__all__ = [
    "Candidates",
    "CloudAnswer",
    "CloudClient",
    "CloudParts",
    "EdgeStatus",
    "ProbeStrategy",
    "RoutingStrategy",
    "SummaryMatch",
    "TokenBook",
    "build_cloud",
    "run_cloud",
    "serve_cloud",
]


def build_cloud(
    config: CloudConfig,
    embedder: Embedder,
    generator: TextGenerator,
    tokenizer: Tokenizer,
    strategy: RoutingStrategy | None = None,
    askers_see_routing: bool = False,
) -> CloudParts:
    """The cloud's services with the given models (the edge's counterpart is ``edge_node.api.build_edge``);
    ``strategy`` chooses the edges a question goes to once they are probed (default: the probes' adaptive k).

    ``askers_see_routing`` is for a lab that owns every edge (the simulation): askers other than operators then
    see the routing (summaries matched, edges probed and asked, reply sizes, exact timings) of edges whose policy
    does not let answers quote them. Off, they see none of it, since each such number tells whether an edge's
    documents match the asker's words. Never turn it on where edges have different owners."""
    registry = EdgeRegistry(config.heartbeat_interval_s)
    store = SummaryStore(Path(config.summary_store), embedder.name, embedder.dim) if config.summary_store else None
    index = SummaryIndex(embedder, store)
    calibration = calibration_for(config.query.calibration, config.llm)
    queries = GlobalQueryService(
        index,
        registry,
        embedder,
        generator,
        tokenizer,
        config.query,
        knowledge_size=serde.knowledge_size,
        calibration=calibration,
        strategy=strategy,
        askers_see_routing=askers_see_routing,
    )
    return CloudParts(registry, index, queries)


class CloudClient:
    """Talks to a running cloud as an application or operator (``app``/``admin`` credentials of its tokens file).

    ``user`` and ``token`` are one line of the cloud's tokens file; ``tls``: the cloud's CA (and this client's
    certificate for mutual TLS); plaintext is refused to an address that is not this machine unless
    ``tls.insecure``."""

    def __init__(
        self,
        address: str,
        user: str,
        token: str,
        tls: ClientTls | None = None,
        timeout_s: float = 120.0,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        self.address = address
        self.timeout_s = timeout_s
        self._metadata = auth_metadata(user, token)
        self._tls = tls or ClientTls()
        self._channel = open_channel(address, max_message_bytes, tls)
        self._stub = cloud_pb2_grpc.CloudStub(self._channel)

    async def global_query(
        self,
        question: str,
        top_m: int = 0,
        top_k: int = 0,
        deadline_s: float = 0.0,
        asked_at: str = "",
    ) -> CloudAnswer:
        """The cloud's answer from the edges its summaries point to (0 = the cloud's defaults)."""
        query = CloudQuery(question, asked_at, top_m, top_k, deadline_s)
        request = serde.cloud_query_to_proto(query)
        return serde.cloud_answer_from_proto(await self._call(self._stub.GlobalQuery, request))

    async def match_summaries(self, question: str, top_m: int = 5) -> list[SummaryMatch]:
        """The ``top_m`` summaries closest to ``question``, best first (no edge is asked anything)."""
        reply = await self._call(self._stub.MatchSummaries, serde.match_request(question, top_m))
        return [serde.summary_match_from_proto(m) for m in reply.summaries]

    async def list_edges(self) -> list[EdgeStatus]:
        reply = await self._call(self._stub.ListEdges, cloud_pb2.ListEdgesRequest())
        return [
            EdgeStatus(
                edge_id=e.edge_id,
                connected=e.connected,
                connected_since=e.connected_since,
                last_heartbeat=e.last_heartbeat,
                summaries=e.summaries,
                trust=e.trust,
                over_claim=e.over_claim,
                checked=e.checked,
                flagged=e.flagged,
            )
            for e in reply.edges
        ]

    async def _call(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, metadata=self._metadata, timeout=self.timeout_s)
        except grpc.aio.AioRpcError as exc:
            said = explained(exc.code().name, exc.details() or "", self._tls, "the cloud")
            verb = "did not answer" if exc.code() == grpc.StatusCode.UNAVAILABLE else "answered"
            raise DgragError(f"the cloud at {self.address} {verb}: {said}") from exc

    async def aclose(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> CloudClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
