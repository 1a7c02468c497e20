"""The client of an OpenAI-compatible endpoint, made one way for the generator and the embedder."""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

from shared.core.errors import ModelNotInstalledError

PLACEHOLDER_KEY = "not-needed"
"""Sent when the key's environment variable is unset (local servers ignore it)."""


def openai_client(base_url: str, api_key_env: str, timeout_s: float, what: str) -> tuple[ModuleType, Any]:
    """The openai module and a client of ``base_url`` (its key from ``api_key_env``); ``what`` names the backend
    in the error when the package is missing."""
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
