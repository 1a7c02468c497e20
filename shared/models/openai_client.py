"""The client of an OpenAI-compatible endpoint, made one way for the generator and the embedder."""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

from shared.core.addresses import plaintext_off_machine
from shared.core.errors import ConfigError, ModelNotInstalledError

PLACEHOLDER_KEY = "not-needed"
"""Sent when the key's environment variable is unset (local servers ignore it)."""


def openai_client(
    base_url: str, api_key_env: str, timeout_s: float, what: str, insecure: bool = False
) -> tuple[ModuleType, Any]:
    """The openai module and a client of ``base_url`` (its key from ``api_key_env``); ``what`` names the backend
    in the errors. Plain HTTP to another machine is refused unless ``insecure``: the key and every text sent
    (an edge's chunks, a question) would cross the network readable, as gRPC refuses too."""
    if plaintext_off_machine(base_url) and not insecure:
        raise ConfigError(
            f"{what}: refusing to send its API key and texts in plaintext to {base_url}, which is not this machine;"
            " use an https:// endpoint or, on a network you trust entirely, set insecure = true"
        )
    try:
        import openai
    except ImportError as exc:
        raise ModelNotInstalledError(f"{what} needs the openai package; run: pip install openai") from exc
    client = openai.OpenAI(
        base_url=base_url,
        api_key=os.environ.get(api_key_env) or PLACEHOLDER_KEY,
        timeout=timeout_s,
        max_retries=1,
    )
    return openai, client
