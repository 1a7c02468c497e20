"""edge_node.query."""
