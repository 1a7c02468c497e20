"""What the simulation and the benchmarks use of the cloud beyond its public API (:mod:`cloud_server.api`): the
summary index and store and the routing (probe scoring, the choice of edges), to replay and fit them offline; the
lexical bound on what an edge sends. The only module outside cloud_server allowed to import its internals (the
import contracts in pyproject.toml).
"""

from __future__ import annotations

from cloud_server.routing.choice import ProbeRouting, choose_edges
from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.routing.summary_store import SummaryStore
from cloud_server.sessions.knowledge_intake import bounded_lexical

__all__ = ["ProbeRouting", "SummaryIndex", "SummaryStore", "bounded_lexical", "choose_edges"]
