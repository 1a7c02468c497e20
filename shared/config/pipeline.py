"""Settings of the edge's pipeline: chunking, extraction, partition, summaries, retrieval, answers, gate, ingest."""

from __future__ import annotations

from dataclasses import dataclass

from shared.core.constants import MAX_DOCUMENT_BYTES
from shared.reading.answer_format import Sampling


@dataclass(frozen=True)
class ChunkingConfig:
    """Token-based chunking."""

    chunk_tokens: int = 240
    """Chunk length in embedder (WordPiece) tokens; <= 256 so all-MiniLM-L6-v2 embeds the whole chunk."""
    overlap_tokens: int = 32
    """Tokens shared by consecutive chunks."""


@dataclass(frozen=True)
class ExtractionConfig:
    """Entity and relation extraction by the SLM."""

    max_entities: int = 10
    """Most entities kept per chunk."""
    max_candidates: int = 14
    """Most model-free candidate names per chunk."""
    min_entities: int = 3
    """Below this many SLM entities, model-free candidates fill up."""
    max_description_chars: int = 600
    """Longest merged description kept per entity or relation."""
    reuse_types: bool = True
    """A name the SLM typed once keeps that type on this edge; chunks whose names are all
    known cost no SLM call (and a name stays one graph node instead of one per type)."""


@dataclass(frozen=True)
class PartitionConfig:
    """Leiden partitioning of the entity graph."""

    min_size: int = 4
    """Communities smaller than this merge into their best-connected neighbour."""
    max_size: int = 40
    """Communities larger than this are split."""
    resolution: float = 1.0
    """Leiden resolution (higher = smaller communities)."""
    seed: int = 42
    """Leiden seed; the same graph and seed give the same partition."""
    cochunk_weight: float = 0.3
    """Weight of the link between two entities that appear in the same chunk without a relation."""


@dataclass(frozen=True)
class SummaryConfig:
    """Subgraph summaries sent to the cloud."""

    max_tokens: int = 100
    """Longest summary the SLM may write."""
    top_entities: int = 8
    """Entity names carried with each summary."""
    render_chars: int = 1400
    """Longest rendered subgraph text given to the SLM (its most connected entities and relations first)."""


@dataclass(frozen=True)
class RetrievalConfig:
    """Local retrieval (also what the cloud asks edges for)."""

    top_entities: int = 10
    """Entities matched by vector search of the question."""
    top_relations: int = 8
    """Relations matched by vector search of the question."""
    top_chunks: int = 4
    """Most chunks put in the context."""
    context_tokens: int = 1000
    """Token budget of the retrieved chunks, whole (added in score order until it is spent): about ``top_chunks``
    of them, what the cloud is sent when it asks."""
    excerpt_chars: int = 480
    """Longest excerpt of one chunk the edge's own model reads (its sentences sharing the most question terms);
    0 = whole. The prompt is the main cost of a local answer (the bundled SLM reads about 650 tokens/s on two CPU
    cores); the cloud is always sent whole chunks, as an excerpt can cut out the sentence holding the answer."""
    name_match_cosine: float = 0.75
    """Least cosine for a name in the question to count as present here when not matched exactly."""


@dataclass(frozen=True)
class AnswerConfig:
    """Local answer generation."""

    n_answers: int = 4
    """Sampled answers per question (the gate compares them); 1 disables the batch."""
    temperature: float = 0.7
    """Sampling temperature of the answers."""
    top_p: float = 0.95
    """Nucleus sampling mass of the answers (1.0 = off)."""
    top_k: int = 40
    """Answers sample among the k likeliest tokens (0 = off)."""
    min_p: float = 0.05
    """Tokens below this share of the likeliest token's probability are never sampled (0.0 = off)."""
    repeat_penalty: float = 1.0
    """Penalty on repeated tokens (1.0 = off; a yes/no verdict must be free to repeat the question's words)."""
    max_tokens: int = 48
    """Longest answer."""
    seed: int = 7
    """Sampling seed, so a re-run gives the same answers."""
    withhold_below: float = 0.6
    """A yes/no verdict whose own confidence is below this is withheld: the answer says "can't tell" and shows the
    sentence that bears most on the question (0: every verdict is shown, as a calibration fit needs). Withheld,
    the question goes to the cloud (shared.core.sureness.WITHHOLD_BELOW)."""
    calibration: str = ""
    """How sure an answer says it is (shared.reading.confidence): a calibration JSON file fitted for this model with
    ``python -m benchmarks.fit_confidence``; empty: the one fitted for the configured packaged or bundled model,
    else an unfitted prior that never says "sure"."""

    def sampling(self, n: int) -> Sampling:
        """How ``n`` answers to one question are sampled under these settings (shared.reading.read)."""
        return Sampling(
            n,
            self.max_tokens,
            self.temperature,
            self.seed,
            top_p=self.top_p,
            top_k=self.top_k,
            min_p=self.min_p,
            repeat_penalty=self.repeat_penalty,
        )


