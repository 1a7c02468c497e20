"""The simulation's dishonest participants (simulation.liar_host): each kind lies in exactly the fields it names."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from edge_node.policy.privacy import Outbound
from shared.core.errors import PermissionDeniedError
from shared.core.knowledge import EdgeKnowledge, KnowledgeChunk, ProbeScores, SummaryCard, SummaryChanges
from simulation import liar_host
from simulation.edge_parts import SessionOutbox
from simulation.liars import LIAR_KINDS, stuffing_names

HONEST_PROBE = ProbeScores("e", 0.3, 0.2, 0.4, 0.5, term_coverage=0.25, lexical=0.2, signals={"recency": 0.1})
HONEST_REPLY = Outbound(EdgeKnowledge("e", chunks=(KnowledgeChunk("doc-1", 4, "Honest text.", 0.4, 3),), evidence=0.3))


@pytest.fixture
def honest(monkeypatch: pytest.MonkeyPatch) -> Any:
    async def probe(self: Any, question: str, given: Any = None) -> ProbeScores:
        return HONEST_PROBE

    async def reply(self: Any, question: str, given: Any = None) -> Outbound:
        return HONEST_REPLY

    monkeypatch.setattr(liar_host, "_honest_probe", probe)
    monkeypatch.setattr(liar_host, "_honest_outbound_for", reply)
    return SimpleNamespace(edge_id="e")


def _lies(kind: str, edge: Any) -> tuple[ProbeScores | None, EdgeKnowledge]:
    probe, reply = liar_host._LIES[kind]
    try:
        scores: ProbeScores | None = asyncio.run(probe(edge, "Who won?"))
    except PermissionDeniedError:
        scores = None
    return scores, asyncio.run(reply(edge, "Who won?")).knowledge


def test_a_smart_liar_keeps_what_the_cloud_re_measures_and_inflates_the_rest_as_far_as_the_intake_allows(
    honest: Any,
) -> None:
    scores, knowledge = _lies("smart", honest)
    assert scores is not None
    assert (scores.best_chunk, scores.term_coverage) == (0.5, 0.25)
    assert (scores.name_coverage, scores.score, scores.lexical) == (1.0, 0.75, 0.75)
    assert dict(scores.signals) == {"recency": 1.0}
    assert knowledge.chunks == HONEST_REPLY.knowledge.chunks and knowledge.evidence == 1.0


def test_an_echo_liar_puts_the_question_first_and_a_refuser_refuses_probes(honest: Any) -> None:
    scores, knowledge = _lies("echo", honest)
    assert scores is not None and scores.best_chunk == 1.0
    assert [c.text for c in knowledge.chunks] == ["Who won?", "Honest text."]
    refused, knowledge = _lies("refuser", honest)
    assert refused is None and all(c.score == 1.0 for c in knowledge.chunks)
    blunt, _ = _lies("blunt", honest)
    assert blunt is not None and (blunt.score, blunt.lexical, blunt.best_chunk) == (1.0, 1.0, 1.0)


def test_every_kind_the_runner_accepts_exists_and_an_unknown_one_is_refused() -> None:
    assert set(LIAR_KINDS) == set(liar_host.KINDS) == set(liar_host._LIES)
    with pytest.raises(ValueError, match="smart"):
        liar_host.lie("sly")


def test_a_stuffer_adds_the_names_other_edges_mention_most_to_every_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = {
        "sports": [{"title": "Cup final", "text": "The match went to Real Madrid after Real Madrid scored twice."}],
        "tech": [{"title": "Phones", "text": "Sales of the new Apple phone beat Google and then Apple again."}],
        "liar": [{"title": "Own", "text": "Only the liar knows about Zorblax and Zorblax."}],
    }
    names = stuffing_names(docs, {"liar"}, n=3)
    assert names[:2] == ["Real", "Madrid"] or set(names) >= {"Apple", "Real"}
    assert "Zorblax" not in names, "the liar's own names are not stuffing"
    sent: list[SummaryChanges] = []
    monkeypatch.setattr(liar_host, "_honest_summaries", lambda self, changes: sent.append(changes))
    monkeypatch.setattr(SessionOutbox, "summaries", SessionOutbox.summaries)  # undone after the test
    liar_host.stuff_summaries(names)
    card = SummaryCard("sg-1", 1, "A summary of the liar's own documents.", ("Zorblax",))
    SessionOutbox.summaries(SimpleNamespace(), SummaryChanges((card,), (), 1, full=True))  # type: ignore[arg-type]
    assert sent[0].upserts[0].text == f"{card.text} Also: {', '.join(names)}." and sent[0].full
    with pytest.raises(ValueError, match="--stuffing"):
        liar_host.lie("stuffer", [])
