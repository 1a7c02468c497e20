"""A probe refuser whose summaries are stuffed with the names other edges' documents mention most.

It refuses every probe (as an owner's policy may), so routing has only its summaries to go on, and those match
questions about every topic. It used to be asked first on every question and never flagged: its summaries'
names were never compared with what it returned. The cloud now counts the share of a question's names its
matching summary holds beyond the share its returned chunks and entities hold as an over-claim, so it is flagged
within a few questions and stops being asked first. An honest refuser whose summaries name what its chunks hold
keeps its trust.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

from cloud_server.routing.claim_check import FLAGGED
from edge_node.ingest.readers import RawDocument
from shared.config import CloudQueryConfig
from shared.core.errors import PermissionDeniedError
from shared.core.knowledge import PROBES_REFUSED, ProbeScores, SummaryChanges
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import ACME, APP_ID, ZEPHYR, Network, connected, start_edge, start_network, token_of

QUESTIONS = (
    "Who founded Zephyr Medical in Lisbon?",
    "What does Zephyr Medical make?",
    "Where did Omar Haddad open the Zephyr Medical clinic?",
    "Who opened the clinic in Porto with Omar Haddad?",
)
STUFFING = " Also: Zephyr Medical, Omar Haddad, Lisbon, Porto, Lena Fischer, insulin pumps."
OWN = [RawDocument("own-1", "Watches", "Mallory Time sells cheap watches in Tirana. Mallory Time ships fast.", "m")]


def _refusing(runtime: Any, stuffing: str) -> None:
    """Make ``runtime`` refuse every probe and publish its summaries with ``stuffing`` appended."""

    async def refuse(question: str, given: Any = None) -> ProbeScores:
        raise PermissionDeniedError(PROBES_REFUSED)

    def stuffed(changes: SummaryChanges) -> SummaryChanges:
        upserts = tuple(dataclasses.replace(c, text=c.text + stuffing) for c in changes.upserts)
        return dataclasses.replace(changes, upserts=upserts)

    resync, delta_after = runtime.resync, runtime.delta_after

    async def stuffed_resync(*args: Any) -> SummaryChanges:
        return stuffed(await resync(*args))

    async def stuffed_delta(*args: Any) -> SummaryChanges | None:
        changes = await delta_after(*args)
        return None if changes is None else stuffed(changes)

    runtime.probe, runtime.resync, runtime.delta_after = refuse, stuffed_resync, stuffed_delta


async def _run(
    tmp_path: Path, refuser_docs: list[RawDocument], stuffing: str, others: dict[str, list[RawDocument]]
) -> tuple[float, int, list[str]]:
    """The refuser's trust after the questions, how many of its replies were checked, and the edge asked first for
    each question."""
    query = CloudQueryConfig(deadline_s=2.0)
    net: Network = await start_network(tmp_path, others, query=query, extra_edges=("refuser",), calls_per_minute=6000.0)
    try:
        await start_edge(net, tmp_path, "refuser", refuser_docs, answer_probes=False)
        _refusing(net.runtimes["refuser"], stuffing)
        await net.runtimes["refuser"].refresh_summaries()
        await connected(net, *others, "refuser")
        first = []
        async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
            stub = cloud_pb2_grpc.CloudStub(channel)
            for i in range(12):
                request = cloud_pb2.GlobalQueryRequest(question=QUESTIONS[i % len(QUESTIONS)], top_m=3)
                reply = await stub.GlobalQuery(request, metadata=auth_metadata(APP_ID, token_of(APP_ID)), timeout=30)
                first.append(reply.edges_asked[0] if reply.edges_asked else "")
        trust = {t.edge_id: t for t in net.cloud.queries.claims.report()}["refuser"]
        return trust.trust, trust.observations, first
    finally:
        await net.close()


def test_a_stuffed_probe_refuser_is_flagged_and_stops_being_asked_first(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    trust, _, first = asyncio.run(
        asyncio.wait_for(_run(tmp_path, OWN, STUFFING, {"edge-a": ACME, "edge-b": ZEPHYR}), 120)
    )
    asked = first.count("refuser")
    record_property("figure", f"stuffer's trust {trust:.2f}; asked first on {asked} of {len(first)} questions")
    assert trust < FLAGGED, f"the stuffer kept trust {trust:.2f}; asked first: {first}"
    assert first[-4:].count("refuser") == 0, f"still asked first: {first}"


def test_an_honest_refuser_keeps_its_trust(tmp_path: Path) -> None:
    """The only edge holding Zephyr's documents refuses probes, and is asked for them."""
    trust, checked, first = asyncio.run(asyncio.wait_for(_run(tmp_path, ZEPHYR, "", {"edge-a": ACME}), 120))
    assert checked >= 3 and "refuser" in first, f"the honest refuser was asked ({checked} replies checked)"
    assert trust >= 0.95, f"honest refuser's trust {trust:.2f}"
