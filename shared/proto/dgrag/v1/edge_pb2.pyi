from shared.proto.dgrag.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InlineDocument(_message.Message):
    __slots__ = ("doc_id", "title", "text")
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    doc_id: str
    title: str
    text: str
    def __init__(self, doc_id: _Optional[str] = ..., title: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class IngestRequest(_message.Message):
    __slots__ = ("paths", "documents")
    PATHS_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    paths: _containers.RepeatedScalarFieldContainer[str]
    documents: _containers.RepeatedCompositeFieldContainer[InlineDocument]
    def __init__(self, paths: _Optional[_Iterable[str]] = ..., documents: _Optional[_Iterable[_Union[InlineDocument, _Mapping]]] = ...) -> None: ...

class IngestFailure(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class IngestReply(_message.Message):
    __slots__ = ("added", "updated", "unchanged", "failed", "summaries_upserted", "summaries_deleted")
    ADDED_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_UPSERTED_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_DELETED_FIELD_NUMBER: _ClassVar[int]
    added: _containers.RepeatedScalarFieldContainer[str]
    updated: _containers.RepeatedScalarFieldContainer[str]
    unchanged: _containers.RepeatedScalarFieldContainer[str]
    failed: _containers.RepeatedCompositeFieldContainer[IngestFailure]
    summaries_upserted: int
    summaries_deleted: int
    def __init__(self, added: _Optional[_Iterable[str]] = ..., updated: _Optional[_Iterable[str]] = ..., unchanged: _Optional[_Iterable[str]] = ..., failed: _Optional[_Iterable[_Union[IngestFailure, _Mapping]]] = ..., summaries_upserted: _Optional[int] = ..., summaries_deleted: _Optional[int] = ...) -> None: ...

class QueryRequest(_message.Message):
    __slots__ = ("question", "mode")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    question: str
    mode: str
    def __init__(self, question: _Optional[str] = ..., mode: _Optional[str] = ...) -> None: ...

class Source(_message.Message):
    __slots__ = ("edge_id", "doc_id", "chunk_id", "score")
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    doc_id: str
    chunk_id: int
    score: float
    def __init__(self, edge_id: _Optional[str] = ..., doc_id: _Optional[str] = ..., chunk_id: _Optional[int] = ..., score: _Optional[float] = ...) -> None: ...

class QueryEvent(_message.Message):
    __slots__ = ("draft", "reply")
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    draft: str
    reply: QueryReply
    def __init__(self, draft: _Optional[str] = ..., reply: _Optional[_Union[QueryReply, _Mapping]] = ...) -> None: ...

class QueryReply(_message.Message):
    __slots__ = ("answer", "decision", "verified", "note", "sources", "trace_json", "timings", "shown")
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    TRACE_JSON_FIELD_NUMBER: _ClassVar[int]
    TIMINGS_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    answer: str
    decision: str
    verified: bool
    note: str
    sources: _containers.RepeatedCompositeFieldContainer[Source]
    trace_json: str
    timings: _common_pb2.Timings
    shown: _common_pb2.ShownAnswer
    def __init__(self, answer: _Optional[str] = ..., decision: _Optional[str] = ..., verified: _Optional[bool] = ..., note: _Optional[str] = ..., sources: _Optional[_Iterable[_Union[Source, _Mapping]]] = ..., trace_json: _Optional[str] = ..., timings: _Optional[_Union[_common_pb2.Timings, _Mapping]] = ..., shown: _Optional[_Union[_common_pb2.ShownAnswer, _Mapping]] = ...) -> None: ...

class RetrieveRequest(_message.Message):
    __slots__ = ("question",)
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    question: str
    def __init__(self, question: _Optional[str] = ...) -> None: ...

class StatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StatsReply(_message.Message):
    __slots__ = ("edge_id", "documents", "chunks", "entities", "relations", "subgraphs", "summaries", "bytes_on_disk", "cloud_connected", "pending_publications")
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    SUBGRAPHS_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_FIELD_NUMBER: _ClassVar[int]
    BYTES_ON_DISK_FIELD_NUMBER: _ClassVar[int]
    CLOUD_CONNECTED_FIELD_NUMBER: _ClassVar[int]
    PENDING_PUBLICATIONS_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    documents: int
    chunks: int
    entities: int
    relations: int
    subgraphs: int
    summaries: int
    bytes_on_disk: int
    cloud_connected: bool
    pending_publications: int
    def __init__(self, edge_id: _Optional[str] = ..., documents: _Optional[int] = ..., chunks: _Optional[int] = ..., entities: _Optional[int] = ..., relations: _Optional[int] = ..., subgraphs: _Optional[int] = ..., summaries: _Optional[int] = ..., bytes_on_disk: _Optional[int] = ..., cloud_connected: _Optional[bool] = ..., pending_publications: _Optional[int] = ...) -> None: ...

class DeleteRequest(_message.Message):
    __slots__ = ("doc_ids",)
    DOC_IDS_FIELD_NUMBER: _ClassVar[int]
    doc_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, doc_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class DeleteReply(_message.Message):
    __slots__ = ("deleted", "summaries_upserted", "summaries_deleted")
    DELETED_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_UPSERTED_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: _containers.RepeatedScalarFieldContainer[str]
    summaries_upserted: int
    summaries_deleted: int
    def __init__(self, deleted: _Optional[_Iterable[str]] = ..., summaries_upserted: _Optional[int] = ..., summaries_deleted: _Optional[int] = ...) -> None: ...
