"""Answering a question across edges: the global query (route, gather, merge, read), the reading of the merged
context and the guard of what the answer may carry of other edges' texts."""
