"""edge_node.policy.outbound.OutboundPolicy: each decision about what leaves an edge, per privacy level."""

from __future__ import annotations

import pytest

from edge_node.policy.leak_guard import LeakGuard
from edge_node.policy.outbound import OutboundPolicy
from edge_node.query.retrieval import Evidence
from shared.config import PrivacyConfig
from shared.core.errors import PermissionDeniedError
from shared.core.knowledge import SummaryCard, SummaryChanges

DOC = "Zephyr Medical was founded by Omar Haddad in Lisbon in 1998 and makes insulin pumps for clinics."
QUOTING = "Who says Zephyr Medical was founded by Omar Haddad in Lisbon in 1998?"
EVIDENCE = Evidence(0.5, 0.4, 0.3, 0.6, term_coverage=0.7, lexical=0.8, signals={"recency": 0.9})


def _policy(**privacy: object) -> OutboundPolicy:
    guard = LeakGuard(lambda: [DOC], lambda: 1, 8)
    return OutboundPolicy("edge-a", PrivacyConfig(**privacy), guard, b"k" * 32)  # type: ignore[arg-type]


def test_a_question_quoting_a_document_stays_home_only_where_raw_text_does() -> None:
    assert not _policy().guards_questions and _policy(level="entities").guards_questions
    assert _policy().quoted_run(QUOTING) == ""  # chunks may leave: so may a question quoting one
    assert _policy(level="entities").quoted_run(QUOTING) != ""
    assert _policy(level="chunks", share_chunks=False).quoted_run(QUOTING) != ""
    assert _policy(level="entities").quoted_run("Who founded Zephyr Medical?") == ""


def test_probe_scores_leave_whole_only_with_raw_text_and_not_at_all_when_probes_are_off() -> None:
    full = _policy().probe(EVIDENCE)
    assert (full.score, full.term_coverage, full.lexical, full.signals) == (0.6, 0.7, 0.8, {"recency": 0.9})
    bare = _policy(level="entities").probe(EVIDENCE)
    assert (bare.score, bare.term_coverage, bare.lexical, bare.signals) == (0.6, 0.0, 0.0, {})
    assert _policy(level="entities").word_scores(0.7, 0.8) == (0.0, 0.0)
    with pytest.raises(PermissionDeniedError):
        _policy(answer_probes=False).admit_probe()
    with pytest.raises(PermissionDeniedError):
        _policy(answer_probes=False).probe(EVIDENCE)


def test_naming_audit_and_summaries_follow_the_settings() -> None:
    assert _policy(level="summaries_only").unnamed and not _policy().unnamed
    long_question = "why " * 100
    assert _policy().audited_question(long_question) == long_question[:200]
    assert _policy(audit_content=True).audited_question(long_question) == long_question
    assert _policy().audited_texts(["a"]) == {} and _policy(audit_content=True).audited_texts(["a"]) == {"texts": ["a"]}
    card = SummaryCard("s1", 0, DOC, ("Zephyr Medical",), 1)
    changes = SummaryChanges(upserts=(card,), tombstones=(), up_to_seq=1, full=True)
    assert _policy().summaries(changes) == (changes, 0)
    guarded, replaced = _policy(level="entities").summaries(changes)
    assert replaced == 1 and guarded.upserts[0].text == "A part of this edge's knowledge about: Zephyr Medical."
