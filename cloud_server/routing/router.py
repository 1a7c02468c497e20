"""Which edges a question goes to: the one place the cloud decides it (transport-free).

:meth:`Router.route` takes a question and what is known of the asker and the edges, and returns a :class:`Route`:
the summaries matched, the edges probed and their scores, the edges chosen, those that failed or are offline.
Stage 1 matches the question against every edge's summaries (dense and sparse). Stage 2, when probing is on,
probes the shortlisted edges for retrieval scores (numbers only). The claim ledger's distrust weighs in, and a
:class:`RoutingStrategy` chooses from the candidates. The evidence check an edge asks for
(:meth:`Router.stronger_elsewhere`) searches and probes through the same router.

A strategy is an object with one method (:meth:`RoutingStrategy.choose`), handed to the cloud in Python
(``cloud_server.api.build_cloud(..., strategy=...)``); without one, :class:`ProbeStrategy` chooses (stage 2's
adaptive k, cloud_server.routing.choice). A running server never imports code a configuration names.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from cloud_server.routing.choice import ProbeRouting, choose_edges, probes_unanswered
from cloud_server.routing.claim_check import ClaimLedger
from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.sessions.edge_registry import EdgeRegistry, EdgeUnavailableError
from shared.config import CloudQueryConfig
from shared.core.knowledge import ProbeScores, SummaryMatch
from shared.core.model_api import FloatMatrix
from shared.core.query_vectors import QueryVectors
from shared.transport.tracing import phase, span

RANKED_SUMMARIES = 5
"""Summaries reported per answer (at least top-m), so summary hit@1..5 can be measured from one query."""
CHECK_SHORTLIST = 3
"""Other edges probed by an evidence check when the config sets no probe shortlist."""


@dataclass(frozen=True)
class Candidates:
    """What a strategy chooses from."""

    probes: Sequence[ProbeScores]
    """The shortlisted edges' probe scores, as the cloud believes them (claims discounted, distrusted refusers
    left out)."""
    summaries: Sequence[SummaryMatch]
    """The live edges' summaries matched, best first."""
    k: int
    """At most this many edges are asked."""


@runtime_checkable
class RoutingStrategy(Protocol):
    """Chooses the edges to ask once stage 2 has probed."""

    def choose(self, candidates: Candidates) -> list[str]:
        """The edges to ask, best first."""
        ...


class ProbeStrategy:
    """Stage 2's adaptive k (cloud_server.routing.choice.ProbeRouting.choose)."""

    def __init__(self, config: CloudQueryConfig) -> None:
        self._probing = ProbeRouting.from_config(config)

    def choose(self, candidates: Candidates) -> list[str]:
        return self._probing.choose(candidates.probes, candidates.summaries, candidates.k)


@dataclass(frozen=True)
class RouteSettings:
    """How one question is routed: the config's settings, and what an evidence check already probed."""

    sparse_weight: float
    probing: bool
    known: tuple[ProbeScores, ...] = ()
    """Probe scores already had (an evidence check's), not asked again."""


@dataclass
class Route:
    """Where a question goes, and why."""

    summaries: list[SummaryMatch] = field(default_factory=list)
    matched_offline: bool = False
    """An edge among the best matches is not connected now."""
    probes: list[ProbeScores] = field(default_factory=list)
    probe_bytes: int = 0
    edges_asked: list[str] = field(default_factory=list)
    edges_failed: list[str] = field(default_factory=list)
    """Shortlisted edges that did not answer their probe (and were not chosen)."""


