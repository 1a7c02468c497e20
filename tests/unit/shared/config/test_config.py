"""Unit tests for shared/config/: defaults, TOML values, DGRAG__ environment overrides, validation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from shared.config import ChunkingConfig, EdgeConfig, ModelConfig, load_config
from shared.core.constants import DEFAULT_EDGE_ID, MAX_DOCUMENT_BYTES
from shared.core.errors import ConfigError


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "edge.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults() -> None:
    cfg = load_config(EdgeConfig, None, {})
    assert cfg == EdgeConfig()
    assert cfg.edge_id == DEFAULT_EDGE_ID
    assert cfg.slm == ModelConfig()
    assert cfg.slm.backend == "llama_cpp"
    assert cfg.slm.json_mode == "json_schema"
    assert cfg.chunking == ChunkingConfig(chunk_tokens=240, overlap_tokens=32)
    assert cfg.ingest.max_file_bytes == MAX_DOCUMENT_BYTES


def test_config_is_frozen() -> None:
    cfg = load_config(EdgeConfig, None, {})
    with pytest.raises(AttributeError):
        cfg.edge_id = "x"  # type: ignore[misc]


def test_toml_values(tmp_path: Path) -> None:
    path = _toml(
        tmp_path,
        """
edge_id = "clinic-3"
[slm]
backend = "openai"
base_url = "http://10.0.0.1:9000/v1"
timeout_s = 5
[chunking]
chunk_tokens = 128
""",
    )
    cfg = load_config(EdgeConfig, path, {})
    assert cfg.edge_id == "clinic-3"
    assert cfg.slm.backend == "openai"
    assert cfg.slm.base_url == "http://10.0.0.1:9000/v1"
    assert cfg.slm.timeout_s == 5.0 and isinstance(cfg.slm.timeout_s, float)
    assert cfg.chunking == ChunkingConfig(chunk_tokens=128, overlap_tokens=32)  # untouched keys keep defaults
    assert cfg.slm.model == "default"
    assert cfg.summary == EdgeConfig().summary


def test_env_overrides_file(tmp_path: Path) -> None:
    path = _toml(tmp_path, 'edge_id = "from-file"\n[slm]\nbackend = "transformers"\nn_ctx = 2048\n')
    env = {
        "DGRAG__SLM__BACKEND": "openai",
        "DGRAG__EDGE_ID": "from-env",
        "UNRELATED": "ignored",
        "DGRAG_LLM_API_KEY": "not a setting (single underscore)",
    }
    cfg = load_config(EdgeConfig, path, env)
    assert cfg.slm.backend == "openai"
    assert cfg.edge_id == "from-env"
    assert cfg.slm.n_ctx == 2048


def test_env_without_file() -> None:
    cfg = load_config(EdgeConfig, None, {"DGRAG__SLM__BACKEND": "openai", "DGRAG__SLM__MODEL": "qwen"})
    assert cfg.slm.backend == "openai"
    assert cfg.slm.model == "qwen"


def test_explicit_environ_ignores_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DGRAG__EDGE_ID", "from-process")
    assert load_config(EdgeConfig, None, {}).edge_id == DEFAULT_EDGE_ID
    assert load_config(EdgeConfig, None).edge_id == "from-process"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("true", True),
        ("1", True),
        ("YES", True),
        ("on", True),
        ("false", False),
        ("0", False),
        ("No", False),
        ("off", False),
    ],
)
def test_bool_from_env(value: str, expected: bool) -> None:
    cfg = load_config(_Switches, None, {"DGRAG__ENABLED": value})
    assert cfg.enabled is expected


def test_bad_bool_from_env() -> None:
    with pytest.raises(ConfigError, match=r"config\.enabled"):
        load_config(_Switches, None, {"DGRAG__ENABLED": "maybe"})


@dataclass(frozen=True)
class _Switches:
    """A config with a boolean knob (EdgeConfig has none yet)."""

    enabled: bool = False


def test_int_and_float_from_env() -> None:
    env = {
        "DGRAG__CHUNKING__CHUNK_TOKENS": "100",
        "DGRAG__PARTITION__RESOLUTION": "0.5",
        "DGRAG__INGEST__MAX_FILE_BYTES": "4096",
    }
    cfg = load_config(EdgeConfig, None, env)
    assert cfg.chunking.chunk_tokens == 100 and isinstance(cfg.chunking.chunk_tokens, int)
    assert cfg.partition.resolution == 0.5
    assert cfg.ingest.max_file_bytes == 4096


def test_bad_int_from_env() -> None:
    with pytest.raises(ConfigError, match=r"chunking\.chunk_tokens = 'abc'"):
        load_config(EdgeConfig, None, {"DGRAG__CHUNKING__CHUNK_TOKENS": "abc"})


def test_unknown_top_level_key(tmp_path: Path) -> None:
    path = _toml(tmp_path, "colour = 'blue'\n")
    with pytest.raises(ConfigError, match=r"config\.colour"):
        load_config(EdgeConfig, path, {})


def test_unknown_nested_key_from_file(tmp_path: Path) -> None:
    path = _toml(tmp_path, "[slm]\nbackend = 'openai'\ntemprature = 0.2\n")
    with pytest.raises(ConfigError, match=r"config\.slm\.temprature"):
        load_config(EdgeConfig, path, {})


def test_unknown_key_from_env() -> None:
    with pytest.raises(ConfigError, match=r"config\.slm\.nope"):
        load_config(EdgeConfig, None, {"DGRAG__SLM__NOPE": "x"})


def test_unknown_section_from_env() -> None:
    with pytest.raises(ConfigError, match=r"config\.bogus"):
        load_config(EdgeConfig, None, {"DGRAG__BOGUS__X": "1"})


def test_bad_literal_from_file(tmp_path: Path) -> None:
    path = _toml(tmp_path, "[slm]\nbackend = 'gpt4all'\n")
    with pytest.raises(ConfigError, match=r"config\.slm\.backend = 'gpt4all' is not one of"):
        load_config(EdgeConfig, path, {})


def test_bad_literal_from_env() -> None:
    with pytest.raises(ConfigError, match=r"slm\.json_mode"):
        load_config(EdgeConfig, None, {"DGRAG__SLM__JSON_MODE": "xml"})


def test_section_given_a_scalar(tmp_path: Path) -> None:
    path = _toml(tmp_path, "slm = 'openai'\n")
    with pytest.raises(ConfigError, match=r"config\.slm must be a table"):
        load_config(EdgeConfig, path, {})


def test_env_conflicting_with_file_scalar(tmp_path: Path) -> None:
    path = _toml(tmp_path, "slm = 'openai'\n")
    with pytest.raises(ConfigError, match="conflicts"):
        load_config(EdgeConfig, path, {"DGRAG__SLM__BACKEND": "openai"})


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(EdgeConfig, path, {})


def test_invalid_toml(tmp_path: Path) -> None:
    path = _toml(tmp_path, "edge_id = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(EdgeConfig, path, {})


def test_fractional_int_rejected(tmp_path: Path) -> None:
    path = _toml(tmp_path, "[chunking]\nchunk_tokens = 1.9\n")
    with pytest.raises(ConfigError):
        load_config(EdgeConfig, path, {})


def test_table_for_string_field_rejected() -> None:
    with pytest.raises(ConfigError):
        load_config(EdgeConfig, None, {"DGRAG__EDGE_ID__X": "1"})


def test_a_first_reading_setting_out_of_range_is_refused_with_both_values() -> None:
    from shared.config import CloudQueryConfig

    with pytest.raises(ConfigError, match=r"first_passages.*first_sure.*-1, 0\.6 and 0\.8"):
        CloudQueryConfig(first_passages=-1)
    with pytest.raises(ConfigError, match=r"1\.5"):
        CloudQueryConfig(first_sure=1.5)
    with pytest.raises(ConfigError, match=r"-0\.1\)"):
        CloudQueryConfig(first_verdict_sure=-0.1)
