"""Questions that quote an honest edge cannot discredit it, and the liars of the second round are still caught.

An asker restates, negates or paraphrases the honest edge's own sentences ("Is it true that <sentence>?"). The
returned chunk then copies most of the question, as an echo would; it used to be scored without those words, so
the edge's honest best-chunk claim counted as an over-claim (trust 1.00 -> 0.29 after four calls). The edge now
proves each chunk was committed before the question (shared.core.chunk_commitment) and the cloud scores a proven
chunk whole. A cloud that ignores the proofs is shown discrediting the edge through the same calls, so the test
can tell. An echo liar's made-up chunk has no proof, and it is flagged on the second round's questions as before;
so is a smart liar.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from cloud_server.routing import claim_check
from shared.config import CloudQueryConfig
from shared.core.text import sentences
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from simulation import liar_host
from tests.support.grpc_harness import ACME, APP_ID, ZEPHYR, Network, connected, start_network, token_of

CALLS = 100
ORDINARY = ("Who founded Zephyr Medical in Lisbon?", "What does Zephyr Medical make?", "Where is Zephyr Medical?")
FORMS = (
    "Is it true that {s}?",
    "Is it not true that {s}?",
    "Is it false that {s}?",
    "{s} Is that right?",
    "Someone wrote: {s} Do you agree?",
)


def discrediting_questions(n: int) -> list[str]:
    """``n`` questions that restate, negate or reword the honest edge's own sentences."""
    said = [s.rstrip(".") for d in ZEPHYR for s in sentences(d.text)]
    reworded = [s.replace("was founded by", "had as its founder").replace("makes", "produces") for s in said]
    forms = [f.format(s=s) for s in said for f in FORMS] + [f"Is it so that {s}?" for s in reworded]
    return [forms[i % len(forms)] for i in range(n)]


async def _ask(net: Network, questions: list[str]) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        for question in questions:
            request = cloud_pb2.GlobalQueryRequest(question=question)
            await stub.GlobalQuery(request, metadata=auth_metadata(APP_ID, token_of(APP_ID)), timeout=30)


async def _honest_trust(tmp_path: Path) -> tuple[float, int]:
    query = CloudQueryConfig(deadline_s=2.0)
    net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, query=query, calls_per_minute=6000.0)
    try:
        await connected(net, "edge-a", "edge-b")
        await _ask(net, discrediting_questions(CALLS))
        trust = {t.edge_id: t for t in net.cloud.queries.claims.report()}["edge-b"]
        return trust.trust, trust.observations
    finally:
        await net.close()


@pytest.mark.parametrize("flawed", [False, True], ids=["as-built", "proofs-ignored"])
def test_an_honest_edge_keeps_its_trust_under_100_questions_that_quote_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flawed: bool, record_property: Callable[[str, object], None]
) -> None:
    if flawed:
        monkeypatch.setattr(claim_check, "held_before", lambda chunk, root: False)
    trust, checked = asyncio.run(asyncio.wait_for(_honest_trust(tmp_path), 240))
    record_property("figure", f"honest edge's trust {trust:.2f} after {CALLS} quoting questions")
    assert checked >= CALLS // 2, "the honest edge's claims were checked"
    assert (trust >= 0.95) is not flawed, f"trust {trust:.2f} after {CALLS} quoting questions"


async def _liar_trust(tmp_path: Path, kind: str) -> float:
    query = CloudQueryConfig(deadline_s=2.0)
    corpora = {"edge-a": ACME, "edge-b": ZEPHYR, "liar": ACME}  # it lies about knowing Zephyr
    net = await start_network(tmp_path, corpora, query=query, calls_per_minute=6000.0)
    try:
        runtime = net.runtimes["liar"]
        probe, reply = liar_host._LIES[kind]
        runtime.probe = types.MethodType(probe, runtime)  # type: ignore[method-assign]
        runtime.outbound_for = types.MethodType(reply, runtime)  # type: ignore[method-assign]
        await connected(net, "edge-a", "edge-b", "liar")
        await _ask(net, [ORDINARY[i % len(ORDINARY)] for i in range(8)])
        return {t.edge_id: t for t in net.cloud.queries.claims.report()}["liar"].trust
    finally:
        await net.close()


@pytest.mark.parametrize(
    ("kind", "unproven_believed"),
    [("echo", False), ("smart", False), ("echo", True)],
    ids=["echo", "smart", "echo-if-unproven-believed"],
)
def test_the_liars_of_the_second_round_are_still_flagged(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    unproven_believed: bool,
    record_property: Callable[[str, object], None],
) -> None:
    """A cloud that scored every chunk whole, proven or not, would let the echo liar through (the third case)."""
    if unproven_believed:
        monkeypatch.setattr(claim_check, "held_before", lambda chunk, root: True)
    trust = asyncio.run(asyncio.wait_for(_liar_trust(tmp_path, kind), 120))
    record_property("figure", f"{kind} liar's trust {trust:.2f} after 8 questions")
    assert (trust < claim_check.FLAGGED) is not unproven_believed, f"the {kind} liar's trust {trust:.2f}"
