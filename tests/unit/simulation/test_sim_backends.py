"""The host spec the simulation writes (or hands a Ray actor) is what simulation.edge_host reads, and a spec given
as data reports its mistakes under the host's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.core.errors import ConfigError
from simulation.backends import LocalBackend, open_backend
from simulation.edge_host import parse_host_spec
from simulation.hosts import EdgeLaunch, host_groups, host_spec
from simulation.ray_backend import RayOptions


def _launch(tmp_path: Path, edge_id: str) -> EdgeLaunch:
    (tmp_path / edge_id).mkdir()
    return EdgeLaunch(edge_id, tmp_path / edge_id, {"DGRAG__EDGE_ID": edge_id, "DGRAG__SERVER__PORT": "0"})


def test_the_spec_handed_to_a_host_parses_back_to_its_edges(tmp_path: Path) -> None:
    launches = [_launch(tmp_path, e) for e in ("a", "b")]
    spec = host_spec(launches, None, {"a": tmp_path / "a.port"})
    edges = parse_host_spec(spec, tmp_path, "host h-0", environ={})
    assert [e.config.edge_id for e in edges] == ["a", "b"]
    assert [e.data_dir for e in edges] == [(tmp_path / "a").resolve(), (tmp_path / "b").resolve()]
    assert edges[0].port_file == (tmp_path / "a.port").resolve() and edges[1].port_file is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"edges": []}, "host h-0: 'edges' must be a non-empty list"),
        ([1, 2], "host h-0: 'edges' must be a non-empty list"),
        ({"edges": [{"settings": {}}]}, 'host h-0, edge #0: each edge needs a "data_dir" string'),
        ({"edges": [{"data_dir": "a", "settings": {"X": 1}}]}, 'host h-0, edge #0: "settings" must map'),
    ],
)
def test_a_bad_spec_names_the_host_and_the_entry(tmp_path: Path, spec: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_host_spec(spec, tmp_path, "host h-0", environ={})


def test_two_edges_with_one_id_are_refused(tmp_path: Path) -> None:
    launches = [_launch(tmp_path, "a"), EdgeLaunch("a2", tmp_path / "a2", {"DGRAG__EDGE_ID": "a"})]
    with pytest.raises(ConfigError, match=r"host h-1: edge id\(s\) \['a'\] appear twice"):
        parse_host_spec(host_spec(launches, None, {}), tmp_path, "host h-1", environ={})


def test_groups_are_even_and_in_order() -> None:
    assert host_groups([str(i) for i in range(7)], 3) == [["0", "1", "2"], ["3", "4"], ["5", "6"]]


def test_the_local_backend_keeps_the_cloud_on_loopback() -> None:
    with open_backend("local", RayOptions(), {}) as backend:
        assert isinstance(backend, LocalBackend)
        assert backend.bind_host == "127.0.0.1"
        assert backend.describe() == {"backend": "local"}
