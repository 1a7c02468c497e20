"""Ingest is transactional: a SIGKILL at any point leaves a consistent store that a re-run completes.

Real processes of ``dgrag edge ...`` with the real models (SmolLM2 + MiniLM) on a small bundle of
documents from the multihop4 corpus.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import pytest

from edge_node.store.knowledge_base import DB_FILE, EdgeKnowledgeBase
from shared.core.errors import ModelNotInstalledError
from shared.models.locate import bundled_embedder_path, bundled_slm_path
from simulation.processes import dgrag_command

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "data" / "multihop4" / "docs.jsonl"
CORPUS_IN_REPO = Path(__file__).resolve().parents[2] / "simulation" / "bundles" / "multihop4" / "docs.jsonl"
N_DOCS = 8
KILL_AFTER_DOCS = 2
RUN_TIMEOUT_S = 600.0
DIM_BYTES = 384 * 4  # all-MiniLM-L6-v2 float32 vectors


def _dgrag() -> list[str]:
    return dgrag_command()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # Shorter summaries keep the test quick; what is tested is the store, not the prose.
    env.setdefault("DGRAG__SUMMARY__MAX_TOKENS", "64")
    return env


@pytest.fixture(scope="module", autouse=True)
def _models_installed() -> None:
    try:
        bundled_slm_path()
        bundled_embedder_path()
    except ModelNotInstalledError as exc:
        pytest.skip(f"bundled models not installed: {exc}")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = next((p for p in (CORPUS, CORPUS_IN_REPO) if p.is_file()), None)
    if corpus is None:
        pytest.skip(f"multihop4 corpus is missing: neither {CORPUS} nor {CORPUS_IN_REPO} exists")
    rows = []
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
            if len(rows) == N_DOCS:
                break
    if len(rows) < N_DOCS:
        pytest.skip(f"corpus {corpus} holds fewer than {N_DOCS} documents")
    path = tmp_path_factory.mktemp("bundle") / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# -- helpers ------------------------------------------------------------------------------------------------


def _start(args: list[str], stderr_path: Path) -> tuple[subprocess.Popen[bytes], Any]:
    err = stderr_path.open("wb")
    proc = subprocess.Popen([*_dgrag(), "edge", *args], stdout=subprocess.DEVNULL, stderr=err, env=_env())
    return proc, err


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_dgrag(), "edge", *args], capture_output=True, text=True, env=_env(), timeout=RUN_TIMEOUT_S, check=False
    )


def _stats(data_dir: Path) -> dict[str, Any]:
    done = _run("stats", "--data-dir", str(data_dir), "--json")
    assert done.returncode == 0, done.stderr
    stats: dict[str, Any] = json.loads(done.stdout)
    return stats


def _committed_docs(db: Path) -> int | None:
    """Documents committed so far, read without disturbing the writer; None if not readable yet."""
    if not db.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2)
    except sqlite3.OperationalError:
        return None
    try:
        return int(conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0])
    except sqlite3.OperationalError:  # 'database is locked', 'no such table' while the schema is created
        return None
    finally:
        conn.close()


def _wait_then_kill(
    proc: subprocess.Popen[bytes], ready: Callable[[], bool], what: str, deadline_s: float = RUN_TIMEOUT_S
) -> bool:
    """Poll ``ready()`` until true, then SIGKILL ``proc``; False if ``proc`` ended on its own first."""
    deadline = time.monotonic() + deadline_s
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return False
            if ready():
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
                return True
            time.sleep(0.05)
    finally:
        if proc.poll() is None:  # timed out, or ready() raised: never leave the ingest running
            proc.kill()
            proc.wait(timeout=30)
    pytest.fail(f"timed out after {deadline_s:.0f}s waiting for {what}")


@dataclass(frozen=True)
class Snapshot:
    """What a data directory holds, independent of row ids."""

    documents: frozenset[str]
    chunks: frozenset[tuple[str, int, str]]
    entities: frozenset[str]
    relations: frozenset[tuple[str, str]]

    def counts(self) -> dict[str, int]:
        return {
            "documents": len(self.documents),
            "chunks": len(self.chunks),
            "entities": len(self.entities),
            "relations": len(self.relations),
        }


@contextlib.contextmanager
def _db(data_dir: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a store no process is writing (after a kill this recovers the WAL, as a re-open would)."""
    conn = sqlite3.connect(str(data_dir / DB_FILE), timeout=10)
    try:
        yield conn
    finally:
        conn.close()


