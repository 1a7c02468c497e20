from shared.proto.dgrag.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Hello(_message.Message):
    __slots__ = ("edge_id", "software_version", "unnamed", "answers")
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    SOFTWARE_VERSION_FIELD_NUMBER: _ClassVar[int]
    UNNAMED_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    software_version: str
    unnamed: bool
    answers: str
    def __init__(self, edge_id: _Optional[str] = ..., software_version: _Optional[str] = ..., unnamed: _Optional[bool] = ..., answers: _Optional[str] = ...) -> None: ...

class SummarySync(_message.Message):
    __slots__ = ("summaries", "up_to_seq", "chunk_root")
    SUMMARIES_FIELD_NUMBER: _ClassVar[int]
    UP_TO_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ROOT_FIELD_NUMBER: _ClassVar[int]
    summaries: _containers.RepeatedCompositeFieldContainer[_common_pb2.Summary]
    up_to_seq: int
    chunk_root: bytes
    def __init__(self, summaries: _Optional[_Iterable[_Union[_common_pb2.Summary, _Mapping]]] = ..., up_to_seq: _Optional[int] = ..., chunk_root: _Optional[bytes] = ...) -> None: ...

class SummaryDelta(_message.Message):
    __slots__ = ("upserts", "tombstones", "up_to_seq", "chunk_root")
    UPSERTS_FIELD_NUMBER: _ClassVar[int]
    TOMBSTONES_FIELD_NUMBER: _ClassVar[int]
    UP_TO_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ROOT_FIELD_NUMBER: _ClassVar[int]
    upserts: _containers.RepeatedCompositeFieldContainer[_common_pb2.Summary]
    tombstones: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tombstone]
    up_to_seq: int
    chunk_root: bytes
    def __init__(self, upserts: _Optional[_Iterable[_Union[_common_pb2.Summary, _Mapping]]] = ..., tombstones: _Optional[_Iterable[_Union[_common_pb2.Tombstone, _Mapping]]] = ..., up_to_seq: _Optional[int] = ..., chunk_root: _Optional[bytes] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("sent_at",)
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    sent_at: float
    def __init__(self, sent_at: _Optional[float] = ...) -> None: ...

class RetrievalReply(_message.Message):
    __slots__ = ("request_id", "knowledge", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    knowledge: _common_pb2.Knowledge
    error: str
    def __init__(self, request_id: _Optional[str] = ..., knowledge: _Optional[_Union[_common_pb2.Knowledge, _Mapping]] = ..., error: _Optional[str] = ...) -> None: ...

class ProbeReply(_message.Message):
    __slots__ = ("request_id", "score", "name_coverage", "best_entity", "best_chunk", "error", "term_coverage", "lexical", "signals")
    class SignalsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    NAME_COVERAGE_FIELD_NUMBER: _ClassVar[int]
    BEST_ENTITY_FIELD_NUMBER: _ClassVar[int]
    BEST_CHUNK_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TERM_COVERAGE_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    score: float
    name_coverage: float
    best_entity: float
    best_chunk: float
    error: str
    term_coverage: float
    lexical: float
    signals: _containers.ScalarMap[str, float]
    def __init__(self, request_id: _Optional[str] = ..., score: _Optional[float] = ..., name_coverage: _Optional[float] = ..., best_entity: _Optional[float] = ..., best_chunk: _Optional[float] = ..., error: _Optional[str] = ..., term_coverage: _Optional[float] = ..., lexical: _Optional[float] = ..., signals: _Optional[_Mapping[str, float]] = ...) -> None: ...

class EdgeMessage(_message.Message):
    __slots__ = ("hello", "sync", "delta", "heartbeat", "retrieval_reply", "probe_reply")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    SYNC_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    RETRIEVAL_REPLY_FIELD_NUMBER: _ClassVar[int]
    PROBE_REPLY_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    sync: SummarySync
    delta: SummaryDelta
    heartbeat: Heartbeat
    retrieval_reply: RetrievalReply
    probe_reply: ProbeReply
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., sync: _Optional[_Union[SummarySync, _Mapping]] = ..., delta: _Optional[_Union[SummaryDelta, _Mapping]] = ..., heartbeat: _Optional[_Union[Heartbeat, _Mapping]] = ..., retrieval_reply: _Optional[_Union[RetrievalReply, _Mapping]] = ..., probe_reply: _Optional[_Union[ProbeReply, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("edge_id", "heartbeat_interval_s", "holds_view", "held")
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_INTERVAL_S_FIELD_NUMBER: _ClassVar[int]
    HOLDS_VIEW_FIELD_NUMBER: _ClassVar[int]
    HELD_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    heartbeat_interval_s: float
    holds_view: bool
    held: _containers.RepeatedCompositeFieldContainer[HeldSummary]
    def __init__(self, edge_id: _Optional[str] = ..., heartbeat_interval_s: _Optional[float] = ..., holds_view: _Optional[bool] = ..., held: _Optional[_Iterable[_Union[HeldSummary, _Mapping]]] = ...) -> None: ...

class HeldSummary(_message.Message):
    __slots__ = ("id", "version", "digest")
    ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    id: str
    version: int
    digest: bytes
    def __init__(self, id: _Optional[str] = ..., version: _Optional[int] = ..., digest: _Optional[bytes] = ...) -> None: ...

class Ack(_message.Message):
    __slots__ = ("up_to_seq", "summaries_held")
    UP_TO_SEQ_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_HELD_FIELD_NUMBER: _ClassVar[int]
    up_to_seq: int
    summaries_held: int
    def __init__(self, up_to_seq: _Optional[int] = ..., summaries_held: _Optional[int] = ...) -> None: ...

class QueryVectors(_message.Message):
    __slots__ = ("embedder", "dim", "texts", "vectors")
    EMBEDDER_FIELD_NUMBER: _ClassVar[int]
    DIM_FIELD_NUMBER: _ClassVar[int]
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    embedder: str
    dim: int
    texts: _containers.RepeatedScalarFieldContainer[str]
    vectors: bytes
    def __init__(self, embedder: _Optional[str] = ..., dim: _Optional[int] = ..., texts: _Optional[_Iterable[str]] = ..., vectors: _Optional[bytes] = ...) -> None: ...

class RetrievalRequest(_message.Message):
    __slots__ = ("request_id", "question", "deadline_s", "vectors", "traceparent")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_S_FIELD_NUMBER: _ClassVar[int]
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    TRACEPARENT_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    question: str
    deadline_s: float
    vectors: QueryVectors
    traceparent: str
    def __init__(self, request_id: _Optional[str] = ..., question: _Optional[str] = ..., deadline_s: _Optional[float] = ..., vectors: _Optional[_Union[QueryVectors, _Mapping]] = ..., traceparent: _Optional[str] = ...) -> None: ...

class ProbeRequest(_message.Message):
    __slots__ = ("request_id", "question", "deadline_s", "vectors", "traceparent")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_S_FIELD_NUMBER: _ClassVar[int]
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    TRACEPARENT_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    question: str
    deadline_s: float
    vectors: QueryVectors
    traceparent: str
    def __init__(self, request_id: _Optional[str] = ..., question: _Optional[str] = ..., deadline_s: _Optional[float] = ..., vectors: _Optional[_Union[QueryVectors, _Mapping]] = ..., traceparent: _Optional[str] = ...) -> None: ...

class CloudMessage(_message.Message):
    __slots__ = ("welcome", "ack", "retrieval_request", "probe_request")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    ACK_FIELD_NUMBER: _ClassVar[int]
    RETRIEVAL_REQUEST_FIELD_NUMBER: _ClassVar[int]
    PROBE_REQUEST_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    ack: Ack
    retrieval_request: RetrievalRequest
    probe_request: ProbeRequest
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., ack: _Optional[_Union[Ack, _Mapping]] = ..., retrieval_request: _Optional[_Union[RetrievalRequest, _Mapping]] = ..., probe_request: _Optional[_Union[ProbeRequest, _Mapping]] = ...) -> None: ...

class GlobalQueryRequest(_message.Message):
    __slots__ = ("question", "asked_at", "top_m", "top_k", "deadline_s", "vectors")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    ASKED_AT_FIELD_NUMBER: _ClassVar[int]
    TOP_M_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_S_FIELD_NUMBER: _ClassVar[int]
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    question: str
    asked_at: str
    top_m: int
    top_k: int
    deadline_s: float
    vectors: QueryVectors
    def __init__(self, question: _Optional[str] = ..., asked_at: _Optional[str] = ..., top_m: _Optional[int] = ..., top_k: _Optional[int] = ..., deadline_s: _Optional[float] = ..., vectors: _Optional[_Union[QueryVectors, _Mapping]] = ...) -> None: ...

class SummaryMatch(_message.Message):
    __slots__ = ("summary_id", "edge_id", "score", "version")
    SUMMARY_ID_FIELD_NUMBER: _ClassVar[int]
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    summary_id: str
    edge_id: str
    score: float
    version: int
    def __init__(self, summary_id: _Optional[str] = ..., edge_id: _Optional[str] = ..., score: _Optional[float] = ..., version: _Optional[int] = ...) -> None: ...

class GlobalQueryReply(_message.Message):
    __slots__ = ("answer", "summaries", "edges_asked", "edges_replied", "edges_failed", "context_chunks", "context_edges", "timings", "bytes_received", "probes", "probe_bytes", "short_answer", "withheld_words", "reader", "matched_offline", "confidence", "confidence_signals", "shown")
    class ConfidenceSignalsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_FIELD_NUMBER: _ClassVar[int]
    EDGES_ASKED_FIELD_NUMBER: _ClassVar[int]
    EDGES_REPLIED_FIELD_NUMBER: _ClassVar[int]
    EDGES_FAILED_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_CHUNKS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_EDGES_FIELD_NUMBER: _ClassVar[int]
    TIMINGS_FIELD_NUMBER: _ClassVar[int]
    BYTES_RECEIVED_FIELD_NUMBER: _ClassVar[int]
    PROBES_FIELD_NUMBER: _ClassVar[int]
    PROBE_BYTES_FIELD_NUMBER: _ClassVar[int]
    SHORT_ANSWER_FIELD_NUMBER: _ClassVar[int]
    WITHHELD_WORDS_FIELD_NUMBER: _ClassVar[int]
    READER_FIELD_NUMBER: _ClassVar[int]
    MATCHED_OFFLINE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_SIGNALS_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    answer: str
    summaries: _containers.RepeatedCompositeFieldContainer[SummaryMatch]
    edges_asked: _containers.RepeatedScalarFieldContainer[str]
    edges_replied: _containers.RepeatedScalarFieldContainer[str]
    edges_failed: _containers.RepeatedScalarFieldContainer[str]
    context_chunks: _containers.RepeatedCompositeFieldContainer[_common_pb2.KnowledgeChunk]
    context_edges: _containers.RepeatedScalarFieldContainer[str]
    timings: _common_pb2.Timings
    bytes_received: int
    probes: _containers.RepeatedCompositeFieldContainer[ProbeResult]
    probe_bytes: int
    short_answer: str
    withheld_words: int
    reader: str
    matched_offline: bool
    confidence: float
    confidence_signals: _containers.ScalarMap[str, float]
    shown: _common_pb2.ShownAnswer
    def __init__(self, answer: _Optional[str] = ..., summaries: _Optional[_Iterable[_Union[SummaryMatch, _Mapping]]] = ..., edges_asked: _Optional[_Iterable[str]] = ..., edges_replied: _Optional[_Iterable[str]] = ..., edges_failed: _Optional[_Iterable[str]] = ..., context_chunks: _Optional[_Iterable[_Union[_common_pb2.KnowledgeChunk, _Mapping]]] = ..., context_edges: _Optional[_Iterable[str]] = ..., timings: _Optional[_Union[_common_pb2.Timings, _Mapping]] = ..., bytes_received: _Optional[int] = ..., probes: _Optional[_Iterable[_Union[ProbeResult, _Mapping]]] = ..., probe_bytes: _Optional[int] = ..., short_answer: _Optional[str] = ..., withheld_words: _Optional[int] = ..., reader: _Optional[str] = ..., matched_offline: _Optional[bool] = ..., confidence: _Optional[float] = ..., confidence_signals: _Optional[_Mapping[str, float]] = ..., shown: _Optional[_Union[_common_pb2.ShownAnswer, _Mapping]] = ...) -> None: ...

class GlobalQueryEvent(_message.Message):
    __slots__ = ("draft", "reply")
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    draft: str
    reply: GlobalQueryReply
    def __init__(self, draft: _Optional[str] = ..., reply: _Optional[_Union[GlobalQueryReply, _Mapping]] = ...) -> None: ...

class ProbeResult(_message.Message):
    __slots__ = ("edge_id", "score", "name_coverage", "best_entity", "best_chunk", "seconds", "error", "term_coverage", "lexical", "signals")
    class SignalsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    NAME_COVERAGE_FIELD_NUMBER: _ClassVar[int]
    BEST_ENTITY_FIELD_NUMBER: _ClassVar[int]
    BEST_CHUNK_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TERM_COVERAGE_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    score: float
    name_coverage: float
    best_entity: float
    best_chunk: float
    seconds: float
    error: str
    term_coverage: float
    lexical: float
    signals: _containers.ScalarMap[str, float]
    def __init__(self, edge_id: _Optional[str] = ..., score: _Optional[float] = ..., name_coverage: _Optional[float] = ..., best_entity: _Optional[float] = ..., best_chunk: _Optional[float] = ..., seconds: _Optional[float] = ..., error: _Optional[str] = ..., term_coverage: _Optional[float] = ..., lexical: _Optional[float] = ..., signals: _Optional[_Mapping[str, float]] = ...) -> None: ...

class MatchSummariesRequest(_message.Message):
    __slots__ = ("question", "top_m")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    TOP_M_FIELD_NUMBER: _ClassVar[int]
    question: str
    top_m: int
    def __init__(self, question: _Optional[str] = ..., top_m: _Optional[int] = ...) -> None: ...

class MatchSummariesReply(_message.Message):
    __slots__ = ("summaries",)
    SUMMARIES_FIELD_NUMBER: _ClassVar[int]
    summaries: _containers.RepeatedCompositeFieldContainer[SummaryMatch]
    def __init__(self, summaries: _Optional[_Iterable[_Union[SummaryMatch, _Mapping]]] = ...) -> None: ...

class CheckEvidenceRequest(_message.Message):
    __slots__ = ("question", "local_evidence", "local_terms", "vectors", "local_lexical", "margin", "answer_if_stronger")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    LOCAL_TERMS_FIELD_NUMBER: _ClassVar[int]
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    LOCAL_LEXICAL_FIELD_NUMBER: _ClassVar[int]
    MARGIN_FIELD_NUMBER: _ClassVar[int]
    ANSWER_IF_STRONGER_FIELD_NUMBER: _ClassVar[int]
    question: str
    local_evidence: float
    local_terms: float
    vectors: QueryVectors
    local_lexical: float
    margin: float
    answer_if_stronger: bool
    def __init__(self, question: _Optional[str] = ..., local_evidence: _Optional[float] = ..., local_terms: _Optional[float] = ..., vectors: _Optional[_Union[QueryVectors, _Mapping]] = ..., local_lexical: _Optional[float] = ..., margin: _Optional[float] = ..., answer_if_stronger: _Optional[bool] = ...) -> None: ...

class CheckEvidenceReply(_message.Message):
    __slots__ = ("stronger_elsewhere", "answer", "matched_offline")
    STRONGER_ELSEWHERE_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    MATCHED_OFFLINE_FIELD_NUMBER: _ClassVar[int]
    stronger_elsewhere: bool
    answer: GlobalQueryReply
    matched_offline: bool
    def __init__(self, stronger_elsewhere: _Optional[bool] = ..., answer: _Optional[_Union[GlobalQueryReply, _Mapping]] = ..., matched_offline: _Optional[bool] = ...) -> None: ...

class ListEdgesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EdgeInfo(_message.Message):
    __slots__ = ("edge_id", "connected", "connected_since", "summaries", "last_heartbeat", "trust", "over_claim", "checked", "flagged")
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_SINCE_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_FIELD_NUMBER: _ClassVar[int]
    LAST_HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    TRUST_FIELD_NUMBER: _ClassVar[int]
    OVER_CLAIM_FIELD_NUMBER: _ClassVar[int]
    CHECKED_FIELD_NUMBER: _ClassVar[int]
    FLAGGED_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    connected: bool
    connected_since: float
    summaries: int
    last_heartbeat: float
    trust: float
    over_claim: float
    checked: int
    flagged: bool
    def __init__(self, edge_id: _Optional[str] = ..., connected: _Optional[bool] = ..., connected_since: _Optional[float] = ..., summaries: _Optional[int] = ..., last_heartbeat: _Optional[float] = ..., trust: _Optional[float] = ..., over_claim: _Optional[float] = ..., checked: _Optional[int] = ..., flagged: _Optional[bool] = ...) -> None: ...

class ListEdgesReply(_message.Message):
    __slots__ = ("edges",)
    EDGES_FIELD_NUMBER: _ClassVar[int]
    edges: _containers.RepeatedCompositeFieldContainer[EdgeInfo]
    def __init__(self, edges: _Optional[_Iterable[_Union[EdgeInfo, _Mapping]]] = ...) -> None: ...
