"""dgrag: distributed graph-based retrieval-augmented generation for edge-cloud systems.

The public Python API (the CLI, the simulation and the benchmarks use the same)::

    from dgrag import Document, Edge

    with Edge.open("data/edge-a", edge_id="edge-a") as edge:
        edge.insert([Document("memo-1", "Memo", "Dana Smith runs the Oslo lab.")])
        print(edge.query("Who runs the Oslo lab?", mode="local").answer)
"""

from cloud_server.api import CloudClient, build_cloud, serve_cloud
from edge_node.api import Document, Edge, EdgeAnswer, EdgeClient, EdgeModels, EdgeReply, build_edge, serve_edge
from shared.config import CloudConfig, EdgeConfig, load_config

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
