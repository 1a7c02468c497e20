"""The streaming calls over real gRPC on loopback: the cloud model's draft as it is decoded, then the answer, to an
app (GlobalQueryStream) and through an edge to its user (QueryStream); never a copied run of a protected text."""

from __future__ import annotations

import json
from pathlib import Path

import grpc

from edge_node.transport.api_client import EdgeClient
from edge_node.transport.api_token import API_TOKEN_FILE, read_api_token
from shared.config import GateConfig
from shared.core.model_api import GenerationRequest
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from simulation.fakes import ScriptedGenerator
from tests.support.grpc_harness import (
    ACME,
    APP_ID,
    ZEPHYR,
    Network,
    answer_from_context,
    connected,
    run,
    start_edge,
    start_network,
    token_of,
)

OWN_WORDS = "It builds small devices that hospitals and clinics across Portugal rely on every single day."
COPY = "Zephyr Medical was founded by Omar Haddad in Lisbon, as the company says."
QUESTION = "What does Zephyr Medical make?"


def _cloud_writes(draft: str) -> ScriptedGenerator:
    """A cloud model writing ``draft`` for a free-text reading (a choice is read as the harness's model reads it)."""
    return ScriptedGenerator(lambda r: draft if _free_text(r) else answer_from_context(r))


def _free_text(request: GenerationRequest) -> bool:
    return request.json_schema is None and "Question:" in request.prompt


def _assert_draft_of_own_words(drafts: list[str]) -> None:
    """The first draft (a reader that asks again starts a new line) is the model's text, all of it but at most its
    last six words (edge-b's texts are protected: a word waits until six more follow it)."""
    first = "".join(drafts).split("\n")[0].split()
    assert len(first) >= len(OWN_WORDS.split()) - 6 and first == OWN_WORDS.split()[: len(first)]


async def _app_stream(net: Network, question: str) -> tuple[list[str], cloud_pb2.GlobalQueryReply]:
    drafts: list[str] = []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
        request = cloud_pb2.GlobalQueryRequest(question=question)
        metadata = auth_metadata(APP_ID, token_of(APP_ID))
        call = cloud_pb2_grpc.CloudStub(channel).GlobalQueryStream(request, metadata=metadata, timeout=30)
        async for event in call:
            if event.HasField("reply"):
                return drafts, event.reply
            drafts.append(event.draft)
    raise AssertionError("the stream ended without a reply")


def test_an_app_gets_the_draft_as_it_is_decoded_then_the_same_answer_as_the_unary_call(tmp_path: Path) -> None:
    async def main() -> None:
        llm = _cloud_writes(OWN_WORDS)
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, cloud_llm=llm)
        try:
            await connected(net, "edge-a", "edge-b")
            drafts, reply = await _app_stream(net, QUESTION)
            assert any(_free_text(r) for r in llm.requests), "the cloud read this question as free text"
            assert len(drafts) > 3, "the draft came word by word"
            _assert_draft_of_own_words(drafts)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                unary = await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(
                    cloud_pb2.GlobalQueryRequest(question=QUESTION),
                    metadata=auth_metadata(APP_ID, token_of(APP_ID)),
                    timeout=30,
                )
            assert reply.answer == unary.answer and list(reply.edges_asked) == list(unary.edges_asked)
        finally:
            await net.close()

    run(main())


def test_a_draft_copying_a_protected_text_sends_none_of_the_copy_and_the_answer_is_guarded(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, cloud_llm=_cloud_writes(COPY))
        try:
            await connected(net, "edge-a", "edge-b")
            drafts, reply = await _app_stream(net, QUESTION)
            sent = " ".join("".join(drafts).split())
            assert "founded by Omar Haddad" not in sent and len(sent.split()) < 6
            assert "founded by Omar Haddad in Lisbon" not in reply.answer, "the answer guard holds as in GlobalQuery"
        finally:
            await net.close()

    run(main())


def test_an_escalated_question_streams_the_cloud_draft_through_the_edge_to_its_user(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(
            tmp_path, {"edge-b": ZEPHYR}, extra_edges=["edge-a"], cloud_llm=_cloud_writes(OWN_WORDS)
        )
        try:
            await start_edge(net, tmp_path, "edge-a", ACME, gate=GateConfig(check_other_edges=False))
            await connected(net, "edge-a", "edge-b")
            token = read_api_token(net.data_dirs["edge-a"] / API_TOKEN_FILE)
            drafts: list[str] = []
            async with EdgeClient(f"127.0.0.1:{net.edge_ports['edge-a']}", token) as client:
                reply = await client.query(QUESTION, on_text=drafts.append)
                plain = await client.query(QUESTION)
            assert reply.decision == "cloud"
            _assert_draft_of_own_words(drafts)
            assert reply.answer == plain.answer
            assert json.loads(reply.trace_json)["cloud"]["edges_asked"] == ["edge-b"]
        finally:
            await net.close()

    run(main())
