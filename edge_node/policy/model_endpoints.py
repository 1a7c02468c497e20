"""Whether this edge's models may read its documents off the device.

An ``openai`` backend (the SLM or the embedder) sends every text it reads to its endpoint: an edge's chunks while
it indexes and answers. Where that endpoint is not this machine, the documents leave the device by a road the
cloud's privacy level does not govern, so the owner must allow it in so many words (``privacy.remote_models``).
"""

from __future__ import annotations

from shared.config import EdgeConfig
from shared.core.addresses import url_on_this_machine
from shared.core.errors import ConfigError


def remote_endpoints(config: EdgeConfig) -> list[str]:
    """The endpoints off this machine that ``config``'s SLM and embedder would send the edge's texts to."""
    out = []
    for model in (config.slm, config.embedder):
        if model.backend == "openai" and not url_on_this_machine(model.base_url):
            out.append(model.base_url)
    return out


def check_model_endpoints(config: EdgeConfig) -> None:
    """Refuse models off this device that would read the edge's documents, unless ``privacy.remote_models``."""
    remote = remote_endpoints(config)
    if remote and not config.privacy.remote_models:
        raise ConfigError(
            f"this edge's models would send its documents to {', '.join(remote)}, off this device; set "
            "privacy.remote_models = true if its owner allows that, or run the models here"
        )
