"""The stay-or-escalate decision, the only one an edge makes: one pure function of the local answer's signals and
the setting, called once per question. Its settings are the ``[gate]`` section. It returns the whole plan (what to
do, and for an evidence check what to do on each reply), and the runtime only carries it out. The gate
(edge_node.query.gate) scores; it decides nothing.

The gate's score and refusal share place a local answer in one of three bands:

- **trusted** (score >= ``threshold``, refusals below ``refusal_share``): answered here, unless the evidence check
  finds another edge whose knowledge matches the question clearly better (its score beats this edge's own by
  more than ``evidence_margin``);
- **doubtful** (score >= ``check_threshold``, refusals below ``check_refusal_share``, but not trusted): answered
  here only when this edge's evidence clearly beats every other edge's (by ``stay_margin``); the check asks the
  cloud exactly that, so a question two edges match alike goes to the cloud;
- **untrusted** (below both): escalated at once.

A local answer whose confidence is below ``min_local_confidence``, or whose yes/no verdict was withheld for its
low confidence (``answer.withhold_below``), is escalated whatever its band: the edge's small model reads that
question no better than a guess, and the cloud's larger model may. So is a local answer that gives none (a
decline, or an extract for lack of a usable generation), and one that no passage holds (an unsupported answer,
shared.reading.passage_reader): the cloud's model and the other edges may find one. Without a cloud, an unsupported
answer is never shown: the evidence's extract is.

The evidence check is asked first, before the edge's model reads the question, at :func:`first_check_margin`:
another edge stronger by that margin escalates the question in every band, so the local reading (about 1.5 s of
the edge's model on 2 cores) is skipped. Otherwise the local answer is read and decided as above; its own check is
asked again only when its margin is below the first one (:func:`settled`).

With no cloud to ask (mode local, the cloud unreachable, or a question that quotes documents the privacy policy
keeps home), a trusted answer is shown and anything else becomes an extract of the evidence, never an untrusted
generation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from shared.config import GateConfig
from shared.core.trace import GateTrace
from shared.reading.answer import Answer


class Action(StrEnum):
    ANSWER_HERE = "answer_here"
    CHECK = "check"
    """Ask the cloud whether another edge beats this one by ``check_margin`` (CheckEvidence), then decide again."""
    ESCALATE = "escalate"
    EXTRACT = "extract"
    """Show the evidence's best sentences with their sources (no trusted answer, no cloud to ask)."""


class Check(StrEnum):
    """What the evidence check said."""

    STRONGER_ELSEWHERE = "stronger_elsewhere"
    NOT_STRONGER = "not_stronger"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class Signals:
    """What the gate measured of the local answers, and how sure the composed answer is."""

    score: float
    refusal_share: float
    confidence: float = 1.0
    """The composed local answer's probability of being right (shared.reading.confidence)."""
    verdict: bool = True
    """The local answer gives a verdict (not a decline, nor the lines of an unsettled shape)."""
    withheld: bool = False
    """The local yes/no verdict was withheld for its low confidence (the answer says can't tell)."""
    backed: bool = True
    """The local answer is words of its passages or a verdict (shared.reading.passage_reader): not unsupported."""


@dataclass(frozen=True)
class Situation:
    """What the edge can do for this question."""

    cloud: bool
    """A cloud is configured and the mode lets the question go to it."""
    checking: bool = True
    """The evidence check may run (gate.check_other_edges, not ablated, and the cloud offers it)."""
    keeps_home: bool = False
    """The question quotes this edge's documents and its privacy policy keeps raw text home: it may not leave."""


@dataclass(frozen=True)
class Outcome:
    action: Action
    reason: str
    check_margin: float | None = None
    """For CHECK: the margin by which another edge's evidence must beat this edge's for the question to escalate
    (negative: this edge must lead by that much to keep it)."""
    replies: Mapping[Check, Outcome] = field(default_factory=dict)
    """For CHECK: what to do on each reply of the check."""
    withheld: Action | None = None
    """For a question kept home: what it would have been sent to the cloud for (CHECK or ESCALATE), for the audit."""

    def after(self, reply: Check) -> Outcome:
        """What to do once the evidence check replied ``reply`` (only for a CHECK)."""
        return self.replies[reply]


def signals_of(gate: GateTrace, composed: Answer | None) -> Signals:
    """The decision's inputs: the gate's scores and the composed answer's confidence and verdict."""
    confidence = composed.confidence.probability if composed is not None else 0.0
    verdict = composed is not None and composed.verdict
    backed = composed is not None and composed.reader in BACKED_READERS
    withheld = composed is not None and bool(composed.withheld)
    return Signals(gate.score, gate.refusal_share, confidence, verdict, withheld, backed)


