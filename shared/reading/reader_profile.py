"""Which reader answers each question shape for one model, as measured on the fit half of the dev questions.

A **model** reader takes the model's sampled answers (a vote over the options for yes/no, choice and entity
questions; the short phrase the samples agree on for open ones). An **extractive** reader is model-free: the
evidence's name, date or number that best matches the question, or (open questions) its best sentence. Which is
better depends on the model, so each model's settings carry a profile measured for it
(``python -m benchmarks.reader_oracle --slm --half fit --profile``). No shape withholds its answers by rule: a
verdict is withheld by its own confidence (``withhold_below``, shared.reading.compose).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from shared.core.errors import ConfigError
from shared.reading.model_data import model_file, read_section
from shared.reading.plan import Shape

Reader = Literal["model", "extractive"]
SHAPES = tuple(s.value for s in Shape)


@dataclass(frozen=True)
class ReaderProfile:
    """The reader of each question shape. The defaults are SmolLM2-135M-Instruct's, measured from the gold evidence
    of the fit half of multihop4 and lihua4 (docs/results/reader-profile)."""

    yes_no: Reader = "model"
    """A yes/no verdict: the model's samples vote (no prior: ties go to the first sample's verdict)."""
    choice: Reader = "model"
    """One of two options the question names: the samples vote."""
    entity: Reader = "extractive"
    """A named entity: the candidate backed by evidence for each part of the question, or the samples' vote."""
    date: Reader = "extractive"
    number: Reader = "extractive"
    open: Reader = "model"
    """Free text: the short phrase the samples agree on (their restatement of the question cut away), or the
    evidence's best sentence."""
    dates: bool = True
    """Yes/no questions about the order of two events or the time between them are answered from the dates of
    the passages that tell of each (shared.reading.temporal) where both are found; otherwise by the yes_no reader."""
    speakers: bool = True
    """Open questions about what a named person said, thinks or suggests are answered from that person's own
    lines ("Name: ..."), cut to what they add to the question (shared.reading.phrases), before the open reader."""

    def reader(self, shape: Shape) -> Reader:
        value: Reader = getattr(self, shape.value)
        return value


@functools.lru_cache(maxsize=16)
def measured_profile(model: str) -> ReaderProfile | None:
    """The profile measured for ``model`` (the ``readers`` section of its data file, shared.reading.model_data,
    written from what ``benchmarks.reader_oracle --profile`` measured), or None when none was measured. Used where a
    config names that model and sets no readers of its own (shared.config.model_readers). A wrong section is a
    ConfigError."""
    section = read_section(model, "readers")
    if section is None:
        return None
    try:
        return ReaderProfile(**section["profile"])
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"{model_file(model)}: its readers section is not a reader profile ({exc})") from exc
