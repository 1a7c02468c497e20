"""What crosses the edge–cloud boundary, as plain records: summaries (construction) and retrieved
knowledge (query). Both sides use these; ``shared/transport/serde.py`` maps them to and from protobuf."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from shared.core.chunk_commitment import ChunkProof
from shared.core.query_vectors import QueryVectors
from shared.core.sureness import Sureness, sureness_of
from shared.core.vocabulary import DEFAULT_ANSWER_USE, AnswerUse


@dataclass(frozen=True)
class SummaryCard:
    """One subgraph summary as the cloud sees it."""

    id: str
    version: int
    text: str
    top_entities: tuple[str, ...]
    n_entities: int = 0
    n_relations: int = 0


@dataclass(frozen=True)
class SummaryTombstone:
    """A summary the edge deleted, at the version of the deletion."""

    id: str
    version: int


@dataclass(frozen=True)
class SummaryChanges:
    """Changes to publish (or a full set, when ``full``), up to a publication-log position."""

    upserts: tuple[SummaryCard, ...]
    tombstones: tuple[SummaryTombstone, ...]
    up_to_seq: int
    full: bool = False
    chunk_root: bytes = b""
    """The root of the edge's chunk commitment as it stands (shared.core.chunk_commitment); empty: none."""


@dataclass(frozen=True)
class KnowledgeEntity:
    name: str
    type: str
    description: str
    score: float


@dataclass(frozen=True)
class KnowledgeRelation:
    source: str
    target: str
    description: str
    score: float


@dataclass(frozen=True)
class KnowledgeChunk:
    doc_id: str
    chunk_id: int
    text: str
    score: float
    tokens: int
    proof: ChunkProof | None = None
    """That the edge held this text before the question (shared.core.chunk_commitment); None: no proof sent."""


@dataclass(frozen=True)
class EdgeKnowledge:
    """What one edge's retrieval returned for one question."""

    edge_id: str
    entities: tuple[KnowledgeEntity, ...] = ()
    relations: tuple[KnowledgeRelation, ...] = ()
    chunks: tuple[KnowledgeChunk, ...] = ()
    evidence: float = 0.0
    retrieval_seconds: float = 0.0
    answers: AnswerUse = DEFAULT_ANSWER_USE
    """What answers to other participants may carry of this knowledge (the edge's privacy.answers)."""


@dataclass(frozen=True)
class SummaryMatch:
    summary_id: str
    edge_id: str
    score: float
    version: int = 0


PROBES_REFUSED = "this edge's privacy policy does not answer probes (privacy.answer_probes)"
"""The error an edge replies to a probe when its owner turned probes off (the cloud then routes to it by its
summaries alone)."""


@dataclass(frozen=True)
class ProbeScores:
    """Stage 2 of routing: how strongly one edge's knowledge matches a question. Numbers only: a probe never
    carries text off the edge (it does reveal whether the edge knows the question's names; an owner who
    minds sets ``privacy.answer_probes = false``)."""

    edge_id: str
    score: float = 0.0
    """The edge's evidence score in [0, 1] (the signal its own gate uses)."""
    name_coverage: float = 0.0
    best_entity: float = 0.0
    best_chunk: float = 0.0
    seconds: float = 0.0
    """The probe's round trip, as the cloud measured it."""
    error: str = ""
    """Why the edge gave no scores (policy, busy, timeout); its scores are then 0."""
    bytes: int = 0
    """Size of the edge's reply on the wire."""
    term_coverage: float = 0.0
    """The best share of the question's words (names and keywords) that one retrieved chunk contains: a
    lexical match that tells apart edges whose names and topics are the same."""
    lexical: float = 0.0
    """The best IDF-weighted share of the question's words that one chunk of the edge's whole store holds
    (shared.core.lexical): rare words weigh most, so an edge lacking them scores low."""
    signals: Mapping[str, float] = field(default_factory=dict)
    """Further routing signals by name, each in [0, 1]: a new signal is computed by the edge (its retrieval's
    evidence) and weighed by the cloud (``query.probe_signal_weights``), with no other change."""

    @property
    def refused(self) -> bool:
        """The edge's policy turned probes off (as opposed to a probe that failed or came too late)."""
        return self.error == PROBES_REFUSED

    @property
    def failed(self) -> bool:
        """The edge gave no scores for a reason other than its policy: down, cut off, hung or too late."""
        return bool(self.error) and not self.refused


