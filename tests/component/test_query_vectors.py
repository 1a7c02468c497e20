"""A question's embeddings travel with it: computed once per query, reused by the cloud and the edges it asks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import grpc
import numpy as np
import pytest

from shared.config import CloudQueryConfig
from shared.core.model_api import FloatMatrix
from shared.core.query_vectors import QueryVectors, QueryVectorsError, embed_reusing, to_send
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport import serde
from shared.transport.grpc_transport import auth_metadata
from simulation.fakes import HashEmbedder
from tests.support.fakes import CountingEmbedder
from tests.support.grpc_harness import ACME, APP_ID, DIM, ZEPHYR, Network, ask, connected, run, start_network, token_of

QUESTION = "Who founded Zephyr Medical in Lisbon?"


def test_given_rows_are_reused_and_only_the_missing_texts_are_embedded() -> None:
    embedder = CountingEmbedder()
    given = QueryVectors(embedder.name, ("a question", "Alice"), HashEmbedder(16).embed(["a question", "Alice"]))
    out = embed_reusing(embedder, ["a question", "Alice", "Bob"], given)
    assert embedder.asked == ["Bob"]
    np.testing.assert_allclose(out, HashEmbedder(16).embed(["a question", "Alice", "Bob"]))


def test_vectors_of_another_model_are_not_used() -> None:
    embedder = CountingEmbedder()
    other = QueryVectors("another-model", ("a question",), HashEmbedder(16).embed(["a question"]))
    embed_reusing(embedder, ["a question"], other)
    assert embedder.asked == ["a question"]
    wider = QueryVectors(embedder.name, ("a question",), HashEmbedder(32).embed(["a question"]))
    assert not wider.usable_by(embedder)


@pytest.mark.parametrize(
    ("texts", "matrix", "why"),
    [
        (("q",), np.full((1, 4), np.nan, dtype=np.float32), "NaN"),
        (("q",), np.full((1, 4), 3.0, dtype=np.float32), "unit"),
        (("q", "r"), np.eye(1, 4, dtype=np.float32), "one row"),
        ((), np.zeros((0, 4), dtype=np.float32), "texts"),
    ],
)
def test_malformed_vectors_are_refused_with_the_reason(texts: tuple[str, ...], matrix: FloatMatrix, why: str) -> None:
    with pytest.raises(QueryVectorsError, match=why):
        QueryVectors("hash4", texts, matrix)


def test_vectors_round_trip_and_a_wrong_byte_count_is_refused() -> None:
    vectors = to_send(HashEmbedder(16), ["q", "Alice"], HashEmbedder(16).embed(["q", "Alice"]))
    assert vectors is not None
    back = serde.vectors_from_proto(serde.vectors_to_proto(vectors))  # type: ignore[arg-type]
    assert back is not None and back.texts == ("q", "Alice") and back.embedder == "hash16"
    np.testing.assert_array_equal(back.matrix, vectors.matrix)
    assert serde.vectors_from_proto(cloud_pb2.QueryVectors()) is None
    with pytest.raises(QueryVectorsError, match="bytes"):
        serde.vectors_from_proto(cloud_pb2.QueryVectors(embedder="hash16", dim=16, texts=["q"], vectors=b"\0" * 10))


def _texts_embedded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = HashEmbedder.embed

    def counting(self: HashEmbedder, texts: Sequence[str]) -> FloatMatrix:
        seen.extend(texts)
        return original(self, texts)

    monkeypatch.setattr(HashEmbedder, "embed", counting)
    return seen


@pytest.mark.parametrize(("trusted", "embeddings"), [(False, 3), (True, 1)])
def test_the_cloud_measures_with_its_own_embedding_unless_askers_are_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trusted: bool, embeddings: int
) -> None:
    async def main() -> None:
        query = CloudQueryConfig(deadline_s=2.0, accept_asker_vectors=trusted)
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, query=query)
        try:
            await connected(net, "edge-a", "edge-b")
            seen = _texts_embedded(monkeypatch)
            reply = await ask(net, "edge-a", QUESTION)
            assert reply.decision == "cloud" and "Omar Haddad" in reply.answer
            # edge-a embeds it for its own retrieval; the cloud embeds it again for its own measurement, once for the
            # evidence check and once for the escalation after edge-a's decline (or, trusting askers, reuses edge-a's
            # rows); edge-b (probed, then asked) reuses the rows the cloud sends
            assert seen.count(QUESTION) == embeddings
            assert seen.count("Zephyr Medical") <= embeddings
            audit = [e.to_dict() for e in net.runtimes["edge-b"].audit.entries()]
            replies = [e for e in audit if e["what"] in ("retrieval_reply", "probe_reply")]
            assert replies and all(e.get("requester_vectors", 0) >= 1 for e in replies)
        finally:
            await net.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_vectors_listing_a_text_twice_are_refused() -> None:
    row = np.zeros((2, 4), dtype=np.float32)
    row[1, 0] = 1.0
    with pytest.raises(QueryVectorsError, match="list a text twice"):
        QueryVectors("hash", ("the question", "the question"), row)


async def _global_query(net: Network, vectors: cloud_pb2.QueryVectors) -> cloud_pb2.GlobalQueryReply:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
        reply: cloud_pb2.GlobalQueryReply = await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(
            cloud_pb2.GlobalQueryRequest(question=QUESTION, vectors=vectors),
            metadata=auth_metadata(APP_ID, token_of(APP_ID)),
            timeout=30,
        )
    return reply


def test_an_apps_vectors_of_another_model_are_ignored_and_malformed_ones_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            seen = _texts_embedded(monkeypatch)
            foreign = np.zeros((1, 8), dtype="<f4")
            foreign[0, 0] = 1.0
            msg = cloud_pb2.QueryVectors(embedder="another-model", dim=8, texts=[QUESTION], vectors=foreign.tobytes())
            reply = await _global_query(net, msg)
            assert list(reply.edges_asked) == ["edge-b"] and "Omar Haddad" in reply.answer
            # the cloud embedded the question and its names; the edges probed and asked reused its rows
            assert seen.count(QUESTION) == 1 and seen.count("Zephyr Medical") == 1
            broken = cloud_pb2.QueryVectors(embedder="hash64", dim=64, texts=[QUESTION], vectors=b"\0" * 12)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _global_query(net, broken)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "query vectors" in (refused.value.details() or "")
        finally:
            await net.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_an_askers_steering_vectors_never_serve_another_asker_from_the_edges_cache(tmp_path: Path) -> None:
    question = "Who founded Zephyr Medical in Lisbon?"
    embedder = HashEmbedder(DIM)
    steer = QueryVectors(embedder.name, (question,), embedder.embed(["Acme Robotics welding arms Berlin Jane Doe"]))

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-b": [*ZEPHYR, *ACME], "edge-c": [*ZEPHYR, *ACME]})
        try:
            steered = await net.runtimes["edge-b"].probe(question, steer)
            honest = await net.runtimes["edge-b"].probe(question)
            untouched = await net.runtimes["edge-c"].probe(question)
            assert steered.best_chunk != untouched.best_chunk, "the vectors did steer the retrieval"
            assert (honest.score, honest.best_chunk) == (untouched.score, untouched.best_chunk)
        finally:
            await net.close()

    run(main())
