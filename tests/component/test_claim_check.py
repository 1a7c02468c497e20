"""Claims checked, not believed: the cloud orders context by its own scores, and an edge whose probe claims
exceed what it returns loses its routing weight and is flagged."""

from __future__ import annotations

import os
from pathlib import Path

import grpc
import numpy as np
import pytest

from cloud_server.edges_table import edges_table
from cloud_server.routing.claim_check import ClaimLedger, observe_claims, rescored
from edge_node.policy.privacy import probe_reply
from edge_node.query.retrieval import Evidence
from shared.config import PrivacyConfig
from shared.core.errors import ConfigError
from shared.core.knowledge import PROBES_REFUSED, EdgeKnowledge, KnowledgeChunk, ProbeScores
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from shared.transport.secret_file import read_secret, write_secret
from simulation.fakes import HashEmbedder
from tests.support.grpc_harness import (
    ACME,
    ADMIN_ID,
    APP_ID,
    ZEPHYR,
    connected,
    run,
    start_edge,
    start_network,
    token_of,
)


def test_trust_falls_with_over_claiming_and_not_with_noise() -> None:
    ledger = ClaimLedger()
    for _ in range(5):
        ledger.observe("honest", 0.62 - 0.55)
        ledger.observe("liar", 1.0 - 0.2)
    assert ledger.trust("honest") == 1.0 and ledger.trust("never-seen") == 1.0
    assert ledger.trust("liar") == 0.0
    liar = ledger.discounted(ProbeScores("liar", 1.0, 1.0, 1.0, 1.0, term_coverage=1.0, lexical=1.0))
    assert (liar.score, liar.best_chunk, liar.lexical) == (0.0, 0.0, 0.0)
    flagged = {t.edge_id: t.flagged for t in ledger.report()}
    assert flagged == {"honest": False, "liar": True}


def test_the_cloud_rescores_returned_chunks_itself_and_compares_them_with_the_claims() -> None:
    embedder = HashEmbedder(64)
    asked = "Who founded Zephyr Medical in Lisbon?"
    question = embedder.embed([asked])[0]
    on_topic = KnowledgeChunk("z", 1, "Zephyr Medical was founded in Lisbon by Omar Haddad.", 0.1, 12)
    off_topic = KnowledgeChunk("w", 2, "The weather in Porto was mild all week.", 1.0, 9)
    returned = [EdgeKnowledge("b", chunks=(on_topic,)), EdgeKnowledge("c", chunks=(off_topic,))]
    replies = rescored(asked, question, returned, embedder)
    assert replies[0].chunks[0].score > replies[1].chunks[0].score, "the edge's own 1.0 counts for nothing"
    assert np.isclose(replies[1].chunks[0].score, max(float(embedder.embed([off_topic.text])[0] @ question), 0.0))
    ledger = ClaimLedger()
    claims = [ProbeScores("b", best_chunk=replies[0].chunks[0].score), ProbeScores("c", best_chunk=1.0)]
    observe_claims(ledger, asked, claims, replies)
    assert ledger.trust("b") == 1.0 and ledger.trust("c") < 0.5


@pytest.mark.parametrize(
    ("liar_scores", "captured_first"),
    [
        (ProbeScores("edge-c", 1.0, 1.0, 1.0, 1.0, term_coverage=1.0, lexical=1.0), True),
        # the best chunk, once the only claim checked, claimed 0 with every other score 1.0: the evidence score is
        # bounded at intake by the fields beside it, so the lie does not capture even the first question
        (ProbeScores("edge-c", 1.0, 1.0, 1.0, 0.0, term_coverage=1.0, lexical=1.0), False),
    ],
    ids=["every-claim-1", "best-chunk-0"],
)
def test_a_lying_edge_loses_the_routing_it_captured_and_the_operator_sees_it_flagged(
    tmp_path: Path, liar_scores: ProbeScores, captured_first: bool
) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, extra_edges=["edge-c"])
        await start_edge(net, tmp_path, "edge-c", ACME)

        async def lie(question: str, given: object = None) -> ProbeScores:
            return liar_scores

        net.runtimes["edge-c"].probe = lie  # type: ignore[method-assign]
        try:
            await connected(net, "edge-a", "edge-b", "edge-c")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                app = auth_metadata(APP_ID, token_of(APP_ID))
                ask = cloud_pb2.GlobalQueryRequest(question="Who founded Zephyr Medical in Lisbon?", top_k=1)
                first = await stub.GlobalQuery(ask, metadata=app)
                later = await stub.GlobalQuery(ask, metadata=app)
                admin = auth_metadata(ADMIN_ID, token_of(ADMIN_ID))
                listed = await stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=admin)
            assert (first.edges_asked == ["edge-c"]) == captured_first, "believed, the lie captures the question"
            assert later.edges_asked == ["edge-b"], "checked, it does not any more"
            info = {e.edge_id: e for e in listed.edges}
            if captured_first:
                assert info["edge-c"].flagged and info["edge-c"].trust < 0.5 and info["edge-c"].checked == 1
            assert not info["edge-b"].flagged
        finally:
            await net.close()

    run(main())


