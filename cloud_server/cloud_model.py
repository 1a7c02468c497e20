"""Which model the cloud reads with: the larger packaged model, or the bundled SmolLM2 as a stated fallback.

The cloud's default model (shared.config.CLOUD_MODEL) is fetched once by scripts/install.sh. Where it is missing,
the cloud still starts when ``llm_fallback`` allows it, reading with the bundled SmolLM2-135M, and says in one
sentence what is missing and how to fetch it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from shared.config import CloudConfig
from shared.core.errors import ModelNotInstalledError
from shared.models.packaged import is_fetched


def missing_model_sentence(name: str) -> str:
    return (
        f"The cloud's larger model {name} is not fetched, so the cloud reads with the bundled SmolLM2-135M, a much "
        f"weaker reader; fetch it once with `dgrag models fetch {name}` and restart the cloud."
    )


def cloud_model(config: CloudConfig, say: Callable[[str], None]) -> CloudConfig:
    """``config`` as the cloud runs it: unchanged when its packaged model is fetched (or none is named); else the
    bundled SLM, after ``say`` tells why, or an error when ``llm_fallback`` is false."""
    name = config.llm.packaged_in_use
    if not name or is_fetched(name):
        return config
    if not config.llm_fallback:
        raise ModelNotInstalledError(
            f"the cloud's model {name} is not fetched and llm_fallback is false; fetch it once with: "
            f"dgrag models fetch {name}"
        )
    say(missing_model_sentence(name))
    return dataclasses.replace(config, llm=dataclasses.replace(config.llm, packaged=""))
