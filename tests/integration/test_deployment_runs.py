"""What `dgrag init` writes runs as written: a real cloud and a real edge process with the embedded models,
over mutual TLS, each started from its own directory with the printed commands; the operator lists the edge."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from simulation.processes import dgrag_command

pytestmark = pytest.mark.integration

TEXT = "The Kestrel Observatory in Armenia is directed by Mara Vance, who took over in 2019.\n"


def _start(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port_file = cwd / "port"
    log = (cwd / "log").open("wb")
    command = [*dgrag_command(), *args, "--port-file", str(port_file)]
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError((cwd / "log").read_text()[-3000:])
        time.sleep(0.2)
    return proc, int(port_file.read_text().strip())


def test_the_deployment_init_writes_runs_over_mutual_tls(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")} | {"HF_HUB_OFFLINE": "1"}
    dgrag = dgrag_command()
    dep = tmp_path / "dep"
    subprocess.run([*dgrag, "init", str(dep), "--edges", "1", "--cloud-host", "127.0.0.1"], check=True, env=env)
    (dep / "edge-1" / "doc.txt").write_text(TEXT)
    cloud, port = _start(["cloud", "serve", "--config", "cloud.toml"], dep / "cloud", env | {"DGRAG__PORT": "0"})
    edge = None
    try:
        ingest = ["edge", "ingest", "--data-dir", "data", "--config", "edge.toml", "doc.txt"]
        subprocess.run([*dgrag, *ingest], cwd=dep / "edge-1", env=env, check=True, capture_output=True)
        edge_env = env | {"DGRAG__CLOUD__ADDRESS": f"127.0.0.1:{port}", "DGRAG__SERVER__PORT": "0"}
        edge, _ = _start(["edge", "serve", "--data-dir", "data", "--config", "edge.toml"], dep / "edge-1", edge_env)
        listed: list[dict[str, object]] = []
        client = ["--tls-ca", "ca.pem", "--tls-cert", "client.pem", "--tls-key", "client.key"]
        ops = ["cloud", "edges", "--address", f"127.0.0.1:{port}", "--user", "ops", "--token-file", "token", *client]
        ops.append("--json")
        deadline = time.monotonic() + 120
        while not any(e["connected"] and e["summaries"] for e in listed) and time.monotonic() < deadline:
            done = subprocess.run([*dgrag, *ops], cwd=dep / "ops", env=env, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            listed = [json.loads(x) for x in done.stdout.splitlines() if x.strip()]
            time.sleep(1)
        assert [e["edge_id"] for e in listed] == ["edge-1"] and listed[0]["connected"], listed
        no_cert = [x for x in ops if x not in ("--tls-cert", "client.pem", "--tls-key", "client.key")]
        refused = subprocess.run([*dgrag, *no_cert], cwd=dep / "ops", env=env, capture_output=True, text=True)
        assert refused.returncode != 0 and "UNAVAILABLE" in refused.stderr, "mutual TLS wants a client certificate"
    finally:
        for proc in (edge, cloud):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)


def test_init_compose_runs_as_its_services_would(tmp_path: Path) -> None:
    """Each service of init's compose file as a process started the way the container starts it (from its mounted
    directory, with the service's environment): the cloud's health check (mutual TLS, the token-less health
    certificate) passes, and the edge reaches the cloud by the service name its certificate carries."""
    import yaml

    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")} | {"HF_HUB_OFFLINE": "1"}
    dgrag = dgrag_command()
    dep = tmp_path / "dep"
    init = [*dgrag, "init", str(dep), "--edges", "1", "--cloud-host", "cloud.example.org", "--compose"]
    subprocess.run(init, check=True, env=env, capture_output=True)
    services = yaml.safe_load((dep / "compose.yaml").read_text())["services"]
    cloud_env = env | services["cloud"]["environment"] | {"DGRAG__PORT": "0", "DGRAG_MODEL_LOCK": "off"}
    cloud, port = _start(["cloud", "serve", "--config", "cloud.toml"], dep / "cloud", cloud_env)
    edge = None
    try:
        health = services["cloud"]["healthcheck"]["test"][1:]
        health[health.index("127.0.0.1:50051")] = f"127.0.0.1:{port}"
        checked = subprocess.run([*dgrag, *health[1:]], cwd=dep / "cloud", env=env, capture_output=True, text=True)
        assert checked.returncode == 0 and "SERVING" in checked.stdout, checked.stderr
        edge_env = env | services["edge-1"]["environment"] | {"DGRAG_MODEL_LOCK": "off", "DGRAG__SERVER__PORT": "0"}
        edge_env |= {"DGRAG__CLOUD__ADDRESS": f"127.0.0.1:{port}", "DGRAG__CLOUD__TLS_SERVER_NAME": "cloud"}
        edge, _ = _start(["edge", "serve", "--data-dir", "data", "--config", "edge.toml"], dep / "edge-1", edge_env)
        client = ["--tls-ca", "ca.pem", "--tls-cert", "client.pem", "--tls-key", "client.key"]
        ops = ["cloud", "edges", "--address", f"127.0.0.1:{port}", "--user", "ops", "--token-file", "token", *client]
        listed: list[dict[str, object]] = []
        deadline = time.monotonic() + 120
        while not any(e["connected"] for e in listed) and time.monotonic() < deadline:
            done = subprocess.run([*dgrag, *ops, "--json"], cwd=dep / "ops", env=env, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            listed = [json.loads(x) for x in done.stdout.splitlines() if x.strip()]
            time.sleep(1)
        assert [e["edge_id"] for e in listed] == ["edge-1"] and listed[0]["connected"], listed
    finally:
        for proc in (edge, cloud):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
