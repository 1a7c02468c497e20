"""The gate's signals and the reasons they give for distrust (edge_node.query.escalation decides)."""

from __future__ import annotations

import numpy as np
import pytest

from edge_node.query.gate import (
    best_answer,
    claim_consistency,
    declares_missing,
    evaluate,
    first_word,
)
from shared.config import GateConfig
from simulation.fakes import HashEmbedder

EMBED = HashEmbedder(64)


def test_refusal_phrasing_is_detected() -> None:
    assert declares_missing("Insufficient information.")
    assert declares_missing("The context does not mention the CEO.")
    assert declares_missing("I don't know.")
    assert declares_missing("   ")
    assert not declares_missing("Sam Altman leads OpenAI.")


def test_first_word_strips_punctuation() -> None:
    assert first_word('  "Yes," the report says') == "yes"
    assert first_word("No.") == "no"
    assert first_word("") == ""


def test_claim_consistency() -> None:
    assert claim_consistency(["Yes, it did.", "Yes.", "yes it was"]) == 1.0
    assert claim_consistency(["Yes.", "No."]) == 0.0
    assert claim_consistency(["Paris hosted it.", "Berlin hosted it."]) == 0.0
    assert claim_consistency(["Paris hosted it.", "It was Paris."]) == 1.0


def test_agreeing_answers_with_strong_evidence_stay_local() -> None:
    answers = ["Sam Altman leads OpenAI."] * 3 + ["Sam Altman leads OpenAI now."]
    result = evaluate(answers, EMBED.embed(answers), evidence=0.9, config=GateConfig())
    assert result.reasons == ()
    assert result.cosine is not None and result.cosine > 0.8
    assert abs(sum(result.weights.values()) - 1.0) < 1e-9


def test_weak_evidence_escalates() -> None:
    answers = ["Sam Altman leads OpenAI."] * 4
    result = evaluate(answers, EMBED.embed(answers), evidence=0.1, config=GateConfig())
    assert result.reasons
    assert any("threshold" in r for r in result.reasons)


def test_refusals_escalate_unless_refusal_detection_is_off() -> None:
    answers = ["Insufficient information."] * 3 + ["Maybe Paris."]
    vectors = EMBED.embed(answers)
    result = evaluate(answers, vectors, evidence=1.0, config=GateConfig())
    assert result.reasons and result.refusals == 3
    off = evaluate(answers, vectors, evidence=1.0, config=GateConfig(refusal_detection=False))
    assert off.refusals == 0 and "declare" not in " ".join(off.reasons)


def test_without_similarity_only_evidence_counts() -> None:
    answers = ["Paris.", "Berlin.", "Rome.", "Oslo."]
    result = evaluate(answers, EMBED.embed(answers), evidence=0.7, config=GateConfig(similarity_evaluation=False))
    assert result.cosine is None and result.weights == {"evidence": 1.0}
    assert result.score == pytest.approx(0.7)


def test_best_answer_is_the_medoid_and_skips_refusals() -> None:
    answers = ["Insufficient information.", "Paris is the capital.", "The capital is Paris.", "Bananas."]
    vectors = np.asarray(EMBED.embed(answers))
    assert best_answer(answers, vectors) in (1, 2)


def test_degenerate_answers_count_as_refusals_and_are_never_chosen() -> None:
    answers = ["Paris hosted it.", "Paris Paris Paris Paris", "Paris Paris Paris Paris", "Paris Paris Paris Paris"]
    vectors = EMBED.embed(answers)
    result = evaluate(answers, vectors, 0.9, GateConfig(), degenerate=[False, True, True, True])
    assert result.reasons
    assert result.degenerate == 3 and result.refusals == 3
    assert result.best_index == 0  # the medoid is a loop, but a loop is never the answer shown


def test_degenerate_answers_escalate_even_without_refusal_detection() -> None:
    answers = ["Rates rose rose rose rose"] * 4
    result = evaluate(answers, EMBED.embed(answers), 1.0, GateConfig(refusal_detection=False), degenerate=[True] * 4)
    assert result.reasons


def test_an_unsupported_answer_weighs_its_configured_share_of_a_refusal() -> None:
    answers = ["Jane Doe leads Acme.", "Jane Doe leads it.", "Omar Haddad leads Acme.", "Omar runs it."]
    vectors = EMBED.embed(answers)
    unsupported = [False, False, True, True]
    half = evaluate(answers, vectors, 0.9, GateConfig(unsupported_weight=0.5), unsupported=unsupported)
    full = evaluate(answers, vectors, 0.9, GateConfig(unsupported_weight=1.0), unsupported=unsupported)
    assert half.refusal_share == 0.25 and full.refusal_share == 0.5
    assert half.reasons == () and full.reasons, "refusal_share 0.5 is distrusted"
    assert half.unsupported == full.unsupported == 2 and half.best_index in (0, 1), "never shown as the best"
