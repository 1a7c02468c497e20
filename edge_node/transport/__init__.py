"""edge_node.transport."""
