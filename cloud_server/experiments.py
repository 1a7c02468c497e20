"""What the benchmarks use of the cloud beyond its public API (:mod:`cloud_server.api`): the summary index and
the routing (probe scoring, the choice of edges), to replay and fit them offline.
For experiments: not a stable API for applications.
"""

from __future__ import annotations

from cloud_server.answering.answer_guard import guard_answer
from cloud_server.routing.choice import ProbeRouting, choose_edges
from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.routing.summary_store import SummaryStore
from cloud_server.sessions.knowledge_intake import bounded_lexical

__all__ = [
    "ProbeRouting",
    "SummaryIndex",
    "SummaryStore",
    "bounded_lexical",
    "choose_edges",
    "guard_answer",
]
