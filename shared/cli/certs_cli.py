"""``dgrag certs DIR``: the TLS material of a deployment in one command (see shared.transport.certs)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from shared.cli.exit_codes import EXIT_OK


def register(roles: Any) -> None:
    p = roles.add_parser("certs", help="make a CA, the cloud's TLS certificate and one client certificate per edge")
    p.add_argument("out", type=Path, help="directory to write into (created; must not hold a CA already)")
    p.add_argument("--cloud-host", required=True, help="the cloud's host names and addresses, comma-separated")
    p.add_argument("--clients", default="", help="edge (and app) ids, comma-separated: one certificate each")
    p.add_argument("--days", type=int, default=730, help="validity of every certificate")
    p.set_defaults(func=cmd_certs)


def cmd_certs(args: argparse.Namespace) -> int:
    from shared.transport.certs import make_certs

    names = [n.strip() for n in args.cloud_host.split(",") if n.strip()]
    clients = [c.strip() for c in args.clients.split(",") if c.strip()]
    issued = make_certs(args.out, names, clients, args.days)
    print(f"wrote {issued.ca} (give it to every edge and app: tls_ca) and {args.out / 'ca.key'} (keep it offline)")
    print(f"cloud: tls_cert = {issued.cloud_cert}, tls_key = {issued.cloud_key} (valid for {', '.join(names)})")
    if issued.clients:
        print(f"mutual TLS: set the cloud's tls_client_ca = {issued.ca}; each edge's [cloud] tls_cert / tls_key:")
        for client, (cert, key) in issued.clients.items():
            print(f"  {client}: {cert} {key}")
    return EXIT_OK
