"""dgrag: distributed graph-based retrieval-augmented generation for edge-cloud systems.

The public Python API (the CLI, the simulation and the benchmarks use the same)::

    from dgrag import Document, Edge

    with Edge.open("data/edge-a", edge_id="edge-a") as edge:
        edge.insert([Document("memo-1", "Memo", "Dana Smith runs the Oslo lab.")])
        print(edge.query("Who runs the Oslo lab?", mode="local").answer)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cloud_server.api import CloudClient, build_cloud, serve_cloud
    from edge_node.api import Document, Edge, EdgeAnswer, EdgeClient, EdgeModels, EdgeReply, build_edge, serve_edge
    from shared.config import CloudConfig, EdgeConfig, load_config

_HOMES = {
    "cloud_server.api": ("CloudClient", "build_cloud", "serve_cloud"),
    "edge_node.api": (
        "Document",
        "Edge",
        "EdgeAnswer",
        "EdgeClient",
        "EdgeModels",
        "EdgeReply",
        "build_edge",
        "serve_edge",
    ),
    "shared.config": ("CloudConfig", "EdgeConfig", "load_config"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """Each name is imported from its role on first use, so a cloud-only install (no edge extras) can import
    dgrag and run `dgrag cloud ...`."""
    if name not in _HOME_OF:
        raise AttributeError(f"module 'dgrag' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME_OF[name]), name)


__all__ = [
    "CloudClient",
    "CloudConfig",
    "Document",
    "Edge",
    "EdgeAnswer",
    "EdgeClient",
    "EdgeConfig",
    "EdgeModels",
    "EdgeReply",
    "build_cloud",
    "build_edge",
    "load_config",
    "serve_cloud",
    "serve_edge",
]
