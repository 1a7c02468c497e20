"""Static checks of docker/compose.yaml, docker/.env.example and docker/tokens.example.

What the compose file sets must build a valid config (shared/config/), the ports the health checks probe must
be the ports the servers listen on, every variable must be documented, and each edge must reach only the cloud,
with its own token and volume.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dgrag.cli import build_parser
from shared.config import CloudConfig, EdgeConfig
from shared.config.models import CLOUD_MODEL
from tests.support.docker_files import (
    COMPOSE_FILE,
    DATA_DIR,
    EDGE_SERVICES,
    REPO,
    TOKENS_EXAMPLE,
    VAR_RE,
    compose,
    compose_text,
    effective_config,
    effective_env,
    env_example,
    interpolate,
    is_bind,
    listen_port,
    networks_of,
    role_of,
    services,
    tokens_file,
    volume_mounts,
)

# --- compose file ---------------------------------------------------------------------------------------------


def test_compose_parses_with_the_expected_services() -> None:
    svcs = compose()["services"]
    assert set(EDGE_SERVICES) | {"cloud", "llm"} == set(svcs)
    assert svcs["llm"].get("profiles") == ["llm"], "the model server is optional, behind the llm profile"
    assert all(not svcs[s].get("profiles") for s in (*EDGE_SERVICES, "cloud"))


def test_compose_builds_point_at_existing_files() -> None:
    for name, svc in services().items():
        build = svc.get("build")
        if build is None:
            assert svc.get("image"), f"{name}: neither build nor image"
            continue
        context = (COMPOSE_FILE.parent / build["context"]).resolve()
        assert context == REPO, f"{name}: the build context must be the repository root"
        dockerfile = context / build["dockerfile"]
        assert dockerfile.is_file(), f"{name}: {dockerfile} does not exist"
        assert Path(f"{dockerfile}.dockerignore").is_file(), f"{name}: no {dockerfile.name}.dockerignore"
        assert role_of(svc) == ("cloud" if name == "cloud" else "edge"), f"{name} builds the wrong image"


def test_compose_references_are_declared() -> None:
    data = compose()
    declared_volumes = set(data.get("volumes") or {})
    declared_networks = set(data.get("networks") or {})
    used_volumes: set[str] = set()
    used_networks: set[str] = set()
    for name, svc in services().items():
        for source, target in volume_mounts(svc):
            assert target.startswith("/"), f"{name}: mount target {target!r}"
            if is_bind(source):
                if not svc.get("profiles"):
                    assert (COMPOSE_FILE.parent / source).exists(), f"{name}: bind source {source} does not exist"
            else:
                assert source in declared_volumes, f"{name}: volume {source} is not declared"
                used_volumes.add(source)
        for net in networks_of(svc):
            assert net in declared_networks, f"{name}: network {net} is not declared"
            used_networks.add(net)
        for dep, spec in (svc.get("depends_on") or {}).items():
            assert dep in data["services"], f"{name}: depends on unknown service {dep}"
            assert spec["condition"] == "service_healthy", f"{name}: wait for {dep} to be healthy"
            assert data["services"][dep].get("healthcheck"), f"{name}: {dep} has no healthcheck to wait for"
            if data["services"][dep].get("profiles") and not svc.get("profiles"):
                assert spec.get("required") is False, f"{name}: {dep} is optional (a profile): required: false"
    assert used_volumes == declared_volumes, f"unused volumes {declared_volumes - used_volumes}"
    assert used_networks == declared_networks, f"unused networks {declared_networks - used_networks}"


def test_compose_variables_are_documented() -> None:
    """Every ${VAR} is in .env.example with the compose file's default, and .env.example lists nothing else."""
    text = compose_text()
    documented = env_example()
    used: dict[str, set[str]] = {}
    for m in VAR_RE.finditer(text):
        defaults = used.setdefault(m.group("name"), set())
        if m.group("op") in (":-", "-"):
            defaults.add(m.group("arg"))
    for name, defaults in used.items():
        assert name in documented, f"${{{name}}} is not documented in docker/.env.example"
        assert len(defaults) <= 1, f"${{{name}}} has different defaults: {defaults}"
        for default in defaults:
            assert documented[name] == default, (
                f".env.example sets {name}={documented[name]!r}, compose defaults to {default!r}"
            )
    assert set(documented) <= set(used), f".env.example documents unused {sorted(set(documented) - set(used))}"
    bare = re.findall(r"(?<!\$)\$(?!\{|\$)\w+", text)
    assert not bare, f"use ${{VAR:-default}}, not {bare}"


