"""Guesses about an edge that may not be quoted get the same reply whether they are right or wrong.

An app guesses words that might be in the documents of an edge whose policy lets answers paraphrase it or cite it
by id, never quote it. It used to read the answer off the numbers: the summary scores of MatchSummaries and of a
GlobalQuery reply, the order of the edges probed and asked, the reply sizes. Now an asker other than an operator
is shown no routing of such an edge (build_cloud's askers_see_routing off), and MatchSummaries leaves its summaries out
before counting. A cloud that shows askers the routing (the lab setting) is shown telling the guesses apart
through the same calls, so the test can tell.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from edge_node.ingest.readers import RawDocument
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import ACME, APP_ID, ZEPHYR, Network, connected, start_edge, start_network, token_of

GUESSES = ("lisbon", "porto", "insulin pumps", "omar haddad", "zephyr medical")
"""Words of the documents of the edges that may not be quoted, asked in lower case (so the test network's model
declines every guess: what differs is only what the cloud shows of its routing)."""
ELSEWHERE = [
    RawDocument(
        "other-1", "Harbour", "Kestrel Shipping runs ferries from Bergen. Ida Lund leads Kestrel Shipping.", "k"
    ),
    RawDocument("other-2", "Fleet", "The Kestrel Shipping fleet in Bergen grew in 2021 with Ida Lund.", "k"),
]
"""What the edges hold in the world where every guess is wrong."""


async def _replies(net: Network, guess: str) -> tuple[bytes, bytes]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        metadata = auth_metadata(APP_ID, token_of(APP_ID))
        request = cloud_pb2.MatchSummariesRequest(question=guess, top_m=3)
        matched = await stub.MatchSummaries(request, metadata=metadata)
        asked = cloud_pb2.GlobalQueryRequest(question=guess, top_m=3, top_k=3)
        answer = await stub.GlobalQuery(asked, metadata=metadata)
    return matched.SerializeToString(deterministic=True), answer.SerializeToString(deterministic=True)


async def _world(tmp_path: Path, hidden: list[RawDocument], routing_shown: bool) -> list[tuple[bytes, bytes]]:
    """The replies to every guess in a network of a quoted edge and two that may not be quoted holding ``hidden``."""
    tmp_path.mkdir()
    net = await start_network(
        tmp_path,
        {},
        extra_edges=("quoted", "paraphrased", "ids-only"),
        askers_see_routing=routing_shown,
        calls_per_minute=6000.0,
    )
    try:
        await start_edge(net, tmp_path, "quoted", ACME, answers="quote")
        await start_edge(net, tmp_path, "paraphrased", hidden, answers="paraphrase")
        await start_edge(net, tmp_path, "ids-only", hidden[1:], answers="ids_only")
        await connected(net, "quoted", "paraphrased", "ids-only")
        return [await _replies(net, g) for g in GUESSES]
    finally:
        await net.close()


@pytest.mark.parametrize("routing_shown", [False, True], ids=["as-built", "routing-shown"])
def test_guesses_about_edges_that_may_not_be_quoted_get_the_same_replies_whether_right_or_wrong(
    tmp_path: Path, routing_shown: bool, record_property: Callable[[str, object], None]
) -> None:
    right = asyncio.run(asyncio.wait_for(_world(tmp_path / "right", ZEPHYR, routing_shown), 120))
    wrong = asyncio.run(asyncio.wait_for(_world(tmp_path / "wrong", ELSEWHERE, routing_shown), 120))
    matched = cloud_pb2.MatchSummariesReply.FromString(right[0][0])
    seen = {"quoted", "paraphrased", "ids-only"} if routing_shown else {"quoted"}
    assert {s.edge_id for s in matched.summaries} == seen
    told_apart = [g for g, a, b in zip(GUESSES, right, wrong, strict=True) if a != b]
    record_property("figure", f"{len(told_apart)} of {len(GUESSES)} guesses told apart")
    assert bool(told_apart) is routing_shown, f"replies told apart for {told_apart}"
