"""``dgrag init DIR --edges N``: everything a deployment of one cloud and N devices needs, in one command.

DIR/cloud holds the cloud's config, its tokens file and its TLS material (mutual TLS: every caller presents a
certificate whose common name is its id); DIR/edge-N holds what device N needs (its config, its cloud token,
the CA and its client certificate); DIR/ops holds an operator's credential for ``dgrag cloud edges``. Each
directory is copied to its machine as it is; the commands are run from inside it (the configs name their
files by relative paths). Secrets are written 0600 and directories 0700; DIR must not exist yet.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dgrag.compose_file import HEALTH_CLIENT, SERVICE_NAME, write_compose
from shared.core.errors import ConfigError
from shared.core.vocabulary import valid_edge_id
from shared.transport.certs import make_certs
from shared.transport.secret_file import write_secret

PORT = 50051
EDGE_API_PORT = 50061
"""The first edge's API port; edge N listens on EDGE_API_PORT + N - 1, so edges sharing a host never clash."""
OPERATOR = "ops"
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_NAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*$")


@dataclass(frozen=True)
class Deployment:
    root: Path
    cloud: Path
    edges: dict[str, Path]
    operator: Path
    address: str
    api_ports: dict[str, int]
    compose: Path | None = None
    """DIR/compose.yaml when ``--compose`` asked for one (dgrag.compose_file)."""


RESERVED = (OPERATOR, "cloud", "ca", "tls", "locks", HEALTH_CLIENT, "compose.yaml")
"""Names of DIR's own entries (and certificates), which no edge may take."""


def init_deployment(root: Path, edge_ids: Sequence[str], cloud_host: str, compose: bool = False) -> Deployment:
    """Write the deployment's directories under ``root`` (which must not exist); ``compose``: also a compose file
    running all of it on one Docker host (dgrag.compose_file)."""
    if root.exists():
        raise ConfigError(f"{root} exists; give a new directory (nothing there is overwritten)")
    check_cloud_host(cloud_host)
    if bad := [e for e in edge_ids if not valid_edge_id(e) or e in RESERVED]:
        raise ConfigError(
            f"edge id(s) {bad} may hold only letters, digits and ._- (and not be one of {', '.join(RESERVED)})"
        )
    if len(set(edge_ids)) != len(edge_ids) or not edge_ids:
        raise ConfigError("name one or more edges, each once")
    root.mkdir(parents=True, mode=0o700)
    names = list(dict.fromkeys([cloud_host, "localhost", "127.0.0.1", *([SERVICE_NAME] if compose else [])]))
    issued = make_certs(root / "tls", names, [*edge_ids, OPERATOR, *([HEALTH_CLIENT] if compose else [])])
    tokens = {e: secrets.token_urlsafe(32) for e in [*edge_ids, OPERATOR]}
    address = f"[{cloud_host}]:{PORT}" if ":" in cloud_host else f"{cloud_host}:{PORT}"

    cloud = _dir(root / "cloud")
    for name in ("ca.pem", "cloud.pem", "cloud.key"):
        _copy(root / "tls" / name, cloud / name)
    lines = [f"{'admin' if e == OPERATOR else 'edge'} {e} {t}\n" for e, t in tokens.items()]
    write_secret(cloud / "tokens", "".join(lines))
    (cloud / "cloud.toml").write_text(
        f'host = "0.0.0.0"\nport = {PORT}\ntokens_file = "tokens"\n'
        'tls_cert = "cloud.pem"\ntls_key = "cloud.key"\ntls_client_ca = "ca.pem"\n'
        'summary_store = "state/summaries.sqlite3"\n[query]\ntrust_file = "state/trust.json"\n',
        encoding="utf-8",
    )
    edges = {}
    ports = {edge_id: EDGE_API_PORT + i for i, edge_id in enumerate(edge_ids)}
    for edge_id in edge_ids:
        here = _dir(root / edge_id)
        _client_files(issued.ca, issued.clients[edge_id], here)
        write_secret(here / "cloud.token", tokens[edge_id])
        (here / "edge.toml").write_text(
            f'edge_id = "{edge_id}"\n[server]\nport = {ports[edge_id]}\n'
            f'[cloud]\naddress = "{address}"\ntoken_file = "cloud.token"\n'
            'tls_ca = "ca.pem"\ntls_cert = "client.pem"\ntls_key = "client.key"\n',
            encoding="utf-8",
        )
        edges[edge_id] = here
    operator = _dir(root / OPERATOR)
    _client_files(issued.ca, issued.clients[OPERATOR], operator)
    write_secret(operator / "token", tokens[OPERATOR])
    if not compose:
        return Deployment(root, cloud, edges, operator, address, ports)
    for path, name in zip(issued.clients[HEALTH_CLIENT], (f"{HEALTH_CLIENT}.pem", f"{HEALTH_CLIENT}.key"), strict=True):
        _copy(path, cloud / name)
    return Deployment(root, cloud, edges, operator, address, ports, write_compose(root, ports, PORT))


