"""Edges' claims checked against what they return: the cloud scores returned text itself and trusts claims by
how well they held before.

A probe reply is a claim (how well an edge's knowledge matches a question); so are the chunk scores of a retrieval
reply. The cloud embeds the chunks an edge returns with its own embedder and scores them against the question
itself: those scores order the context, never the edge's. A chunk the edge proves it held before the question
(shared.core.chunk_commitment) is scored whole; any other chunk with the words it copies from the question taken out
(cloud_server.routing.echo), so an echo of the question backs no claim, while a question that quotes an honest
edge's passage cannot turn its honest claim into an over-claim. Where the edge was probed, the claims the cloud can
measure again are compared with what it measured on the chunks the edge returned: the best chunk similarity; the
term coverage (the largest share of the question's keywords one returned chunk holds); the name coverage (the share
of the question's names its chunks and entities hold, with NAME_SLACK); the lexical coverage over its whole store,
which an honest edge rarely claims far above the term coverage of what it returns (LEXICAL_SLACK); and the evidence
score, which an honest edge computes as its best chunk similarity or the mean of that and its name coverage
(edge_node.query.retrieval), so never above (1 + best chunk) / 2 (the intake already bounds it by the claimed best
chunk and name coverage: cloud_server.sessions.knowledge_intake.consistent_evidence). An edge that claims more than
it delivers builds up disagreement (a moving average of its largest over-claim, rising fast and falling slowly), and
all its probe scores are reduced by that average and discounted by its trust (1 while the average stays within the
tolerance, falling to 0 beyond).
Trust outlives a cloud restart when ``query.trust_file`` is set (cloud_server.routing.trust_file); otherwise a
restart gives every edge a fresh start.

Not checked: the evidence score of an edge that returns no chunks (a level that keeps them home: its probes
carry that score alone) is believed within [0, 1]; one that claims a best chunk and returns none is caught.
Named extra signals cannot be measured on what an edge returns: they count only as much as the edge's trust,
earned on the claims that can (and weigh nothing unless ``query.probe_signal_weights`` names them).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cloud_server.routing.echo import without_echo
from cloud_server.routing.trust_file import load_trust, save_trust
from shared.core.candidates import question_terms, term_share
from shared.core.chunk_commitment import proven_root
from shared.core.knowledge import EdgeKnowledge, KnowledgeChunk, ProbeScores
from shared.core.model_api import Embedder, FloatMatrix
from shared.core.text import occurs_in

log = logging.getLogger("dgrag.cloud")

TOLERANCE = 0.15
"""Over-claiming up to this much (on average) is measurement noise: the edge's truncation of chunks, a best chunk
its retrieval did not return."""
SPAN = 0.35
"""Average over-claiming beyond the tolerance at which trust reaches 0."""
RISE = 0.5
"""Weight of an observation that raises the average: a lie weighs at once."""
FALL = 0.15
"""Weight of an observation that lowers it: trust comes back slowly (an edge that lies only where it cannot be
caught, or between honest replies, stays discounted)."""
SUMMARY_SLACK = 0.4
"""How much better an edge's best summary may match a question than the best chunk it then returns before the
difference counts against it. Summaries describe a whole subgraph and honestly match better than any one chunk:
over the asked edges of the report runs (docs/results/report-* at commit 6c11a99), by 0.23 at the median and 0.44 at
the 95th percentile on multihop4, 0.08 and 0.41 on lihua4; a summary stuffed with a question's words matches it
at ~0.9 while the echo-free chunks behind it match far less."""
NAME_SLACK = 0.35
"""How far an edge's claimed name coverage (the question's names it holds as entities, matched exactly or by a
close embedding) may exceed the share of the question's names the cloud finds in the chunks and entities it
returns, before the difference counts against it: an honest edge matches "Verge" to "The Verge", and returns only
its best chunks."""
LEXICAL_SLACK = 0.3
"""How far an edge's claimed lexical coverage (the best IDF-weighted share of the question's words one chunk of
its whole store holds) may exceed the term coverage the cloud measures on the chunks it returns before the
difference counts against it. Honest edges' lexical coverage over their own term coverage (benchmarks.
probe_routing, every dev question): multihop4 p99 0.10, max 0.29; lihua4 p95 0.28, p99 0.50."""
FLAGGED = 0.5
"""Trust below which an edge is flagged (logged, and shown by ``dgrag cloud edges``)."""


@dataclass
class _Record:
    disagreement: float = 0.0
    observations: int = 0


@dataclass(frozen=True)
class EdgeTrust:
    edge_id: str
    trust: float
    disagreement: float
    observations: int

    @property
    def flagged(self) -> bool:
        return self.trust < FLAGGED


class ClaimLedger:
    """Per edge: how far its claims exceeded what the cloud measured, and the trust that follows."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        loaded = load_trust(path) if path is not None else {}
        self._records: dict[str, _Record] = {e: _Record(o, n) for e, (o, n) in loaded.items()}

    def trust(self, edge_id: str) -> float:
        record = self._records.get(edge_id)
        if record is None:
            return 1.0
        return float(min(max(1.0 - (record.disagreement - TOLERANCE) / SPAN, 0.0), 1.0))

    def observe(self, edge_id: str, over: float) -> None:
        """One comparison: the edge's claims exceeded what the cloud measured on what it returned by ``over`` (the
        largest over-claim; 0 when none exceeded)."""
        record = self._records.setdefault(edge_id, _Record())
        was_flagged = self.trust(edge_id) < FLAGGED
        over = max(over, 0.0)
        weight = RISE if over > record.disagreement else FALL
        record.disagreement = over if not record.observations else (1 - weight) * record.disagreement + weight * over
        record.observations += 1
        if self._path is not None:
            save_trust(self._path, {e: (r.disagreement, r.observations) for e, r in self._records.items()})
        if not was_flagged and self.trust(edge_id) < FLAGGED:
            log.warning(
                "edge %s claims more than it returns (average over-claim %.2f over %d replies): its probe scores"
                " now count %.0f%%",
                edge_id,
                record.disagreement,
                record.observations,
                100 * self.trust(edge_id),
            )

    def distrusted(self, edge_id: str) -> bool:
        return self.trust(edge_id) < FLAGGED

    def discounted(self, probe: ProbeScores) -> ProbeScores:
        """``probe`` as the cloud believes it: every score less the edge's average over-claim (what its claims
        exceeded the cloud's measurements by, on its checked replies), then times its trust. An edge that lies
        only in the fields that cannot be measured on one reply (its evidence score, lexical coverage or named
        signals) still over-claims its evidence score on the replies that are checked, and pays for it on every
        claim; an honest edge's average over-claim stays near 0 (at most 0.03 in the committed report runs)."""
        record = self._records.get(probe.edge_id)
        over = record.disagreement if record is not None else 0.0
        t = self.trust(probe.edge_id)
        if t >= 1.0 and over <= 0.0:
            return probe

        def believed(value: float) -> float:
            return max(value - over, 0.0) * t

        return dataclasses.replace(
            probe,
            score=believed(probe.score),
            name_coverage=believed(probe.name_coverage),
            best_entity=believed(probe.best_entity),
            best_chunk=believed(probe.best_chunk),
            term_coverage=believed(probe.term_coverage),
            lexical=believed(probe.lexical),
            signals={name: believed(value) for name, value in probe.signals.items()},
        )

    def report(self) -> list[EdgeTrust]:
        return [EdgeTrust(e, self.trust(e), r.disagreement, r.observations) for e, r in sorted(self._records.items())]


