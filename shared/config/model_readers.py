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

from shared.config.cloud import CloudConfig, CloudQueryConfig
from shared.config.edge import EdgeConfig
from shared.config.pipeline import AnswerConfig
from shared.reading.reader_profile import measured_profile

T = TypeVar("T")
P = TypeVar("P", AnswerConfig, CloudQueryConfig)


def with_measured_readers(config: T, raw: Mapping[str, Any]) -> T:
    """``config`` with the reader profile measured for its packaged model, where ``raw`` (the file and the
    environment's settings) sets no readers of its own; other configs unchanged."""
    if isinstance(config, EdgeConfig):
        answer = _measured(config.answer, config.slm.packaged_in_use, raw, "answer")
        return config if answer is config.answer else dataclasses.replace(config, answer=answer)
    if isinstance(config, CloudConfig):
        query = _measured(config.query, config.llm.packaged_in_use, raw, "query")
        return config if query is config.query else dataclasses.replace(config, query=query)
    return config


def _measured(part: P, packaged: str, raw: Mapping[str, Any], section: str) -> P:
    """``part`` (the table holding ``readers``) with ``packaged``'s measured profile, unless ``raw[section]``
    sets readers or no profile was measured for it."""
    profile = measured_profile(packaged)
    table = raw.get(section)
    if profile is None or (isinstance(table, Mapping) and "readers" in table):
        return part
    return dataclasses.replace(part, readers=profile)
