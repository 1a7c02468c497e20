"""Cross-edge retrieval and the cloud answer, transport-free.

Embed the question -> top-m summaries -> their edges, in order, up to k -> retrieval requests to those
edges in parallel with one deadline -> merge what came back in time under a token budget -> the cloud
LLM answers. The answer carries its provenance: summaries matched, edges asked, replied and failed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cloud_server.answering.answer_guard import Readers, guard_answer, protected_texts, readable, shown_context
from cloud_server.answering.cloud_reading import read_context
from cloud_server.answering.context_merge import MergedContext, merge_knowledge
from cloud_server.answering.draft_stream import DraftRelay
from cloud_server.answering.query_limits import bounded, check_fan_out, check_match, unit
from cloud_server.routing.choice import ProbeRouting, choose_edges, edge_summary_scores, probes_unanswered
from cloud_server.routing.claim_check import ClaimLedger, observe_claims, rescored
from cloud_server.routing.memory import SAVE_EVERY, open_memory, usefulness
from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.sessions.edge_registry import EdgeRegistry, EdgeUnavailableError
from cloud_server.sessions.knowledge_intake import bounded_lexical
from shared.config import CloudQueryConfig
from shared.core.ablations import NONE as NO_ABLATIONS
from shared.core.ablations import Ablations
from shared.core.errors import ResourceExhaustedError
from shared.core.knowledge import (
    CloudAnswer,
    CloudQuery,
    EdgeKnowledge,
    EvidenceClaim,
    EvidenceVerdict,
    ProbeScores,
    SummaryMatch,
)
from shared.core.model_api import Embedder, FloatMatrix, Tapped, TextGenerator, TextSink
from shared.core.query_vectors import MAX_TEXTS, QueryVectors, to_send
from shared.core.question_terms import question_terms
from shared.models.tokenizer import Tokenizer
from shared.reading.confidence import PRIOR, Calibration
from shared.transport.tracing import phase, span

CHECK_SHORTLIST = 3
"""Other edges probed by an evidence check when the config sets no probe shortlist."""
RANKED_SUMMARIES = 5
"""Summaries reported per answer (at least top-m), so summary hit@1..5 can be measured from one query."""

KnowledgeSizer = Callable[[EdgeKnowledge], int]


@dataclass(frozen=True)
class _Route:
    """How one question is routed: the config's settings less the parts switched off for it."""

    sparse_weight: float
    probing: bool
    memory: bool
    """The routing memory's prior counts in stage 2."""
    record: bool
    """The answer is remembered (not for ablated questions, so that an ablation leaves the memory as it was)."""
    known: tuple[ProbeScores, ...] = ()
    """Probe scores already had (an evidence check's), not asked again."""


