"""A run's private copy of a cached index; a resumed run keeps what its edges sent in earlier sittings."""

from __future__ import annotations

import json
from pathlib import Path

from edge_node.policy.audit import AUDIT_FILE
from simulation.indexing import BuiltIndex, working_copy


def _entry(what: str, n_bytes: int) -> str:
    return json.dumps({"ts": 1.0, "what": what, "to": "cloud", "bytes": n_bytes})


def _cached(tmp_path: Path) -> BuiltIndex:
    cache = tmp_path / "cache" / "bench-a-key"
    cache.mkdir(parents=True)
    (cache / "edge.sqlite3").write_text("store")
    (cache / AUDIT_FILE).write_text(_entry("summary_sync", 5) + "\n")  # from indexing: never copied
    return BuiltIndex("a", cache, 1.0, 1, True)


def test_a_fresh_run_starts_with_an_empty_audit(tmp_path: Path) -> None:
    index = _cached(tmp_path)
    dest = working_copy(index, tmp_path / "out")
    (dest / AUDIT_FILE).write_text(_entry("retrieval_reply", 700) + "\n")  # the first run's traffic
    again = working_copy(index, tmp_path / "out")
    assert (again / "edge.sqlite3").read_text() == "store"
    assert not (again / AUDIT_FILE).exists()


def test_a_resumed_run_keeps_earlier_query_traffic_but_not_earlier_publication(tmp_path: Path) -> None:
    index = _cached(tmp_path)
    dest = working_copy(index, tmp_path / "out")
    lines = [_entry("summary_sync", 900), _entry("global_query", 40), _entry("retrieval_reply", 700), '{"cut sh']
    (dest / AUDIT_FILE).write_text("\n".join(lines))
    again = working_copy(index, tmp_path / "out", keep_audit=True)
    kept = [json.loads(x) for x in (again / AUDIT_FILE).read_text().splitlines()]
    assert [(e["what"], e["bytes"]) for e in kept] == [("global_query", 40), ("retrieval_reply", 700)]


def test_earlier_traffic_survives_a_copy_that_was_itself_interrupted(tmp_path: Path) -> None:
    index = _cached(tmp_path)
    dest = working_copy(index, tmp_path / "out")
    (dest / AUDIT_FILE).write_text(_entry("retrieval_reply", 700) + "\n")
    kept = dest.parent / f"a.{AUDIT_FILE}.kept"
    (dest / AUDIT_FILE).replace(kept)  # what a copy stopped after setting the audit aside leaves
    again = working_copy(index, tmp_path / "out", keep_audit=True)
    assert [json.loads(x)["bytes"] for x in (again / AUDIT_FILE).read_text().splitlines()] == [700]
    assert not kept.exists()
