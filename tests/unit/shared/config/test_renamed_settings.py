"""A setting given a new name is refused with the new name, not as merely unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.config import CloudConfig, EdgeConfig
from shared.config.loading import load_config
from shared.core.errors import ConfigError


def test_an_old_gate_setting_names_its_new_name(tmp_path: Path) -> None:
    path = tmp_path / "edge.toml"
    path.write_text("[gate]\nescalate_below = 0.2\n")
    with pytest.raises(ConfigError, match=r"gate\.escalate_below is now config\.gate\.min_local_confidence"):
        load_config(EdgeConfig, path)


def test_a_removed_cloud_setting_says_why(tmp_path: Path) -> None:
    path = tmp_path / "cloud.toml"
    path.write_text('summary_embedding = "inline"\n')
    with pytest.raises(ConfigError, match=r"removed setting\(s\): config.summary_embedding: the cloud always embeds"):
        load_config(CloudConfig, path)


def test_the_retired_extraction_mode_says_what_happens_instead(tmp_path: Path) -> None:
    path = tmp_path / "edge.toml"
    path.write_text('[extraction]\nmode = "extract"\n')
    with pytest.raises(ConfigError, match=r"config\.extraction\.mode: the SLM always types"):
        load_config(EdgeConfig, path)
    with pytest.raises(ConfigError, match=r"config\.extraction\.max_relations: the SLM names no relations"):
        load_config(EdgeConfig, None, {"DGRAG__EXTRACTION__MAX_RELATIONS": "6"})
