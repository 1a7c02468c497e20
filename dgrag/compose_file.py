"""``dgrag init DIR --compose``: a Docker Compose file that runs the deployment ``dgrag init`` wrote, on one host.

Every service mounts its own directory of DIR read-only at /etc/dgrag (its config, tokens and certificates) and
runs from there, so the configs' relative paths hold as on a real device; what it writes goes to bind-mounted
directories of DIR (an edge's ``data``, the cloud's ``state``), owned like the secrets by the user who ran
``dgrag init``, whose uid the services run as (the secret files' owner check then holds inside the containers).
Mutual TLS between every edge and the cloud (the cloud's certificate also names ``cloud``, the service name the
edges dial); no plaintext setting anywhere. The cloud's model runs in its own process, and every model-running
container takes one lock file (DIR/locks), so models on one host run one at a time.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

SERVICE_NAME = "cloud"
"""The cloud's service name: the edges' address inside the compose network, and a name in its certificate."""
HEALTH_CLIENT = "health"
"""A client certificate with no token: it can open a TLS connection for the health check and do nothing else."""
PROJECT_PREFIX = "dgrag-"
"""Compose project names start with it: docker/compose.yaml's demo is ``dgrag-demo``, a deployment ``dgrag-DIR``."""
IMAGE_DEFAULTS = {"cloud": "${DGRAG_CLOUD_IMAGE:-dgrag-cloud:latest}", "edge": "${DGRAG_EDGE_IMAGE:-dgrag-edge:latest}"}


def project_name(root: Path) -> str:
    """The compose project of the deployment in ``root``: ``dgrag-`` and the directory's name in the characters
    Compose allows, so two deployments (or one and docker/compose.yaml) on a host never share containers."""
    name = re.sub(r"[^a-z0-9_-]+", "-", root.resolve().name.lower()).strip("-_")
    return PROJECT_PREFIX + (name or "deployment")


def compose_services(edges: dict[str, int], cloud_port: int, user: str, project: str) -> dict[str, Any]:
    """The compose file's content: the cloud and one service per edge (``edges``: id -> API port), as ``project``."""
    common = {
        "init": True,
        "restart": "unless-stopped",
        "user": user,
        "working_dir": "/etc/dgrag",
        "environment": {"HOME": "/tmp", "DGRAG_MODEL_LOCK": "/run/dgrag-lock/models.lock"},
    }
    services: dict[str, Any] = {SERVICE_NAME: _cloud(common, list(edges), cloud_port)}
    for edge_id, port in edges.items():
        services[edge_id] = _edge(common, edge_id, port, cloud_port)
    networks: dict[str, Any] = {"public": {}} | {f"{e}-net": {"internal": True} for e in edges}
    return {"name": project, "services": services, "networks": networks}


def _cloud(common: dict[str, Any], edges: list[str], port: int) -> dict[str, Any]:
    health = ["--tls-ca", "ca.pem", "--tls-cert", f"{HEALTH_CLIENT}.pem", "--tls-key", f"{HEALTH_CLIENT}.key"]
    return common | {
        "image": IMAGE_DEFAULTS["cloud"],
        "command": ["cloud", "serve"],
        "volumes": ["./cloud:/etc/dgrag:ro", "./cloud/state:/etc/dgrag/state", "./locks:/run/dgrag-lock"],
        "ports": [f"${{DGRAG_CLOUD_PUBLISH:-{port}}}:{port}"],
        "networks": ["public", *(f"{e}-net" for e in edges)],
        "healthcheck": _health(["dgrag", "health", f"127.0.0.1:{port}", *health, "--tls-server-name", "localhost"]),
    }


def _edge(common: dict[str, Any], edge_id: str, api_port: int, cloud_port: int) -> dict[str, Any]:
    return common | {
        "image": IMAGE_DEFAULTS["edge"],
        "command": ["edge", "serve"],
        # the images set DGRAG__SERVER__PORT=50061: the port of edge.toml (and of the health check) wins here
        "environment": common["environment"]
        | {"DGRAG__CLOUD__ADDRESS": f"{SERVICE_NAME}:{cloud_port}", "DGRAG__SERVER__PORT": str(api_port)},
        "volumes": [
            f"./{edge_id}:/etc/dgrag:ro",
            f"./{edge_id}/data:/var/lib/dgrag",
            f"./{edge_id}/documents:/documents:ro",
            "./locks:/run/dgrag-lock",
        ],
        "networks": [f"{edge_id}-net"],
        "depends_on": {SERVICE_NAME: {"condition": "service_healthy"}},
        "healthcheck": _health(["dgrag", "health", f"127.0.0.1:{api_port}"]),
    }


def _health(test: list[str]) -> dict[str, Any]:
    return {"test": ["CMD", *test], "interval": "10s", "timeout": "5s", "retries": 6, "start_period": "60s"}


def write_compose(root: Path, edges: dict[str, int], cloud_port: int) -> Path:
    """Write ``root``/compose.yaml and the directories it mounts; the services run as this process's user."""
    for edge_id in edges:
        for sub in ("data", "documents"):
            (root / edge_id / sub).mkdir(mode=0o700, exist_ok=True)
    (root / "cloud" / "state").mkdir(mode=0o700, exist_ok=True)
    (root / "locks").mkdir(mode=0o700, exist_ok=True)
    content = compose_services(edges, cloud_port, f"{os.getuid()}:{os.getgid()}", project_name(root))
    path = root / "compose.yaml"
    header = (
        "# Written by `dgrag init --compose`: the cloud and every edge of this deployment on one Docker host, mutual\n"
        "# TLS between them. Build the images dgrag-cloud and dgrag-edge from the dgrag repository first, as\n"
        '# docs/deploy.md ("The images") says. Run `docker compose` from this directory.\n'
    )
    path.write_text(header + yaml.safe_dump(content, sort_keys=False), encoding="utf-8")
    return path