def rescored(
    question: str,
    vector: FloatMatrix,
    replies: Sequence[EdgeKnowledge],
    embedder: Embedder,
    committed: Mapping[str, bytes] | None = None,
) -> list[EdgeKnowledge]:
    """``replies`` with every chunk's score replaced by the cloud's own similarity of it to the question's
    ``vector`` (blocking: it runs the embedder). A chunk is scored whole when its proof leads to the root its edge
    had ``committed`` before the question arrived (it was held before the question); any other chunk without the
    words it copies from ``question`` (it may be an echo of it)."""
    roots = committed or {}
    texts = [
        c.text if held_before(c, roots.get(k.edge_id, b"")) else without_echo(question, c.text)
        for k in replies
        for c in k.chunks
    ]
    if not texts:
        return list(replies)
    sims = np.asarray(embedder.embed([t or "-" for t in texts]), dtype=np.float32) @ np.asarray(vector, np.float32)
    out, at = [], 0
    for k in replies:
        chunks = tuple(_scored(c, float(sims[at + i]) if texts[at + i] else 0.0) for i, c in enumerate(k.chunks))
        at += len(k.chunks)
        out.append(dataclasses.replace(k, chunks=chunks))
    return out


def held_before(chunk: KnowledgeChunk, root: bytes) -> bool:
    """Whether ``chunk``'s proof leads from its text to ``root`` (an empty root proves nothing)."""
    return bool(root) and chunk.proof is not None and proven_root(chunk.text, chunk.proof) == root


