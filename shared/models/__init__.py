"""Model runtimes behind one small interface: text generation (n samples, optional JSON schema) and embeddings."""
