"""The full query path of one edge, orchestrated: the local answer and its gate, then, as the gate and the
evidence check decide (edge_node.query.escalation), the answer here, the cloud's answer or an extract with a note.
Without ``gate.read_first`` (the default) the question goes to the cloud at once, and the edge's model reads it only
when the cloud cannot be asked.
It runs on the event loop; every use of the knowledge base and the models goes to the runtime's one worker."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from edge_node.policy.audit import AuditLog
from edge_node.policy.outbound import OutboundPolicy
from edge_node.query.answering import LocalAnswer, QueryService, Retrieved, shown_here
from edge_node.query.edge_answer import (
    CLOUD_DOWN_NOTE,
    OFFLINE_NOTE,
    QUOTES_DOCUMENTS_NOTE,
    STRONGER_ELSEWHERE_NOTE,
    EdgeAnswer,
    Escalator,
    EvidenceChecker,
)
from edge_node.query.escalation import Action, Check, Situation, decide, first_check_margin, settled, signals_of
from edge_node.query.retrieval import Retrieval
from shared.config import EdgeConfig
from shared.core.errors import CloudUnavailableError
from shared.core.knowledge import CloudAnswer, EvidenceClaim
from shared.core.model_api import TextSink
from shared.core.trace import Decision
from shared.core.vocabulary import EdgeMode
from shared.transport.tracing import phase

OnWorker = Callable[..., Awaitable[Any]]
"""Runs a blocking function on the runtime's worker thread."""


