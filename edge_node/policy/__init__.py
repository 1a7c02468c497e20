"""edge_node.policy."""
