"""The cloud: edge registry and sessions, global summary index, cross-edge retrieval, cloud LLM answer."""
