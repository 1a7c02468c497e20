"""The one shown answer: where the cloud answered, every surface shows the cloud's short answer and confidence,
never the local reading that was escalated (the page once showed "Short answer: Tromso" under the cloud's
"3 million kroner")."""

from __future__ import annotations

import dataclasses

import pytest

from edge_node.cli import _print_answer
from edge_node.transport.api_client import EdgeReply
from edge_node.transport.page.views import Passage, answer_block
from shared.core.knowledge import CloudAnswer
from shared.core.shown import AnsweredBy, shown_of
from shared.core.trace import AnswerTrace, Decision, Source
from shared.proto.dgrag.v1 import edge_pb2
from shared.transport import serde

QUESTION = "What is the budget of the Quill project?"


def _trace(decision: Decision) -> AnswerTrace:
    cloud = CloudAnswer("3 million kroner. [1: b:quill-1]", short="3 million kroner", reader="span", confidence=0.71)
    return AnswerTrace(
        question=QUESTION,
        answer=cloud.answer if decision == Decision.CLOUD else "Tromso. [1: quill-2]",
        decision=decision,
        verified=True,
        mode="full",
        note="",
        answers=["Tromso"],
        degenerate=[None],
        best_generated="Tromso",
        sampling={},
        model_speed={},
        gate=None,
        evidence={},
        keywords=[],
        names=[],
        entities=[],
        relations=[],
        sources=[],
        context_tokens=0,
        timings={},
        reading={"shape": "open", "reader": "span", "short": "Tromso", "confidence": "0.400"},
        cloud=cloud if decision == Decision.CLOUD else None,
    )


def test_the_clouds_answer_is_the_one_shown_by_the_page_the_api_and_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    trace = _trace(Decision.CLOUD)
    shown = shown_of(trace)
    assert shown.short == "3 million kroner" and shown.answered_by == AnsweredBy.CLOUD
    assert (shown.probability, shown.sureness) == (0.71, "likely")
    page = answer_block(trace, {}, "a")
    assert "<span class=short>3 million kroner</span>" in page and "Tromso" not in page and "likely (71%)" in page
    message = edge_pb2.QueryReply(answer=trace.answer, decision="cloud", shown=serde.shown_to_proto(shown))
    reply = EdgeReply.from_proto(message)
    assert reply.shown == shown
    _print_answer(reply.shown, "cloud", True, "", [])
    printed = capsys.readouterr().out
    assert "short answer: 3 million kroner" in printed and "Tromso" not in printed and "likely (71%)" in printed


def test_an_answer_read_here_shows_the_local_reading_and_an_extract_shows_none() -> None:
    local = shown_of(_trace(Decision.LOCAL))
    assert local.short == "Tromso" and local.answered_by == AnsweredBy.EDGE and local.probability == 0.4
    extract = shown_of(dataclasses.replace(_trace(Decision.LOCAL), decision=Decision.ESCALATE))
    assert extract.short == "" and extract.probability == 0.0 and extract.answered_by == AnsweredBy.EXTRACT


def test_a_peers_shown_answer_is_bounded_and_its_word_made_here() -> None:
    forged = serde.shown_to_proto(shown_of(_trace(Decision.CLOUD)))
    forged.probability, forged.sureness, forged.answered_by = 7.0, "sure", "the king"
    checked = serde.shown_from_proto(forged)
    assert checked.probability == 1.0 and checked.sureness == "sure" and checked.answered_by == AnsweredBy.EXTRACT
    forged.probability = 0.3
    assert serde.shown_from_proto(forged).sureness == "can't tell", "the word follows the probability, not the peer"


def test_the_page_links_this_devices_own_sources_by_its_own_ids_not_the_clouds_opaque_ones() -> None:
    cited = Source("doc-ecde15e1b9455ed8", 7, 0.8, "a")  # how the cloud names this device's chunk 7
    trace = dataclasses.replace(_trace(Decision.CLOUD), sources=[cited, Source("doc-0123", 3, 0.5, "b")])
    page = answer_block(trace, {7: Passage("notes/quill budget.txt", "The Quill budget is 3 million kroner.")}, "a")
    assert 'href="/documents/view?id=notes%2Fquill%20budget.txt"' in page
    assert "view?id=doc-ecde15e1b9455ed8" not in page, "the opaque id would be a 404 on this device"
    assert "doc-0123 on b (its text stays on that device)" in page
