"""Durable embedded storage of an edge: SQLite (source of truth) plus faiss indexes on disk."""