def _scored(chunk: KnowledgeChunk, similarity: float) -> KnowledgeChunk:
    """``chunk`` with the cloud's score, without its proof (which has served: it goes to no one)."""
    return dataclasses.replace(chunk, score=min(max(similarity, 0.0), 1.0), proof=None)


def observe_claims(
    ledger: ClaimLedger,
    question: str,
    claims: Sequence[ProbeScores],
    measured: Sequence[EdgeKnowledge],
    summary_scores: Mapping[str, float] | None = None,
    summary_texts: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Compare each probed edge's measurable claims with the chunks it returned, rescored: its best chunk with the
    best of them, its evidence score with (1 + that best) / 2, its term coverage with the share of ``question``'s
    keywords the best of them holds, its name coverage with the share of the question's names its chunks and
    entities hold (beyond NAME_SLACK), its lexical coverage with that term share (beyond LEXICAL_SLACK); the
    largest over-claim counts. An edge that claims a best chunk and returns
    none is measured at 0: an honest edge that keeps its chunks home claims none (its probe carries its evidence
    score alone). An edge that refused its probe was asked for its summaries (``summary_scores``: each edge's
    best summary match; ``summary_texts``: the texts of its summaries that matched): its over-claim is the larger
    of its match beyond SUMMARY_SLACK over its best returned chunk, and the share of the question's names one of
    its summaries holds beyond NAME_SLACK over the share its returned chunks and entities hold (a summary stuffed
    with names it does not hold)."""
    by_edge = {p.edge_id: p for p in claims if not p.error}
    refusers = {p.edge_id for p in claims if p.refused}
    names, keywords = question_terms(question)
    for k in measured:
        best = max((c.score for c in k.chunks), default=0.0)
        if k.edge_id in refusers and (k.chunks or k.entities) and summary_scores and k.edge_id in summary_scores:
            returned = name_share(names, [*(c.text for c in k.chunks), *(e.name for e in k.entities)])
            summarised = max((name_share(names, [t]) for t in (summary_texts or {}).get(k.edge_id, ())), default=0.0)
            matched = summary_scores[k.edge_id] - SUMMARY_SLACK - best if k.chunks else 0.0
            ledger.observe(k.edge_id, max(matched, summarised - returned - NAME_SLACK if names else 0.0))
            continue
        claim = by_edge.get(k.edge_id)
        if claim is None or not (k.chunks or claim.best_chunk > 0 or claim.term_coverage > 0):
            continue
        texts = [c.text for c in k.chunks]
        terms = term_share(keywords, texts)
        held = name_share(names, [*texts, *(e.name for e in k.entities)]) if k.chunks else 1.0
        over = max(
            min(claim.best_chunk, 1.0) - best,
            min(claim.score, 1.0) - (1.0 + best) / 2 if k.chunks else 0.0,
            min(claim.term_coverage, 1.0) - terms,
            min(claim.name_coverage, 1.0) - held - NAME_SLACK if names else 0.0,
            min(claim.lexical, 1.0) - terms - LEXICAL_SLACK if k.chunks else 0.0,
            0.0,
        )
        ledger.observe(k.edge_id, over)


def name_share(names: Sequence[str], texts: Sequence[str]) -> float:
    """The share of ``names`` that at least one of ``texts`` holds (whole words, any case, spacing aside)."""
    if not names:
        return 0.0
    joined = ["".join(t.split()) for t in texts]
    found = sum(1 for n in names if any(occurs_in(n, t) for t in texts) or any(n.replace(" ", "") in t for t in joined))
    return found / len(names)
