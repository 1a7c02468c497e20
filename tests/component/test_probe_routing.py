"""Two-stage routing: the chooser's adaptive k, what the cloud accepts of a probe, and probes over real gRPC
(scores only, audited at the edge, refused by an edge whose policy says so)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import grpc
import pytest

from cloud_server.routing.choice import ProbeRouting
from cloud_server.sessions.knowledge_intake import accept_probe
from shared.config import CloudQueryConfig, GateConfig
from shared.core.errors import CloudUnavailableError, ConfigError
from shared.core.knowledge import PROBES_REFUSED, EvidenceClaim, EvidenceVerdict, ProbeScores, SummaryMatch
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import (
    ACME,
    ADMIN_ID,
    APP_ID,
    ZEPHYR,
    ask,
    connected,
    run,
    start_edge,
    start_network,
    token_of,
)

MATCHES = [SummaryMatch("s1", "a", 0.9), SummaryMatch("s2", "b", 0.8), SummaryMatch("s3", "c", 0.7)]


def _probes(**scores: float) -> list[ProbeScores]:
    return [ProbeScores(edge, score) for edge, score in scores.items()]


def test_one_edge_standing_out_is_asked_alone_and_close_scores_ask_more() -> None:
    routing = ProbeRouting(shortlist=3, margin=0.05, max_k=2, weight=1.0)
    assert routing.choose(_probes(a=0.4, b=0.9, c=0.3), MATCHES, 2) == ["b"]
    assert routing.choose(_probes(a=0.88, b=0.9, c=0.3), MATCHES, 2) == ["b", "a"]
    assert routing.choose(_probes(a=0.9, b=0.9, c=0.9), MATCHES, 2) == ["a", "b"], "ties keep the summary order"


def test_failed_probes_are_never_preferred_and_no_answer_falls_back_to_summaries() -> None:
    routing = ProbeRouting(shortlist=3, margin=0.0, max_k=2, weight=1.0)
    failed = ProbeScores("a", error="timeout")
    assert routing.choose([failed, *_probes(b=0.1)], MATCHES, 2) == ["b"]
    assert routing.choose([failed, ProbeScores("b", error="policy")], MATCHES, 1) == ["a"]


def test_an_edge_refusing_probes_is_asked_when_its_summaries_match_best() -> None:
    routing = ProbeRouting(shortlist=3, margin=0.0, max_k=2, weight=1.0)
    refused = ProbeScores("a", error=PROBES_REFUSED)
    assert routing.choose([refused, *_probes(b=0.5, c=0.2)], MATCHES, 2) == ["a", "b"]
    assert routing.choose([ProbeScores("a", 0.1), ProbeScores("b", error=PROBES_REFUSED)], MATCHES, 2) == ["a"]


def test_the_weight_mixes_in_the_summary_score() -> None:
    routing = ProbeRouting(shortlist=3, margin=0.0, max_k=1, weight=0.5)
    # b probes a little better, but a's summary is much closer: with half weight a wins
    assert routing.choose(_probes(a=0.50, b=0.55), [SummaryMatch("s", "a", 0.9), SummaryMatch("t", "b", 0.2)], 1) == [
        "a"
    ]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"probe_shortlist": -1}, "probe_shortlist = -1"),
        ({"probe_max_k": 0}, "probe_max_k = 0"),
        ({"probe_weight": 1.5}, "probe_weight = 1.5"),
        ({"probe_deadline_s": 0.0}, "probe_deadline_s > 0"),
    ],
)
def test_bad_probe_settings_say_what_to_change(changes: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ProbeRouting.from_config(CloudQueryConfig(**changes))  # type: ignore[arg-type]


def test_an_edge_cannot_outbid_the_others_beyond_range() -> None:
    accepted = accept_probe(
        "b", ProbeScores("a", 7.0, float("nan"), -3.0, float("inf"), term_coverage=4.0, lexical=float("inf"))
    )
    # the evidence score is no more than the (absent) best chunk and name coverage beside it back
    assert accepted == ProbeScores("b", 0.0, 0.0, -1.0, 0.0, term_coverage=1.0, lexical=0.0)
    backed = accept_probe("b", ProbeScores("b", 7.0, 1.0, best_chunk=0.6))
    assert backed.score == pytest.approx(0.8, abs=1e-5)
    assert accept_probe("b", ProbeScores("b", 0.5, term_coverage=0.6, lexical=3.0)).lexical == 1.0


def test_probes_over_grpc_choose_the_edge_that_knows_and_skip_an_edge_that_refuses(tmp_path: Path) -> None:
    query = CloudQueryConfig(deadline_s=2.0, probe_shortlist=3, probe_margin=0.0, probe_max_k=2)

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, query=query, extra_edges=["edge-c"])
        await start_edge(net, tmp_path, "edge-c", ZEPHYR, answer_probes=False)
        try:
            await connected(net, "edge-a", "edge-b", "edge-c")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                ask = cloud_pb2.GlobalQueryRequest(question="Who founded Zephyr Medical in Lisbon?")
                stub = cloud_pb2_grpc.CloudStub(channel)
                reply = await stub.GlobalQuery(ask, metadata=auth_metadata(ADMIN_ID, token_of(ADMIN_ID)), timeout=30)
                as_app = await stub.GlobalQuery(ask, metadata=auth_metadata(APP_ID, token_of(APP_ID)), timeout=30)
            assert [p.edge_id for p in as_app.probes] == [p.edge_id for p in reply.probes]
            assert all(p.score == p.best_chunk == p.lexical == 0 for p in as_app.probes), "an app sees no scores"
            probes = {p.edge_id: p for p in reply.probes}
            assert set(probes) == {"edge-a", "edge-b", "edge-c"}
            assert probes["edge-c"].error == PROBES_REFUSED and probes["edge-c"].score == 0
            assert probes["edge-b"].score > probes["edge-a"].score and not probes["edge-b"].error
            # "Zephyr", "Medical", "Lisbon", "founded" are all in zeph-1; edge-a's chunks hold none of them
            assert probes["edge-b"].term_coverage > 0.5 > probes["edge-a"].term_coverage
            assert probes["edge-b"].lexical > 0.5 > probes["edge-a"].lexical
            assert "edge-b" in reply.edges_asked and "edge-a" not in reply.edges_asked
            assert 0 < reply.probe_bytes < 200, "a probe reply is a few dozen bytes"
            assert "probe" in reply.timings.seconds
            audit = [e.to_dict() for e in net.runtimes["edge-b"].audit.entries()]
            probe_entries = [e for e in audit if e["what"] == "probe_reply"]
            assert len(probe_entries) == 2 and probe_entries[0]["bytes"] > 0
            refused = [e for e in net.runtimes["edge-c"].audit.entries() if e.what == "probe_error"]
            assert len(refused) == 2
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))


def test_an_edge_checking_other_edges_escalates_when_another_matches_better(tmp_path: Path) -> None:
    always_local = GateConfig(
        threshold=0.0, check_threshold=0.0, refusal_share=1.1, check_refusal_share=1.1, check_other_edges=True
    )

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-b": ZEPHYR}, extra_edges=["edge-a"])
        await start_edge(net, tmp_path, "edge-a", ACME, gate=always_local)
        try:
            await connected(net, "edge-a", "edge-b")
            # the check comes first: edge-b is stronger, so edge-a's model never reads the question
            elsewhere = await ask(net, "edge-a", "Who founded Zephyr Medical in Lisbon after Acme?")
            trace = json.loads(elsewhere.trace_json)
            assert elsewhere.decision == "cloud" and trace["local_decision"] == "escalate" and trace["answers"] == []
            assert "evidence_check" in trace["timings"] and "generation" not in trace["timings"]
            assert trace["cloud"]["edges_asked"] == ["edge-b"]
            # a trusted local answer is checked again at its own margin (0.05), below the first check's (0.1)
            here = await ask(net, "edge-a", "Who leads Acme Robotics in Berlin?")
            timings = json.loads(here.trace_json)["timings"]
            assert here.decision == "local" and {"evidence_check", "generation", "evidence_recheck"} <= set(timings)
            checks = [e for e in net.runtimes["edge-a"].audit.entries() if e.what == "evidence_check"]
            assert len(checks) == 3 and all(e.bytes > 0 for e in checks)
            probed = [e for e in net.runtimes["edge-b"].audit.entries() if e.what == "probe_reply"]
            assert len(probed) == 3, "each check probed edge-b once; the answer in the same call reused its probe"
            escalations = [e for e in net.runtimes["edge-a"].audit.entries() if e.what == "global_query"]
            assert escalations == [], "one round trip: the check's reply carried the cloud's answer"
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))


def test_the_check_compares_lexical_coverage_on_both_sides(tmp_path: Path) -> None:
    # evidence margin 0, terms off: edge-b's probe (evidence <= 1, lexical about 1 for its own question) beats an
    # edge claiming evidence 1 and lexical 0, not one claiming lexical 1; with the lexical weight 0 neither
    query = CloudQueryConfig(deadline_s=2.0, evidence_margin=0.0, probe_terms_weight=0.0, probe_lexical_weight=1.0)

    async def main() -> None:
        # an edge that sends no lexical coverage (older than it) is compared without it on both sides
        for weight, expected in ((1.0, [True, False, False]), (0.0, [False, False, False])):
            sub = tmp_path / f"w{weight:g}"
            sub.mkdir()
            cfg = dataclasses.replace(query, probe_lexical_weight=weight)
            net = await start_network(sub, {"edge-a": ACME, "edge-b": ZEPHYR}, query=cfg)
            try:
                await connected(net, "edge-a", "edge-b")
                async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                    found = []
                    for lexical in (0.0, 1.0, None):
                        request = cloud_pb2.CheckEvidenceRequest(
                            question="Who founded Zephyr Medical in Lisbon?",
                            local_evidence=1.0,
                            local_terms=0.5,  # a lexical claim counts up to 0.5 above the term coverage
                            local_lexical=lexical,
                        )
                        reply = await cloud_pb2_grpc.CloudStub(channel).CheckEvidence(
                            request, metadata=auth_metadata("edge-a", token_of("edge-a")), timeout=10
                        )
                        found.append(reply.stronger_elsewhere)
                assert found == expected, f"lexical weight {weight}"
            finally:
                await net.close()

    run(asyncio.wait_for(main(), 60))


def test_an_app_may_not_run_an_evidence_check(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-b": ZEPHYR})
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await cloud_pb2_grpc.CloudStub(channel).CheckEvidence(
                        cloud_pb2.CheckEvidenceRequest(question="Who?", local_evidence=0.1),
                        metadata=auth_metadata(APP_ID, token_of(APP_ID)),
                        timeout=10,
                    )
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))


class _CloudDown:
    """An escalator whose cloud cannot be reached (for escalation; for the check too unless ``checks``)."""

    checks = False

    def __init__(self) -> None:
        self.margins: list[float | None] = []

    async def global_query(
        self,
        question: str,
        asked_at: str,
        vectors: object = None,
        on_text: object = None,
    ) -> None:
        raise CloudUnavailableError("UNAVAILABLE: test")

    async def check_evidence(self, question: str, claim: EvidenceClaim, vectors: object = None) -> EvidenceVerdict:
        self.margins.append(claim.margin)
        if not self.checks:
            raise CloudUnavailableError("UNAVAILABLE: test")
        return EvidenceVerdict(False)


class _NothingStronger(_CloudDown):
    """The check answers (no edge is stronger); escalation still finds no cloud."""

    checks = True


def test_with_the_check_the_gate_escalates_alone_only_below_check_threshold(tmp_path: Path) -> None:
    # threshold 1.01: the gate alone escalates everything; check_threshold 0: the check decides instead
    gate = GateConfig(threshold=1.01, check_threshold=0.0, refusal_share=1.1, check_other_edges=True)

    async def main() -> None:
        net = await start_network(tmp_path, {}, extra_edges=["edge-a"])
        await start_edge(net, tmp_path, "edge-a", ACME, gate=gate)
        runtime = net.runtimes["edge-a"]
        try:
            question = "Who leads Acme Robotics in Berlin?"
            checker = _NothingStronger()
            checked = await runtime.query(question, "full", checker)
            assert checked.decision == "local" and checked.verified and "evidence_check" in checked.timings
            assert checker.margins == [-gate.stay_margin], "doubtful: kept only if this edge leads"
            down = await runtime.query(question, "full", _CloudDown())
            assert down.decision == "escalate" and not down.verified, "no check: the gate's own threshold applies"
            assert "could not answer" in down.note and down.answer != checked.answer
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))


def test_a_question_every_local_answer_declines_goes_to_the_cloud_without_a_second_check(tmp_path: Path) -> None:
    # edge-a knows Acme only: its scripted SLM declines a question about Zephyr in every answer (share 1.0)
    question = "Who founded Zephyr Medical in Lisbon?"

    async def main() -> None:
        net = await start_network(tmp_path, {}, extra_edges=["edge-a"])
        lenient = GateConfig(threshold=0.0, check_threshold=0.0, check_refusal_share=1.1, check_other_edges=True)
        await start_edge(net, tmp_path, "edge-a", ACME, gate=lenient)
        try:
            checker = _NothingStronger()
            declined = await net.runtimes["edge-a"].query(question, "full", checker)
            assert declined.local.gate is not None and declined.local.gate.refusal_share == 1.0
            assert declined.decision == "escalate" and "evidence_recheck" not in declined.timings
            first = [max(lenient.evidence_margin, -lenient.stay_margin)]
            assert checker.margins == first, "only the check before reading: a decline is not kept because it leads"
            down = await net.runtimes["edge-a"].query(question, "full", _CloudDown())
            assert down.decision == "escalate" and not down.verified
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))


def test_an_edge_that_keeps_raw_text_home_sends_no_word_level_scores(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {}, extra_edges=["open", "closed"])
        await start_edge(net, tmp_path, "open", ZEPHYR)
        await start_edge(net, tmp_path, "closed", ZEPHYR, level="entities")
        try:
            question = "Who founded Zephyr Medical in Lisbon?"
            shown = await net.runtimes["open"].probe(question)
            kept = await net.runtimes["closed"].probe(question)
            assert shown.lexical > 0.5 and shown.term_coverage > 0.5
            assert kept.lexical == kept.term_coverage == 0.0 and kept.score == shown.score, "evidence still goes"
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))


def test_a_question_quoting_a_document_kept_home_is_neither_checked_nor_escalated_and_the_audit_says_so(
    tmp_path: Path,
) -> None:
    # quotes acme-1; the date is read from acme-2 (a decline would go to the cloud unchecked)
    question = "When did the plant open? Acme Robotics builds welding arms in Berlin. Jane Doe leads it."
    trusting = GateConfig(threshold=0.0, check_threshold=0.0, refusal_share=1.1, check_other_edges=True)
    doubting = dataclasses.replace(trusting, threshold=1.01, check_threshold=1.01)

    async def main() -> None:
        net = await start_network(tmp_path, {}, extra_edges=["kept", "strict"])
        await start_edge(net, tmp_path, "kept", ACME, gate=trusting, level="entities")
        await start_edge(net, tmp_path, "strict", ACME, gate=doubting, level="entities")
        try:
            checker = _NothingStronger()
            shown = await net.runtimes["kept"].query(question, "full", checker)
            extract = await net.runtimes["strict"].query(question, "full", checker)
            assert checker.margins == [], "nothing about the question left either edge"
            assert shown.decision == "local" and shown.verified
            assert extract.decision == "escalate" and not extract.verified and "quotes this edge's" in extract.note
            for edge, kind in (("kept", "evidence_check"), ("strict", "global_query")):
                audit = [json.loads(x) for x in (tmp_path / edge / "audit.jsonl").read_text().splitlines()]
                withheld = [e for e in audit if e["what"] == "withheld"]
                assert [e["kind"] for e in withheld] == [kind] and withheld[0]["reason"] == "quotes a document"
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))
