"""benchmarks.leak_audit on a hand-made run: each edge's audit log against its own documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.leak_audit import edge_documents, main
from simulation.edge_parts import AuditEntry, write_audit

DOC = "Zephyr Medical quietly moved its insulin pump plant from Lisbon to Porto after the spring floods of 2019."


def _bench(root: Path) -> Path:
    bench = root / "bench"
    bench.mkdir()
    rows = [{"doc_id": "d1", "edge_id": "a", "title": "t", "text": DOC}, {"doc_id": "d2", "edge_id": "b", "text": "x"}]
    (bench / "docs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return bench


def _run(root: Path, texts: list[str], question: str = "") -> Path:
    edge = root / "run" / "edges" / "a"
    edge.mkdir(parents=True)
    entries = [AuditEntry(1.0, "summary_sync", "cloud", 100, {"texts": texts})]
    if question:
        entries.append(AuditEntry(2.0, "global_query", "cloud", 50, {"question": question}))
    write_audit(edge, entries)
    return root / "run"


def test_documents_are_read_per_edge(tmp_path: Path) -> None:
    assert edge_documents(_bench(tmp_path)) == {"a": [DOC], "b": ["x"]}


def test_a_clean_log_passes_and_a_quoted_document_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench(tmp_path)
    clean = _run(tmp_path / "clean", ["A medical company relocated a factory."])
    assert main(["--bench", str(bench), "--run", str(clean)]) == 0
    assert "| a | 1 | 1 | 1 | 0 |" in capsys.readouterr().out
    leaky = _run(tmp_path / "leaky", ["ok"], question="Why " + DOC.lower())
    assert main(["--bench", str(bench), "--run", str(leaky)]) == 2
    assert "| a | 2 | 2 | 2 | 1 |" in capsys.readouterr().out


def test_a_run_without_recorded_content_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench(tmp_path)
    run = tmp_path / "run"
    (run / "edges" / "a").mkdir(parents=True)
    write_audit(run / "edges" / "a", [AuditEntry(1.0, "summary_sync", "cloud", 100, {"ids": ["s1"]})])
    assert main(["--bench", str(bench), "--run", str(run)]) == 1
    assert "audit_content = true" in capsys.readouterr().out
