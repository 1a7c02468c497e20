"""An edge at run time: the async services over its knowledge base and models (edge_runtime) and the full query
path they run (full_query)."""
