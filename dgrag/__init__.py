"""dgrag: distributed graph-based retrieval-augmented generation for edge-cloud systems."""