def test_compose_env_builds_valid_configs() -> None:
    """Every DGRAG__ variable a container gets names a real setting with a valid value."""
    for name, svc in services().items():
        if role_of(svc) is None:
            continue
        config = effective_config(svc)
        if name == "cloud":
            assert isinstance(config, CloudConfig)
        else:
            assert isinstance(config, EdgeConfig) and config.edge_id == name, f"{name}: edge_id {config.edge_id}"


def test_compose_healthchecks_probe_the_listening_ports() -> None:
    for name, svc in services().items():
        test = svc.get("healthcheck", {}).get("test")
        assert isinstance(test, list) and test[0] == "CMD", f"{name}: healthcheck test in exec form"
        if role_of(svc) is None:
            continue
        assert test[1:3] == ["dgrag", "health"], f"{name}: health check through the gRPC health service"
        assert test[3] == f"127.0.0.1:{listen_port(svc)}", f"{name}: probes {test[3]}, listens on {listen_port(svc)}"
        assert svc.get("init") is True, f"{name}: init: true forwards SIGTERM to the server"


def test_cloud_is_published_and_edges_are_not() -> None:
    svcs = services()
    cloud = svcs["cloud"]
    ports = [str(p) for p in cloud.get("ports") or []]
    assert len(ports) == 1 and ports[0].rsplit(":", 1)[1] == str(listen_port(cloud)), f"cloud publishes {ports}"
    for name in EDGE_SERVICES:
        assert not svcs[name].get("ports"), f"{name} must not publish ports"
        assert svcs[name].get("network_mode") is None, f"{name}: no host networking"


def test_each_edge_reaches_only_the_cloud() -> None:
    data = compose()
    svcs = services()
    members: dict[str, set[str]] = {}
    for name, svc in svcs.items():
        for net in networks_of(svc):
            members.setdefault(net, set()).add(name)
    for name in EDGE_SERVICES:
        nets = networks_of(svcs[name])
        assert len(nets) == 1, f"{name} is on {nets}: one network, shared with the cloud only"
        assert members[nets[0]] == {name, "cloud"}, f"{name}'s network also holds {members[nets[0]] - {name}}"
        assert data["networks"][nets[0]].get("internal") is True, f"{nets[0]} must be internal"
    public = [n for n in networks_of(svcs["cloud"]) if not (data["networks"][n] or {}).get("internal")]
    assert public, "the cloud needs a non-internal network for its published port"
    assert not any(set(EDGE_SERVICES) & members[n] for n in public)


def test_edges_dial_the_cloud_with_their_own_token_and_volume() -> None:
    svcs = services()
    cloud_port = listen_port(svcs["cloud"])
    tokens_mounts = [s for s, t in volume_mounts(svcs["cloud"]) if t == effective_config(svcs["cloud"]).tokens_file]
    assert len(tokens_mounts) == 1, "the cloud's tokens_file must be a mounted file"
    tokens = tokens_file(COMPOSE_FILE.parent / tokens_mounts[0])
    assert tokens_mounts[0] == "./tokens.example" and set(tokens) == set(EDGE_SERVICES)
    seen_tokens, seen_volumes = set(), set()
    for name in EDGE_SERVICES:
        svc = svcs[name]
        config = effective_config(svc)
        assert config.cloud.address == f"cloud:{cloud_port}", f"{name} dials {config.cloud.address}"
        token = effective_env(svc).get(config.cloud.token_env, "")
        assert not config.cloud.token_file and token, f"{name}: its token in ${config.cloud.token_env}"
        assert tokens[name] == token, f"{name}'s token is not the one the cloud's tokens file lists for it"
        seen_tokens.add(token)
        data = [s for s, t in volume_mounts(svc) if t == DATA_DIR]
        assert len(data) == 1 and not is_bind(data[0]), f"{name}: a named volume at {DATA_DIR}"
        seen_volumes.add(data[0])
    assert len(seen_tokens) == len(EDGE_SERVICES), "every edge has its own token"
    assert len(seen_volumes) == len(EDGE_SERVICES), "every edge has its own volume"