def check_cloud_host(host: str) -> None:
    """``host`` must be one DNS name or one IP address: it becomes the edges' address and the name in the
    cloud's certificate."""
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    if not _HOST_NAME.match(host):
        raise ConfigError(
            f"--cloud-host {host!r} is not one host name or IP address (letters, digits, '-' and '.'; no port, no"
            " list): give the single name the devices reach the cloud by, e.g. cloud.example.org"
        )


def instructions(d: Deployment) -> str:
    """What each machine runs, as ``dgrag init`` prints it."""
    lines = [
        f"wrote {d.root}: copy each directory below to its machine and run the commands from inside it.",
        f"{d.root / 'tls' / 'ca.key'} signs every certificate: keep it offline.",
        "",
        f"cloud ({d.cloud}; its port {PORT} must be reachable as {d.address}):",
        "  dgrag cloud serve --config cloud.toml",
    ]
    for edge_id, path in d.edges.items():
        lines += [
            f"{edge_id} ({path}):",
            "  dgrag edge ingest --data-dir data --config edge.toml PATH...   # its documents",
            f"  dgrag edge serve --data-dir data --config edge.toml      # its API on 127.0.0.1:{d.api_ports[edge_id]}",
            f'  dgrag edge ask --server 127.0.0.1:{d.api_ports[edge_id]} --token-file data/api.token "a question"',
        ]
    if d.compose is not None:
        lines += _compose_lines(d)
    lines += [
        f"operator ({d.operator}):",
        f"  dgrag cloud edges --address {d.address} --user {OPERATOR} --token-file token "
        "--tls-ca ca.pem --tls-cert client.pem --tls-key client.key",
    ]
    return "\n".join(lines)


def _compose_lines(d: Deployment) -> list[str]:
    first = next(iter(d.edges))
    return [
        "",
        f"or all of it on this Docker host ({d.compose}; the images built from the dgrag repository, docs/deploy.md):",
        f"  cd {d.root}",
        f"  cp -r MY-DOCUMENTS/. {first}/documents/   # each edge's documents, then index them once:",
        f"  docker compose run --rm --no-deps {first} edge ingest /documents",
        "  docker compose up -d",
        f"  docker compose exec {first} dgrag edge ask --server 127.0.0.1:{d.api_ports[first]} "
        '--token-file /var/lib/dgrag/api.token "a question"',
        "",
    ]


def _dir(path: Path) -> Path:
    path.mkdir(mode=0o700)
    return path


def _copy(source: Path, target: Path) -> None:
    if source.suffix == ".key":
        write_secret(target, source.read_text(encoding="utf-8"))
    else:
        shutil.copyfile(source, target)


def _client_files(ca: Path, pair: tuple[Path, Path], into: Path) -> None:
    _copy(ca, into / "ca.pem")
    _copy(pair[0], into / "client.pem")
    _copy(pair[1], into / "client.key")
