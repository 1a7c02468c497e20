"""Every decision about what may leave this edge, in one object the runtime, the session outbox and the cloud link
ask (they never decide themselves).

The content rules are in :mod:`edge_node.policy.privacy` (what a retrieval reply, a probe reply or a summary may
carry) and :mod:`edge_node.policy.audit` (how much of a question an audit entry keeps); :class:`OutboundPolicy`
applies them with this edge's privacy settings, its leak guard and its document-id key. Methods that read the
store (the leak guard) run on the edge's worker thread, like every other use of the store.
"""

from __future__ import annotations

from typing import Any

from edge_node.policy.audit import audited_question
from edge_node.policy.chunk_commitment import CommittedChunks
from edge_node.policy.leak_guard import LeakGuard
from edge_node.policy.privacy import (
    Outbound,
    forbids_raw_text,
    guard_summaries,
    knowledge_for_cloud,
    knowledge_texts,
    probe_reply,
    stays_unnamed,
    word_scores,
)
from edge_node.query.retrieval import Evidence, Retrieval
from shared.config import PrivacyConfig
from shared.core.errors import PermissionDeniedError
from shared.core.knowledge import PROBES_REFUSED, EdgeKnowledge, ProbeScores, SummaryChanges


class OutboundPolicy:
    """This edge's privacy settings applied to each kind of message that leaves it."""

    def __init__(
        self,
        edge_id: str,
        privacy: PrivacyConfig,
        guard: LeakGuard,
        id_key: bytes,
        commitment: CommittedChunks | None = None,
    ) -> None:
        self.edge_id = edge_id
        self.privacy = privacy
        self._guard = guard
        self._id_key = id_key
        self._commitment = commitment if not forbids_raw_text(privacy) else None

    @property
    def unnamed(self) -> bool:
        """Whether askers may not learn that this edge exists; said in the session's hello."""
        return stays_unnamed(self.privacy)

    @property
    def guards_questions(self) -> bool:
        """Whether a question must be checked for quoting a document before it leaves (raw text stays home)."""
        return forbids_raw_text(self.privacy)

    def quoted_run(self, question: str) -> str:
        """The run of a document ``question`` quotes when the policy keeps raw text home (then the question may not
        leave), else "". Reads the store: run it on the edge's worker, and only when :attr:`guards_questions`."""
        if not self.guards_questions:
            return ""
        return self._guard.shared_run(question) or ""

    def knowledge(self, retrieval: Retrieval) -> Outbound:
        """The part of ``retrieval`` that may leave, for a retrieval reply."""
        return knowledge_for_cloud(self.edge_id, retrieval, self.privacy, self._guard, self._id_key, self._commitment)

    def chunk_root(self) -> bytes:
        """The root of this edge's chunk commitment, published with its summaries; empty when no chunk may leave.
        Reads the store: run it on the edge's worker."""
        return self._commitment.root() if self._commitment is not None else b""

    def admit_probe(self) -> None:
        """PermissionDeniedError when the policy turns probes off (asked before any retrieval is spent on one)."""
        if not self.privacy.answer_probes:
            raise PermissionDeniedError(PROBES_REFUSED)

    def probe(self, evidence: Evidence) -> ProbeScores:
        """The scores a probe reply may carry; PermissionDeniedError when the policy turns probes off."""
        self.admit_probe()
        return probe_reply(self.edge_id, evidence, self.privacy)

    def word_scores(self, term_coverage: float, lexical: float) -> tuple[float, float]:
        """Term and lexical coverage as an evidence check may carry them."""
        return word_scores(self.privacy, term_coverage, lexical)

    def summaries(self, changes: SummaryChanges) -> tuple[SummaryChanges, int]:
        """Summaries as they may leave, and how many were replaced for quoting a document."""
        return guard_summaries(changes, self.privacy, self._guard)

    def audited_question(self, question: str) -> str:
        """A question as the audit log records it (all of it with privacy.audit_content, else its start)."""
        return audited_question(question, self.privacy.audit_content)

    def audited_texts(self, texts: list[str]) -> dict[str, Any]:
        """The texts of a message as its audit entry carries them: only with privacy.audit_content."""
        return {"texts": texts} if self.privacy.audit_content else {}

    def audited_knowledge(self, knowledge: EdgeKnowledge) -> dict[str, Any]:
        return self.audited_texts(knowledge_texts(knowledge))