class Router:
    """The cloud's choice of edges (see the module's docstring)."""

    def __init__(
        self,
        index: SummaryIndex,
        registry: EdgeRegistry,
        config: CloudQueryConfig,
        claims: ClaimLedger,
        strategy: RoutingStrategy | None = None,
    ) -> None:
        """``strategy``: who chooses the edges once stage 2 has probed (default :class:`ProbeStrategy`)."""
        self._index = index
        self._registry = registry
        self._config = config
        self._probing = ProbeRouting.from_config(config)
        self._strategy = strategy or ProbeStrategy(config)
        self.claims = claims

    def settings(self, known: tuple[ProbeScores, ...] = ()) -> RouteSettings:
        return RouteSettings(
            sparse_weight=self._config.sparse_weight,
            probing=self._probing.enabled,
            known=known,
        )

    def default_k(self, settings: RouteSettings) -> int:
        """The fan-out when the caller sets none: with probes, up to the adaptive k."""
        cfg = self._config
        return max(cfg.top_k, self._probing.max_k) if settings.probing else cfg.top_k

    async def route(
        self,
        question: str,
        vector: FloatMatrix,
        vectors: QueryVectors | None,
        asked_at: str,
        m: int,
        k: int,
        settings: RouteSettings,
        timings: dict[str, float],
    ) -> Route:
        """Stage 1 (summaries), then stage 2 where probing is on; phases are timed into ``timings``."""
        out = Route()
        with phase(timings, "summary_match"):
            out.summaries = self._index.search(
                vector,
                max(m, RANKED_SUMMARIES, self._probing.shortlist),
                self._config.edge_pool,
                question,
                settings.sparse_weight,
            )
            # a disconnected or silent edge's summaries stay in the index for when it returns; not asked meanwhile
            routable = [s for s in out.summaries if self._registry.live(s.edge_id)]
            out.matched_offline = self._registry.offline_among(
                [s.edge_id for s in out.summaries[: max(m, 1)]], asked_at
            )
        if settings.probing:
            await self._stage2(question, vector, vectors, out, routable, k, settings, timings)
        else:
            out.edges_asked = choose_edges(routable[:m], k)
        return out

    async def _stage2(
        self,
        question: str,
        vector: FloatMatrix,
        vectors: QueryVectors | None,
        out: Route,
        routable: list[SummaryMatch],
        k: int,
        settings: RouteSettings,
        timings: dict[str, float],
    ) -> None:
        """Probe the shortlisted edges at once (but those ``settings.known`` holds), then let the strategy choose."""
        shortlist = choose_edges(routable, self._probing.shortlist)
        known = {p.edge_id: p for p in settings.known}
        todo = [e for e in shortlist if e not in known]
        with phase(timings, "probe", edges=len(todo)):
            fresh = await self.probe(todo, question, vectors)
        started = time.perf_counter()
        by_edge = known | {p.edge_id: p for p in fresh}
        out.probes = [by_edge[e] for e in shortlist]
        out.probe_bytes = sum(p.bytes for p in fresh)
        # a refuser is routed by its summaries alone, and not at all once they have proved to over-claim
        kept = [p for p in out.probes if not (p.refused and self.claims.distrusted(p.edge_id))]
        trusted = [self.claims.discounted(p) for p in kept]
        out.edges_asked = self._strategy.choose(Candidates(trusted, routable, k))
        # an edge that did not answer its probe (down, stuck, too late) is reported, as one that misses the fan-out
        silent = [p.edge_id for p in out.probes if p.failed]
        out.edges_failed = [e for e in silent if e not in out.edges_asked]
        timings["probe"] += time.perf_counter() - started

    async def probe(self, edges: Sequence[str], question: str, vectors: QueryVectors | None) -> list[ProbeScores]:
        """Each edge's probe scores, asked at once; an edge that does not answer in time gets an error entry."""
        deadline = self._config.probe_deadline_s
        return list(await asyncio.gather(*(self._probe_one(e, question, vectors, deadline) for e in edges)))

    async def _probe_one(
        self, edge_id: str, question: str, vectors: QueryVectors | None, deadline: float
    ) -> ProbeScores:
        sent = time.perf_counter()
        try:
            scores = await self._registry.probe(edge_id, question, deadline, vectors)
        except (EdgeUnavailableError, TimeoutError) as exc:
            return ProbeScores(edge_id, seconds=time.perf_counter() - sent, error=str(exc)[:200] or "timeout")
        return dataclasses.replace(scores, seconds=time.perf_counter() - sent)

    async def stronger_elsewhere(
        self,
        question: str,
        vector: FloatMatrix,
        vectors: QueryVectors | None,
        asked_at: str,
        mine: ProbeScores,
        lead: float,
        lexical: bool,
    ) -> tuple[bool, bool, list[ProbeScores]]:
        """Whether an edge other than ``asked_at`` probes better than ``mine`` by more than ``lead`` (scored alike:
        evidence plus weighted term and lexical coverage; without ``lexical`` on neither side). Returns that, whether
        a matching edge is offline or failed its probe, and the probes made (for an answer that follows)."""
        cfg = self._config
        size = self._probing.shortlist or CHECK_SHORTLIST
        top = max(RANKED_SUMMARIES, size + 1)
        matches = self._index.search(vector, top, cfg.edge_pool, question, cfg.sparse_weight)
        others = [s for s in matches if s.edge_id != asked_at and self._registry.live(s.edge_id)]
        offline = self._registry.offline_among([s.edge_id for s in matches if s.edge_id != asked_at][:size], asked_at)
        with span("probe"):
            probes = await self.probe(choose_edges(others, size), question, vectors)
        offline = offline or probes_unanswered(probes, self._registry.unnamed)
        scoring = self._probing if lexical else dataclasses.replace(self._probing, lexical_weight=0)
        best = max((scoring.probed(self.claims.discounted(p)) for p in probes if not p.error), default=0.0)
        return best > scoring.probed(mine) + lead, offline, probes
