"""An answer's confidence: a logistic model of what was measured and what the evidence shows, and its word."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.core.errors import ConfigError
from shared.reading.confidence import PRIOR, Calibration, Confidence, Evidence, evidence_of, lead_of

PASSAGES = ["Tim Cook said Apple would ship the Vision Pro in 2024.", "Google Search faced an antitrust trial."]


def test_the_word_follows_the_probability() -> None:
    assert (
        Confidence.of(0.93).word == "sure"
        and Confidence.of(0.9).word == "sure"
        and Confidence.of(0.85).word == "likely"
    )
    assert Confidence.of(0.6).word == "likely" and Confidence.of(0.49).word == "can't tell"
    assert Confidence.of(7.0).probability == 1.0 and Confidence.of(-1).probability == 0.0


def test_evidence_counts_a_named_answer_the_samples_agreeing_and_the_parts_found() -> None:
    q = "Which company did Tim Cook say would ship the Vision Pro?"
    named = evidence_of(q, "entity", "vote", "Apple", PASSAGES, ["Apple", "Apple", "Google Search", "Apple"])
    assert named.named and named.agreement == 0.75 and named.parts > 0.5
    invented = evidence_of(q, "entity", "vote", "Microsoft", PASSAGES, ["Microsoft"])
    assert not invented.named
    verdict = evidence_of("Did Apple ship it?", "yes_no", "vote", "Yes", PASSAGES, [])
    assert not verdict.named and verdict.agreement == 1.0, "a verdict is not a name; model-free counts as agreeing"


def test_evidence_says_whether_the_model_free_reader_ranks_the_shown_name_first() -> None:
    q = "Which company did Tim Cook say would ship the Vision Pro?"
    agreeing = evidence_of(q, "entity", "vote", "Apple", PASSAGES, ["Apple"], first_name="apple")
    other = evidence_of(q, "entity", "vote", "Google Search", PASSAGES, ["Google Search"], first_name="Apple")
    assert agreeing.concur and not other.concur
    assert not evidence_of(q, "entity", "vote", "Apple", PASSAGES, ["Apple"]).concur, "no model-free name: no concur"
    assert Evidence.of("entity", "vote", agreeing.signals()) == agreeing, "a trace's signals give it back"
    assert Evidence.of("entity", "vote", {"named": 1.0}).concur is False, "an older trace without it counts 0"


def test_a_fitted_calibration_weighs_its_features_and_round_trips(tmp_path: Path) -> None:
    fitted = Calibration(-1.0, {"named": 3.0, "shape=entity": 0.5}, "test")
    strong = Evidence("entity", "vote", True, 1.0, 1.0)
    weak = Evidence("entity", "vote", False, 1.0, 1.0)
    assert fitted.probability(strong) > 0.9 > 0.5 > fitted.probability(weak)
    path = tmp_path / "m.confidence.json"
    path.write_text(fitted.to_json())
    assert Calibration.load(path) == fitted
    path.write_text('{"bias": 1}')
    with pytest.raises(ConfigError, match="not a confidence calibration"):
        Calibration.load(path)


def test_the_unfitted_prior_never_says_sure() -> None:
    best = Evidence("entity", "vote", True, 1.0, 1.0)
    assert PRIOR.confidence(best).word != "sure"


def test_the_lead_counts_only_where_the_entity_reader_concurs_and_stays_in_the_unit_interval() -> None:
    assert lead_of([4.0, 1.0]) == 0.75 and lead_of([2.0]) == 1.0 and lead_of([]) == 0.0
    assert lead_of([1.0, 3.0]) == 0.0, "a person ranked ahead of a higher score leads by nothing"
    passages = ["Sam Altman leads OpenAI.", "Greg Brockman co-founded OpenAI."]
    agreed = evidence_of("Who leads OpenAI?", "entity", "vote", "Sam Altman", passages, [], None, "Sam Altman", 0.6)
    other = evidence_of("Who leads OpenAI?", "entity", "vote", "Greg Brockman", passages, [], None, "Sam Altman", 0.6)
    assert agreed.lead == 0.6 and agreed.signals()["lead"] == 0.6 and other.lead == 0.0
    assert Evidence.of("entity", "vote", agreed.signals()) == agreed, "a trace's signals give the evidence back"
