"""The settings of the LLM that judges pairs of simulation answers (a lab setting: no part of the product)."""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.config import GeneratorBackend, ModelConfig


@dataclass(frozen=True)
class JudgeModelConfig(ModelConfig):
    """A model config whose backend defaults to an OpenAI-compatible endpoint: a judge should be strong."""

    backend: GeneratorBackend = "openai"
    """openai (default: any OpenAI-compatible endpoint), or llama_cpp / transformers to judge in process."""


@dataclass(frozen=True)
class JudgeConfig:
    """The LLM that judges pairs of simulation answers (`dgrag sim judge`, `dgrag sim run --judge-config`)."""

    llm: JudgeModelConfig = field(default_factory=JudgeModelConfig)
    """The judge model: an OpenAI-compatible endpoint unless backend says otherwise; llama_cpp runs the
    bundled SLM (a weak judge)."""
    max_tokens: int = 80
    """Longest verdict (four short JSON fields)."""
    seed: int = 11
    """Sampling seed (the judge decodes greedily; backends that take a seed get this one)."""
