"""The edge node: ingest, knowledge graph, partition + summaries (and, later, local query and the cloud session)."""
