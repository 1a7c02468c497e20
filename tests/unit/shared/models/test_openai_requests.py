"""The openai backend's requests: a stream that breaks mid-answer (its model server stopped) is asked again whole,
not lost; a server on this machine is asked under the model lock its models share."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx

from shared.config import ModelConfig
from shared.core.model_api import GenerationRequest
from shared.models.openai_backend import OpenAIGenerator


class _Completions:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def create(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if kwargs.get("stream"):
            return self._broken()
        message = SimpleNamespace(content="Berlin")
        return SimpleNamespace(choices=[SimpleNamespace(message=message, logprobs=None)], usage=None)

    def _broken(self) -> Iterator[Any]:
        delta = SimpleNamespace(content="Ber")
        yield SimpleNamespace(usage=None, choices=[SimpleNamespace(delta=delta, logprobs=None)])
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")


def test_a_broken_stream_is_asked_again_whole_and_the_whole_answer_is_returned() -> None:
    generator = OpenAIGenerator(ModelConfig(backend="openai", model="m", base_url="http://127.0.0.1:9/v1"))
    completions = _Completions()
    generator._client = SimpleNamespace(chat=SimpleNamespace(completions=completions))  # type: ignore[assignment]
    drafted: list[str] = []
    done = generator.generate_streaming(GenerationRequest(prompt="Where?", max_tokens=8), drafted.append)
    assert drafted == ["Ber"] and done.texts == ("Berlin",)
    assert [bool(c.get("stream")) for c in completions.calls] == [True, False]


def test_a_server_on_this_machine_is_asked_under_its_model_lock(tmp_path: Any, monkeypatch: Any) -> None:
    """[llm] machine_lock: each request holds the lock this machine's models share (another holder would wait)."""
    import fcntl
    import os

    lock = tmp_path / "models.lock"
    monkeypatch.setenv("DGRAG_MODEL_LOCK", str(lock))
    held: list[bool] = []

    class _Checking(_Completions):
        def create(self, **kwargs: Any) -> Any:
            fd = os.open(lock, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held.append(False)
            except BlockingIOError:
                held.append(True)
            finally:
                os.close(fd)
            return super().create(**kwargs)

    for locked in (True, False):
        config = ModelConfig(backend="openai", model="m", base_url="http://127.0.0.1:9/v1", machine_lock=locked)
        generator = OpenAIGenerator(config)
        generator._client = SimpleNamespace(chat=SimpleNamespace(completions=_Checking()))  # type: ignore[assignment]
        generator.generate(GenerationRequest(prompt="Where?", max_tokens=8))
    assert held == [True, False]
