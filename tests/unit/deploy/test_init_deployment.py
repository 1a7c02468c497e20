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


def test_each_edge_on_a_host_gets_its_own_api_port_and_its_ask_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path / "dep"), "--edges", "2", "--cloud-host", "localhost"]) == 0
    printed = capsys.readouterr().out
    ports = [
        load_config(EdgeConfig, tmp_path / "dep" / e / "edge.toml", environ={}).server.port
        for e in ("edge-1", "edge-2")
    ]
    assert ports == [50061, 50062]
    for port in ports:
        assert f'dgrag edge ask --server 127.0.0.1:{port} --token-file data/api.token "a question"' in printed


@pytest.mark.parametrize("host", ["a,b", "cloud example", "cloud:50051", "-cloud", "", "a..b"])
def test_init_refuses_a_cloud_host_that_is_not_one_name(tmp_path: Path, host: str) -> None:
    with pytest.raises(ConfigError, match="not one host name or IP address"):
        init_deployment(tmp_path / "dep", ["edge-1"], host)
    assert not (tmp_path / "dep").exists(), "nothing is written for a refused host"


@pytest.mark.parametrize("host", ["cloud.example.org", "localhost", "10.0.0.7", "::1"])
def test_init_takes_a_name_or_an_address(tmp_path: Path, host: str) -> None:
    made = init_deployment(tmp_path / "dep", ["edge-1"], host)
    assert made.address.endswith(":50051") and host in made.address


def test_init_compose_mounts_each_machine_s_directory_read_only_with_mutual_tls(tmp_path: Path) -> None:
    import yaml
    from cryptography import x509

    dep = init_deployment(tmp_path / "dep", ["a", "b"], "cloud.example.org", compose=True)
    assert dep.compose == tmp_path / "dep" / "compose.yaml"
    text = dep.compose.read_text()
    assert "insecure" not in text.lower() and "plaintext" not in text.lower()
    services = yaml.safe_load(text)["services"]
    assert set(services) == {"cloud", "a", "b"}
    assert (
        services["a"]["volumes"][0] == "./a:/etc/dgrag:ro"
        and services["cloud"]["volumes"][0] == "./cloud:/etc/dgrag:ro"
    )
    assert (
        services["a"]["networks"] == ["a-net"]
        and services["a"]["environment"]["DGRAG__CLOUD__ADDRESS"] == "cloud:50051"
    )
    assert {s["user"] for s in services.values()} == {f"{os.getuid()}:{os.getgid()}"}, "the secrets' owner runs them"
    assert services["b"]["environment"]["DGRAG__SERVER__PORT"] == "50062", "edge.toml's port over the image's 50061"
    assert services["b"]["healthcheck"]["test"][-1] == "127.0.0.1:50062"
    for mounted in ("a/data", "b/documents", "cloud/state", "locks"):
        assert (dep.root / mounted).is_dir(), mounted
    cert = x509.load_pem_x509_certificate((dep.cloud / "cloud.pem").read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(x509.DNSName)
    assert "cloud" in names, "the edges dial the service name"
    assert (dep.cloud / "health.key").exists() and "health" not in (dep.cloud / "tokens").read_text()


def test_an_edge_may_not_take_a_name_the_compose_directory_uses(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="locks"):
        init_deployment(tmp_path / "dep", ["locks"], "cloud.example.org", compose=True)


@pytest.mark.parametrize(
    ("directory", "project"),
    [("deploy", "dgrag-deploy"), ("My Clinic.v2", "dgrag-my-clinic-v2"), ("__", "dgrag-deployment")],
)
def test_each_compose_deployment_has_a_project_name_of_its_own(tmp_path: Path, directory: str, project: str) -> None:
    """Two deployments on one host, or one beside docker/compose.yaml (dgrag-demo), never share containers."""
    import yaml

    from tests.support.docker_files import compose

    dep = init_deployment(tmp_path / directory, ["a"], "cloud.example.org", compose=True)
    assert dep.compose is not None
    assert yaml.safe_load(dep.compose.read_text())["name"] == project
    assert compose()["name"] == "dgrag-demo" != project


def test_init_compose_keeps_the_cloud_s_state_in_its_bind_mounted_directory(tmp_path: Path) -> None:
    """The summary index and the trust memory outlive a restart: both lie under the mounted ``cloud/state``."""
    import yaml

    dep = init_deployment(tmp_path / "dep", ["a"], "cloud.example.org", compose=True)
    assert dep.compose is not None
    cloud = yaml.safe_load(dep.compose.read_text())["services"]["cloud"]
    config = load_config(CloudConfig, dep.cloud / "cloud.toml", {})
    mounts = dict(reversed(v.split(":")[:2]) for v in cloud["volumes"])
    for path in (config.summary_store, config.query.trust_file):
        assert path.startswith("state/"), path
        assert mounts[f"{cloud['working_dir']}/state"] == "./cloud/state"
