"""What a model server serves of what the product asks of a model, probed once when a side starts.

The product reads a written token's probability (an answer's confidence), streams free-text answers (the cloud's
draft to the asker) and asks for JSON under a schema (an edge's extraction). Each is tried once with the same
request the install's self-test sends (shared.models.self_test); each result is one line: served, or what the
product does instead. Nothing falls back silently.
"""

from __future__ import annotations

from collections.abc import Callable

from shared.core.errors import ModelError
from shared.core.model_api import StreamingGenerator, TextGenerator
from shared.models.self_test import json_answer, stream, verdict_probability


def _streamed(generator: TextGenerator) -> str:
    if not isinstance(generator, StreamingGenerator):
        raise ModelError(f"the {generator.name} backend has no streaming call")
    return stream(generator)


FEATURES: tuple[tuple[str, Callable[[TextGenerator], object], str], ...] = (
    (
        "token log-probabilities",
        verdict_probability,
        "answers carry no model probability, so their confidence rests on the other signals and stays lower",
    ),
    ("streaming", _streamed, "the asker's draft does not stream: the answer arrives whole"),
    ("JSON under a schema", json_answer, "an edge's extraction keeps only the model-free entities"),
)


def served_features(generator: TextGenerator) -> list[str]:
    """One line per feature: ``<feature>: served`` or ``<feature>: not served (<why>); <what happens instead>``."""
    lines = []
    for feature, probe, instead in FEATURES:
        try:
            probe(generator)
        except ModelError as exc:
            lines.append(f"{feature}: not served ({exc}); {instead}")
        else:
            lines.append(f"{feature}: served")
    return lines
