"""Fixtures shared by the integration tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.six_edges import sim_run, six_edge_bundle


@dataclass(frozen=True)
class SixEdgeRun:
    """The six-edge bundle, its index cache and a local run of it in two hosts of three edges."""

    bench: Path
    cache: Path
    out: Path
    rows: list[dict[str, object]]


@pytest.fixture(scope="session")
def six_edge_run(tmp_path_factory: pytest.TempPathFactory) -> SixEdgeRun:
    root = tmp_path_factory.mktemp("six-edges")
    bench = six_edge_bundle(root)
    rows = sim_run(bench, root / "hosted", root / "cache", 3)
    return SixEdgeRun(bench, root / "cache", root / "hosted", rows)