def _snapshot(data_dir: Path) -> Snapshot:
    with _db(data_dir) as db:
        return Snapshot(
            documents=frozenset(r[0] for r in db.execute("SELECT doc_id FROM documents")),
            chunks=frozenset((r[0], int(r[1]), r[2]) for r in db.execute("SELECT doc_id, idx, text FROM chunks")),
            entities=frozenset(r[0] for r in db.execute("SELECT key FROM entities")),
            relations=frozenset(
                (r[0], r[1])
                for r in db.execute(
                    "SELECT a.key, b.key FROM relations r JOIN entities a ON a.id = r.src_id "
                    "JOIN entities b ON b.id = r.tgt_id"
                )
            ),
        )


CONSISTENCY_QUERIES = {
    "documents without chunks": (
        "SELECT doc_id FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.doc_id)"
    ),
    "chunks of missing documents": "SELECT id FROM chunks WHERE doc_id NOT IN (SELECT doc_id FROM documents)",
    "entities without mentions": (
        "SELECT id FROM entities e WHERE NOT EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = e.id)"
    ),
    "relations without mentions": (
        "SELECT id FROM relations r WHERE NOT EXISTS (SELECT 1 FROM relation_mentions m WHERE m.relation_id = r.id)"
    ),
    "relations with a missing endpoint": (
        "SELECT id FROM relations WHERE src_id NOT IN (SELECT id FROM entities) "
        "OR tgt_id NOT IN (SELECT id FROM entities)"
    ),
    "orphan entity mentions": (
        "SELECT entity_id, chunk_id FROM entity_mentions WHERE entity_id NOT IN (SELECT id FROM entities) "
        "OR chunk_id NOT IN (SELECT id FROM chunks)"
    ),
    "orphan relation mentions": (
        "SELECT relation_id, chunk_id FROM relation_mentions WHERE relation_id NOT IN (SELECT id FROM relations) "
        "OR chunk_id NOT IN (SELECT id FROM chunks)"
    ),
    "chunks without a full vector": f"SELECT id FROM chunks WHERE length(vector) != {DIM_BYTES}",
    "entities without a full vector": f"SELECT id FROM entities WHERE length(vector) != {DIM_BYTES}",
    "relations without a full vector": f"SELECT id FROM relations WHERE length(vector) != {DIM_BYTES}",
}


def _assert_consistent(data_dir: Path) -> None:
    with _db(data_dir) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        problems = {name: rows for name, sql in CONSISTENCY_QUERIES.items() if (rows := db.execute(sql).fetchall())}
    assert problems == {}


def _assert_vectors_match_sqlite(data_dir: Path) -> None:
    """The faiss indexes (loaded, or rebuilt because they lag) hold exactly the SQLite row ids."""
    with _db(data_dir) as db:
        expected = {
            table: {int(r[0]) for r in db.execute(f"SELECT id FROM {table}")}
            for table in ("chunks", "entities", "relations")
        }
    with EdgeKnowledgeBase(data_dir) as kb:
        for table, ids in expected.items():
            space = kb.vectors.spaces[table]
            in_faiss = [int(i) for i in faiss.vector_to_array(space.index.id_map)]
            assert len(in_faiss) == len(space) == len(set(in_faiss)), f"{table}: duplicate ids in faiss"
            assert set(in_faiss) == ids, f"{table}: faiss ids differ from SQLite"


def _ingest_killed_in_summaries(bundle: Path, data_dir: Path, log: Path) -> bool:
    """Ingest ``bundle`` with summaries and SIGKILL it once the summaries phase has begun."""
    db = data_dir / DB_FILE

    def summarising() -> bool:
        return _committed_docs(db) == N_DOCS and b"summaries:" in log.read_bytes()

    proc, err = _start(["ingest", "--data-dir", str(data_dir), str(bundle)], log)
    try:
        killed = _wait_then_kill(proc, summarising, "the summaries phase")
    finally:
        err.close()
    if not killed:
        assert proc.returncode == 0, log.read_text(errors="replace")
    return killed


