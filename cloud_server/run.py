"""Run the cloud of a config file: load it and its tokens, build its models and services, serve until stopped."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from shared.cli.port_file import write_port_file
from shared.config import CloudConfig, load_config
from shared.core.errors import ConfigError
from shared.transport.tracing import traced_process


def run_cloud(config_file: Path | None, port_file: Path | None, askers_see_routing: bool = False) -> None:
    """Serve the cloud of ``config_file`` (DGRAG__* variables override it) until stopped; its port goes to
    ``port_file`` once listening. ``askers_see_routing``: see ``build_cloud`` (the simulation's setting)."""
    from cloud_server.api import build_cloud, serve_cloud
    from cloud_server.cloud_model import cloud_model
    from cloud_server.sessions.tokens import TokenBook
    from shared.models.factory import build_embedder, build_generator
    from shared.models.served_probe import served_features
    from shared.models.tokenizer import WordPieceTokenizer

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = load_config(CloudConfig, config_file)
    if not config.tokens_file:
        raise ConfigError("the cloud needs tokens_file (lines of `edge_id token`); set it in the config file")
    tokens = TokenBook.load(Path(config.tokens_file))
    config = cloud_model(config, logging.getLogger("dgrag.cloud").warning)
    if config.llm.packaged_in_use:
        logging.getLogger("dgrag.cloud").info("the cloud reads with %s", config.llm.packaged_in_use)
    models = build_embedder(config.embedder), build_generator(config.llm), WordPieceTokenizer()
    if config.llm.backend == "openai":  # a model server: say once what it serves of what the cloud asks
        for line in served_features(models[1]):
            logging.getLogger("dgrag.cloud").info("model server %s: %s", config.llm.base_url, line)
    parts = build_cloud(config, *models, askers_see_routing=askers_see_routing)
    with traced_process(config.tracing, "dgrag-cloud"):
        asyncio.run(serve_cloud(config, parts, tokens, on_ready=lambda port: write_port_file(port_file, port)))
