"""`dgrag init DIR --edges N`: one directory per machine, configs that load, secrets for their owner only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dgrag.cli import main
from dgrag.deployment import init_deployment
from shared.config import CloudConfig, EdgeConfig, load_config
from shared.core.errors import ConfigError


def test_each_machine_gets_its_config_credentials_and_the_command_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path / "dep"), "--edges", "3", "--cloud-host", "cloud.example.org"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("dgrag edge serve --data-dir data --config edge.toml") == 3
    assert "dgrag cloud serve --config cloud.toml" in printed and "keep it offline" in printed
    dep = tmp_path / "dep"
    cloud = load_config(CloudConfig, dep / "cloud" / "cloud.toml", environ={})
    assert (cloud.tokens_file, cloud.tls_client_ca, cloud.host) == ("tokens", "ca.pem", "0.0.0.0")
    lines = (dep / "cloud" / "tokens").read_text().splitlines()
    assert [x.split()[:2] for x in lines] == [
        ["edge", "edge-1"],
        ["edge", "edge-2"],
        ["edge", "edge-3"],
        ["admin", "ops"],
    ]
    edge = load_config(EdgeConfig, dep / "edge-2" / "edge.toml", environ={})
    assert edge.edge_id == "edge-2" and edge.cloud.address == "cloud.example.org:50051"
    assert (dep / "edge-2" / "cloud.token").read_text() == lines[1].split()[2], "the edge holds its own token"
    secrets = ["cloud/tokens", "cloud/cloud.key", "edge-1/client.key", "ops/token", "tls/ca.key"]
    for secret in (dep / s for s in secrets):
        assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600, secret
    assert stat.S_IMODE(os.stat(dep).st_mode) == 0o700


def test_init_overwrites_nothing_and_names_bad_ids(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(ConfigError, match="exists"):
        init_deployment(tmp_path / "taken", ["edge-1"], "cloud")
    with pytest.raises(ConfigError, match="may hold only"):
        init_deployment(tmp_path / "new", ["ops"], "cloud")
    assert not (tmp_path / "new").exists()
