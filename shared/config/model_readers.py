"""The reader profile that goes with the configured model.

A reader profile (shared.reading.reader_profile) is measured per model. An edge or a cloud that names a packaged
model (``[slm] packaged`` / ``[llm] packaged``) and sets no ``readers`` table of its own reads with the profile
measured for that model; a ``readers`` table in the file or a ``DGRAG__...__READERS__...`` variable always wins.
Any other model keeps the defaults (SmolLM2-135M-Instruct's) until one is measured for it and set.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from shared.config.cloud import CloudConfig
from shared.config.edge import EdgeConfig
from shared.reading.reader_profile import MEASURED_PROFILES

T = TypeVar("T")


def with_measured_readers(config: T, raw: Mapping[str, Any]) -> T:
    """``config`` with the reader profile measured for its packaged model, where ``raw`` (the file and the
    environment's settings) sets no readers of its own; other configs unchanged."""
    if isinstance(config, EdgeConfig):
        profile = MEASURED_PROFILES.get(config.slm.packaged)
        if profile is None or _sets_readers(raw, "answer"):
            return config
        answer = dataclasses.replace(config.answer, readers=profile)
        return dataclasses.replace(config, answer=answer)
    if isinstance(config, CloudConfig):
        profile = MEASURED_PROFILES.get(config.llm.packaged)
        if profile is None or _sets_readers(raw, "query"):
            return config
        query = dataclasses.replace(config.query, readers=profile)
        return dataclasses.replace(config, query=query)
    return config


def _sets_readers(raw: Mapping[str, Any], section: str) -> bool:
    table = raw.get(section)
    return isinstance(table, Mapping) and "readers" in table
