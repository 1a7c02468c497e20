"""``dgrag cloud ...``: run the cloud server, list the edges it knows."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from shared.core.errors import ConfigError
from shared.transport.secret_file import read_secret


def register(roles: Any) -> None:
    cloud = roles.add_parser("cloud", help="run or inspect the cloud server")
    commands = cloud.add_subparsers(dest="command", required=True)
    p = commands.add_parser("serve", help="serve edges' sessions and global queries")
    p.add_argument("--config", type=Path, help="TOML config file (DGRAG__* variables override it)")
    p.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    p.set_defaults(func=cmd_serve)
    e = commands.add_parser("edges", help="list the edges the cloud knows: live, summaries, trust in their claims")
    e.add_argument("--address", default="127.0.0.1:50051", help="the cloud's host:port")
    e.add_argument("--user", default="", help="an admin credential's name in the cloud's tokens file")
    e.add_argument("--token-file", type=Path, help="a file (mode 0600) holding that credential's token")
    e.add_argument("--tls-ca", default="", help="the CA certificate of the cloud's TLS (plaintext when empty)")
    e.add_argument("--tls-cert", default="", help="this operator's client certificate (a cloud with mutual TLS)")
    e.add_argument("--tls-key", default="", help="its private key")
    e.add_argument("--insecure", action="store_true", help="allow plaintext to a cloud on another machine")
    e.add_argument("--json", action="store_true", help="one JSON object per edge")
    e.set_defaults(func=cmd_edges)


def cmd_serve(args: argparse.Namespace) -> int:
    from cloud_server.run import run_cloud

    run_cloud(args.config, args.port_file)
    return 0


def cmd_edges(args: argparse.Namespace) -> int:
    from cloud_server.api import CloudClient
    from cloud_server.edges_table import edges_table
    from shared.transport.grpc_transport import ClientTls

    if not args.user or args.token_file is None:
        raise ConfigError("pass --user and --token-file: an admin credential of the cloud's tokens file")
    token = read_secret(args.token_file, "token file").strip()

    async def listed() -> str:
        tls = ClientTls(ca=args.tls_ca, cert=args.tls_cert, key=args.tls_key, insecure=args.insecure)
        async with CloudClient(args.address, args.user, token, tls) as cloud:
            return edges_table(await cloud.list_edges(), as_json=args.json)

    print(asyncio.run(listed()))
    return 0
