"""``dgrag cloud ...``: run the cloud server, list the edges it knows."""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path
from typing import Any

from shared.config import CloudConfig, load_config
from shared.errors import ConfigError
from shared.port_file import write_port_file


def register(roles: Any) -> None:
    cloud = roles.add_parser("cloud", help="run or inspect the cloud server")
    commands = cloud.add_subparsers(dest="command", required=True)
    p = commands.add_parser("serve", help="serve edges' sessions and global queries")
    p.add_argument("--config", type=Path, help="TOML config file (DGRAG__* variables override it)")
    p.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from cloud_server.api import build_cloud, serve_cloud
    from cloud_server.services.tokens import TokenBook
    from shared.models.factory import build_embedder, build_generator
    from shared.tokenizer import WordPieceTokenizer

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = load_config(CloudConfig, args.config)
    if not config.tokens_file:
        raise ConfigError("the cloud needs tokens_file (lines of `edge_id token`); set it in the config file")
    tokens = TokenBook.load(Path(config.tokens_file))
    parts = build_cloud(config, build_embedder(config.embedder), build_generator(config.llm), WordPieceTokenizer())
    asyncio.run(serve_cloud(config, parts, tokens, on_ready=lambda port: write_port_file(args.port_file, port)))
    return 0
