"""Which edges are connected, and the request/reply plumbing over their session streams (transport-free).

Each connected edge has one session: an outbox of retrieval requests that the servicer writes down the
edge's stream, and futures for the replies that come back up it. A newer session of the same edge
replaces the older one (the older one's pending requests fail at once, so nobody waits for a dead stream).
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.core.errors import DgragError
from shared.core.knowledge import EdgeKnowledge, ProbeScores
from shared.core.query_vectors import QueryVectors
from shared.transport.tracing import client_span, current_traceparent


class EdgeUnavailableError(DgragError):
    """The edge is not connected, its session ended, or it replied with an error."""


@dataclass(frozen=True)
class RetrievalCall:
    """A retrieval request (or, with ``probe``, a probe for scores only) to write down an edge's stream."""

    request_id: str
    question: str
    deadline_s: float
    probe: bool = False
    vectors: QueryVectors | None = None
    """The cloud's embeddings of the question, sent along so the edge need not compute them."""
    traceparent: str = ""
    """The trace context of the cloud's span for this request ("" when not traced)."""


@dataclass
class EdgeSession:
    """One live session of one edge."""

    edge_id: str
    serial: int
    connected_since: float
    last_heartbeat: float
    outbox: asyncio.Queue[RetrievalCall | None] = field(default_factory=asyncio.Queue)
    pending: dict[str, asyncio.Future[Any]] = field(default_factory=dict)
    closed: bool = False
    chunk_root: bytes = b""
    """The root of the edge's chunk commitment, from its last sync or delta (shared.core.chunk_commitment)."""


@dataclass(frozen=True)
class EdgeStatus:
    edge_id: str
    connected: bool
    connected_since: float
    last_heartbeat: float
    summaries: int
    trust: float = 1.0
    """How far the cloud believes the edge's probe claims (see claim_check)."""
    over_claim: float = 0.0
    checked: int = 0
    flagged: bool = False


