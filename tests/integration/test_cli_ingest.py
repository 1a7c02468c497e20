"""``dgrag edge ingest/delete/stats/summaries`` on bad and changing input, through real processes and models."""

from __future__ import annotations

import json
import os
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from shared.core.errors import ModelNotInstalledError
from shared.models.locate import bundled_embedder_path, bundled_slm_path
from simulation.processes import dgrag_command

pytestmark = pytest.mark.integration

MAX_FILE_BYTES = 2000
RUN_TIMEOUT_S = 600.0
STATS_KEYS = {"documents", "chunks", "entities", "relations", "subgraphs", "summaries", "bytes_on_disk"}
CONTENT_KEYS = ("documents", "chunks", "entities", "relations", "subgraphs", "summaries")

GOOD_TEXT = (
    "Marie Curie was a physicist and chemist who worked in Paris. Together with Pierre Curie she discovered "
    "polonium and radium at the University of Paris. She won the Nobel Prize in Physics in 1903 and the Nobel "
    "Prize in Chemistry in 1911, and she founded the Radium Institute in Paris.\n"
)
CHANGED_TEXT = (
    "Alan Turing was a mathematician who worked at Bletchley Park during the Second World War. He later joined "
    "the University of Manchester, where he wrote about machine intelligence and proposed the Turing test.\n"
)


def _dgrag() -> list[str]:
    return dgrag_command()


def _run(*args: str, max_bytes: int = MAX_FILE_BYTES) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DGRAG__INGEST__MAX_FILE_BYTES": str(max_bytes)}
    env.setdefault("DGRAG__SUMMARY__MAX_TOKENS", "64")  # short summaries keep the test quick
    return subprocess.run(
        [*_dgrag(), "edge", *args], capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S, check=False
    )


