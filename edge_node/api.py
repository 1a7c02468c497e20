"""The public Python API of an edge."""
