"""What the simulation and the benchmarks use of an edge beyond its public API (:mod:`edge_node.api`): copies
of built stores and their cached model answers, the audit log's files, the gate's score, the leak guard and the
session outbox (the simulation's dishonest participants change what it sends); the session, link and outbound
policy a swarm edge runs without models; the knowledge base and model-endpoint check an edge host opens.
The only module outside edge_node allowed to import its internals (the import contracts in pyproject.toml).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Sequence
from pathlib import Path

from edge_node.policy.audit import AUDIT_FILE, AuditEntry, read_audit, write_audit
from edge_node.policy.leak_guard import LeakGuard
from edge_node.policy.model_endpoints import check_model_endpoints
from edge_node.policy.outbound import OutboundPolicy
from edge_node.policy.privacy import Outbound
from edge_node.query.answering import extract_answer
from edge_node.query.gate import combined_score as gate_score
from edge_node.query.retrieval import Retriever
from edge_node.store.knowledge_base import DB_FILE, LOCK_FILE, EdgeKnowledgeBase
from edge_node.transport.cloud_link import CloudLink
from edge_node.transport.cloud_session import CloudSession
from edge_node.transport.session_outbox import SessionOutbox
from shared.core.errors import StoreError

__all__ = [
    "AUDIT_FILE",
    "AuditEntry",
    "CloudLink",
    "CloudSession",
    "EdgeKnowledgeBase",
    "LeakGuard",
    "Outbound",
    "OutboundPolicy",
    "Retriever",
    "SessionOutbox",
    "check_model_endpoints",
    "copy_edge",
    "extract_answer",
    "gate_score",
    "read_audit",
    "seed_model_answers",
    "write_audit",
]


def copy_edge(source: Path, dest: Path) -> None:
    """Copy an edge's data directory to ``dest`` (which must not exist) without its lock or audit log: the
    copy is a new edge with the same knowledge, and its record of what it sends starts empty."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(LOCK_FILE, f"{AUDIT_FILE}*"))


def seed_model_answers(data_dir: Path, sources: Sequence[Path]) -> None:
    """Give the edge at ``data_dir`` the model answers cached by the edges at ``sources`` (the same prompt to the
    same model gives the same answer): an edge built from the same chunks then needs no model call for them."""
    with EdgeKnowledgeBase(data_dir) as kb:
        for source in sources:
            with contextlib.suppress(StoreError):  # a source that is not a usable store only seeds nothing
                kb.store.copy_llm_cache_from(source / DB_FILE)
