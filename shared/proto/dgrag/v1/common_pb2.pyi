from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Summary(_message.Message):
    __slots__ = ("id", "version", "text", "top_entities", "n_entities", "n_relations")
    ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOP_ENTITIES_FIELD_NUMBER: _ClassVar[int]
    N_ENTITIES_FIELD_NUMBER: _ClassVar[int]
    N_RELATIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    version: int
    text: str
    top_entities: _containers.RepeatedScalarFieldContainer[str]
    n_entities: int
    n_relations: int
    def __init__(self, id: _Optional[str] = ..., version: _Optional[int] = ..., text: _Optional[str] = ..., top_entities: _Optional[_Iterable[str]] = ..., n_entities: _Optional[int] = ..., n_relations: _Optional[int] = ...) -> None: ...

class ShownAnswer(_message.Message):
    __slots__ = ("text", "short_answer", "probability", "sureness", "answered_by", "sources", "reader")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SHORT_ANSWER_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    SURENESS_FIELD_NUMBER: _ClassVar[int]
    ANSWERED_BY_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    READER_FIELD_NUMBER: _ClassVar[int]
    text: str
    short_answer: str
    probability: float
    sureness: str
    answered_by: str
    sources: _containers.RepeatedScalarFieldContainer[str]
    reader: str
    def __init__(self, text: _Optional[str] = ..., short_answer: _Optional[str] = ..., probability: _Optional[float] = ..., sureness: _Optional[str] = ..., answered_by: _Optional[str] = ..., sources: _Optional[_Iterable[str]] = ..., reader: _Optional[str] = ...) -> None: ...

class Tombstone(_message.Message):
    __slots__ = ("id", "version")
    ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    id: str
    version: int
    def __init__(self, id: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class KnowledgeEntity(_message.Message):
    __slots__ = ("name", "type", "description", "score")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    description: str
    score: float
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., description: _Optional[str] = ..., score: _Optional[float] = ...) -> None: ...

class KnowledgeRelation(_message.Message):
    __slots__ = ("source", "target", "description", "score")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    source: str
    target: str
    description: str
    score: float
    def __init__(self, source: _Optional[str] = ..., target: _Optional[str] = ..., description: _Optional[str] = ..., score: _Optional[float] = ...) -> None: ...

class KnowledgeChunk(_message.Message):
    __slots__ = ("doc_id", "chunk_id", "text", "score", "tokens", "proof_salt", "proof_index", "proof_path")
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    PROOF_SALT_FIELD_NUMBER: _ClassVar[int]
    PROOF_INDEX_FIELD_NUMBER: _ClassVar[int]
    PROOF_PATH_FIELD_NUMBER: _ClassVar[int]
    doc_id: str
    chunk_id: int
    text: str
    score: float
    tokens: int
    proof_salt: bytes
    proof_index: int
    proof_path: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, doc_id: _Optional[str] = ..., chunk_id: _Optional[int] = ..., text: _Optional[str] = ..., score: _Optional[float] = ..., tokens: _Optional[int] = ..., proof_salt: _Optional[bytes] = ..., proof_index: _Optional[int] = ..., proof_path: _Optional[_Iterable[bytes]] = ...) -> None: ...

class Knowledge(_message.Message):
    __slots__ = ("edge_id", "entities", "relations", "chunks", "evidence", "retrieval_seconds", "answers")
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    RETRIEVAL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    entities: _containers.RepeatedCompositeFieldContainer[KnowledgeEntity]
    relations: _containers.RepeatedCompositeFieldContainer[KnowledgeRelation]
    chunks: _containers.RepeatedCompositeFieldContainer[KnowledgeChunk]
    evidence: float
    retrieval_seconds: float
    answers: str
    def __init__(self, edge_id: _Optional[str] = ..., entities: _Optional[_Iterable[_Union[KnowledgeEntity, _Mapping]]] = ..., relations: _Optional[_Iterable[_Union[KnowledgeRelation, _Mapping]]] = ..., chunks: _Optional[_Iterable[_Union[KnowledgeChunk, _Mapping]]] = ..., evidence: _Optional[float] = ..., retrieval_seconds: _Optional[float] = ..., answers: _Optional[str] = ...) -> None: ...

class Timings(_message.Message):
    __slots__ = ("seconds",)
    class SecondsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    seconds: _containers.ScalarMap[str, float]
    def __init__(self, seconds: _Optional[_Mapping[str, float]] = ...) -> None: ...
