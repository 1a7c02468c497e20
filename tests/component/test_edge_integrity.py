"""An edge keeps its promises under odd requests and after crashes: idempotent deletes, a repaired graph,
owner-only files, a bounded and rotated audit log."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest

from edge_node.policy.audit import AUDIT_FILE, AuditLog
from edge_node.store.knowledge_base import DB_FILE, LOCK_FILE
from tests.support.fakes_edge import DOCS, make_service


def test_naming_a_document_twice_deletes_it_once(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path / "edge")
    service.ingest(DOCS)
    service.delete(["acme", "acme"])
    assert "acme" not in service._kb.store.document_ids()
    service._kb.close()


def test_the_edges_files_are_its_owners_only(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path / "edge", store=None)
    service.ingest(DOCS)
    data = tmp_path / "edge"
    assert stat.S_IMODE(os.stat(data).st_mode) == 0o700
    for name in (DB_FILE, LOCK_FILE):
        assert stat.S_IMODE(os.stat(data / name).st_mode) & 0o077 == 0, name
    vectors = [p for p in (data / "vectors").iterdir()]
    assert vectors and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in vectors), "faiss files too"
    service._kb.close()


def test_a_data_directory_made_open_to_others_is_tightened_when_the_edge_opens_it(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path / "edge", store=None)
    service.ingest(DOCS)
    service._kb.close()
    data = tmp_path / "edge"
    data.chmod(0o755)
    (data / DB_FILE).chmod(0o644)
    service, _ = make_service(data, store=None)
    assert stat.S_IMODE(os.stat(data).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(data / DB_FILE).st_mode) == 0o600
    service._kb.close()


def test_the_audit_log_is_owner_only_and_rotates(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, max_bytes=300)
    for i in range(40):
        log.record("retrieval_reply", "cloud", 10, question=f"q{i}")
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [AUDIT_FILE, *(f"{AUDIT_FILE}.{n}" for n in range(1, 6))]
    assert all(stat.S_IMODE(os.stat(tmp_path / f).st_mode) == 0o600 for f in files)
    newest = [json.loads(x) for x in (tmp_path / AUDIT_FILE).read_text().splitlines()]
    assert newest[-1]["question"] == "q39"


def test_a_crash_between_a_write_and_its_summaries_is_repaired_at_start(tmp_path: Path) -> None:
    from edge_node.api import EdgeModels, build_edge

    service, gen = make_service(tmp_path / "edge")
    service.ingest(DOCS)
    kb = service._kb
    kb.store.set_meta("graph_dirty", "1")  # as a process killed after a delete, before its summaries
    runtime = build_edge(kb, service._config, EdgeModels(gen, service._embedder, service._tokenizer))

    async def main() -> None:
        first = await runtime.repair()
        assert first is not None and not kb.store.graph_dirty()
        assert await runtime.repair() is None
        await runtime.aclose()

    asyncio.run(main())
    kb.close()


def test_an_edge_without_a_cloud_starts_without_summarising(tmp_path: Path) -> None:
    """Summaries only matter to a cloud: an edge serving without one leaves a pending refresh pending."""
    import dataclasses

    from edge_node.api import EdgeModels, build_edge, serve_edge
    from shared.config import EdgeServerConfig

    service, gen = make_service(tmp_path / "edge")
    service.ingest(DOCS)
    kb = service._kb
    kb.store.set_meta("graph_dirty", "1")
    config = dataclasses.replace(service._config, server=EdgeServerConfig(port=0))
    runtime = build_edge(kb, config, EdgeModels(gen, service._embedder, service._tokenizer))
    calls_before = len(gen.requests)

    async def main() -> None:
        stop = asyncio.Event()
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(serve_edge(config, runtime, ready.set_result, stop))
        await ready
        stop.set()
        await task

    asyncio.run(main())
    assert kb.store.graph_dirty() and len(gen.requests) == calls_before, "no summary refresh without a cloud"
    kb.close()


@pytest.mark.parametrize("command", ["stats", "summaries", "query"])
def test_a_read_only_command_refuses_a_directory_without_an_edge_and_writes_nothing(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from dgrag.cli import main

    typo = tmp_path / "not-an-edge"
    typo.mkdir()
    args = ["edge", command, "--data-dir", str(typo), *(["a question?"] if command == "query" else [])]
    assert main(args) == 2
    assert "holds no edge" in capsys.readouterr().err
    assert list(typo.iterdir()) == [] and not (tmp_path / "missing").exists()
    assert main(["edge", command, "--data-dir", str(tmp_path / "missing"), *args[4:]]) == 2
    assert not (tmp_path / "missing").exists()


def test_the_audit_command_lists_what_left_and_the_totals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dgrag.cli import main

    service, _ = make_service(tmp_path / "edge", store=None)
    service.ingest(DOCS)
    service._kb.close()
    log = AuditLog(tmp_path / "edge")
    log.record("summary_sync", "cloud", 1200)
    log.record("retrieval_reply", "cloud", 800, question="Who leads Acme?", chunks=["acme#1", "acme#2"])
    assert main(["edge", "audit", "--data-dir", str(tmp_path / "edge"), "--last", "1"]) == 0
    out = capsys.readouterr().out
    assert "retrieval_reply" in out and "question 'Who leads Acme?', 2 chunk(s)" in out
    assert "summary_sync to cloud: 1 (1200 bytes)" in out and out.count("\n20") == 1, "one listed, both totalled"
    assert main(["edge", "audit", "--data-dir", str(tmp_path / "nothing")]) == 2


def test_the_owner_maps_a_cited_opaque_id_back_to_its_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dgrag.cli import main
    from edge_node.policy.doc_id_key import KEY_FILE, doc_id_key, opaque_id

    service, _ = make_service(tmp_path / "edge", store=None)
    service.ingest(DOCS)
    service._kb.close()
    key_file = tmp_path / "edge" / KEY_FILE
    cited = opaque_id(doc_id_key(tmp_path / "edge"), "edge-a", "globex")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and len(key_file.read_text().strip()) == 64
    assert doc_id_key(tmp_path / "edge") == doc_id_key(tmp_path / "edge"), "made once, then read"
    monkeypatch.setenv("DGRAG__EDGE_ID", "edge-a")
    assert main(["edge", "source", "--data-dir", str(tmp_path / "edge"), cited]) == 0
    assert capsys.readouterr().out.strip() == "globex"
    assert main(["edge", "source", "--data-dir", str(tmp_path / "edge"), "doc-0000000000000000"]) == 2
    assert "no document of this edge is cited as" in capsys.readouterr().err
