"""edge_node.ingest."""
