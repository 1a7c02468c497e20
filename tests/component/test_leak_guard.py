"""Privacy levels and the leak guard: no outbound text quotes a document when the policy forbids raw text."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import grpc

from benchmarks.shared_run import longest_shared_run
from edge_node.policy.leak_guard import LeakGuard
from edge_node.policy.privacy import guard_summaries, knowledge_for_cloud
from edge_node.query.retrieval import Evidence, Retrieval, ScoredChunk, ScoredEntity
from shared.config import PrivacyConfig
from shared.core.knowledge import SummaryCard, SummaryChanges
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import ACME, APP_ID, ZEPHYR, connected, run, start_edge, start_network, token_of

DOC = "Zephyr Medical was founded by Omar Haddad in Lisbon in 1998 and makes insulin pumps for clinics."


def _guard(texts: list[str], generation: list[int] | None = None) -> LeakGuard:
    gen = generation or [1]
    return LeakGuard(lambda: texts, lambda: gen[0], 8)


def test_the_guard_finds_a_run_of_eight_words_whatever_the_case_and_punctuation() -> None:
    guard = _guard([DOC])
    assert guard.shared_run("They say: ZEPHYR medical, was founded by Omar Haddad in Lisbon!") is not None
    assert guard.shared_run("Zephyr Medical, a Lisbon firm of Omar Haddad, makes insulin pumps.") is None


def test_the_guard_follows_the_store_as_documents_change() -> None:
    texts, generation = [DOC], [1]
    guard = _guard(texts, generation)
    assert guard.shared_run("the weather in Porto was mild and sunny all of last week") is None
    texts.append("the weather in Porto was mild and sunny all of last week")
    generation[0] = 2
    assert guard.shared_run("the weather in Porto was mild and sunny all of last week") is not None


def _retrieval() -> Retrieval:
    return Retrieval(
        question="q",
        keywords=[],
        names=[],
        entities=[
            ScoredEntity(1, "Zephyr Medical", "ORG", DOC, 0.9, True),
            ScoredEntity(2, "Lisbon", "LOC", "A city.", 0.5, False),
        ],
        relations=[],
        chunks=[ScoredChunk(1, "zeph-1", DOC, 0.9, 0.9, 20)],
        context="",
        context_tokens=0,
        evidence=Evidence(1.0, 0.9, 0.9, 0.8),
    )


def test_levels_decide_what_a_retrieval_reply_carries() -> None:
    guard = _guard([DOC])
    full = knowledge_for_cloud("e", _retrieval(), PrivacyConfig(), guard).knowledge
    assert full.chunks and full.entities[0].description == DOC
    no_chunks = knowledge_for_cloud("e", _retrieval(), PrivacyConfig(share_chunks=False), guard)
    assert not no_chunks.knowledge.chunks and no_chunks.withheld == 1
    assert [e.description for e in no_chunks.knowledge.entities] == ["", "A city."]
    names = knowledge_for_cloud("e", _retrieval(), PrivacyConfig(level="entities"), guard).knowledge
    assert not names.chunks and [(e.name, e.type, e.description) for e in names.entities] == [
        ("Zephyr Medical", "ORG", ""),
        ("Lisbon", "LOC", ""),
    ]
    nothing = knowledge_for_cloud("e", _retrieval(), PrivacyConfig(level="summaries_only"), guard).knowledge
    assert not (nothing.chunks or nothing.entities or nothing.relations) and nothing.evidence == 0.8


def test_a_summary_quoting_a_document_leaves_as_the_names_it_is_about() -> None:
    changes = SummaryChanges(
        (
            SummaryCard("e/sg-1", 1, f"Summary: {DOC}", ("Zephyr Medical", "Omar Haddad")),
            SummaryCard("e/sg-2", 1, "A company in Lisbon that makes medical devices.", ("Zephyr Medical",)),
        ),
        (),
        3,
    )
    kept, replaced = guard_summaries(changes, PrivacyConfig(), _guard([DOC]))
    assert replaced == 0 and kept == changes
    guarded, replaced = guard_summaries(changes, PrivacyConfig(level="entities"), _guard([DOC]))
    assert replaced == 1
    assert guarded.upserts[0].text == "A part of this edge's knowledge about: Zephyr Medical, Omar Haddad."
    assert guarded.upserts[1] == changes.upserts[1]


def test_nothing_the_cloud_holds_or_says_quotes_an_entities_level_edge(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME}, extra_edges=["edge-b"])
        await start_edge(net, tmp_path, "edge-b", ZEPHYR, level="entities", audit_content=True)
        try:
            await connected(net, "edge-a", "edge-b")
            docs = [d.text for d in ZEPHYR]
            cards = net.cloud.index.cards("edge-b")
            assert cards and all(longest_shared_run(c.text, docs) < 8 for c in cards)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                reply = await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(
                    cloud_pb2.GlobalQueryRequest(question="Who founded Zephyr Medical in Lisbon?", top_k=2, top_m=4),
                    metadata=auth_metadata(APP_ID, token_of(APP_ID)),
                )
            assert "edge-b" in reply.edges_replied
            assert not [c for c, e in zip(reply.context_chunks, reply.context_edges, strict=True) if e == "edge-b"]
            assert longest_shared_run(reply.answer, docs) < 8
            audit = [json.loads(x) for x in (tmp_path / "edge-b" / "audit.jsonl").read_text().splitlines()]
            assert any(e["what"] == "retrieval_reply" and e["chunks"] == [] for e in audit)
            sent = [t for e in audit for t in e.get("texts", [])]  # the owner sees exactly what left
            assert sent and all(longest_shared_run(t, docs) < 8 for t in sent)
            assert any("Zephyr Medical" in t for t in sent)
        finally:
            await net.close()

    run(main())


def test_document_ids_leave_without_the_devices_paths() -> None:
    from edge_node.policy.privacy import outbound_doc_id

    key = b"k" * 32
    path = "/home/ana/clinic/patients/maria-lopez-hiv.txt"
    names = PrivacyConfig(doc_ids="names")
    assert outbound_doc_id(path, names, "e", key) == "maria-lopez-hiv.txt"
    assert outbound_doc_id("mh-26d70d4fad", names, "e", key) == "mh-26d70d4fad"  # bundle ids stay
    assert outbound_doc_id("clinic/patients/maria-lopez-hiv.txt", names, "e", key) == "maria-lopez-hiv.txt"
    opaque = outbound_doc_id(path, PrivacyConfig(), "e", key)
    assert opaque.startswith("doc-") and "maria" not in opaque, "by default a file name does not leave"
    opaque = outbound_doc_id(path, PrivacyConfig(doc_ids="opaque"), "e", key)
    assert opaque.startswith("doc-")
    assert (
        opaque
        == outbound_doc_id(path, PrivacyConfig(doc_ids="opaque"), "e", key)
        != outbound_doc_id(path, PrivacyConfig(doc_ids="opaque"), "other-edge", key)
    )
    unkeyed = "doc-" + hashlib.sha256(f"e\0{path}".encode()).hexdigest()[:16]
    assert opaque != unkeyed, "a guessed path's id cannot be computed without the edge's key"
    assert opaque != outbound_doc_id(path, PrivacyConfig(doc_ids="opaque"), "e", b"x" * 32)
    assert outbound_doc_id(path, PrivacyConfig(doc_ids="as_is"), "e", key) == path


def test_a_name_that_is_a_documents_headline_does_not_leave_without_raw_text() -> None:
    headline = "Business Today Latest Stock Market And Economy News India"
    retrieval = _retrieval()
    retrieval.entities.append(ScoredEntity(3, headline, "ORG", "", 0.7, False))
    guard = _guard([DOC, f"{headline} reported on the markets."])
    kept = knowledge_for_cloud("e", retrieval, PrivacyConfig(level="entities"), guard)
    assert headline not in {e.name for e in kept.knowledge.entities} and kept.withheld == 1
    shared = knowledge_for_cloud("e", retrieval, PrivacyConfig(), guard).knowledge  # raw text allowed: kept
    assert headline in {e.name for e in shared.entities}