def test_cloud_llm_points_at_the_llm_service() -> None:
    svcs = services()
    cloud, llm = svcs["cloud"], svcs["llm"]
    with_openai = effective_config(
        {
            **cloud,
            "environment": interpolate(
                compose()["services"]["cloud"]["environment"], {"DGRAG_CLOUD_LLM_BACKEND": "openai"}
            ),
        }
    )
    assert with_openai.llm.backend == "openai"
    assert effective_config(cloud).llm.backend == "llama_cpp", "without the profile the cloud runs the bundled model"
    m = re.fullmatch(r"http://([\w-]+):(\d+)/v1", with_openai.llm.base_url)
    assert m and m.group(1) == "llm", f"base_url {with_openai.llm.base_url} is not the llm service"
    command = [str(w) for w in interpolate(llm["command"])]
    assert command[:3] == ["dgrag", "models", "serve"], "llama.cpp's server in the cloud image (dgrag models serve)"
    served = build_parser().parse_args(command[1:])
    assert served.replicas == 1, "one server: no Ray in the container"
    assert served.name == CLOUD_MODEL, "the model the cloud reads with in process, served"
    assert served.insecure and served.host == "0.0.0.0"
    raw = compose()["services"]["llm"]["command"]
    four = build_parser().parse_args([str(w) for w in interpolate(raw, {"DGRAG_LLM_SLOTS": "4"})][1:])
    assert four.slots == 4, "DGRAG_LLM_SLOTS sets the server's parallel slots"
    assert effective_config(cloud).llm.machine_lock, "the llm service shares the host's cores with the edges"
    assert str(served.port) == m.group(2) and served.alias == with_openai.llm.model
    parallel = effective_config(cloud).query.parallel_readings
    assert parallel == 1, "on a CPU the cloud has one question read at a time (docs/results/cloud-load)"
    assert set(networks_of(cloud)) & set(networks_of(llm)), "the cloud and the llm service share a network"
    assert [t for _, t in volume_mounts(llm)] == ["/models"]
    assert llm["image"] == cloud["image"] and "build" not in llm, "no second image: nothing is pulled"


def test_the_cloud_and_the_edges_refuse_the_public_example_tokens(tmp_path: Path) -> None:
    from cloud_server.sessions.tokens import TokenBook
    from edge_node.transport.server import edge_token
    from shared.config import CloudLinkConfig
    from shared.core.errors import ConfigError
    from shared.transport.secret_file import write_secret

    with pytest.raises(ConfigError, match="public example token"):
        TokenBook.parse(TOKENS_EXAMPLE.read_text(), TOKENS_EXAMPLE)
    token_file = tmp_path / "token"
    write_secret(token_file, next(iter(tokens_file(TOKENS_EXAMPLE).values())))
    with pytest.raises(ConfigError, match="public example token"):
        edge_token(CloudLinkConfig(address="cloud:50051", token_file=str(token_file)))


def test_model_containers_share_one_model_lock() -> None:
    svcs = compose()["services"]
    paths = set()
    for name in ("cloud", *EDGE_SERVICES):
        env = effective_env(svcs[name])
        path = env.get("DGRAG_MODEL_LOCK", "")
        assert path, f"{name} sets no DGRAG_MODEL_LOCK"
        mounts = [str(v) for v in svcs[name].get("volumes", [])]
        assert any(m.startswith("model-lock:") and path.startswith(m.split(":")[1] + "/") for m in mounts), name
        paths.add(path)
    assert len(paths) == 1 and "model-lock" in compose()["volumes"]


def test_the_cloud_keeps_its_summaries_and_trust_in_a_volume() -> None:
    """A restarted cloud holds what it held: its summary index and trust memory lie in a named volume that is its
    own, so `restart cloud` re-sends and re-embeds nothing."""
    svcs = services()
    config = effective_config(svcs["cloud"])
    mounts = {target: source for source, target in volume_mounts(svcs["cloud"])}
    for path in (config.summary_store, config.query.trust_file):
        assert path, "set, so not kept in memory only"
        (target,) = [t for t in mounts if path.startswith(t.rstrip("/") + "/")]
        assert not is_bind(mounts[target]) and mounts[target] in compose()["volumes"], path
        assert all(mounts[target] not in dict(volume_mounts(svcs[e])) for e in EDGE_SERVICES), "the cloud's own"


def test_the_demo_has_a_project_name_of_its_own() -> None:
    """`dgrag init --compose` names its projects dgrag-DIR: the demo's name must differ from plain `dgrag`."""
    assert compose()["name"] == "dgrag-demo"
