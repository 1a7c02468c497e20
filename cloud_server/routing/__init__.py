"""Routing a question to the edges that know it: the summary index (dense and sparse), probes and the choice
of edges, and the checks of what edges claim (trust)."""