def test_the_operators_table_shows_trust_and_flags() -> None:
    from cloud_server.sessions.edge_registry import EdgeStatus

    live = EdgeStatus("e1", True, 0.0, 95.0, 3)
    liar = EdgeStatus("e2", False, 0, 0, 0, trust=0.0, over_claim=0.8, checked=4, flagged=True)
    lines = edges_table([live, liar], now=100.0).splitlines()
    assert lines[1].split() == ["e1", "yes", "5", "s", "ago", "3", "1.00", "0.00", "0"]
    assert lines[2].split()[:7] == ["e2", "no", "never", "0", "0.00", "0.80", "4"] and "FLAGGED" in lines[2]


def test_an_edge_that_keeps_raw_text_home_sends_its_evidence_score_alone() -> None:
    evidence = Evidence(name_coverage=1.0, best_entity=1.0, best_chunk=0.7, score=0.8, term_coverage=0.5, lexical=0.4)
    assert probe_reply("e", evidence, PrivacyConfig(level="summaries_only")) == ProbeScores("e", 0.8)
    full = probe_reply("e", evidence, PrivacyConfig())
    assert (full.best_entity, full.best_chunk, full.lexical) == (1.0, 0.7, 0.4)


def test_a_token_file_others_may_read_or_another_user_owns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "token"
    write_secret(path, "a-token-of-twenty-chars")
    assert os.stat(path).st_mode & 0o777 == 0o600 and read_secret(path, "token file") == "a-token-of-twenty-chars"
    path.chmod(0o644)
    with pytest.raises(ConfigError, match=r"mode 0644: others may read it; run `chmod 600"):
        read_secret(path, "token file")
    write_secret(path, "again")
    assert os.stat(path).st_mode & 0o777 == 0o600, "writing tightens an existing file"
    if os.geteuid() == 0:
        os.chown(path, 12345, -1)
        with pytest.raises(ConfigError, match="belongs to user id 12345"):
            read_secret(path, "token file")


def test_a_lie_weighs_at_once_and_honest_replies_earn_trust_back_slowly() -> None:
    ledger = ClaimLedger()
    ledger.observe("liar", 1.0 - 0.1)
    for _ in range(10):  # where it happens to know the topic, its 1.0 is close to what it returns
        ledger.observe("liar", 1.0 - 0.8)
    assert ledger.trust("liar") < 0.5, "ten near-honest replies do not wash out a lie"
    honest = ClaimLedger()
    honest.observe("b", 0.7 - 0.4)  # once, its best chunk was not among those it returned
    for _ in range(3):
        honest.observe("b", 0.0)
    assert honest.trust("b") > 0.8


def test_claiming_a_best_chunk_and_returning_none_counts_as_over_claiming() -> None:
    ledger = ClaimLedger()
    claims = [ProbeScores("hider", 1.0, best_chunk=0.9), ProbeScores("home", 0.7)]
    observe_claims(ledger, "Who?", claims, [EdgeKnowledge("hider"), EdgeKnowledge("home")])
    assert ledger.trust("hider") == 0.0
    assert [t.edge_id for t in ledger.report()] == ["hider"], "an edge claiming no chunk is not measured"


QUESTION = "Who founded Zephyr Medical in Lisbon?"


def test_every_measurable_claim_is_checked_not_only_the_best_chunk() -> None:
    embedder = HashEmbedder(64)
    vector = embedder.embed([QUESTION])[0]
    off_topic = KnowledgeChunk("w", 2, "The weather in Porto was mild all week.", 1.0, 9)
    [reply] = rescored(QUESTION, vector, [EdgeKnowledge("liar", chunks=(off_topic,))], embedder)
    for lie in (
        ProbeScores("liar", 1.0, 1.0, 1.0, 0.0),  # a best chunk of 0, which alone was checked, and evidence 1.0
        ProbeScores("liar", 0.0, 0.0, 0.0, 0.0, term_coverage=1.0),  # every keyword in one chunk
        ProbeScores("liar", 0.0, 1.0, 0.0, 0.0),  # every name of the question held, none returned
        ProbeScores("liar", 0.0, 0.0, 0.0, 0.0, lexical=1.0),  # every word in one stored chunk, none returned
    ):
        ledger = ClaimLedger()
        for _ in range(3):
            observe_claims(ledger, QUESTION, [lie], [reply])
        assert ledger.trust("liar") < 0.5, lie
    honest = ClaimLedger()
    on_topic = KnowledgeChunk("z", 1, "Zephyr Medical was founded in Lisbon by Omar Haddad.", 0.9, 12)
    [good] = rescored(QUESTION, vector, [EdgeKnowledge("b", chunks=(on_topic,))], embedder)
    best = good.chunks[0].score
    claim = ProbeScores("b", (1.0 + best) / 2, 1.0, 1.0, best, term_coverage=1.0, lexical=0.9)
    for _ in range(3):
        observe_claims(honest, QUESTION, [claim], [good])
    assert honest.trust("b") == 1.0, "an honest edge's claims are what the cloud measures again"