class GlobalQueryService:
    """Answers questions across edges."""

    def __init__(
        self,
        index: SummaryIndex,
        registry: EdgeRegistry,
        embedder: Embedder,
        generator: TextGenerator,
        tokenizer: Tokenizer,
        config: CloudQueryConfig,
        knowledge_size: KnowledgeSizer | None = None,
        calibration: Calibration = PRIOR,
    ) -> None:
        self._index = index
        self._registry = registry
        self._embedder = embedder
        self._generator = generator
        self._tokenizer = tokenizer
        self._config = config
        self._size = knowledge_size or (lambda k: 0)
        self._calibration = calibration
        self._held: Counter[str] = Counter()
        """Places each caller holds now (their sum: the questions in flight)."""
        self._probing = ProbeRouting.from_config(config)
        self._memory = open_memory(config, embedder.dim)
        self.claims = ClaimLedger(Path(config.trust_file) if config.trust_file else None)

    async def match(self, question: str, top_m: int) -> list[SummaryMatch]:
        """The ``top_m`` summaries closest to ``question`` (no edge is asked)."""
        check_match(question, top_m or self._config.top_m, self._config)
        vector = (await asyncio.to_thread(self._embedder.embed, [question]))[0]
        cfg = self._config
        return self._index.search(vector, top_m or cfg.top_m, cfg.edge_pool, question, cfg.sparse_weight)

    async def answer(self, query: CloudQuery, on_text: TextSink | None = None) -> CloudAnswer:
        """The cloud's answer to ``query`` (see :class:`~shared.core.knowledge.CloudQuery`): with ``share_context``
        False (an edge asking) the asking edge is asked for its own knowledge too (under its policy), so the answer
        completes its evidence; the context comes back as source ids and scores only, and a fallback extract quotes
        only the asking edge's own chunks. The asker's ``vectors`` are used, and passed on to the edges asked, when
        they come from this cloud's model. ``on_text`` receives the model's draft as it is decoded, as far as
        the answer guard allows (draft_stream); the answer returned is the one to show."""
        cfg = self._config
        route = self._route(query.routing_off)
        m = query.top_m or cfg.top_m
        k = query.top_k or self._default_k(route)
        deadline = query.deadline_s or cfg.deadline_s
        check_match(query.question, m, cfg)
        check_fan_out(k, deadline, cfg)
        with self._slot(query.caller or query.asked_at):
            return await self._answer(
                query.question, query.asked_at, m, k, deadline, query.share_context, route, query.vectors, on_text
            )

    @property
    def in_flight(self) -> int:
        """Questions and evidence checks being answered now."""
        return self._held.total()

    def _default_k(self, route: _Route) -> int:
        """The fan-out when the caller sets none: with probes, up to the adaptive k."""
        cfg = self._config
        return max(cfg.top_k, self._probing.max_k) if route.probing else cfg.top_k

    def _route(self, routing_off: Ablations, known: tuple[ProbeScores, ...] = ()) -> _Route:
        cfg = self._config
        return _Route(
            sparse_weight=0.0 if routing_off.no_sparse_matching else cfg.sparse_weight,
            probing=self._probing.enabled and not routing_off.no_probes,
            memory=self._memory is not None and not routing_off.no_routing_memory,
            record=self._memory is not None and not routing_off,
            known=known,
        )

    @contextmanager
    def _slot(self, caller: str) -> Iterator[None]:
        """One of ``query.max_concurrent_queries`` places (answers and evidence checks alike), of which one
        credential (``caller``) may hold at most ``query.max_queries_per_caller``: one asker cannot take every
        place and leave an edge's escalation RESOURCE_EXHAUSTED."""
        if self.in_flight >= self._config.max_concurrent_queries:
            raise ResourceExhaustedError(
                f"the cloud is answering {self.in_flight} questions already (query.max_concurrent_queries); retry"
            )
        held = self._held[caller]
        if held >= self._config.max_queries_per_caller:
            raise ResourceExhaustedError(
                f"{caller or 'this caller'} has {held} questions being answered already "
                "(query.max_queries_per_caller); retry when one returns"
            )
        self._held[caller] += 1
        try:
            yield
        finally:
            self._held[caller] -= 1
            if not self._held[caller]:
                del self._held[caller]

    async def _answer(
        self,
        question: str,
        asked_at: str,
        m: int,
        k: int,
        deadline: float,
        share_context: bool,
        route: _Route,
        given: QueryVectors | None,
        on_text: TextSink | None = None,
    ) -> CloudAnswer:
        cfg = self._config
        out = CloudAnswer(answer="")
        started = time.perf_counter()
        with phase(out.timings, "summary_match"):
            vector, vectors = await self._question_vectors(question, given)
            out.summaries = self._index.search(
                vector, max(m, RANKED_SUMMARIES, self._probing.shortlist), cfg.edge_pool, question, route.sparse_weight
            )
            # a disconnected or silent edge's summaries stay in the index for when it returns; not asked meanwhile
            routable = [s for s in out.summaries if self._registry.live(s.edge_id)]
            out.matched_offline = self._registry.offline_among(
                [s.edge_id for s in out.summaries[: max(m, 1)]], asked_at
            )
        if route.probing:
            await self._probe(question, vector, vectors, out, routable, k, route)
        else:
            out.edges_asked = choose_edges(routable[:m], k)
        # an edge asking is asked too, besides the edges routing chose: its own evidence joins the others' (under its
        # policy); it is not counted as routed, nor remembered as a routing choice
        asker = not share_context and asked_at not in ("", *out.edges_asked) and self._registry.live(asked_at)
        replies = await self._fan_out(question, vectors, out, deadline, [asked_at] if asker else [])
        with phase(out.timings, "rescore"):
            # the context is ordered by the cloud's own scores of what came back, never by the edges' claims
            replies = await asyncio.to_thread(rescored, question, vector, replies, self._embedder)
            observe_claims(self.claims, question, out.probes, replies, edge_summary_scores(out.summaries))
        with phase(out.timings, "merge"):
            readers = Readers.of("" if share_context else asked_at, replies)
            read, cited = readable(replies, readers)
            merged = merge_knowledge(read, cfg.context_tokens, self._tokenizer)
            out.context = merged.chunks
        if self._memory is not None and route.record:
            self._memory.record(vector, usefulness(out, [r for r in replies if r.edge_id in out.edges_asked]))
            if self._memory.step % SAVE_EVERY == 0:
                await asyncio.to_thread(self._memory.save)

        with phase(out.timings, "cloud_generation") as generation:
            await self._read(question, merged, read, readers, out, on_text)
            out.context = shown_context(merged, cited, readers)
            generation.set_attribute("withheld_words", out.withheld_words)
        out.timings["total"] = time.perf_counter() - started
        return out

    async def _read(
        self,
        question: str,
        merged: MergedContext,
        read: list[EdgeKnowledge],
        readers: Readers,
        out: CloudAnswer,
        on_text: TextSink | None,
    ) -> None:
        """The cloud model's reading of ``merged``, guarded against text its owners do not let answers quote; its
        draft reaches ``on_text`` as the guard allows (draft_stream)."""
        cfg = self._config
        protected = protected_texts(read, readers)
        generator = self._generator
        if on_text is not None:
            relay = DraftRelay(question, protected, cfg.copy_words, cfg.copy_sentence_words, on_text)
            generator = Tapped(generator, relay)
        reading = await asyncio.to_thread(read_context, question, merged, generator, cfg, readers, self._calibration)
        guarded = guard_answer(
            question, reading.text, reading.short, protected, cfg.copy_words, cfg.copy_sentence_words
        )
        out.answer, out.short, out.withheld_words = guarded.text, guarded.short, guarded.removed_words
        out.reader = reading.reader
        # a short answer the guard cut is no longer the one the confidence was measured for
        kept = guarded.short == reading.short
        out.confidence, out.confidence_signals = (
            (reading.confidence.probability, reading.signals) if kept else (0.0, {})
        )

    async def _probe(
        self,
        question: str,
        vector: FloatMatrix,
        vectors: QueryVectors | None,
        out: CloudAnswer,
        routable: list[SummaryMatch],
        k: int,
        route: _Route,
    ) -> None:
        """Stage 2: probe the shortlisted edges at once (but those ``route.known`` holds), then choose by their
        scores (adaptive k)."""
        shortlist = choose_edges(routable, self._probing.shortlist)
        deadline = self._config.probe_deadline_s
        known = {p.edge_id: p for p in route.known}
        todo = [e for e in shortlist if e not in known]
        with phase(out.timings, "probe", edges=len(todo)):
            fresh = await asyncio.gather(*(self._probe_one(e, question, vectors, deadline) for e in todo))
        t = time.perf_counter()
        by_edge = known | {p.edge_id: p for p in fresh}
        out.probes = [by_edge[e] for e in shortlist]
        out.probe_bytes = sum(p.bytes for p in fresh)
        bonus = {}
        if self._memory is not None and route.memory and self._config.memory_weight > 0:
            bonus = {e: self._config.memory_weight * (u - 0.5) for e, u in self._memory.prior(vector).items()}
        # a refuser is routed by its summaries alone, and not at all once they have proved to over-claim
        kept = [p for p in out.probes if not (p.refused and self.claims.distrusted(p.edge_id))]
        trusted = [self.claims.discounted(p) for p in kept]
        out.edges_asked = self._probing.choose(trusted, routable, k, bonus)
        # an edge that did not answer its probe (down, stuck, too late) is reported, as one that misses the fan-out
        silent = [p.edge_id for p in out.probes if p.failed]
        out.edges_failed = [e for e in silent if e not in out.edges_asked]
        out.timings["probe"] += time.perf_counter() - t

    async def _probe_one(
        self, edge_id: str, question: str, vectors: QueryVectors | None, deadline: float
    ) -> ProbeScores:
        sent = time.perf_counter()
        try:
            scores = await self._registry.probe(edge_id, question, deadline, vectors)
        except (EdgeUnavailableError, TimeoutError) as exc:
            return ProbeScores(edge_id, seconds=time.perf_counter() - sent, error=str(exc)[:200] or "timeout")
        return dataclasses.replace(scores, seconds=time.perf_counter() - sent)

    async def check_evidence(
        self,
        question: str,
        asked_at: str,
        claim: EvidenceClaim,
        vectors: QueryVectors | None = None,
        *,
        answer_if_stronger: bool = False,
        routing_off: Ablations = NO_ABLATIONS,
    ) -> EvidenceVerdict:
        """Whether an edge other than ``asked_at`` matches ``question`` clearly better than the asker's ``claim``:
        the other edges first by summaries are probed and the best probe score (ProbeRouting.probed: evidence plus
        weighted term and lexical coverage) is compared with the asking edge's own, scored alike (by more than
        ``claim.margin``, bounded to [-1, 1]; None: ``query.evidence_margin``; a negative margin asks whether the
        asker leads every other by that much). A claim without lexical coverage is compared without it on both
        sides. With ``answer_if_stronger``, a yes comes with the cloud's answer (as :meth:`answer` gives an edge),
        routed without probing again the edges the check probed."""
        cfg = self._config
        check_match(question, cfg.top_m, cfg)
        route = self._route(routing_off)
        with self._slot(asked_at):
            started = time.perf_counter()
            vector, forwarded = await self._question_vectors(question, vectors)
            size = self._probing.shortlist or CHECK_SHORTLIST
            matches = self._index.search(
                vector, max(RANKED_SUMMARIES, size + 1), cfg.edge_pool, question, cfg.sparse_weight
            )
            others = [s for s in matches if s.edge_id != asked_at and self._registry.live(s.edge_id)]
            offline = self._registry.offline_among(
                [s.edge_id for s in matches if s.edge_id != asked_at][:size], asked_at
            )
            with span("probe"):
                probes = await asyncio.gather(
                    *(self._probe_one(e, question, forwarded, cfg.probe_deadline_s) for e in choose_edges(others, size))
                )
            offline = offline or probes_unanswered(probes, self._registry.unnamed)
            scoring = self._probing
            if claim.lexical is None:
                scoring = dataclasses.replace(scoring, lexical_weight=0)
            best = max((scoring.probed(self.claims.discounted(p)) for p in probes if not p.error), default=0.0)
            terms = unit(claim.terms)
            lexical = bounded_lexical(claim.lexical or 0.0, terms)
            mine = ProbeScores(asked_at, unit(claim.evidence), term_coverage=terms, lexical=lexical)
            lead = bounded(claim.margin, cfg.evidence_margin)
            stronger = best > scoring.probed(mine) + lead
            if not (stronger and answer_if_stronger):
                return EvidenceVerdict(stronger, matched_offline=offline)
            checked = time.perf_counter() - started
            k = self._default_k(route)
            known = dataclasses.replace(route, known=(*probes, mine))
            answer = await self._answer(question, asked_at, cfg.top_m, k, cfg.deadline_s, False, known, forwarded)
            answer.timings["evidence_check"] = checked
            return EvidenceVerdict(True, answer)

    def close(self) -> None:
        """Persist what must outlive the process (the routing memory)."""
        if self._memory is not None:
            self._memory.save()

    async def _question_vectors(
        self, question: str, given: QueryVectors | None
    ) -> tuple[FloatMatrix, QueryVectors | None]:
        """The question's vector for matching summaries and judging the edges' claims, and the vectors to send the
        edges: the question and its names embedded here (once, instead of once per edge probed). An asker's own
        vectors are taken only where ``query.accept_asker_vectors`` says every asker is trusted: they decide
        routing and the claim check, so a wrong one could steer a question or make an honest edge look a liar."""
        trusted = given if self._config.accept_asker_vectors else None
        if trusted is not None and trusted.usable_by(self._embedder) and (row := trusted.row(question)) is not None:
            return row, trusted
        texts = [question, *question_terms(question)[0]][:MAX_TEXTS]
        matrix = await asyncio.to_thread(self._embedder.embed, texts)
        return matrix[0], to_send(self._embedder, texts, matrix)

    async def _fan_out(
        self, question: str, vectors: QueryVectors | None, out: CloudAnswer, deadline: float, besides: list[str]
    ) -> list[EdgeKnowledge]:
        """Retrieval requests to the edges asked (and ``besides``) in parallel, with one deadline."""
        targets = [*out.edges_asked, *besides]
        with phase(out.timings, "fan_out", edges=len(targets)):
            results = await asyncio.gather(
                *(self._registry.retrieve(e, question, deadline, vectors) for e in targets),
                return_exceptions=True,
            )
        replies: list[EdgeKnowledge] = []
        for edge_id, result in zip(targets, results, strict=True):
            if isinstance(result, EdgeKnowledge):
                replies.append(result)
                out.edges_replied.append(edge_id)
                out.bytes_received += self._size(result)
            elif isinstance(result, EdgeUnavailableError | TimeoutError):
                if edge_id not in out.edges_failed:
                    out.edges_failed.append(edge_id)
            else:
                raise result
        fan_out = out.timings["fan_out"]
        edge_retrieval = max((r.retrieval_seconds for r in replies), default=0.0)
        out.timings["edge_retrieval"] = edge_retrieval
        out.timings["transfers"] = max(fan_out - edge_retrieval, 0.0)
        return replies