class EdgeRegistry:
    """Live sessions by edge id; used from one event loop."""

    def __init__(self, heartbeat_interval_s: float) -> None:
        self._sessions: dict[str, EdgeSession] = {}
        self._last_seen: dict[str, EdgeSession] = {}
        self._serial = itertools.count(1)
        self._heartbeat_interval_s = heartbeat_interval_s
        self.unnamed: set[str] = set()
        """Edges that asked to be kept out of what askers see (their summaries alone leave them)."""
        self._quotable: set[str] = set()
        """Edges whose policy lets answers quote them (privacy.answers = "quote", said in their hello)."""

    def attach(self, edge_id: str, unnamed: bool = False, quotable: bool = False) -> EdgeSession:
        """Register a new session for ``edge_id``, replacing (and closing) any older one; ``unnamed``: the edge
        asks to be kept out of what askers see; ``quotable``: its policy lets answers quote it."""
        for flagged, edges in ((unnamed, self.unnamed), (quotable and not unnamed, self._quotable)):
            if flagged:
                edges.add(edge_id)
            else:
                edges.discard(edge_id)
        old = self._sessions.get(edge_id)
        if old is not None:
            self._close(old, "the edge opened a newer session")
        now = time.time()
        session = EdgeSession(edge_id, next(self._serial), now, now)
        self._sessions[edge_id] = session
        self._last_seen[edge_id] = session
        return session

    def detach(self, session: EdgeSession) -> None:
        """End ``session`` (its stream closed); pending requests fail."""
        self._close(session, "the edge's session ended")
        if self._sessions.get(session.edge_id) is session:
            del self._sessions[session.edge_id]

    def quotable(self, edge_id: str) -> bool:
        """Whether ``edge_id``'s policy lets answers quote it (an edge not heard from this run: no)."""
        return edge_id in self._quotable

    def heartbeat(self, session: EdgeSession) -> None:
        session.last_heartbeat = time.time()

    def chunk_roots(self) -> dict[str, bytes]:
        """Each connected edge's chunk commitment root as it stands (taken when a question arrives: a root sent
        after it cannot prove a chunk held before it)."""
        return {e: s.chunk_root for e, s in self._sessions.items() if s.chunk_root}

    def connected(self, edge_id: str) -> bool:
        return edge_id in self._sessions

    def offline_among(self, edge_ids: Sequence[str], asked_at: str = "") -> bool:
        """Whether an edge of ``edge_ids`` (not ``asked_at``, nor one that asked to stay unnamed) is not live."""
        return any(not self.live(e) for e in edge_ids if e != asked_at and e not in self.unnamed)

    def live(self, edge_id: str) -> bool:
        """Connected and heard from within 3 heartbeat intervals (a hung edge whose stream is still open is
        not asked: it would only use up the deadline)."""
        session = self._sessions.get(edge_id)
        return session is not None and time.time() - session.last_heartbeat <= 3 * self._heartbeat_interval_s

    async def retrieve(
        self, edge_id: str, question: str, deadline_s: float, vectors: QueryVectors | None = None
    ) -> EdgeKnowledge:
        """Ask ``edge_id`` for its knowledge about ``question``; raises on no session, error or timeout."""
        knowledge: EdgeKnowledge = await self._call(edge_id, RetrievalCall("", question, deadline_s, False, vectors))
        return knowledge

    async def probe(
        self, edge_id: str, question: str, deadline_s: float, vectors: QueryVectors | None = None
    ) -> ProbeScores:
        """Ask ``edge_id`` how well its knowledge matches ``question`` (scores only); raises like retrieve."""
        scores: ProbeScores = await self._call(edge_id, RetrievalCall("", question, deadline_s, True, vectors))
        return scores

    async def _call(self, edge_id: str, call: RetrievalCall) -> Any:
        with client_span("cloud.ask_edge", edge=edge_id, probe=call.probe):
            session = self._sessions.get(edge_id)
            if session is None:
                raise EdgeUnavailableError(f"edge {edge_id!r} is not connected")
            request_id = f"{session.serial}-{next(self._serial)}"
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            session.pending[request_id] = future
            sent = dataclasses.replace(call, request_id=request_id, traceparent=current_traceparent())
            session.outbox.put_nowait(sent)
            try:
                return await asyncio.wait_for(future, timeout=call.deadline_s)
            finally:
                session.pending.pop(request_id, None)

    def resolve(
        self, session: EdgeSession, request_id: str, result: EdgeKnowledge | ProbeScores | None, error: str
    ) -> None:
        """Deliver an edge's reply (knowledge or probe scores) to whoever asked; late or unknown replies are
        dropped."""
        future = session.pending.get(request_id)
        if future is None or future.done():
            return
        if error or result is None:
            future.set_exception(EdgeUnavailableError(f"edge {session.edge_id!r} could not answer: {error}"))
        else:
            future.set_result(result)

    def statuses(self, summaries_of: dict[str, int]) -> list[EdgeStatus]:
        """Every edge seen since start, with whether it is connected now."""
        stale_after = 3 * self._heartbeat_interval_s
        now = time.time()
        out = []
        for edge_id in sorted(set(self._last_seen) | set(summaries_of)):
            s = self._sessions.get(edge_id) or self._last_seen.get(edge_id)
            live = edge_id in self._sessions and now - self._sessions[edge_id].last_heartbeat <= stale_after
            out.append(
                EdgeStatus(
                    edge_id,
                    live,
                    s.connected_since if s else 0.0,
                    s.last_heartbeat if s else 0.0,
                    summaries_of.get(edge_id, 0),
                )
            )
        return out

    def _close(self, session: EdgeSession, why: str) -> None:
        if session.closed:
            return
        session.closed = True
        for future in session.pending.values():
            if not future.done():
                future.set_exception(EdgeUnavailableError(f"edge {session.edge_id!r}: {why}"))
        session.outbox.put_nowait(None)