def _stats(data_dir: Path) -> dict[str, Any]:
    done = _run("stats", "--data-dir", str(data_dir), "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    stats: dict[str, Any] = json.loads(done.stdout)
    return stats


@pytest.fixture(scope="module", autouse=True)
def _models_installed() -> None:
    try:
        bundled_slm_path()
        bundled_embedder_path()
    except ModelNotInstalledError as exc:
        pytest.skip(f"bundled models not installed: {exc}")


@dataclass(frozen=True)
class Batch:
    data_dir: Path
    good: Path
    bad: dict[str, Path]
    result: subprocess.CompletedProcess[str]
    stats: dict[str, Any]


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Batch:
    """One ingest of a good file among every kind of bad input, into a fresh data directory."""
    root = tmp_path_factory.mktemp("cli")
    inputs = root / "inputs"
    inputs.mkdir()
    good = inputs / "good.txt"
    good.write_text(GOOD_TEXT, encoding="utf-8")
    bad = {
        "missing": inputs / "missing.txt",
        "binary": inputs / "binary.txt",
        "empty": inputs / "empty.txt",
        "invalid_utf8": inputs / "latin1.txt",
        "garbage_pdf": inputs / "garbage.pdf",
        "too_big": inputs / "big.txt",
    }
    bad["binary"].write_bytes(b"some text\x00\x01\x02 with NUL bytes\n")
    bad["empty"].write_bytes(b"")
    bad["invalid_utf8"].write_bytes("Caf\u00e9 cr\u00e8me in Latin-1\n".encode("latin-1"))
    bad["garbage_pdf"].write_bytes(b"%PDF-1.4\n" + random.Random(0).randbytes(600))
    bad["too_big"].write_text(("All work and no play makes Jack a dull boy. " * 100)[:3000], encoding="utf-8")
    assert bad["too_big"].stat().st_size == 3000
    assert good.stat().st_size < MAX_FILE_BYTES

    data_dir = root / "data"
    paths = [str(good), *(str(p) for p in bad.values())]
    result = _run("ingest", "--data-dir", str(data_dir), "--json", *paths)
    return Batch(data_dir, good, bad, result, _stats(data_dir))


def test_bad_inputs_are_reported_and_the_good_file_is_ingested(batch: Batch) -> None:
    assert "Traceback" not in batch.result.stderr
    assert batch.result.returncode == 1, batch.result.stderr  # partial success
    for kind, path in batch.bad.items():
        assert f"skipped {path}:" in batch.result.stderr, f"{kind} file not named on stderr"
    report = json.loads(batch.result.stdout)
    assert report["added"] == [batch.good.name], "a file given alone is known by its name"
    assert {f["path"] for f in report["failed"]} == {str(p) for p in batch.bad.values()}
    reasons = {f["path"]: f["reason"] for f in report["failed"]}
    assert "no such file" in reasons[str(batch.bad["missing"])]
    assert "binary" in reasons[str(batch.bad["binary"])]
    assert "empty" in reasons[str(batch.bad["empty"])]
    assert "UTF-8" in reasons[str(batch.bad["invalid_utf8"])]
    assert "PDF" in reasons[str(batch.bad["garbage_pdf"])]
    assert "limit" in reasons[str(batch.bad["too_big"])]
    assert batch.stats["documents"] == 1
    assert batch.stats["chunks"] >= 1
    assert batch.stats["document_ids"] == [batch.good.name]


def test_stats_json_has_the_documented_keys(batch: Batch) -> None:
    assert set(batch.stats) >= STATS_KEYS
    assert all(isinstance(batch.stats[k], int) for k in STATS_KEYS)
    assert batch.stats["bytes_on_disk"] > 0


def test_reingest_update_and_delete(batch: Batch) -> None:
    data_dir, good = batch.data_dir, batch.good
    doc_id = good.name
    before = _stats(data_dir)

    # The same file again: unchanged, nothing moves.
    done = _run("ingest", "--data-dir", str(data_dir), "--json", str(good))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["unchanged"] == [doc_id]
    assert report["added"] == [] and report["updated"] == [] and report["failed"] == []
    after = _stats(data_dir)
    assert {k: after[k] for k in CONTENT_KEYS} == {k: before[k] for k in CONTENT_KEYS}

    # New content under the same path: updated in place.
    good.write_text(CHANGED_TEXT, encoding="utf-8")
    done = _run("ingest", "--data-dir", str(data_dir), "--json", str(good))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["updated"] == [doc_id]
    assert report["added"] == [] and report["unchanged"] == []
    stats = _stats(data_dir)
    assert stats["documents"] == 1
    assert stats["chunks"] >= 1
    assert stats["graph_dirty"] is False
    done = _run("summaries", "--data-dir", str(data_dir), "--json")
    assert done.returncode == 0, done.stderr
    summaries = json.loads(done.stdout)
    assert isinstance(summaries, list)
    assert len(summaries) == stats["summaries"]

    # Delete it: the knowledge base is empty again.
    done = _run("delete", "--data-dir", str(data_dir), doc_id)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    stats = _stats(data_dir)
    assert {k: stats[k] for k in ("documents", "chunks", "entities", "relations")} == {
        "documents": 0,
        "chunks": 0,
        "entities": 0,
        "relations": 0,
    }
    assert set(stats) >= STATS_KEYS

    # An unknown id is refused with a message naming it.
    unknown = str(good.parent / "never-ingested.txt")
    done = _run("delete", "--data-dir", str(data_dir), unknown)
    assert done.returncode == 2
    assert unknown in done.stderr
    assert "Traceback" not in done.stderr


def test_a_folder_of_kept_documents_is_read_and_what_no_reader_takes_is_named(tmp_path: Path) -> None:
    """The issue's folder: a note, a web page and a Word report go in with their titles; a photo is named."""
    import docx

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "note.txt").write_text("The pump in hall 3 was serviced by Karin Vogt.", encoding="utf-8")
    (folder / "page.html").write_text(
        "<title>Boiler manual</title><script>alert('x')</script><h1>Boiler B-12</h1><p>It runs at 80 degrees.</p>"
    )
    report = docx.Document()
    report.core_properties.title = "Quarterly report"
    report.add_paragraph("Revenue rose 12 percent in the third quarter.")
    report.save(str(folder / "report.docx"))
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 not text")
    data_dir = tmp_path / "data"
    done = _run("ingest", "--data-dir", str(data_dir), str(folder), max_bytes=1 << 20)  # a .docx holds its styles
    assert done.returncode == 0, done.stderr
    summary = done.stdout.splitlines()[0]
    assert summary.startswith("documents: 3 added") and "1 not read" in summary and "photo.jpg" in summary, summary
    assert _stats(data_dir)["document_ids"] == ["docs/note.txt", "docs/page.html", "docs/report.docx"]
