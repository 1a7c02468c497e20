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

from shared.config.cloud import CloudConfig, CloudQueryConfig
from shared.config.edge import CloudLinkConfig, DocIdPolicy, EdgeConfig, EdgeServerConfig, PrivacyConfig, PrivacyLevel
from shared.config.loading import ENV_PREFIX, load_config
from shared.config.models import (
    CLOUD_MODEL,
    CloudModelConfig,
    EmbedderBackend,
    EmbedderConfig,
    EmbedderPrecision,
    GeneratorBackend,
    JsonMode,
    ModelConfig,
    WeightFormat,
)
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

__all__ = [
    "CLOUD_MODEL",
    "ENV_PREFIX",
    "AnswerConfig",
    "ChunkingConfig",
    "CloudConfig",
    "CloudLinkConfig",
    "CloudModelConfig",
    "CloudQueryConfig",
    "DocIdPolicy",
    "EdgeConfig",
    "EdgeServerConfig",
    "EmbedderBackend",
    "EmbedderConfig",
    "EmbedderPrecision",
    "ExtractionConfig",
    "GateConfig",
    "GeneratorBackend",
    "IngestConfig",
    "JsonMode",
    "ModelConfig",
    "PartitionConfig",
    "PrivacyConfig",
    "PrivacyLevel",
    "RetrievalConfig",
    "SummaryConfig",
    "WeightFormat",
    "load_config",
]
