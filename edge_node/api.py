"""The public Python API of an edge: what the CLI, the simulation, the benchmarks and applications use.

In process, one edge's data directory::

    from edge_node.api import Edge, Document

    with Edge.open("data/edge-a", edge_id="edge-a") as edge:
        edge.insert([Document("memo-1", "Memo", "Alice Smith runs the Oslo lab.")])
        answer = edge.query("Who runs the Oslo lab?", mode="local")
        print(answer.answer, answer.decision)

A running edge (``dgrag edge serve``) is reached with :class:`EdgeClient` and its API token. ``build_edge``
wires an edge's services (the counterpart of the cloud's ``build_cloud``) for servers that drive the
asynchronous :class:`EdgeRuntime` themselves.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from edge_node.ingest.doc_ids import IdMigration, migrate_ids
from edge_node.ingest.readers import RawDocument, ReadResult, read_paths
from edge_node.ingest.service import IngestReport, ProgressSink, SummaryRefresh
from edge_node.policy.audit import AuditEntry, read_audit
from edge_node.policy.doc_id_key import doc_id_key
from edge_node.policy.privacy import outbound_doc_id
from edge_node.query.edge_answer import EdgeAnswer, Escalator
from edge_node.runtime.edge_runtime import EdgeModels, EdgeRuntime
from edge_node.store.knowledge_base import DB_FILE, EdgeKnowledgeBase, is_edge_dir
from edge_node.store.publication import summary_card
from edge_node.store.records import SubgraphRecord
from edge_node.transport.api_client import EdgeClient, EdgeReply
from edge_node.transport.api_token import API_TOKEN_FILE, read_api_token
from edge_node.transport.server import cloud_link, serve_edge
from shared.cli.console import one_line
from shared.config import EdgeConfig, load_config
from shared.core.constants import DEFAULT_EDGE_ID
from shared.core.edge_stats import EdgeStats
from shared.core.errors import ConfigError, DocumentNotFoundError, StoreError
from shared.core.knowledge import ProbeScores, SummaryCard

__all__ = [
    "API_TOKEN_FILE",
    "AuditEntry",
    "Document",
    "Edge",
    "EdgeAnswer",
    "EdgeClient",
    "EdgeModels",
    "EdgeReply",
    "EdgeRuntime",
    "EdgeStats",
    "IdMigration",
    "IngestReport",
    "ProgressSink",
    "SummaryRefresh",
    "TqdmProgress",
    "build_edge",
    "read_api_token",
    "serve_edge",
]


@dataclass(frozen=True)
class Document:
    """A document given as text (rather than a file): its id is how it is replaced or deleted later."""

    doc_id: str
    title: str
    text: str


class TqdmProgress(ProgressSink):
    """Progress bars on stderr, one per stage (documents, summaries)."""

    def __init__(self) -> None:
        self._bars: dict[str, Any] = {}

    def start(self, stage: str, total: int) -> None:
        from tqdm import tqdm

        self._bars[stage] = tqdm(
            total=total, desc=stage, unit="doc" if stage == "documents" else "sg", file=sys.stderr, dynamic_ncols=True
        )

    def advance(self, stage: str, note: str = "") -> None:
        bar = self._bars[stage]
        bar.set_postfix_str(one_line(note)[-50:], refresh=False)  # a file name's control characters stay escaped
        bar.update(1)

    def done(self, stage: str) -> None:
        self._bars.pop(stage).close()


def build_edge(kb: EdgeKnowledgeBase, config: EdgeConfig, models: EdgeModels | None = None) -> EdgeRuntime:
    """One edge's services over an open knowledge base, with ``models`` (default: those ``config`` names)."""
    config = with_stored_edge_id(kb, config)
    return EdgeRuntime(kb, models or EdgeModels.from_config(config), config)


def with_stored_edge_id(kb: EdgeKnowledgeBase, config: EdgeConfig) -> EdgeConfig:
    """An edge id left at its default takes the one the data directory was built with."""
    stored = kb.store.get_meta("edge_id")
    if stored and config.edge_id == DEFAULT_EDGE_ID:
        return dataclasses.replace(config, edge_id=stored)
    return config