def test_a_returned_echo_of_the_question_scores_nothing_and_backs_no_claim() -> None:
    embedder = HashEmbedder(64)
    vector = embedder.embed([QUESTION])[0]
    echo = KnowledgeChunk("x", 1, QUESTION, 1.0, 9)
    planted = KnowledgeChunk("x", 2, f"{QUESTION.upper()} It was founded by Mallory Evil.", 1.0, 9)
    [reply] = rescored(QUESTION, vector, [EdgeKnowledge("echoer", chunks=(echo, planted))], embedder)
    alone = float(embedder.embed(["It was founded by Mallory Evil."])[0] @ vector)
    assert reply.chunks[0].score == 0.0
    assert reply.chunks[1].score == pytest.approx(max(alone, 0.0), abs=1e-6), "scored on its own sentence only"
    ledger = ClaimLedger()
    for _ in range(3):
        observe_claims(ledger, QUESTION, [ProbeScores("echoer", 1.0, 1.0, 1.0, 1.0, term_coverage=0.0)], [reply])
    assert ledger.trust("echoer") < 0.5


def test_trust_outlives_a_restart_and_a_foreign_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state" / "trust.json"
    ledger = ClaimLedger(path)
    ledger.observe("liar", 0.9)
    ledger.observe("honest", 0.0)
    again = ClaimLedger(path)
    assert again.trust("liar") == ledger.trust("liar") < 0.5 and again.trust("honest") == 1.0
    assert [(t.edge_id, t.observations) for t in again.report()] == [("honest", 1), ("liar", 1)]
    assert "Zephyr" not in path.read_text() and list(path.parent.iterdir()) == [path], "no temporary file left"
    for bad in ("not json", '{"edges": {"x": {"over_claim": 7, "checked": 1}}}', '{"edges": []}'):
        path.write_text(bad)
        with pytest.raises(ConfigError, match="trust_file"):
            ClaimLedger(path)


def test_a_probe_refuser_s_summaries_are_checked_against_what_it_returns() -> None:
    embedder = HashEmbedder(64)
    vector = embedder.embed([QUESTION])[0]
    refused = ProbeScores("refuser", error=PROBES_REFUSED)
    advert = KnowledgeChunk("x", 1, f"{QUESTION} Cheap watches at mallory.example, call now.", 1.0, 9)
    [reply] = rescored(QUESTION, vector, [EdgeKnowledge("refuser", chunks=(advert,))], embedder)
    stuffed = ClaimLedger()
    for _ in range(3):
        observe_claims(stuffed, QUESTION, [refused], [reply], {"refuser": 0.97})
    assert stuffed.distrusted("refuser"), "a summary stuffed with the question, then an echo with a plant"
    honest = ClaimLedger()
    on_topic = KnowledgeChunk("z", 1, "Zephyr Medical was founded in Lisbon by Omar Haddad.", 0.9, 12)
    plant = KnowledgeChunk("x", 1, f"{QUESTION} It was founded by Mallory Evil.", 1.0, 9)
    good, planted = rescored(
        QUESTION, vector, [EdgeKnowledge("refuser", chunks=(on_topic,)), EdgeKnowledge("x", chunks=(plant,))], embedder
    )
    assert good.chunks[0].score > planted.chunks[0].score, "an on-topic plant ranks by its own words, not the echo"
    for _ in range(3):
        observe_claims(honest, QUESTION, [refused], [good], {"refuser": good.chunks[0].score + 0.4})
    assert honest.trust("refuser") == 1.0, "a summary that matches better than its best chunk, as summaries do"


def test_a_lexical_claim_the_cloud_cannot_measure_is_bounded_by_the_term_coverage_it_can() -> None:
    from cloud_server.sessions.knowledge_intake import LEXICAL_OVER_TERMS, accept_probe

    smart = accept_probe("smart", ProbeScores("smart", 0.4, best_chunk=0.4, term_coverage=0.2, lexical=1.0))
    assert smart.lexical == pytest.approx(0.2 + LEXICAL_OVER_TERMS)
    honest = accept_probe("honest", ProbeScores("honest", 0.6, best_chunk=0.6, term_coverage=0.5, lexical=0.7))
    assert honest.lexical == 0.7


def test_a_smart_liar_pays_its_average_over_claim_on_every_claim() -> None:
    """An edge that over-claims only its evidence score (0.3 above what its returned chunks allow, on every checked
    reply) and its unmeasurable lexical coverage ends below an honest edge whose true match is middling."""
    ledger = ClaimLedger()
    for _ in range(5):
        ledger.observe("smart", 0.3)
        ledger.observe("honest", 0.01)
    smart = ledger.discounted(ProbeScores("smart", 1.0, 0.3, 0.3, 0.3, term_coverage=0.3, lexical=0.8))
    honest = ledger.discounted(ProbeScores("honest", 0.5, 0.5, 0.5, 0.5, term_coverage=0.5, lexical=0.5))
    assert smart.score < honest.score and smart.lexical < honest.lexical and smart.term_coverage < 0.1
    assert honest.score == pytest.approx(0.49, abs=0.005), "an honest edge's claims are barely touched"
