"""The cloud's settings: its server, its models and its cross-edge query limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.config.models import CloudModelConfig, EmbedderConfig
from shared.config.tracing import TracingConfig
from shared.core.constants import DEFAULT_MAX_MESSAGE_BYTES
from shared.core.errors import ConfigError
from shared.core.sureness import CLOUD_WITHHOLD_BELOW
from shared.core.verbatim import MIN_RUN_WORDS


@dataclass(frozen=True)
class CloudQueryConfig:
    """Cross-edge retrieval (docs/architecture.md, "Edges and the cloud")."""

    top_m: int = 1
    """Summaries matched against the question (the paper uses 1)."""
    top_k: int = 1
    """Edges asked for knowledge, taken from the top-m summaries in order (the paper uses 1)."""
    edge_pool: int = 3
    """Summaries ranked by their edge first: an edge scores the mean similarity of its best ``edge_pool``
    summaries (1 = each summary on its own, as in the paper). On lihua4's 320 answerable questions (no model)
    summary hit@1 went from 45.3% (1) to 43.1% (3) and hit@3 from 75.9% to 86.9%
    (docs/results/routing-fit/summary_routing-lihua4.txt); benchmarks/summary_routing.py measures it."""
    sparse_weight: float = 0.4
    """Stage 1 fuses dense and sparse matching: a summary scores its cosine plus this weight × its BM25 against
    the question (text and key names, scaled to the best match); 0 = dense only, as the paper. 0.4: summary
    hit@1 on all answerable questions 41.6% → 44.7% (lihua4), 96.6% → 97.3% (multihop4),
    benchmarks/probe_routing.py."""
    deadline_s: float = 5.0
    """Seconds the edges have to return their knowledge; late edges are reported, not waited for."""
    context_tokens: int = 1000
    """Token budget of the merged context given to the cloud LLM: about four of the edges' chunks, read whole (chunks
    are taken best score first until it is spent). The cloud's model reads it before its first word (about 80 tokens
    a second on 2 cores for Qwen2.5-Coder-1.5B), so it sets most of an escalated answer's wait."""
    first_passages: int = 0
    """The model reads this many of the best passages first, alone, and every passage only when that reading
    gives no sure span or verdict (see first_sure; 0 = every passage at once, the default). At 1, about 4 answers
    in 10 of the held-out documentation stood on the best passage: first words came after about 5 s instead of
    13 s, at the same accuracy. On held-out news it lost 8 of 54 asks: a question joining two articles got a
    sure span of the best one (docs/results/first-passage). Turn it on for documents answered one passage at a
    time."""
    first_sure: float = 0.6
    """The model's own probability of a first reading's span at which it stands. Fitted with first_verdict_sure
    on the fit-side corpora (debpy3, debpg3, pkgfit3; 183 escalated asks): with both, 49% of the asks stood on the
    best passage, and strict accuracy was 77.6% against 77.0% reading every passage (spans at 0.5: 76.5%)."""
    first_verdict_sure: float = 0.8
    """The same for a first reading's Yes or No, whose settling negation may stand in another passage: every
    verdict of the fit-side asks read at 0.75 or more was right, and two read at 0.66 and 0.72 were wrong."""
    max_tokens: int = 48
    """Longest cloud answer: the answer alone is asked for (a span of a passage, or Yes or No)."""
    withhold_below: float = CLOUD_WITHHOLD_BELOW
    """A yes/no verdict whose own confidence is below this is withheld: the answer says "can't tell" and shows the
    sentence that bears most on the question (0: every verdict is shown, as a calibration fit needs)."""
    calibration: str = ""
    """How sure an answer says it is (shared.reading.confidence): a calibration JSON file fitted for this model with
    ``python -m benchmarks.fit_confidence``; empty: the one fitted for the configured packaged or bundled model,
    else an unfitted prior that never says "sure"."""
    accept_asker_vectors: bool = False
    """Use the question vectors an asker attaches (it saves the cloud one embedding per question). They decide
    which edges are asked and what the cloud measures an edge's claims against, so a credential sending wrong
    ones could steer questions or discredit an honest edge: leave it off unless every credential that may ask is
    trusted. Off, the cloud embeds each question itself and sends the edges its own vectors."""
    copy_words: int = 6
    """Words in a row an answer may not share with the text of an edge whose privacy.answers is paraphrase
    (nor that run with one word swapped); the answer's copied words are removed, or the whole answer when more
    than half of it copies. Case, punctuation, invisible characters and digit groupings do not count."""
    copy_sentence_words: int = 4
    """Shortest sentence of such an edge an answer may not repeat whole (shorter than copy_words)."""
    max_top_m: int = 20
    """Largest top_m a caller may ask for (more is refused with INVALID_ARGUMENT)."""
    max_top_k: int = 8
    """Most edges one question may fan out to."""
    max_deadline_s: float = 30.0
    """Longest fan-out deadline a caller may ask for."""
    max_concurrent_queries: int = 32
    """Global queries answered at once; more get RESOURCE_EXHAUSTED at once instead of piling up."""
    parallel_readings: int = 1
    """Questions the cloud's model reads at once; the others wait their turn in arrival order, and one whose turn
    would come after its asker's deadline is refused at once, saying why (cloud_server.answering.reading_queue).
    On a CPU, 1: readings at once share the cores, so each takes longer and throughput does not rise
    (docs/results/cloud-load). A model server with parallel slots on a GPU: its number of slots."""
    max_queries_per_caller: int = 8
    """Of those, the most one credential may hold at once (more get RESOURCE_EXHAUSTED), so that one asker
    cannot take every place and leave the edges' escalations refused."""
    probe_shortlist: int = 4
    """Two-stage routing: stage 1 shortlists this many edges by their summaries, stage 2 probes them (in
    parallel, scores only, no text) and asks the edges the probes favour (0 = off: ask the top-k edges by
    summaries, as the paper). The stage-2 defaults below were fitted with benchmarks/probe_routing.py on every
    answerable question of both shipped bundles; rerun on the fit half alone (``--half fit``) they stay among the
    best (docs/results/routing-fit, "The fit half alone")."""
    probe_deadline_s: float = 1.0
    """Seconds the shortlisted edges have to answer a probe; an edge that does not is not asked."""
    probe_margin: float = 0.1
    """Adaptive k: the best-probed edge is asked, and so is every other whose routing score is within this
    margin of the best (close scores: ask more; one edge standing out: ask one). Asking every shortlisted edge
    instead (2.0) raised evidence recall on the fit-side debpy3 and debpg3 (0.95-0.97 to 0.98), but lost 1 to 2
    of 34 asks each: more passages, not better ones (``dgrag sim run --half fit``, 2026-12-07)."""
    probe_max_k: int = 3
    """Most edges asked after probing (a caller's explicit top_k overrides it)."""
    probe_weight: float = 0.9
    """Routing score = probe_weight × probe score + (1 − probe_weight) × the edge's summary score."""
    probe_terms_weight: float = 0.0
    """An edge's probe score is its evidence score plus this weight × its term coverage (the best share of the
    question's names and keywords that one of its retrieved chunks contains; 0 = not used: with the lexical
    coverage below it added nothing in the fit) ..."""
    probe_lexical_weight: float = 1.0
    """... plus this weight × its lexical coverage (the best IDF-weighted share of the question's words that one
    chunk of its whole store holds; shared.core.lexical); 0 = not used ..."""
    probe_signal_weights: str = ""
    """... plus, for each further signal an edge's probe reports (ProbeScores.signals), its weight × its value:
    ``name=weight`` pairs separated by commas, e.g. ``recency=0.2``; a signal named here that an edge does not
    report counts 0, one not named here counts nothing."""
    evidence_margin: float = 0.1
    """CheckEvidence (an edge asking before it answers locally): another edge matches clearly better when its
    probe score exceeds the asking edge's own, scored alike (evidence plus the weighted term and lexical
    coverage it sends), by this margin."""
    trust_file: str = ""
    """Where what the cloud learned of each edge's claims persists (JSON: per edge id, its average over-claim and
    the replies checked; never text). Empty: kept in memory only, and a restart trusts every edge afresh (`dgrag
    init` sets it). Delete the file to forgive every edge."""

    def __post_init__(self) -> None:
        if self.parallel_readings < 1:
            raise ConfigError("query.parallel_readings must be 1 or more (the questions the model reads at once)")
        if self.max_queries_per_caller < 1:
            raise ConfigError(
                "query.max_queries_per_caller must be 1 or more (the questions one credential may have open)"
            )
        if self.copy_words < MIN_RUN_WORDS:
            raise ConfigError(
                f"query.copy_words = {self.copy_words} would remove ordinary phrases from answers; use {MIN_RUN_WORDS}"
                " or more"
            )
        sure = (self.first_sure, self.first_verdict_sure)
        if self.first_passages < 0 or any(not 0.0 <= v <= 1.0 for v in sure):
            raise ConfigError(
                "query.first_passages must be 0 or more, and query.first_sure and first_verdict_sure probabilities "
                f"from 0 to 1 (got {self.first_passages}, {self.first_sure} and {self.first_verdict_sure})"
            )


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
    tls_client_ca: str = ""
    """Mutual TLS: every caller presents a certificate signed by this CA whose common name is the id it claims
    (the certificate is the identity; its token must match too). Needs tls_cert and tls_key."""
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    """Largest gRPC message accepted or sent."""
    max_concurrent_rpcs: int = 4096
    """Calls served at once, edge sessions included (one per connected edge); more get RESOURCE_EXHAUSTED."""
    calls_per_minute: float = 600.0
    """Calls one credential may make a minute (every kind, sessions included; 0 = no limit); more get
    RESOURCE_EXHAUSTED with the wait in the message and the grpc-retry-pushback-ms trailer."""
    failed_auth_per_minute: float = 30.0
    """Failed authentications one peer address may have a minute (10 at once); past them every call from that
    address is refused with RESOURCE_EXHAUSTED until its budget refills, so guessed tokens are never judged
    (0 = no limit). Callers behind one NAT share an address: one misconfigured client can delay the others."""
    call_burst: int = 60
    """Calls one credential may make at once before calls_per_minute paces it."""
    session_publishes_per_minute: float = 60.0
    """Summary messages (sync or delta) one edge's session may send a minute, 20 at once (0 = no limit); past
    it the session is closed with RESOURCE_EXHAUSTED and the edge reconnects later with backoff."""
    session_summaries_per_minute: float = 2000.0
    """Summaries one edge may have the cloud embed a minute (a full sync of the most the cloud holds for an edge
    always fits when the edge was quiet; unchanged summaries cost nothing; 0 = no limit)."""
    health_watches: int = 64
    """Health Watch streams open at once (anyone may open one), kept apart from the authenticated calls."""
    health_watches_per_peer: int = 4
    """Health Watch streams one address may hold open."""
    metrics_port: int = 0
    """Serve Prometheus metrics at http://metrics_host:metrics_port/metrics (0 = off)."""
    metrics_token_file: str = ""
    """A file (mode 0600) holding a token /metrics then requires (``Authorization: Bearer <token>``); empty: the
    metrics are open to whoever reaches metrics_host."""
    metrics_host: str = "127.0.0.1"
    """Address the metrics listen on (they name edges and their trust: keep them off public networks)."""
    ops_port: int = 0
    """Serve the operators' read-only page (edges, latest questions) at http://ops_host:ops_port/ to admin
    credentials (HTTP basic authentication: id and token); 0 = off."""
    ops_host: str = "127.0.0.1"
    """Address the operators' page listens on (loopback: reach it through an SSH tunnel)."""
    ops_insecure: bool = False
    """Let the operators' page listen off loopback although HTTP basic authentication sends the admin token in
    the clear (a network you trust entirely); without it such an ops_host is refused at start."""
    heartbeat_interval_s: float = 10.0
    """Heartbeat interval asked of edges; an edge silent for 3 intervals is shown as disconnected."""
    summary_store: str = ""
    """Where the summary index persists (SQLite: each summary's text, version and vector, never a document). A
    restarted cloud holds what it held, and each reconnecting edge sends only what changed. Empty: kept in memory
    only, so after a restart every edge sends its whole set and the cloud embeds it all again (`dgrag init` sets
    it). Delete the file to make every edge send its summaries again."""
    hello_timeout_s: float = 10.0
    """A session that sends no hello within this long is closed (DEADLINE_EXCEEDED)."""
    llm: CloudModelConfig = field(default_factory=CloudModelConfig)
    """The cloud LLM: by default the larger packaged model in process (llama_cpp); the openai backend reaches any
    OpenAI-compatible endpoint."""
    llm_fallback: bool = True
    """When llm names a packaged model that is not fetched, read with the bundled SmolLM2-135M (a much weaker
    reader) and say so at start, with the command that fetches it; false: refuse to start instead."""
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    """The embedder of summaries and questions (must match what the edges use)."""
    query: CloudQueryConfig = field(default_factory=CloudQueryConfig)
    """Cross-edge retrieval."""
    tracing: TracingConfig = field(default_factory=TracingConfig)
    """OpenTelemetry traces (off by default)."""
