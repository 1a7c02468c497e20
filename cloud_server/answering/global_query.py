"""Cross-edge retrieval and the cloud answer, transport-free.

Embed the question -> top-m summaries -> their edges, in order, up to k -> retrieval requests to those
edges in parallel with one deadline -> merge what came back in time under a token budget -> the cloud
LLM answers. The answer carries its provenance: summaries matched, edges asked, replied and failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from cloud_server.answering.answer_guard import Readers, protected_texts, readable, shown_context
from cloud_server.answering.cloud_reading import read_context
from cloud_server.answering.context_merge import MergedContext, merge_knowledge
from cloud_server.answering.draft_stream import DraftRelay
from cloud_server.answering.query_limits import bounded, check_fan_out, check_match, unit
from cloud_server.answering.reading_queue import ReadingQueue
from cloud_server.routing.choice import edge_summary_scores, edge_summary_texts
from cloud_server.routing.claim_check import ClaimLedger, observe_claims, rescored
from cloud_server.routing.router import Router, RouteSettings, RoutingStrategy
from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.sessions.edge_registry import EdgeRegistry, EdgeUnavailableError
from cloud_server.sessions.knowledge_intake import bounded_lexical
from shared.config import CloudQueryConfig
from shared.core.candidates import question_terms
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
from shared.models.tokenizer import Tokenizer
from shared.reading.confidence import PRIOR, Calibration
from shared.transport.tracing import phase

KnowledgeSizer = Callable[[EdgeKnowledge], int]


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
        strategy: RoutingStrategy | None = None,
        askers_see_routing: bool = False,
    ) -> None:
        self._index = index
        self._registry = registry
        self._embedder = embedder
        self._generator = generator
        self._tokenizer = tokenizer
        self._config = config
        self._size = knowledge_size or (lambda k: 0)
        self._calibration = calibration
        self._askers_see_routing = askers_see_routing
        self._held: Counter[str] = Counter()
        """Places each caller holds now (their sum: the questions in flight)."""
        self._readings = ReadingQueue(config.parallel_readings)
        claims = ClaimLedger(Path(config.trust_file) if config.trust_file else None)
        self._router = Router(index, registry, config, claims, strategy)

    @property
    def claims(self) -> ClaimLedger:
        """What the cloud has learnt of each edge's claims (routing discounts and distrusts by it)."""
        return self._router.claims

    @property
    def askers_see_routing(self) -> bool:
        """Whether askers other than operators see the routing of every named edge (a lab setting given to
        ``build_cloud``)."""
        return self._askers_see_routing

    async def match(self, question: str, top_m: int, hidden: Callable[[str], bool] | None = None) -> list[SummaryMatch]:
        """The ``top_m`` summaries closest to ``question`` among the edges not ``hidden`` (no edge is asked). With
        edges hidden the match is dense alone: BM25's term weights and scaling depend on every summary held, so a
        hidden edge's summaries would move the others' scores."""
        check_match(question, top_m or self._config.top_m, self._config)
        vector = (await asyncio.to_thread(self._embedder.embed, [question]))[0]
        cfg = self._config
        sparse = cfg.sparse_weight if hidden is None else 0.0
        return self._index.search(vector, top_m or cfg.top_m, cfg.edge_pool, question, sparse, hidden)

    async def answer(self, query: CloudQuery, on_text: TextSink | None = None) -> CloudAnswer:
        """The cloud's answer to ``query`` (see :class:`~shared.core.knowledge.CloudQuery`): with ``share_context``
        False (an edge asking) the asking edge is asked for its own knowledge too (under its policy), so the answer
        completes its evidence; the context comes back as source ids and scores only, and a fallback extract quotes
        only the asking edge's own chunks. The asker's ``vectors`` are used, and passed on to the edges asked, when
        they come from this cloud's model. ``on_text`` receives the model's draft as it is decoded, as far as
        the answer guard allows (draft_stream); the answer returned is the one to show."""
        cfg = self._config
        route = self._router.settings()
        m = query.top_m or cfg.top_m
        k = query.top_k or self._router.default_k(route)
        deadline = query.deadline_s or cfg.deadline_s
        check_match(query.question, m, cfg)
        check_fan_out(k, deadline, cfg)
        with self._slot(query.caller or query.asked_at):
            return await self._answer(
                query.question,
                query.asked_at,
                m,
                k,
                deadline,
                query.share_context,
                route,
                query.vectors,
                on_text,
                query.within_s,
            )

    @property
    def in_flight(self) -> int:
        """Questions and evidence checks being answered now."""
        return self._held.total()

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
        route: RouteSettings,
        given: QueryVectors | None,
        on_text: TextSink | None = None,
        within_s: float = 0.0,
    ) -> CloudAnswer:
        cfg = self._config
        out = CloudAnswer(answer="")
        started = time.perf_counter()
        self._readings.check(within_s)  # before the edges are asked
        committed = self._registry.chunk_roots()  # what each edge held before this question arrived
        vector, vectors = await self._question_vectors(question, given)
        embedded = time.perf_counter() - started
        routed = await self._router.route(question, vector, vectors, asked_at, m, k, route, out.timings)
        out.timings["summary_match"] += embedded  # matching a question starts with embedding it
        out.summaries, out.matched_offline, out.probes = routed.summaries, routed.matched_offline, routed.probes
        out.probe_bytes, out.edges_asked, out.edges_failed = routed.probe_bytes, routed.edges_asked, routed.edges_failed
        # an edge asking is asked too, besides the edges routing chose: its own evidence joins the others' (under its
        # policy); it is not counted as routed, nor remembered as a routing choice
        asker = not share_context and asked_at not in ("", *out.edges_asked) and self._registry.live(asked_at)
        replies = await self._fan_out(question, vectors, out, deadline, [asked_at] if asker else [])
        with phase(out.timings, "rescore"):
            # the context is ordered by the cloud's own scores of what came back, never by the edges' claims
            replies = await asyncio.to_thread(rescored, question, vector, replies, self._embedder, committed)
            texts = edge_summary_texts(out.summaries, self._index.texts([s.summary_id for s in out.summaries]))
            observe_claims(self.claims, question, out.probes, replies, edge_summary_scores(out.summaries), texts)
        with phase(out.timings, "merge"):
            readers = Readers.of("" if share_context else asked_at, replies)
            read, cited = readable(replies, readers)
            merged = merge_knowledge(read, cfg.context_tokens, self._tokenizer, question)
            out.context = merged.chunks

        with phase(out.timings, "cloud_generation") as generation:
            self._readings.arrived(time.perf_counter() - started)
            async with self._readings.turn(_left(within_s, started)):
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
        reading = asyncio.ensure_future(
            asyncio.to_thread(read_context, question, merged, generator, cfg, readers, self._calibration, protected)
        )
        try:
            shown = await asyncio.shield(reading)
        except asyncio.CancelledError:  # the asker left: its turn is held until the model stops reading for it
            while not reading.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait([reading])
            if not reading.cancelled():
                reading.exception()  # retrieved: a failure of a reading nobody waits for is not logged as lost
            raise
        answer = shown.answer
        out.answer, out.short, out.reader = answer.text, answer.short, answer.reader
        out.withheld_words = shown.withheld_words
        out.confidence, out.confidence_signals = answer.confidence.probability, answer.signals()

    async def check_evidence(
        self,
        question: str,
        asked_at: str,
        claim: EvidenceClaim,
        vectors: QueryVectors | None = None,
        *,
        answer_if_stronger: bool = False,
        within_s: float = 0.0,
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
        route = self._router.settings()
        with self._slot(asked_at):
            started = time.perf_counter()
            vector, forwarded = await self._question_vectors(question, vectors)
            terms = unit(claim.terms)
            lexical = bounded_lexical(claim.lexical or 0.0, terms)
            mine = ProbeScores(asked_at, unit(claim.evidence), term_coverage=terms, lexical=lexical)
            lead = bounded(claim.margin, cfg.evidence_margin)
            stronger, offline, probes = await self._router.stronger_elsewhere(
                question, vector, forwarded, asked_at, mine, lead, claim.lexical is not None
            )
            if not (stronger and answer_if_stronger):
                return EvidenceVerdict(stronger, matched_offline=offline)
            checked = time.perf_counter() - started
            k = self._router.default_k(route)
            known = dataclasses.replace(route, known=(*probes, mine))
            left = _left(within_s, started)
            answer = await self._answer(
                question, asked_at, cfg.top_m, k, cfg.deadline_s, False, known, forwarded, within_s=left
            )
            answer.timings["evidence_check"] = checked
            return EvidenceVerdict(True, answer)

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


def _left(within_s: float, started: float) -> float:
    """Seconds an asker who waits ``within_s`` from ``started`` (perf_counter) has left; 0 stays no deadline."""
    return max(within_s - (time.perf_counter() - started), 1e-3) if within_s else 0.0