BACKED_READERS = ("span", "verdict")
"""Readers whose answer its passages back: words a passage holds, or a verdict on them."""


def trusted(signals: Signals, gate: GateConfig) -> bool:
    return not distrust(signals, gate)


def distrust(signals: Signals, gate: GateConfig) -> tuple[str, ...]:
    """Why the gate's signals do not let the local answer stand alone (empty: trusted)."""
    reasons: list[str] = []
    if signals.refusal_share >= gate.refusal_share:
        share = f"{signals.refusal_share:.0%}"
        reasons.append(f"{share} of the answers declare missing information, are degenerate or unsupported")
    if signals.score < gate.threshold:
        reasons.append(f"score {signals.score:.3f} < threshold {gate.threshold:.3f}")
    if not signals.backed:
        reasons.append("no passage holds the answer's words")
    return tuple(reasons)


def unread(signals: Signals, gate: GateConfig) -> bool:
    """The local answer is a guess of the small model: a verdict whose confidence is below gate.min_local_confidence."""
    return signals.verdict and signals.confidence < gate.min_local_confidence


def doubtful(signals: Signals, gate: GateConfig) -> bool:
    return signals.score >= gate.check_threshold and signals.refusal_share < gate.check_refusal_share


def first_check_margin(gate: GateConfig) -> float:
    """The margin of the check asked before the local reading: the larger of the trusted band's
    (``evidence_margin``) and the doubtful band's (``-stay_margin``), so that a "stronger" reply escalates whatever
    the local answer would be (an untrusted one escalates anyway)."""
    return max(gate.evidence_margin, -gate.stay_margin)


def settled(outcome: Outcome, first: float) -> bool:
    """A "not stronger" reply at margin ``first`` also answers ``outcome``'s check: no edge beats this one by
    ``first``, so none beats it by a larger margin."""
    return outcome.action == Action.CHECK and outcome.check_margin is not None and outcome.check_margin >= first


def decide(signals: Signals, gate: GateConfig, situation: Situation) -> Outcome:
    """The plan for a local answer (see the module's docstring for the rule)."""
    outcome = _rule(signals, gate, situation, None)
    if outcome.action == Action.CHECK:
        outcome = dataclasses.replace(outcome, replies={c: _rule(signals, gate, situation, c) for c in Check})
    if situation.keeps_home:
        sent = _rule(signals, gate, dataclasses.replace(situation, keeps_home=False), None).action
        outcome = dataclasses.replace(outcome, withheld=sent if sent in (Action.CHECK, Action.ESCALATE) else None)
    return outcome


def _rule(signals: Signals, gate: GateConfig, situation: Situation, check: Check | None) -> Outcome:
    sure = trusted(signals, gate)
    if not situation.cloud or situation.keeps_home or check == Check.UNREACHABLE:
        why = (
            "no cloud to ask"
            if not situation.cloud
            else ("the question quotes documents kept home" if situation.keeps_home else "the cloud could not be asked")
        )
        return Outcome(Action.ANSWER_HERE, f"trusted; {why}") if sure else Outcome(Action.EXTRACT, f"untrusted; {why}")
    if check == Check.STRONGER_ELSEWHERE:
        return Outcome(Action.ESCALATE, "another edge's evidence matches the question better")
    if unread(signals, gate):
        return Outcome(Action.ESCALATE, "the edge's model reads this question no better than a guess")
    if signals.withheld:
        return Outcome(Action.ESCALATE, "the edge's verdict is too unsure to show; the cloud's model may read it")
    if not signals.verdict:
        return Outcome(Action.ESCALATE, "the edge's reading gave no answer; the cloud's model may find one")
    if not signals.backed:
        return Outcome(Action.ESCALATE, "no passage holds the edge's answer; the cloud's model may read it")
    if check == Check.NOT_STRONGER:
        return Outcome(Action.ANSWER_HERE, "trusted and checked" if sure else "doubtful, but this edge leads")
    if situation.checking and sure:
        return Outcome(Action.CHECK, "trusted; checking other edges", gate.evidence_margin)
    if situation.checking and doubtful(signals, gate):
        return Outcome(Action.CHECK, "doubtful; kept only if this edge leads", -gate.stay_margin)
    if sure:
        return Outcome(Action.ANSWER_HERE, "trusted")
    return Outcome(Action.ESCALATE, "untrusted")
