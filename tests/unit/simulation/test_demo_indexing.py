"""The demo counts an edge as indexed only after its ingest finished, and stops on a failed one."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from shared.core.errors import DgragError
from simulation import indexing
from simulation.index_cache import COMPLETE_MARKER
from simulation.processes import Finished
from tests.support.paths import REPO

DEMO = REPO / "scripts" / "demo_network.py"


def load_demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_network", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeIngest:
    """Stands in for `dgrag edge ingest` (no models): records each call, writes a store, exits as told."""

    def __init__(self, returncode: int = 0) -> None:
        self.calls: list[str] = []
        self.returncode = returncode

    def __call__(self, args: list[str], log: Path, env: dict[str, str], echo: bool = False) -> Finished:
        data_dir = Path(args[args.index("--data-dir") + 1])
        self.calls.append(data_dir.name)
        (data_dir / "edge.sqlite3").write_bytes(b"built")
        log.write_text("Traceback ...\nModelError: llama.cpp could not load the model\n")
        return Finished(self.returncode, 1.0, 1024)


def test_a_half_built_edge_is_indexed_again_and_a_finished_one_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = load_demo()
    fake = FakeIngest()
    monkeypatch.setattr(indexing, "run_to_end", fake)
    first = demo.indexed_edges(tmp_path, {})
    assert len(fake.calls) == 2 and set(first) == {"business", "technology"}
    index_dirs = sorted((tmp_path / "index").iterdir())
    business = next(d for d in index_dirs if "business" in d.name and d.is_dir())
    (business / COMPLETE_MARKER).unlink()  # as if the first run had died before its ingest finished
    (business / "edge.sqlite3").write_bytes(b"half")
    demo.indexed_edges(tmp_path, {})
    assert len(fake.calls) == 3 and "business" in fake.calls[-1]  # only the unfinished edge is redone
    assert (business / "edge.sqlite3").read_bytes() == b"built"
    assert (first["business"] / "edge.sqlite3").read_bytes() == b"built"  # the edges serve a fresh copy


def test_a_failed_ingest_stops_the_demo_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = load_demo()
    monkeypatch.setattr(indexing, "run_to_end", FakeIngest(returncode=1))
    said = r"(?s)log of indexing business ends:.*could not load the model\nindexing business failed \(exit code 1\)"
    with pytest.raises(DgragError, match=said):
        demo.indexed_edges(tmp_path, {})
    monkeypatch.setattr(sys, "argv", ["demo_network.py", "--workdir", str(tmp_path)])
    assert demo.main() == 1
    err = capsys.readouterr().err
    assert "could not load the model" in err and "run the demo again" in err
