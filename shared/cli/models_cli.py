"""``dgrag models list|fetch|serve``: the larger packaged models, fetched once as verified data
(shared.models.packaged), and served as replicas behind Ray Serve (shared.models.replicas)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from shared.cli.exit_codes import EXIT_OK, EXIT_USAGE


def register(roles: Any) -> None:
    p = roles.add_parser("models", help="list or fetch the larger packaged models (data only, sha256-checked)")
    actions = p.add_subparsers(dest="action", required=True)
    actions.add_parser("list", help="the packaged models, and whether each is fetched").set_defaults(func=cmd_list)
    fetch = actions.add_parser("fetch", help="download, join and verify one packaged model into the model cache")
    fetch.add_argument("name", help="a name from `dgrag models list`")
    fetch.set_defaults(func=cmd_fetch)
    serve = actions.add_parser(
        "serve", help='serve a model as replicas behind Ray Serve, for the cloud\'s [llm] backend = "openai"'
    )
    serve.add_argument(
        "name",
        nargs="?",
        default="",
        help="a packaged model, or a .gguf file of your own (default: the bundled SmolLM2)",
    )
    serve.add_argument(
        "--replicas", type=int, default=2, help="model servers behind Serve (default 2; 1: one server, no Ray)"
    )
    serve.add_argument("--slots", type=int, default=1, help="requests each server decodes at once (default 1)")
    serve.add_argument("--threads", type=int, default=1, help="CPU threads of each server (default 1)")
    serve.add_argument("--host", default="127.0.0.1", help="Serve's address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=18080, help="Serve's port (default 18080)")
    serve.add_argument("--alias", default="cloud-llm", help="the model name it answers to ([llm] model)")
    serve.add_argument("--insecure", action="store_true", help="allow a host off loopback (Serve speaks plain HTTP)")
    serve.set_defaults(func=cmd_serve)


def cmd_list(args: argparse.Namespace) -> int:
    from shared.models.packaged import MODELS, cached_path, is_fetched

    for model in MODELS:
        path = cached_path(model.name)
        state = f"fetched: {path}" if is_fetched(model.name) else "not fetched"
        print(f"{model.name}  {model.size / 1e6:,.0f} MB  {model.licence}  [{state}]")
    return EXIT_OK


def cmd_fetch(args: argparse.Namespace) -> int:
    from shared.models.packaged import fetch

    path = fetch(args.name)
    print(f'use it with: [llm] packaged = "{args.name}" (cloud.toml) or [slm] packaged = ... (edge.toml); {path}')
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    import time

    from shared.config import ModelConfig
    from shared.core.addresses import host_is_loopback
    from shared.models.replicas import ServerSettings, exec_server, serve_replicas

    if not host_is_loopback(args.host) and not args.insecure:
        print(
            f"refusing to serve on {args.host}: Serve speaks plain HTTP, so every question and passage would cross "
            "the network readable; keep 127.0.0.1 behind a TLS proxy, or pass --insecure on a network you trust",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.replicas < 1 or args.slots < 1 or args.threads < 1:
        print("--replicas, --slots and --threads must each be 1 or more", file=sys.stderr)
        return EXIT_USAGE
    own = args.name.endswith(".gguf")
    model = ModelConfig(model_path=args.name) if own else ModelConfig(packaged=args.name)
    settings = ServerSettings(model, args.threads, args.slots, alias=args.alias)
    if args.replicas == 1:
        print(
            f'one model server on {args.host}:{args.port}; cloud.toml: [llm] backend = "openai", model = '
            f'"{args.alias}", base_url = "http://{args.host}:{args.port}/v1"',
            flush=True,
        )
        exec_server(settings, args.host, args.port)
    url = serve_replicas(settings, args.replicas, args.host, args.port)
    print(
        f'{args.replicas} replicas ready; cloud.toml: [llm] backend = "openai", model = "{args.alias}", '
        f'base_url = "{url}"',
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return EXIT_OK