class Edge:
    """One edge in this process: its store under ``data_dir``, its models (loaded on first use) and services.

    Synchronous: each call runs the edge's asynchronous runtime to completion. The data directory is locked
    while the edge is open (another process opening it gets a clear error); close it, or use ``with``.
    """

    def __init__(self, kb: EdgeKnowledgeBase, config: EdgeConfig, models: EdgeModels | None = None) -> None:
        self._kb = kb
        self.config = with_stored_edge_id(kb, config)
        self._models = models
        self._runtime: EdgeRuntime | None = None
        self._loop = asyncio.Runner()

    @classmethod
    def open(
        cls,
        data_dir: str | Path,
        config: EdgeConfig | str | Path | None = None,
        *,
        edge_id: str | None = None,
        models: EdgeModels | None = None,
        existing: bool = False,
        read_only: bool = False,
    ) -> Edge:
        """Open (or create) the edge stored in ``data_dir``; ``config`` is an EdgeConfig or a TOML file
        (default: the built-in defaults with DGRAG__* overrides); ``edge_id`` overrides the config's.
        ``existing``: refuse a directory that holds no edge, writing nothing there (for commands that only
        read). ``read_only``: read an existing edge beside the process serving it (stats, sources, summaries,
        audit); nothing may be written through it."""
        if (existing or read_only) and not is_edge_dir(Path(data_dir)):
            raise StoreError(
                f"{data_dir} holds no edge ({DB_FILE} is missing): check --data-dir, or make one with "
                f"`dgrag edge ingest --data-dir {data_dir} FILES`"
            )
        loaded = config if isinstance(config, EdgeConfig) else load_config(EdgeConfig, Path(config) if config else None)
        if edge_id:
            loaded = dataclasses.replace(loaded, edge_id=edge_id)
        return cls(EdgeKnowledgeBase(Path(data_dir), read_only=read_only), loaded, models)

    @property
    def edge_id(self) -> str:
        return self.config.edge_id

    @property
    def data_dir(self) -> Path:
        return self._kb.data_dir

    @property
    def runtime(self) -> EdgeRuntime:
        """The asynchronous runtime (models load here, on first use)."""
        if self._kb.read_only:
            raise StoreError(
                f"{self.data_dir} was opened to read beside its serving process; open it without read_only to change it"
            )
        if self._runtime is None:
            self._runtime = build_edge(self._kb, self.config, self._models)
        return self._runtime

    def ingest(
        self,
        paths: Sequence[str | Path],
        progress: ProgressSink | None = None,
        *,
        summarise: bool = True,
        bundle_edge: str | None = None,
        root: str | Path | None = None,
    ) -> IngestReport:
        """Ingest files, directories and .jsonl bundles (``bundle_edge``: only that edge's bundle documents).

        A file's id is its path relative to ``root``; without it, relative to the folder each path lies in
        (``notes/a.txt`` for a directory ``notes``, ``a.txt`` for a file alone)."""
        base = None if root is None else Path(root)
        items = read_paths([Path(p) for p in paths], self.config.ingest.max_file_bytes, bundle_edge, base)
        return self._ingest(list(items), progress, summarise)

    def migrate_ids(self, root: str | Path) -> IdMigration:
        """Give documents stored under absolute paths (earlier versions' ids) ids relative to ``root``."""
        if self._kb.store.get_meta("dim") is not None:
            self._kb.vectors  # noqa: B018 - loaded at this generation, so afterwards they are saved, not rebuilt
        result = migrate_ids(self._kb.store, Path(root))
        self._kb.flush()
        return result

    def insert(
        self, documents: Sequence[Document], progress: ProgressSink | None = None, *, summarise: bool = True
    ) -> IngestReport:
        """Ingest documents given as text; one with a known id and new text replaces the old version."""
        items: list[ReadResult] = [RawDocument(d.doc_id, d.title, d.text, f"api:{d.doc_id}") for d in documents]
        return self._ingest(items, progress, summarise)

    def _ingest(self, items: list[ReadResult], progress: ProgressSink | None, summarise: bool) -> IngestReport:
        return self._loop.run(self.runtime.ingest(items, progress, summarise))

    def delete(self, doc_ids: Sequence[str], progress: ProgressSink | None = None) -> SummaryRefresh | None:
        """Delete documents by id everywhere (chunks, vectors, graph, summaries); unknown ids raise before any
        change."""
        known = set(self._kb.store.document_ids())
        missing = [d for d in doc_ids if d not in known]
        if missing:
            raise DocumentNotFoundError(
                f"no document(s) {', '.join(map(repr, missing))} in this edge; `dgrag edge stats --json` lists ids"
            )
        return self._loop.run(self.runtime.delete(doc_ids, progress))

    def summarise(self, progress: ProgressSink | None = None) -> SummaryRefresh:
        """Re-partition the graph and re-summarise the subgraphs that changed."""
        return self._loop.run(self.runtime.refresh_summaries(progress))

    def query(
        self,
        question: str,
        mode: str = "local",
        cloud: Escalator | None = None,
    ) -> EdgeAnswer:
        """Answer ``question``: ``local`` (graph retrieval + gate, no cloud) or ``full``
        (escalate to the cloud when the gate says so: ``cloud`` or, by default, the config's cloud link)."""
        return self._loop.run(self._query(question, mode, cloud))

    async def _query(self, question: str, mode: str, cloud: Escalator | None) -> EdgeAnswer:
        if mode != "full" or cloud is not None:
            return await self.runtime.query(question, mode, cloud)
        if not self.config.cloud.address:
            raise ConfigError("mode 'full' needs a cloud: set cloud.address (and this edge's token) in the config")
        link = cloud_link(self.runtime, self.config)
        assert link is not None  # cloud.address is set
        try:
            return await self.runtime.query(question, mode, link)
        finally:
            await link.aclose()

    def probe(self, question: str) -> ProbeScores:
        """The cloud's stage-2 routing probe, run here: how strongly this edge's knowledge matches ``question``
        (scores only; refused when ``privacy.answer_probes`` is off)."""
        return self._loop.run(self.runtime.probe(question))

    def stats(self, with_document_ids: bool = True) -> EdgeStats:
        return self._kb.stats(with_document_ids)

    def sources(self, cited: str) -> list[str]:
        """The documents of this edge that an id cited outside it (in a cloud answer, an audit line) stands for,
        under this edge's ``privacy.doc_ids``: one for an opaque id, maybe several for a file name."""
        key = doc_id_key(self.data_dir)
        policy, edge_id = self.config.privacy, self.edge_id
        return [d for d in self._kb.store.document_ids() if outbound_doc_id(d, policy, edge_id, key) == cited.strip()]

    def subgraphs(self) -> list[SubgraphRecord]:
        """The subgraphs and their summaries, as stored."""
        return self._kb.store.subgraphs()

    def summaries(self) -> list[SummaryCard]:
        """The summary cards this edge publishes (before its privacy policy's check on the way out)."""
        return [summary_card(r) for r in self._kb.store.subgraphs() if r.summary]

    def audit(self) -> list[AuditEntry]:
        """What this edge has sent (or withheld), oldest first."""
        return read_audit(self.data_dir)

    def close(self) -> None:
        try:
            if self._runtime is not None:
                self._loop.run(self._runtime.aclose())
        finally:
            self._loop.close()
            self._kb.close()

    def __enter__(self) -> Edge:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
