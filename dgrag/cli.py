"""The ``dgrag`` command: one entry point, a sub-command per role (``dgrag edge|cloud|sim|health ...``)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cloud_server.cli import register as register_cloud
from edge_node.cli import register as register_edge
from shared.cli.certs_cli import register as register_certs
from shared.cli.exit_codes import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from shared.cli.health_cli import register as register_health
from shared.cli.models_cli import register as register_models
from shared.core.errors import DgragError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dgrag", description="Distributed graph-based RAG for edge-cloud systems.")
    lab = _simulation_cli()
    roles_shown = "edge,cloud,sim,health,certs,init,models" if lab else "edge,cloud,health,certs,init,models"
    roles = parser.add_subparsers(dest="role", required=True, metavar="{" + roles_shown + "}")
    register_edge(roles)
    register_cloud(roles)
    if lab is not None:
        lab(roles)
    register_health(roles)
    register_certs(roles)
    register_init(roles)
    register_models(roles)
    return parser


def _simulation_cli() -> Any:
    """The simulation's ``register`` where the ``sim`` extra is installed (its plots need matplotlib), else None:
    the product runs without the lab, and ``dgrag sim`` is then not offered."""
    if importlib.util.find_spec("matplotlib") is None:
        return None
    try:
        from simulation.cli import register
    except ImportError:
        return None
    return register


def register_init(roles: Any) -> None:
    p = roles.add_parser("init", help="write the configs and credentials of a cloud and N devices, in one command")
    p.add_argument("out", type=Path, help="a new directory: one subdirectory per machine")
    p.add_argument("--edges", default="2", help="how many edges (edge-1, edge-2, ...) or their ids, comma-separated")
    p.add_argument("--cloud-host", required=True, help="the name or address the devices reach the cloud by")
    p.add_argument(
        "--compose",
        action="store_true",
        help="also write DIR/compose.yaml: the cloud and every edge on this Docker host, mutual TLS between them",
    )
    p.set_defaults(func=cmd_init)


def cmd_init(args: argparse.Namespace) -> int:
    from dgrag.deployment import init_deployment, instructions

    wanted = args.edges.strip()
    edges = [f"edge-{i}" for i in range(1, int(wanted) + 1)] if wanted.isdigit() else wanted.split(",")
    ids = [e.strip() for e in edges if e.strip()]
    print(instructions(init_deployment(args.out, ids, args.cloud_host, compose=args.compose)))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except DgragError as exc:
        print(f"dgrag: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        sys.stderr.close()  # output piped into e.g. `head`: nothing left to say
        return EXIT_OK
    except KeyboardInterrupt:
        print("dgrag: interrupted; the store keeps every document committed so far", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
