"""The cloud's services: transport-free (registry, summary index, cross-edge query, intake checks, tokens)."""
