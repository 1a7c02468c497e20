"""What the benchmarks use of the cloud beyond its public API (:mod:`cloud_server.api`): the summary index and
the routing (probe scoring, the choice of edges, the routing memory), to replay and fit them offline.
For experiments: not a stable API for applications.
"""

from __future__ import annotations

from cloud_server.services.answer_guard import guard_answer
from cloud_server.services.knowledge_intake import bounded_lexical
from cloud_server.services.routing import ProbeRouting, choose_edges
from cloud_server.services.routing_memory import RoutingMemory
from cloud_server.services.summary_index import SummaryIndex

__all__ = ["ProbeRouting", "RoutingMemory", "SummaryIndex", "bounded_lexical", "choose_edges", "guard_answer"]
