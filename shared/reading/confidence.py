"""How sure an answer is: a probability and the word a person reads (sure / likely / can't tell).

The probability is a logistic model of what was measured and what the evidence shows. Its inputs, the
:class:`Evidence` of one answer, are model-free:

- the question's shape and the reader that made the answer (some readers are right more often than others);
- ``named``: a passage holds the short answer's words (a name, a date or a number the sources state);
- ``agreement``: how much the model holds to the shown answer: the share of its samples that gave it, or, for a
  single choice among options, the model's probability of that option (its first token's share of the options'
  first tokens; options that begin alike share it);
- ``parts``: the share of the question's names and keywords found in the passages (a multi-part question is
  backed on each part);
- ``concur``: the model-free entity reader (shared.reading.span_reader) ranks the shown name first, so two readers
  that work differently agree on it (1; else 0, and 0 for any other shape);
- ``lead``: where it concurs, how far that reader's first name leads its second: (first's score - second's) /
  first's, in [0, 1] (1: no other name; 0: a tie, a name it does not rank first, or another shape).

The weights are fitted per model on the fit half of the dev questions (``python -m benchmarks.fit_confidence``) and
kept in the ``confidence`` section of the model's data file (shared.reading.model_data). A model without one gets the
unfitted :data:`PRIOR`, which never says "sure". The word follows the probability (shared.core.sureness).
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
from shared.core.text import normalise_name, occurs_in


@dataclass(frozen=True)
class Evidence:
    """What the evidence shows of one answer (see the module's docstring)."""

    shape: str
    reader: str
    named: bool
    agreement: float
    parts: float
    concur: bool = False
    lead: float = 0.0

    def signals(self) -> dict[str, float]:
        """The evidence's numbers (what a trace records beside the shape and reader)."""
        values = (float(self.named), self.agreement, self.parts, float(self.concur), self.lead)
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
            signals.get("concur", 0.0) >= 0.5,
            signals.get("lead", 0.0),
        )

    def features(self) -> dict[str, float]:
        """The model's inputs by name (the keys of :class:`Calibration` weights). The shape, the reader and the two
        together: a pair's own weight lets a reader that is right on one shape and wrong on another say so, while
        the regularised fit pulls a pair with few asks towards its shape and reader."""
        return {
            f"shape={self.shape}": 1.0,
            f"reader={self.reader}": 1.0,
            f"cell={self.shape}/{self.reader}": 1.0,
            "named": float(self.named),
            "agreement": self.agreement,
            "parts": self.parts,
            "concur": float(self.concur),
            "lead": self.lead,
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


PRIOR = Calibration(bias=-2.0, weights={"named": 1.0, "agreement": 1.0, "parts": 1.0}, fitted_on="not fitted")
"""For a model without a fitted calibration: at most about 73%, so never "sure" (a measured model earns it)."""


def evidence_of(
    question: str,
    shape: str,
    reader: str,
    short: str,
    passages: Sequence[str],
    samples: Sequence[str],
    shares: Mapping[str, float] | None = None,
    first_name: str = "",
    lead: float = 0.0,
) -> Evidence:
    """The :class:`Evidence` of the answer ``short`` to ``question`` read by ``reader`` from ``passages``, beside
    the model's rendered ``samples`` (none: a model-free reading, counted as agreeing) or, where a single choice was
    scored, ``shares`` (each option with the model's probability of it). ``first_name``: the name the model-free
    entity reader ranks first (entity questions), ``lead``: how far it leads that reader's second name."""
    answer = short.strip().rstrip(".")
    verdict = answer.casefold() in ("yes", "no")
    named = bool(answer) and not verdict and any(occurs_in(answer, p) for p in passages)
    scored = [p for option, p in (shares or {}).items() if option.casefold() == answer.casefold()]
    agreeing = [s for s in samples if answer and _agrees(answer, s)]
    agreement = scored[0] if scored else len(agreeing) / len(samples) if samples else 1.0
    _, terms = question_terms(question)
    found = [t for t in terms if any(occurs_in(t, p) for p in passages)]
    parts = len(found) / len(terms) if terms else 0.0
    concur = bool(answer) and normalise_name(answer) == normalise_name(first_name)
    led = round(unit_interval(lead), 3) if concur else 0.0
    return Evidence(shape, reader, named, round(agreement, 3), round(parts, 3), concur, led)


def lead_of(scores: Sequence[float]) -> float:
    """How far the first of a reader's ranked ``scores`` leads the second, as a share of the first's: in [0, 1]
    (1 with no second; 0 for a tie, or a first ranked ahead of a higher score, as a person is for a who-question)."""
    if not scores or scores[0] <= 0:
        return 0.0
    second = scores[1] if len(scores) > 1 else 0.0
    return unit_interval((scores[0] - second) / scores[0])


def _agrees(answer: str, sample: str) -> bool:
    head = sample.strip().casefold()
    wanted = answer.casefold()
    return head.startswith(wanted) or occurs_in(answer, sample)
