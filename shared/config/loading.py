"""Loading a config: defaults, then a TOML file, then DGRAG__ environment variables; every value type-checked."""

from __future__ import annotations

import dataclasses
import os
import tomllib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from shared.core.errors import ConfigError

T = TypeVar("T")
ENV_PREFIX = "DGRAG__"


def load_config(cls: type[T], path: Path | None, environ: Mapping[str, str] | None = None) -> T:
    """Build ``cls`` from defaults, then the TOML file at ``path`` (if any), then ``DGRAG__`` variables."""
    raw: dict[str, Any] = {}
    if path is not None:
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(f"config file {path} does not exist; pass an existing TOML file") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    env = os.environ if environ is None else environ
    for key, value in env.items():
        if key.startswith(ENV_PREFIX) and len(key) > len(ENV_PREFIX):
            _set_path(raw, key[len(ENV_PREFIX) :].lower().split("__"), value)
    return _build(cls, raw, where="config")


RENAMED = {"confidence_detection": "refusal_detection", "escalate_below": "min_local_confidence"}
"""Settings given new names: an old name in a config gets the new one in its error."""
REMOVED = {
    "summary_embedding": "the cloud always embeds summaries in a thread of its own after a sync is held",
    "routing_strategy": "hand a routing strategy object to cloud_server.api.build_cloud(..., strategy=...)",
    "askers_see_routing": "a lab setting: the simulation hands it to cloud_server.api.build_cloud in Python",
    "memory_weight": "the routing memory is gone: replayed over lihua4 and multihop4 it raised no route recall",
    "memory_file": "the routing memory is gone (delete its .npz file)",
    "memory_capacity": "the routing memory is gone",
    "memory_half_life": "the routing memory is gone",
    "unreliable": "no shape withholds its verdicts; a yes/no verdict below withhold_below (answer. or query.) does",
    "extraction.mode": "the SLM always types (or rejects) model-free candidate names; naming entities itself is gone",
    "extraction.max_relations": "the SLM names no relations: entities sharing a sentence are related by it",
}
"""Settings that went away, and why: by name, or by section.name where the name alone is too common."""


def _set_path(tree: dict[str, Any], parts: list[str], value: str) -> None:
    node = tree
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"environment override for {'.'.join(parts)} conflicts with a value in the file")
    node[parts[-1]] = value


def _build(cls: type[T], raw: Mapping[str, Any], where: str) -> T:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be a table")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(raw) - set(fields))
    renamed = [f"{where}.{u} is now {where}.{RENAMED[u]}" for u in unknown if RENAMED.get(u) in fields]
    if renamed:
        raise ConfigError(f"renamed setting(s): {'; '.join(renamed)}; rename them in your config")
    why = {u: REMOVED.get(f"{where}.{u}".removeprefix("config."), REMOVED.get(u)) for u in unknown}
    removed = [f"{where}.{u}: {why[u]}" for u in unknown if why[u]]
    if removed:
        raise ConfigError(f"removed setting(s): {'; '.join(removed)}; delete them from your config")
    if unknown:
        raise ConfigError(f"unknown setting(s) {', '.join(where + '.' + u for u in unknown)}; known: {sorted(fields)}")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        values[name] = _coerce(hints[name], value, f"{where}.{name}")
    return cls(**values)


def _coerce(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, where)  # type: ignore[arg-type]
    if isinstance(value, dict | list):
        raise ConfigError(f"{where} takes a single value, not {type(value).__name__} {value!r}")
    if origin is Literal:
        allowed = typing.get_args(hint)
        if value not in allowed:
            raise ConfigError(f"{where} = {value!r} is not one of {list(allowed)}")
        return value
    if origin in (typing.Union, types.UnionType):
        return value
    if hint is bool:
        if isinstance(value, str):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ConfigError(f"{where} = {value!r} is not a boolean (use true or false)")
        return bool(value)
    if hint in (int, float):
        if isinstance(value, bool) or (hint is int and isinstance(value, float) and not value.is_integer()):
            raise ConfigError(f"{where} = {value!r} is not a {hint.__name__}")
        try:
            return hint(value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{where} = {value!r} is not a {hint.__name__}") from exc
    if hint is str:
        return str(value)
    return value