@dataclass(frozen=True)
class CleanRun:
    data_dir: Path
    log: Path
    killed_in_summaries: bool
    snapshot: Snapshot


@pytest.fixture(scope="module")
def clean(bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> CleanRun:
    """An uninterrupted document phase on a fresh data directory; the summaries phase is killed (if it can be)."""
    root = tmp_path_factory.mktemp("clean")
    data_dir, log = root / "data", root / "ingest.stderr"
    killed = _ingest_killed_in_summaries(bundle, data_dir, log)
    return CleanRun(data_dir, log, killed, _snapshot(data_dir))


# -- tests ----------------------------------------------------------------------------------------------------


def test_kill_during_summaries_keeps_graph_dirty_and_summarize_completes(clean: CleanRun) -> None:
    if not clean.killed_in_summaries:
        pytest.skip("the ingest finished before its summaries phase could be killed")
    assert "Traceback" not in clean.log.read_text(errors="replace")
    _assert_consistent(clean.data_dir)
    stats = _stats(clean.data_dir)
    assert stats["documents"] == N_DOCS
    assert stats["graph_dirty"] is True
    assert stats["summaries"] == 0  # summaries are saved in one transaction at the end of the phase

    done = _run("summarize", "--data-dir", str(clean.data_dir))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    stats = _stats(clean.data_dir)
    assert stats["graph_dirty"] is False
    assert stats["summaries"] > 0
    assert stats["subgraphs"] == stats["summaries"]
    assert {k: stats[k] for k in ("documents", "chunks", "entities", "relations")} == clean.snapshot.counts()
    _assert_consistent(clean.data_dir)


def test_kill_during_documents_leaves_consistent_store_and_rerun_matches_clean_ingest(
    bundle: Path, clean: CleanRun, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    db = data_dir / DB_FILE

    # 1. SIGKILL while documents remain.
    log = tmp_path / "killed.stderr"
    proc, err = _start(["ingest", "--data-dir", str(data_dir), "--no-summaries", str(bundle)], log)
    try:
        killed = _wait_then_kill(
            proc, lambda: (_committed_docs(db) or 0) >= KILL_AFTER_DOCS, f"{KILL_AFTER_DOCS} committed documents"
        )
    finally:
        err.close()
    output = log.read_text(errors="replace")
    assert killed, f"ingest ended (exit {proc.returncode}) before it could be killed:\n{output}"
    assert proc.returncode == -signal.SIGKILL

    # 2. What was committed is consistent, and the process really died mid-batch.
    _assert_consistent(data_dir)
    before = _snapshot(data_dir)
    assert KILL_AFTER_DOCS <= len(before.documents) < N_DOCS
    assert before.documents <= clean.snapshot.documents
    _assert_vectors_match_sqlite(data_dir)

    # 3. Running the same ingest again finishes the job, skipping what was committed.
    done = _run("ingest", "--data-dir", str(data_dir), "--json", str(bundle))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert set(report["unchanged"]) == before.documents
    assert set(report["added"]) == clean.snapshot.documents - before.documents
    assert report["updated"] == [] and report["failed"] == []
    assert report["summary"] is not None and report["summary"]["upserted"]

    stats = _stats(data_dir)
    assert stats["documents"] == N_DOCS
    assert stats["summaries"] > 0
    assert stats["graph_dirty"] is False
    _assert_consistent(data_dir)
    _assert_vectors_match_sqlite(data_dir)

    # 4. The interrupted-then-resumed store equals a clean ingest of the same bundle (greedy, cached SLM).
    after = _snapshot(data_dir)
    assert after.counts() == clean.snapshot.counts()
    assert after.documents == clean.snapshot.documents
    assert after.chunks == clean.snapshot.chunks
    assert after.entities == clean.snapshot.entities
    assert after.relations == clean.snapshot.relations