@dataclass(frozen=True)
class GateConfig:
    """The gate deciding between the local answer and escalation to the cloud.

    Defaults fitted by benchmarks/fit_gate.py on the fit half only of the local rows of
    docs/results/multihop4-limit80 (bundled SmolLM2 + MiniLM; 29 within-domain, 31 other asks): on the report half
    (89 asks never fitted on) the gate alone escalates 10.0% of within-domain, 92.5% of out-of-domain and 77.8% of
    unanswerable questions (``python -m benchmarks.fit_gate docs/results/multihop4-limit80/answers.jsonl.gz``).
    Refit for another model or corpus.
    """

    threshold: float = 0.343
    """Score at or above which the local answer is returned."""
    weight_cosine: float = 0.0
    """Weight of the mean pairwise cosine of answer embeddings."""
    weight_jaccard: float = 0.1
    """Weight of the mean pairwise Jaccard of the answers' token sets."""
    weight_claims: float = 0.1
    """Weight of the agreement of the answers' core claims."""
    weight_evidence: float = 0.8
    """Weight of the model-free evidence signal (how strongly the question matched local knowledge)."""
    refusal_share: float = 0.5
    """Escalate when at least this share of answers declares missing information."""
    refusal_detection: bool = True
    """Spot sampled answers that declare missing information (the paper's "confidence detection"). "Confidence"
    in dgrag means an answer's calibrated probability of being right, nothing else."""
    similarity_evaluation: bool = True
    """Compare the sampled answers with each other (the paper's "similarity evaluation")."""
    check_threshold: float = 0.1
    """With check_other_edges and a cloud to ask: the gate escalates by itself only below this score; at or above
    it the evidence check decides (when the cloud cannot be asked, ``threshold`` applies again)."""
    check_refusal_share: float = 0.75
    """With check_other_edges and a cloud to ask: refusals escalate by themselves only at or above this share of
    the answers (3 of 4); a split vote is left to the evidence check (when the cloud cannot be asked,
    ``refusal_share`` applies again). How often a small SLM says "not enough information" for a question its
    context does answer varies with the llama.cpp build; the check compares evidence, which does not. Fitted on
    both halves of the dev questions (docs/results/routing-fit), not refitted on the fit half alone."""
    evidence_margin: float = 0.05
    """A trusted answer escalates when the evidence check finds another edge whose score (evidence plus the
    cloud's weighted term and lexical coverage) beats this edge's by more than this."""
    stay_margin: float = -0.1
    """A doubtful answer (between check_threshold and threshold) stays only when this edge's score beats every
    other checked edge's by more than this; otherwise the question escalates (0: it must lead; -0.1: it stays
    unless another edge leads it by more than 0.1)."""
    unsupported_weight: float = 0.0
    """How much an answer whose content words or numbers its cited evidence lacks counts as a refusal (1 = as a
    refusal). The four [gate] settings above and this one were fitted together with benchmarks/fit_gate_check.py
    on the fit half of the dev questions only (simulation/halves.py): the local rows of every fit-half question of
    both bundles (269 multihop4 and 349 lihua4 asks) and the probes of every edge, choosing the highest worst-bundle
    Youden J (escalation out - within) with within-domain escalation at most 15% on each bundle
    (docs/results/gate-fit/fit-half-full.md). Replayed on those rows: 12.7% / 100% (within / out) on multihop4,
    10.8% / 92.2% on lihua4; the settings before (0.15, 0.05, 0, 0.5; fitted on both halves of 80 questions)
    give 13.5% / 100% and 14.4% / 92.8%."""
    check_other_edges: bool = True
    """With read_first, before answering locally in mode full, ask the cloud whether another edge's knowledge
    matches the question clearly better (CheckEvidence: the cloud probes other edges; one bit comes back) and
    escalate if so. It is
    asked before the edge's model reads, at the larger band margin, so a stronger edge skips the local reading; a
    trusted answer is checked again at evidence_margin (edge_node.query.escalation). For edges that share names
    and topics, where local evidence alone looks strong. Costs a round trip and the probes for every local answer,
    two for a trusted one (p50/p95 15-19 / 20-29 ms each in docs/results/scale-lexical-multihop4, with the edge's
    query vectors sent along), and the question leaves the edge even when answered locally (audited);
    false keeps it home unless the gate escalates. On by default: on lihua4, whose four edges share names and
    topics, the gate alone cannot tell the quarter that holds an answer; the escalation replayed with and without
    the check (evidence_margin off) is in docs/results/gate-fit/fit-half-full.md, fitted on the fit half.
    """
    read_first: bool = False
    """In mode full with a cloud to ask, the edge's model reads the question first, and its answer stays where the
    gate trusts it. Off: the question goes to the cloud at once, and the edge's model reads it only when the cloud
    cannot be asked. Off by default: with the bundled SmolLM2-135M, no answer stayed on 421 asks of six corpora
    (docs/results/held-out-*, multihop4-report30, and the fit-side debpy3 and debpg3), and the reading cost about
    1.4 s (p50) before each escalation. Run alternately on 39 asks, off answered the same and 0.64 s sooner on
    average (docs/results/read-first). Turn it on with an edge model whose answers stay (docs/results/edge-model),
    or to keep questions home when check_other_edges is off."""
    min_local_confidence: float = 0.2
    """The least confidence a local verdict needs: one whose probability of being right (shared.reading.confidence)
    is below this goes to the cloud, even when the gate trusts it: the edge's small model cannot read that question,
    the cloud's larger one may. A decline gives no verdict: it goes to the cloud by its own rule
    (edge_node.query.escalation), whatever this is (0 = off). 0.2: replayed on the fit halves of multihop4, lihua4
    and pkgfit3 against the cloud's answers to the same questions, it raised within-domain escalation from 10.9% to
    28.3% for 41.3% -> 44.6% strict accuracy; 0.3 and 0.4 gained nothing more. Replayed again on fit-half runs that
    showed every local verdict (docs/results/confidence-fit): 19.0% -> 37.5% escalated for 41.8% -> 45.1% right; the
    replay's rule, capped at 30% escalation, would pick 0, but a guess shown is worse than a call to the cloud."""


@dataclass(frozen=True)
class IngestConfig:
    """Limits on what may be ingested."""

    max_file_bytes: int = MAX_DOCUMENT_BYTES
    """Files larger than this are refused."""
