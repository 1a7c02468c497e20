"""How sure an answer is: a probability and the word a person reads (sure / likely / can't tell).

The probability is a logistic model of one answer's :class:`Evidence`, signals that mean the same on any corpus:

- ``model``: the model's own probability of what it wrote (the product of its tokens' probabilities; a verdict's
  first token's), read off the pass that wrote it (0 where the backend gives none);
- ``named``: a passage holds the short answer's words, or for a verdict a sentence shares the question's words
  (shared.reading.passage_reader);
- ``agreement``: the share of the model's samples that gave the shown answer (1 for a single greedy answer);
- ``parts``: the share of the question's names and keywords found in the passages (a multi-part question is
  backed on each part);
- the reader (span, verdict, unsupported) and whether the question asks for a verdict.

The weights are fitted per model on the fit half of several corpora at once (``python -m benchmarks.fit_confidence``)
and kept in the ``confidence`` section of the model's data file (shared.reading.model_data). A model without one
gets the unfitted :data:`PRIOR`, which never says "sure". The word follows the probability (shared.core.sureness).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from shared.core.candidates import question_terms
from shared.core.errors import ConfigError
from shared.core.sureness import SIGNALS, Sureness, sureness_of, unit_interval
from shared.core.text import occurs_in


@dataclass(frozen=True)
class Evidence:
    """What the evidence shows of one answer (see the module's docstring)."""

    shape: str
    reader: str
    named: bool
    agreement: float
    parts: float
    model: float = 0.0

    def signals(self) -> dict[str, float]:
        """The evidence's numbers (what a trace records beside the shape and reader)."""
        values = (float(self.named), self.agreement, self.parts, self.model)
        return dict(zip(SIGNALS, values, strict=True))

    @classmethod
    def of(cls, shape: str, reader: str, signals: Mapping[str, float]) -> Evidence:
        """An Evidence from a trace's ``signals`` (missing ones count 0)."""
        return cls(
            shape,
            reader,
            signals.get("named", 0.0) >= 0.5,
            signals.get("agreement", 0.0),
            signals.get("parts", 0.0),
            signals.get("model", 0.0),
        )

    def features(self) -> dict[str, float]:
        """The model's inputs by name (the keys of :class:`Calibration` weights): the reader, the kind of
        question, and the signals; the model's probability also as its log-odds, which a logistic model reads
        linearly."""
        p = min(max(self.model, 1e-4), 1 - 1e-4)
        return {
            f"reader={self.reader}": 1.0,
            "verdict_question": float(self.shape == "yes_no"),
            "named": float(self.named),
            "agreement": self.agreement,
            "parts": self.parts,
            "model": self.model,
            "model_logit": math.log(p / (1 - p)),
        }


@dataclass(frozen=True)
class Confidence:
    probability: float
    word: Sureness

    @classmethod
    def of(cls, probability: float) -> Confidence:
        p = unit_interval(probability)
        return cls(round(p, 3), sureness_of(p))


CANT_TELL = Confidence(0.0, Sureness.CANT_TELL)
"""An answer that gives no verdict (a decline, an extract, lines shown instead of an unreliable verdict)."""


class HasFeatures(Protocol):
    """What a calibration weighs: named features (an answer's :class:`Evidence`, a yes/no verdict's)."""

    def features(self) -> dict[str, float]: ...


@dataclass(frozen=True)
class Calibration:
    """A logistic model: probability = sigmoid(bias + Σ weight × feature)."""

    bias: float
    weights: Mapping[str, float] = field(default_factory=dict)
    fitted_on: str = ""
    """What it was fitted on (command, commit, questions), for the reader of the data file."""

    def probability(self, evidence: HasFeatures) -> float:
        z = self.bias + sum(self.weights.get(k, 0.0) * v for k, v in evidence.features().items())
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def confidence(self, evidence: Evidence) -> Confidence:
        return Confidence.of(self.probability(evidence))

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2) + "\n"

    def as_dict(self) -> dict[str, object]:
        return {"bias": self.bias, "weights": dict(sorted(self.weights.items())), "fitted_on": self.fitted_on}

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], where: str) -> Calibration:
        try:
            return cls(float(raw["bias"]), {str(k): float(v) for k, v in raw["weights"].items()}, raw["fitted_on"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{where} is not a confidence calibration (bias, weights, fitted_on): {exc}") from exc

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """The calibration in ``path``: a bare one, or the ``confidence`` section of a model data file."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path} is not a confidence calibration (bias, weights, fitted_on): {exc}") from exc
        if isinstance(raw, dict) and isinstance(raw.get("confidence"), dict):
            raw = raw["confidence"]
        if not isinstance(raw, Mapping):
            raise ConfigError(f"{path} is not a confidence calibration (bias, weights, fitted_on)")
        return cls.from_mapping(raw, str(path))


PRIOR = Calibration(bias=-2.0, weights={"named": 1.0, "model": 2.0, "parts": 1.0}, fitted_on="not fitted")
"""For a model without a fitted calibration: at most about 88%, so never "sure" (a measured model earns it)."""


def question_parts(question: str, passages: Sequence[str]) -> float:
    """The share of ``question``'s names and keywords found in ``passages`` (0 for a question without any)."""
    _, terms = question_terms(question)
    found = [t for t in terms if any(occurs_in(t, p) for p in passages)]
    return round(len(found) / len(terms), 3) if terms else 0.0
