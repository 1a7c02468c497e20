"""The stay-or-escalate decision as a table: signals, situation and the check's reply -> what the edge does."""

from __future__ import annotations

import dataclasses

import pytest

from edge_node.query.escalation import (
    Action,
    Check,
    Outcome,
    Signals,
    Situation,
    decide,
    first_check_margin,
    settled,
)
from shared.config import GateConfig

GATE = GateConfig(
    threshold=0.4,
    refusal_share=0.5,
    check_threshold=0.2,
    check_refusal_share=0.75,
    evidence_margin=0.1,
    stay_margin=0.05,
    min_local_confidence=0.3,
)
TRUSTED = Signals(score=0.6, refusal_share=0.0)
DOUBTFUL = Signals(score=0.3, refusal_share=0.5)  # under the threshold, refusals split 2 of 4
UNTRUSTED = Signals(score=0.1, refusal_share=0.0)
REFUSED = Signals(score=0.9, refusal_share=0.75)  # 3 of 4 answers declined
GUESSED = Signals(score=0.6, refusal_share=0.0, confidence=0.2)  # trusted by the gate, but a guess of its reader
DECLINED = Signals(score=0.6, refusal_share=0.0, confidence=0.0, verdict=False)  # trusted evidence, no answer in it
WITHHELD = Signals(score=0.6, refusal_share=0.0, confidence=0.0, verdict=False, withheld=True)  # "can't tell"
CLOUD = Situation(cloud=True)
NO_CHECK = Situation(cloud=True, checking=False)
NO_CLOUD = Situation(cloud=False)
KEPT_HOME = Situation(cloud=True, keeps_home=True)

CASES = [
    # signals, situation, check reply, action, check margin
    (TRUSTED, CLOUD, None, Action.CHECK, 0.1),
    (DOUBTFUL, CLOUD, None, Action.CHECK, -0.05),
    (UNTRUSTED, CLOUD, None, Action.ESCALATE, None),
    (REFUSED, CLOUD, None, Action.ESCALATE, None),
    (TRUSTED, CLOUD, Check.NOT_STRONGER, Action.ANSWER_HERE, None),
    (DOUBTFUL, CLOUD, Check.NOT_STRONGER, Action.ANSWER_HERE, None),
    (TRUSTED, CLOUD, Check.STRONGER_ELSEWHERE, Action.ESCALATE, None),
    (DOUBTFUL, CLOUD, Check.STRONGER_ELSEWHERE, Action.ESCALATE, None),
    (TRUSTED, CLOUD, Check.UNREACHABLE, Action.ANSWER_HERE, None),
    (DOUBTFUL, CLOUD, Check.UNREACHABLE, Action.EXTRACT, None),
    (TRUSTED, NO_CHECK, None, Action.ANSWER_HERE, None),
    (DOUBTFUL, NO_CHECK, None, Action.ESCALATE, None),
    (TRUSTED, NO_CLOUD, None, Action.ANSWER_HERE, None),
    (DOUBTFUL, NO_CLOUD, None, Action.EXTRACT, None),
    (UNTRUSTED, NO_CLOUD, None, Action.EXTRACT, None),
    (TRUSTED, KEPT_HOME, None, Action.ANSWER_HERE, None),
    (DOUBTFUL, KEPT_HOME, None, Action.EXTRACT, None),
    (GUESSED, CLOUD, None, Action.ESCALATE, None),
    (GUESSED, NO_CLOUD, None, Action.ANSWER_HERE, None),
    (GUESSED, KEPT_HOME, None, Action.ANSWER_HERE, None),
    (DECLINED, CLOUD, None, Action.ESCALATE, None),
    (DECLINED, NO_CLOUD, None, Action.ANSWER_HERE, None),
    (DECLINED, KEPT_HOME, None, Action.ANSWER_HERE, None),
    (WITHHELD, CLOUD, None, Action.ESCALATE, None),
    (WITHHELD, NO_CLOUD, None, Action.ANSWER_HERE, None),
]


@pytest.mark.parametrize(("signals", "situation", "check", "action", "margin"), CASES)
def test_decision_table(
    signals: Signals, situation: Situation, check: Check | None, action: Action, margin: float | None
) -> None:
    outcome = decide(signals, GATE, situation)
    if check is not None:
        assert outcome.action == Action.CHECK, "a reply is planned for only where the check is asked"
        outcome = outcome.after(check)
    assert outcome.action == action, outcome.reason
    assert outcome.check_margin == margin
    assert outcome.reason


def test_the_band_edges_are_inclusive_below_and_exclusive_above() -> None:
    assert decide(Signals(0.4, 0.0), GATE, CLOUD).check_margin == 0.1  # at the threshold: trusted
    assert decide(Signals(0.2, 0.0), GATE, CLOUD).check_margin == -0.05  # at check_threshold: doubtful
    assert decide(Signals(0.3, 0.75), GATE, CLOUD).action == Action.ESCALATE  # at check_refusal_share


def test_a_question_kept_home_records_what_it_would_have_been_sent_for() -> None:
    assert decide(UNTRUSTED, GATE, KEPT_HOME).withheld == Action.ESCALATE
    assert decide(TRUSTED, GATE, KEPT_HOME).withheld == Action.CHECK
    assert decide(WITHHELD, GATE, KEPT_HOME).withheld == Action.ESCALATE, "an unsure verdict would go to the cloud"
    assert decide(TRUSTED, GATE, CLOUD).withheld is None


def test_a_check_plans_every_reply_once() -> None:
    outcome = decide(DOUBTFUL, GATE, CLOUD)
    assert set(outcome.replies) == set(Check)
    assert outcome.after(Check.UNREACHABLE).action == Action.EXTRACT


def test_the_first_check_margin_escalates_every_band_and_settles_the_larger_margin() -> None:
    gate = GateConfig(evidence_margin=0.05, stay_margin=-0.1)
    first = first_check_margin(gate)
    assert first == 0.1, "the larger of the trusted (0.05) and the doubtful (0.1) band's margins"
    doubtful = Outcome(Action.CHECK, "doubtful", 0.1)
    trusted = Outcome(Action.CHECK, "trusted", 0.05)
    assert settled(doubtful, first) and not settled(trusted, first), "a smaller margin is asked again"
    assert not settled(Outcome(Action.ESCALATE, "untrusted"), first)
    assert first_check_margin(GateConfig(evidence_margin=0.3, stay_margin=0.0)) == 0.3


def test_an_answer_no_passage_holds_is_sent_on_or_never_shown_without_a_cloud() -> None:
    unbacked = dataclasses.replace(TRUSTED, backed=False)
    assert decide(unbacked, GATE, Situation(cloud=True)).action == Action.ESCALATE
    assert decide(unbacked, GATE, Situation(cloud=False)).action == Action.EXTRACT
    assert decide(TRUSTED, GATE, Situation(cloud=False)).action == Action.ANSWER_HERE
