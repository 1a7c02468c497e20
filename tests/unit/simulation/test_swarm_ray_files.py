import stat
from pathlib import Path

import pytest

from shared.core.errors import DgragError
from simulation.swarm_ray import inline_files, place_files


def _spec(tmp: Path) -> dict[str, object]:
    for name, text in (("ca.pem", "CA"), ("a.crt", "CERT-A"), ("a.key", "KEY-A")):
        (tmp / name).write_text(text, encoding="ascii")
    return {
        "cloud": "10.0.0.1:7000",
        "status": str(tmp / "worker-0.json"),
        "tls": {"ca": str(tmp / "ca.pem")},
        "edges": [
            {"id": "swarm-00000", "token": "t", "texts": ["x"], "cert": str(tmp / "a.crt"), "key": str(tmp / "a.key")},
            {"id": "swarm-00001", "token": "u", "texts": ["y"]},
        ],
    }


def test_a_spec_travels_with_its_certificates_and_lands_as_owner_only_files(tmp_path: Path) -> None:
    shipped, files = inline_files(_spec(tmp_path))
    assert str(tmp_path) not in repr(shipped), "no path of the driver's machine travels"
    assert files == {"ca.pem": "CA", "swarm-00000.crt": "CERT-A", "swarm-00000.key": "KEY-A"}
    node = tmp_path / "node"
    node.mkdir()
    placed = place_files(shipped, files, node)
    first, second = placed["edges"]
    assert Path(first["cert"]).read_text() == "CERT-A" and Path(first["key"]).read_text() == "KEY-A"
    assert Path(placed["tls"]["ca"]).read_text() == "CA"
    assert (second["cert"], second["key"]) == ("", "")
    assert stat.S_IMODE(Path(first["key"]).stat().st_mode) == 0o600


def test_a_file_name_that_leaves_the_directory_is_refused(tmp_path: Path) -> None:
    shipped, _ = inline_files(_spec(tmp_path))
    with pytest.raises(DgragError, match="plain file names"):
        place_files(shipped, {"../evil.pem": "x"}, tmp_path)
