"""Generation with a Hugging Face causal LM through transformers (bf16 on CPU).

``n`` samples come from one ``generate`` call (``num_return_sequences``), i.e. one batched decode.
transformers has no grammar-constrained decoding, so a JSON schema is enforced by instruction plus
extraction of the first JSON value in each sample; callers validate what they parse, as with every backend.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from shared.config import ModelConfig
from shared.core.errors import ModelError, ModelNotInstalledError
from shared.core.model_api import Completion, GenerationRequest
from shared.core.text import first_json_value
from shared.models.locate import bundled_slm_path
from shared.models.machine_lock import machine_lock
from shared.models.pending import GENERATE, model_calls
from shared.models.torch_thread import TorchThread


class TransformersGenerator:
    """A :class:`~shared.core.model_api.TextGenerator` running a transformers causal LM in this process."""

    def __init__(self, config: ModelConfig) -> None:
        try:
            import torch
            import transformers
        except ImportError as exc:
            raise ModelNotInstalledError(
                "the transformers backend needs torch and transformers; run: pip install torch==2.13.0 transformers"
            ) from exc
        self._torch = torch
        self._thread = TorchThread("generator")  # never a thread llama.cpp runs on (shared.models.torch_thread)
        path = Path(config.model_path) if config.model_path else bundled_slm_path()
        self._thread.run(lambda: torch.set_num_threads(config.n_threads or (os.cpu_count() or 1)))
        kwargs: dict[str, Any] = {}
        source = str(path)
        if path.suffix == ".gguf":
            # transformers dequantises GGUF files (needs the gguf package); the directory is the "repo".
            kwargs["gguf_file"] = path.name
            source = str(path.parent)
        # transformers' own annotations are looser than what it returns; keep these dynamically typed.
        self._tokenizer: Any
        self._model: Any
        try:
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
            self._model = transformers.AutoModelForCausalLM.from_pretrained(source, dtype=torch.bfloat16, **kwargs)
        except (OSError, ValueError, ImportError) as exc:
            raise ModelError(f"transformers could not load {path}: {exc}") from exc
        self._model.eval()
        self._name = f"transformers:{path.name}"
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    def generate(self, request: GenerationRequest) -> Completion:
        prompt = request.prompt
        if request.json_schema is not None:
            prompt += "\n\nReply with JSON only, matching this JSON schema:\n" + json.dumps(request.json_schema)
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": prompt})
        with model_calls().counted(GENERATE), self._lock, machine_lock().held():
            # return_dict=True: transformers 5 returns a BatchEncoding either way, 4.x a bare tensor without it.
            encoded = self._tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
            )
            input_ids = encoded["input_ids"]
            output = self._thread.run(lambda: self._sample(encoded, request))
        prompt_len = input_ids.shape[1]
        texts: list[str] = []
        completion_tokens = 0
        eos = self._tokenizer.eos_token_id
        for row in output:
            new = row[prompt_len:]
            completion_tokens += sum(1 for token in new if token != eos)
            text = self._tokenizer.decode(new, skip_special_tokens=True).strip()
            if request.json_schema is not None:
                text = first_json_value(text) or text
            texts.append(text)
        return Completion(tuple(texts), int(prompt_len), completion_tokens)

    def _sample(self, encoded: Any, request: GenerationRequest) -> list[list[int]]:
        """Each sample's tokens, prompt included, for the prompt ``encoded`` (on the generator's own thread)."""
        torch = self._torch
        if request.seed is not None:
            torch.manual_seed(request.seed)
        sample = request.temperature > 0
        try:
            with torch.inference_mode():
                output = self._model.generate(
                    encoded["input_ids"],
                    attention_mask=encoded["attention_mask"],
                    max_new_tokens=request.max_tokens,
                    do_sample=sample,
                    temperature=request.temperature if sample else None,
                    top_p=request.top_p if sample else None,
                    top_k=(request.top_k or None) if sample else None,
                    min_p=(request.min_p or None) if sample else None,
                    repetition_penalty=request.repeat_penalty,
                    num_return_sequences=request.n,
                    pad_token_id=self._tokenizer.eos_token_id,
                )
                return [row.tolist() for row in output]
        except RuntimeError as exc:
            raise ModelError(f"transformers generation failed: {exc}") from exc

    def close(self) -> None:
        self._model = None
        self._thread.close()
