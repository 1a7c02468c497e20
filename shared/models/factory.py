"""Build model runtimes from config. Optional backends import lazily and say what to install."""

from __future__ import annotations

from shared.config import EmbedderConfig, ModelConfig
from shared.core.errors import ConfigError
from shared.core.model_api import Embedder, TextGenerator
from shared.models.cpu import prepare_cpu


def build_generator(config: ModelConfig) -> TextGenerator:
    """The text generator ``config`` names (in-process runtimes get the CPU settings of shared.models.cpu first)."""
    if config.backend == "llama_cpp":
        prepare_cpu(config.n_threads)
        from shared.models.llama_cpp_backend import LlamaCppGenerator

        return LlamaCppGenerator(config)
    if config.backend == "openai":
        from shared.models.openai_backend import OpenAIGenerator

        return OpenAIGenerator(config)
    raise ConfigError(f"unknown generator backend {config.backend!r}; use llama_cpp or openai")


def build_embedder(config: EmbedderConfig) -> Embedder:
    """The embedder ``config`` names (after the CPU settings of shared.models.cpu)."""
    if config.backend == "sentence_transformers":
        prepare_cpu(config.n_threads)
        from shared.models.embedder import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(config)
    if config.backend == "openai":
        from shared.models.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder(config)
    raise ConfigError(f"unknown embedder backend {config.backend!r}; use sentence_transformers or openai")
