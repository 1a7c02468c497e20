"""The edge node, in layers: ingest (documents to a knowledge graph and summaries), query (retrieval, answers,
the gate), policy (privacy, leak guard, audit), store (SQLite + faiss), runtime, transport, and the public API."""