@dataclass(frozen=True)
class ContextChunk:
    """A chunk the cloud put in its context, and the edge it came from."""

    edge_id: str
    chunk: KnowledgeChunk


@dataclass
class CloudAnswer:
    """The cloud's answer to an escalated question, with its provenance."""

    answer: str
    summaries: list[SummaryMatch] = field(default_factory=list)
    """The best-matching summaries, best first (at least top-m; edges were chosen from the first m)."""
    edges_asked: list[str] = field(default_factory=list)
    edges_replied: list[str] = field(default_factory=list)
    edges_failed: list[str] = field(default_factory=list)
    """Edges that did not answer in time: asked for knowledge, or probed and then left out for it."""
    context: list[ContextChunk] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    bytes_received: int = 0
    probes: list[ProbeScores] = field(default_factory=list)
    """Stage 2 of routing: the shortlisted edges' probe scores, in shortlist order (empty: not probed)."""
    probe_bytes: int = 0
    short: str = ""
    """The answer alone (a name, yes/no, a date), without its supporting quote or sources ("" when none)."""
    withheld_words: int = 0
    """Words removed from the answer because they copied text whose owner does not let answers quote it."""
    reader: str = ""
    """How the answer was read (vote, extractive, generated, declined; fallback: an extract for lack of a usable
    generation); "" from a cloud older than this field."""
    matched_offline: bool = False
    """An edge not connected now was among the best matches of the question: its knowledge is not in the answer."""
    confidence: float = 0.0
    """How likely the short answer is right (shared.reading.confidence), bounded to [0, 1]; 0: no verdict given.
    The word a person reads (sure, likely, can't tell) follows from it: :attr:`sureness`."""
    confidence_signals: dict[str, float] = field(default_factory=dict)
    """What the confidence was computed from (shared.reading.confidence.Evidence.signals: named, agreement, parts,
    concur, lead), each bounded to [0, 1]; empty without a verdict."""

    @property
    def sureness(self) -> Sureness:
        return sureness_of(self.confidence)


@dataclass(frozen=True)
class CloudQuery:
    """One question to the cloud and how it is to be answered (0 = the cloud's default for a number)."""

    question: str
    asked_at: str = ""
    """The edge the question was asked at ("" for an app or an operator)."""
    top_m: int = 0
    top_k: int = 0
    deadline_s: float = 0.0
    share_context: bool = True
    """False when an edge asks: its own evidence joins the others', the context comes back as source ids and
    scores only, and a fallback extract quotes only its own chunks."""
    vectors: QueryVectors | None = None
    """The asker's embeddings of the question (and its names), used when they come from the cloud's model."""
    caller: str = ""
    """The credential asking, set by the server from the authenticated call (never read from the request)."""
    within_s: float = 0.0
    """Seconds the asker waits for the answer, set by the server from the call's deadline (0: no deadline)."""


@dataclass(frozen=True)
class EvidenceClaim:
    """What an edge tells the cloud of its own match of a question for the evidence check (numbers only): its
    evidence score, term and lexical coverage (None: not sent, both sides compared without it), and the margin by
    which another edge must beat it (None: the cloud's query.evidence_margin; negative: it must lead by that)."""

    evidence: float
    terms: float = 0.0
    lexical: float | None = 0.0
    margin: float | None = None


@dataclass(frozen=True)
class EvidenceVerdict:
    """The evidence check's reply: whether another edge's evidence beats the asker's by the margin, and the cloud's
    answer to the question when it does and the asker asked for one (one round trip)."""

    stronger: bool
    answer: CloudAnswer | None = None
    matched_offline: bool = False
    """Another edge, not connected now, was among the best matches of the question (its knowledge is missing)."""
