"""An answer's confidence: a logistic model of signals that mean the same on any corpus, and its word."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.core.errors import ConfigError
from shared.reading.confidence import PRIOR, Calibration, Confidence, Evidence, question_parts

PASSAGES = ["Tim Cook said Apple would ship the Vision Pro in 2024.", "Google Search faced an antitrust trial."]


def test_the_word_follows_the_probability() -> None:
    assert (
        Confidence.of(0.93).word == "sure"
        and Confidence.of(0.9).word == "sure"
        and Confidence.of(0.85).word == "likely"
    )
    assert Confidence.of(0.6).word == "likely" and Confidence.of(0.49).word == "can't tell"
    assert Confidence.of(7.0).probability == 1.0 and Confidence.of(-1).probability == 0.0


def test_parts_count_the_questions_names_and_keywords_the_passages_hold() -> None:
    assert question_parts("Which company did Tim Cook say would ship the Vision Pro?", PASSAGES) > 0.5
    assert question_parts("Which bank financed the Berlin airport?", PASSAGES) < 0.5


def test_a_traces_signals_give_the_evidence_back_and_missing_ones_count_zero() -> None:
    evidence = Evidence("entity", "span", True, 0.75, 0.5, 0.62)
    assert Evidence.of("entity", "span", evidence.signals()) == evidence
    assert Evidence.of("entity", "span", {"named": 1.0}).model == 0.0


def test_the_models_own_probability_raises_the_confidence() -> None:
    sure = Evidence("entity", "span", True, 1.0, 1.0, 0.95)
    unsure = Evidence("entity", "span", True, 1.0, 1.0, 0.2)
    assert PRIOR.probability(sure) > PRIOR.probability(unsure)
    fitted = Calibration(0.0, {"model_logit": 1.0}, "test")
    assert fitted.probability(sure) > 0.9 > 0.5 > fitted.probability(unsure)


def test_a_fitted_calibration_weighs_its_features_and_round_trips(tmp_path: Path) -> None:
    fitted = Calibration(-1.0, {"named": 3.0, "reader=span": 0.5}, "test")
    strong = Evidence("entity", "span", True, 1.0, 1.0)
    weak = Evidence("entity", "unsupported", False, 1.0, 1.0)
    assert fitted.probability(strong) > 0.9 > 0.5 > fitted.probability(weak)
    path = tmp_path / "m.confidence.json"
    path.write_text(fitted.to_json())
    assert Calibration.load(path) == fitted
    path.write_text('{"bias": 1}')
    with pytest.raises(ConfigError, match="not a confidence calibration"):
        Calibration.load(path)


def test_the_unfitted_prior_never_says_sure() -> None:
    best = Evidence("entity", "span", True, 1.0, 1.0, 1.0)
    assert PRIOR.confidence(best).word != "sure"
