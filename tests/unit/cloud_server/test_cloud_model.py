"""The cloud reads with the larger packaged model, or says why it falls back to the bundled SLM."""

from __future__ import annotations

import pytest

from cloud_server import cloud_model as module
from cloud_server.cloud_model import cloud_model
from shared.config import CLOUD_MODEL, CloudConfig, load_config
from shared.core.errors import ModelNotInstalledError


def test_the_default_cloud_names_the_larger_model() -> None:
    config = load_config(CloudConfig, None, environ={})
    assert config.llm.packaged_in_use == CLOUD_MODEL


def test_a_missing_model_falls_back_with_a_sentence_saying_how_to_fetch_it(monkeypatch) -> None:
    monkeypatch.setattr(module, "is_fetched", lambda name: False)
    said: list[str] = []
    config = cloud_model(load_config(CloudConfig, None, environ={}), said.append)
    assert config.llm.packaged_in_use == ""
    assert len(said) == 1 and f"dgrag models fetch {CLOUD_MODEL}" in said[0] and "SmolLM2" in said[0]


def test_a_missing_model_without_fallback_refuses_to_start(monkeypatch) -> None:
    monkeypatch.setattr(module, "is_fetched", lambda name: False)
    strict = load_config(CloudConfig, None, environ={"DGRAG__LLM_FALLBACK": "false"})
    with pytest.raises(ModelNotInstalledError, match="dgrag models fetch"):
        cloud_model(strict, print)


def test_a_fetched_model_or_another_backend_is_left_as_configured(monkeypatch) -> None:
    monkeypatch.setattr(module, "is_fetched", lambda name: True)
    config = load_config(CloudConfig, None, environ={})
    assert cloud_model(config, print) is config
    monkeypatch.setattr(module, "is_fetched", lambda name: False)
    endpoint = load_config(CloudConfig, None, environ={"DGRAG__LLM__BACKEND": "openai"})
    assert cloud_model(endpoint, print) is endpoint
