"""A discrediting asker: 100 questions about an honest edge's topic, each carrying question vectors that point
somewhere else (a different text's embedding under the question's name). The cloud judges every claim with its
own embedding of the question and sends the edges that same embedding, so the honest edge's trust stays at least
0.9. A cloud that measured with its own embedding but forwarded the asker's rows to the edges (the flaw the
duplicated-rows attack used) is shown discredited by the same calls, so the test can tell."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import numpy as np
import pytest

from cloud_server.answering.global_query import GlobalQueryService
from shared.config import CloudQueryConfig
from shared.core.query_vectors import QueryVectors
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport import serde
from shared.transport.grpc_transport import auth_metadata
from simulation.fakes import HashEmbedder
from tests.support.grpc_harness import ACME, APP_ID, DIM, ZEPHYR, connected, start_network, token_of

CALLS = 100
QUESTIONS = ("Who founded Zephyr Medical in Lisbon?", "What does Zephyr Medical make?", "Where is Zephyr Medical?")


def _steering(question: str) -> cloud_pb2.QueryVectors:
    """The question's row replaced by the embedding of the honest edge's own document: its chunks then score near
    1.0 against it, far above what they score against the question (were the cloud to judge them that way)."""
    embedder = HashEmbedder(DIM)
    row = embedder.embed([ZEPHYR[0].text]).astype(np.float32)
    return serde.vectors_to_proto(QueryVectors(embedder.name, (question,), row))


def _forward_the_askers_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flawed cloud: its own row judges, the asker's rows go to the edges."""
    measured = GlobalQueryService._question_vectors

    async def split(self: GlobalQueryService, question: str, given: QueryVectors | None) -> tuple[Any, Any]:
        row, sent = await measured(self, question, None)
        return row, given or sent

    monkeypatch.setattr(GlobalQueryService, "_question_vectors", split)


async def _discredit(tmp_path: Path) -> float:
    query = CloudQueryConfig(deadline_s=2.0)
    net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, query=query, calls_per_minute=6000.0)
    try:
        await connected(net, "edge-a", "edge-b")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
            stub = cloud_pb2_grpc.CloudStub(channel)
            for i in range(CALLS):
                question = QUESTIONS[i % len(QUESTIONS)]
                request = cloud_pb2.GlobalQueryRequest(question=question, vectors=_steering(question))
                await stub.GlobalQuery(request, metadata=auth_metadata(APP_ID, token_of(APP_ID)), timeout=30)
        trust = {t.edge_id: t for t in net.cloud.queries.claims.report()}
        assert trust["edge-b"].observations >= CALLS // 2, "the honest edge's claims were checked"
        return trust["edge-b"].trust
    finally:
        await net.close()


@pytest.mark.parametrize("flawed", [False, True], ids=["as-built", "rows-forwarded"])
def test_an_honest_edge_keeps_its_trust_under_100_discrediting_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flawed: bool, record_property: Callable[[str, object], None]
) -> None:
    if flawed:
        _forward_the_askers_rows(monkeypatch)
    holds = not flawed
    trust = asyncio.run(asyncio.wait_for(_discredit(tmp_path), 240))
    record_property("figure", f"honest edge's trust {trust:.2f} after {CALLS} calls")
    assert (trust >= 0.9) is holds, f"trust {trust:.2f} after {CALLS} discrediting calls"
