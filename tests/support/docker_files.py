"""Parsers and helpers shared by the static checks of docker/ (test_dockerfiles.py, test_compose_file.py).

No Docker engine runs in those tests, so the files are read here: a small Dockerfile parser, .dockerignore
matching, compose loading with variable interpolation, the container environment and the config it builds
(shared/config/), and the .env.example and tokens files. No tests live in this module.
"""

from __future__ import annotations

import io
import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from docker.utils.build import PatternMatcher
from dockerfile_parse import DockerfileParser

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


# --- Dockerfiles, as dockerfile-parse reads them ------------------------------------------------------------


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
    """Instructions of a Dockerfile as dockerfile-parse reads it (comments dropped, continuations joined), with
    runs of whitespace folded to one space."""
    parser = DockerfileParser(fileobj=io.BytesIO(text.encode()), env_replace=False)
    return [
        Instruction(d["instruction"], " ".join(d["value"].split()), d["startline"] + 1)
        for d in parser.structure
        if d["instruction"] != "COMMENT"
    ]


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


# --- dockerignore matching (moby patternmatcher semantics, enough for these files) ------------------------


def dockerignore_rules(path: Path) -> PatternMatcher:
    """The patterns of a .dockerignore file, matched as Docker matches them (docker-py's matcher)."""
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return PatternMatcher([line for line in lines if line and not line.startswith("#")])


def ignored(rules: PatternMatcher, relpath: str) -> bool:
    """Whether the build context leaves out ``relpath`` (a pattern matching a parent directory matches too)."""
    return bool(rules.matches(relpath))


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
        line = raw.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            *_, edge_id, token = line.split()  # `role id token`, or `id token` (an edge)
            assert edge_id not in tokens, f"{path.name}: {edge_id} listed twice"
            tokens[edge_id] = token
    return tokens
