"""Which fitted calibration states an answer's confidence: the configured model's, and for a model server the
packaged model it is said to serve; else the unfitted prior."""

from __future__ import annotations

from shared.config import ModelConfig
from shared.config.models import CloudModelConfig
from shared.models.calibration_files import calibration_for, fitted
from shared.reading.confidence import PRIOR

SERVER = {"backend": "openai", "model": "cloud-llm", "base_url": "http://127.0.0.1:18080/v1"}


def test_a_server_of_the_packaged_model_states_confidence_as_that_model_in_process() -> None:
    in_process = calibration_for("", CloudModelConfig())
    assert in_process is not PRIOR and in_process is fitted("qwen2.5-coder-1.5b-instruct")
    served = ModelConfig(**SERVER, serves="qwen2.5-coder-1.5b-instruct")  # type: ignore[arg-type]
    assert calibration_for("", served) is in_process


def test_a_server_of_another_or_an_unnamed_model_gets_the_prior() -> None:
    assert calibration_for("", ModelConfig(**SERVER)) is PRIOR  # type: ignore[arg-type]
    assert calibration_for("", ModelConfig(**SERVER, serves="/models/mine.gguf")) is PRIOR  # type: ignore[arg-type]