class FullQuery:
    """One edge's full query path (mode local stops after the local answer)."""

    def __init__(
        self, config: EdgeConfig, query: QueryService, outbound: OutboundPolicy, audit: AuditLog, run: OnWorker
    ) -> None:
        self.config = config
        self.edge_id = config.edge_id
        self._query = query
        self.outbound = outbound
        self.audit = audit
        self._run = run

    async def answer(
        self,
        question: str,
        mode: EdgeMode,
        escalator: Escalator | None,
        on_text: TextSink | None = None,
    ) -> EdgeAnswer:
        """The answer to show; ``on_text`` receives the cloud model's draft as it comes when the question is
        escalated (an answer of the evidence check's single round trip comes whole)."""
        found: Retrieved = await self._run(self._query.find, question)
        if mode != "full" or escalator is None:  # the local path's own decision: its answer, or an extract
            return _shown(await self._run(self._query.read, found))
        run = await self._run(self.outbound.quoted_run, question) if self.outbound.guards_questions else ""
        checker = escalator if self.config.gate.check_other_edges and isinstance(escalator, EvidenceChecker) else None
        out = _shown(found.unread())
        if not self.config.gate.read_first and not run:  # the cloud reads it; the edge's model only if it cannot
            return await self._escalate(question, out.local, escalator, out, on_text, unread=found)
        first: float | None = None
        reachable = True
        if checker is not None and not run:  # asked before the edge's model reads (escalation.first_check_margin)
            first = first_check_margin(self.config.gate)
            check, cloud = await self._check(question, found.retrieval, checker, first, out)
            if check == Check.STRONGER_ELSEWHERE:  # every band escalates: the local reading is skipped
                if cloud is not None:
                    return self._from_cloud(cloud, out.local, out)
                return await self._escalate(question, out.local, escalator, out, on_text)
            reachable = check != Check.UNREACHABLE
        local: LocalAnswer = await self._run(self._query.read, found)
        out = dataclasses.replace(_shown(local), note=out.note or local.note, timings={**out.timings, **local.timings})
        if local.gate is None:
            return out
        signals = signals_of(local.gate, local.composed)
        situation = Situation(cloud=reachable, checking=checker is not None, keeps_home=bool(run))
        outcome = decide(signals, self.config.gate, situation)  # the one decision: the whole plan
        if outcome.withheld is not None:  # audited: what the question would have been sent for
            kind = "evidence_check" if outcome.withheld == Action.CHECK else "global_query"
            self.audit.record("withheld", "cloud", 0, kind=kind, reason="quotes a document")
        if run and outcome.action == Action.EXTRACT:
            return self._extract(local, out, QUOTES_DOCUMENTS_NOTE.format(run=run))
        if outcome.action == Action.CHECK and checker is not None:
            if first is not None and settled(outcome, first):  # the first check's "not stronger" answers it
                outcome = outcome.after(Check.NOT_STRONGER)
            else:
                margin = outcome.check_margin or 0.0
                check, cloud = await self._check(question, local.retrieval, checker, margin, out, "evidence_recheck")
                if cloud is not None:  # another edge was stronger and the cloud answered in the same call
                    return self._from_cloud(cloud, local, out)
                outcome = outcome.after(check)
        if outcome.action == Action.EXTRACT:
            return self._extract(local, out, out.note)
        if outcome.action == Action.ANSWER_HERE:
            return self._here(local, out)
        return await self._escalate(question, local, escalator, out, on_text)

    def _here(self, local: LocalAnswer, out: EdgeAnswer) -> EdgeAnswer:
        """The local answer, as composed from the evidence (also when the gate alone would have escalated it); it
        keeps the evidence check's note that an edge which may know more is offline."""
        note = out.note if out.note == OFFLINE_NOTE else ""
        out.answer, out.decision, out.verified = shown_here(
            local.question, local.retrieval, local.composed, Action.ANSWER_HERE
        )
        out.note = note
        return out

    def _extract(self, local: LocalAnswer, out: EdgeAnswer, note: str) -> EdgeAnswer:
        out.answer, out.decision, out.verified = shown_here(
            local.question, local.retrieval, local.composed, Action.EXTRACT
        )
        out.note = note
        return out

    async def _escalate(
        self,
        question: str,
        local: LocalAnswer,
        escalator: Escalator,
        out: EdgeAnswer,
        on_text: TextSink | None,
        unread: Retrieved | None = None,
    ) -> EdgeAnswer:
        """The cloud's answer; when the cloud cannot be asked, the local one: read now if it was ``unread``, shown
        where the gate trusts it, else an extract of the evidence."""
        vectors = local.retrieval.vectors  # the link records what the call carries before it leaves
        try:
            with phase(out.timings, "escalation"):
                cloud = await escalator.global_query(question, self.edge_id, vectors=vectors, on_text=on_text)
        except CloudUnavailableError as exc:
            note = CLOUD_DOWN_NOTE.format(why=exc)
            if unread is None:
                return self._extract(local, out, note)
            local = await self._run(self._query.read, unread)
            out = dataclasses.replace(_shown(local), timings={**out.timings, **local.timings})
            if local.gate is None:  # nothing to read: the local path's own answer, with why the cloud did not
                return dataclasses.replace(out, note=note)
            alone = decide(signals_of(local.gate, local.composed), self.config.gate, Situation(cloud=False))
            if alone.action == Action.ANSWER_HERE:
                return dataclasses.replace(self._here(local, out), note=note)
            return self._extract(local, out, note)
        return self._from_cloud(cloud, local, out)

    def _from_cloud(self, cloud: CloudAnswer, local: LocalAnswer, out: EdgeAnswer) -> EdgeAnswer:
        for name, seconds in cloud.timings.items():
            out.timings[f"cloud.{name}"] = seconds
        note = out.note if out.note == STRONGER_ELSEWHERE_NOTE else ""  # not the local path's "no cloud" note
        if cloud.matched_offline:
            note = OFFLINE_NOTE
        if cloud.edges_failed:
            note = f"edges {', '.join(cloud.edges_failed)} did not answer in time; the answer uses the others"
        return EdgeAnswer(cloud.answer, Decision.CLOUD, True, note, local, cloud, out.timings)

    async def _check(
        self,
        question: str,
        retrieval: Retrieval,
        checker: EvidenceChecker,
        margin: float,
        out: EdgeAnswer,
        timed_as: str = "evidence_check",
    ) -> tuple[Check, CloudAnswer | None]:
        """Ask the cloud whether another edge's evidence beats this edge's by ``margin`` (edge_node.query.escalation),
        and for its answer when it does. The question leaves the edge for it (the link audits it)."""
        own = retrieval.evidence
        vectors = retrieval.vectors
        terms, lexical = self.outbound.word_scores(own.term_coverage, own.lexical)
        claim = EvidenceClaim(own.score, terms, lexical, margin)
        try:
            with phase(out.timings, timed_as):
                verdict = await checker.check_evidence(question, claim, vectors)
        except CloudUnavailableError as exc:
            out.note = CLOUD_DOWN_NOTE.format(why=exc)
            return Check.UNREACHABLE, None
        if verdict.stronger:
            out.note = STRONGER_ELSEWHERE_NOTE
            return Check.STRONGER_ELSEWHERE, verdict.answer
        if verdict.matched_offline:
            out.note = OFFLINE_NOTE
        return Check.NOT_STRONGER, None


def _shown(local: LocalAnswer) -> EdgeAnswer:
    """The local path's answer as the edge would show it with no cloud."""
    return EdgeAnswer(local.answer, local.decision, local.verified, local.note, local, None, dict(local.timings))
