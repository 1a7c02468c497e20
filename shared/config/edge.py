"""An edge's settings: its server, its link to the cloud, its privacy policy, and the whole EdgeConfig."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from shared.config.models import EmbedderConfig, ModelConfig
from shared.config.pipeline import (
    AnswerConfig,
    ChunkingConfig,
    ExtractionConfig,
    GateConfig,
    IngestConfig,
    PartitionConfig,
    RetrievalConfig,
    SummaryConfig,
)
from shared.config.tracing import TracingConfig
from shared.core.constants import DEFAULT_EDGE_ID, DEFAULT_MAX_MESSAGE_BYTES
from shared.core.vocabulary import DEFAULT_ANSWER_USE, AnswerUse


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
    failed_auth_per_minute: float = 30.0
    """Failed authentications one peer address may have a minute (10 at once); past them every call from that
    address is refused with RESOURCE_EXHAUSTED until its budget refills, so guessed tokens are never judged
    (0 = no limit). Every local app shares the loopback address: a process guessing delays the others."""
    token_file: str = ""
    """File holding the token local apps must send (``authorization: Bearer``); empty = ``api.token`` in the
    data directory, created (mode 0600) at the first start."""
    tls_cert: str = ""
    """PEM certificate chain of the edge API; with tls_key enables TLS (for apps on other hosts)."""
    tls_key: str = ""
    """PEM private key of the edge API."""
    insecure: bool = False
    """Allow host off loopback without tls_cert and tls_key: the API token and every answer would cross the network
    in the clear (a container's own network, a cluster the researcher owns)."""
    ingest_roots: str = ""
    """Directories the Ingest call may read under, separated by ``:``; empty = none (Ingest over the API is
    refused; `dgrag edge ingest` on the device reads any path its user can)."""
    metrics_port: int = 0
    """Serve Prometheus metrics at http://metrics_host:metrics_port/metrics (0 = off)."""
    metrics_token_file: str = ""
    """A file (mode 0600) holding a token /metrics then requires (``Authorization: Bearer <token>``)."""
    metrics_host: str = "127.0.0.1"
    """Address the metrics listen on."""
    page_port: int = 8765
    """The device owner's page at http://page_host:page_port/ (ask, what left this device, documents), served by
    `dgrag edge serve` and reached with the edge's API token; 0 picks a free port, -1 = off. A port in use leaves the
    page off, with a warning."""
    page_host: str = "127.0.0.1"
    """Address the page listens on (loopback: only this device)."""
    page_insecure: bool = False
    """Allow page_host off loopback: the login would cross the network in the clear (HTTP)."""


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
    """PEM file of the CA that signed the cloud's certificate; empty = plaintext (loopback only, unless insecure)."""
    tls_server_name: str = ""
    """Name to check in the cloud's certificate when it differs from the address's host."""
    tls_cert: str = ""
    """This edge's client certificate, for a cloud that asks for mutual TLS (`dgrag certs` makes it)."""
    tls_key: str = ""
    """Its private key (mode 0600)."""
    insecure: bool = False
    """Talk to a cloud that is not on this machine without TLS (the token then crosses the network in the
    clear): only on a network you trust entirely. Without it, the edge refuses a plaintext cloud address that is
    not loopback."""
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
    answers: AnswerUse = DEFAULT_ANSWER_USE
    """What the cloud's answers to other edges and apps may carry of this edge's texts: quote (word for word, and
    apps get the texts as context), paraphrase (no run of the cloud's query.copy_words words, near-copy or whole
    short sentence of them; sources by id only), ids_only (its texts are not read for others at all; they learn
    which of its sources matched). Its own questions always get its own texts."""
    doc_ids: DocIdPolicy = "opaque"
    """How document ids leave: opaque (a hash, stable per edge: a file name like maria-lopez-hiv.txt says too
    much), names (the id's last part: a file's name without its folders), as_is."""

    share_chunks: bool = True
    """Send raw chunk text (off: only entity and relation descriptions leave the edge)."""
    share_entities: bool = True
    """Send matched entity names and descriptions."""
    share_relations: bool = True
    """Send matched relation descriptions."""
    max_chunk_chars: int = 2000
    """Longest chunk text sent (longer ones are cut)."""
    remote_models: bool = False
    """Let an openai backend (slm or embedder) whose endpoint is off this device read this edge's documents (every
    chunk it indexes and every context it answers from). Off, such a config is refused at start."""
    answer_probes: bool = True
    """Answer the cloud's routing probes: six scores per question, no text. They do tell the cloud how well
    this edge's knowledge matches a question (e.g. whether it knows a name; with the term and lexical coverage,
    how many of the question's words one of its chunks holds, which an app or edge asking one-word questions can
    use to test for a word; under a level that keeps raw text home those two are sent as 0); off: the cloud
    routes to this edge by its summaries only (it is asked when its summaries match a question best)."""


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
    tracing: TracingConfig = field(default_factory=TracingConfig)
    """OpenTelemetry traces (off by default)."""
