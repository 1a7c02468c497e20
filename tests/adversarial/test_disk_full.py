"""The disk fills up during an ingest (a real tmpfs of 400 KiB): a clear error, the store intact, and after
space is freed the same ingest finishes with every document. Needs root to mount; skipped otherwise."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_node.ingest.readers import RawDocument
from shared.core.errors import StoreError
from tests.support.fakes_edge import make_service

DOCS = [
    RawDocument(f"d{i}", f"D{i}", f"Company{i} Robotics hired Person{i} Smith in City{i}. " * 40, f"d{i}.txt")
    for i in range(120)
]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({done.stderr.strip()}); needs root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_stops_the_ingest_cleanly_and_a_rerun_finishes(small_disk: Path) -> None:
    service, _ = make_service(small_disk / "edge", store=None)  # the SQLite store, on the small disk
    with pytest.raises(StoreError, match="is full") as err:
        service.ingest(DOCS)
    assert "free space" in str(err.value)
    store = service._kb.store
    kept = store.counts().documents
    assert 0 < kept < len(DOCS)
    assert store._db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    report = service.ingest(DOCS)
    assert store.counts().documents == len(DOCS) and not report.failed
    assert len(report.unchanged) == kept
    service._kb.close()
