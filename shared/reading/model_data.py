"""What was measured for each model, in one data file per model: ``profiles/<model>.json``.

A file holds one section, ``confidence``: the calibration (shared.reading.confidence) that
``benchmarks.fit_confidence --write`` fitted, how an answer's evidence becomes its probability of being right. A
model without a file, or without the section, gets the unfitted prior.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shared.core.errors import ConfigError

PROFILES = Path(__file__).resolve().parent / "profiles"


def model_file(model: str) -> Path | None:
    """The data file of ``model`` (a packaged model's name), or None for a name that cannot be one."""
    if not model or "/" in model or model.startswith("."):
        return None
    return PROFILES / f"{model}.json"


def read_section(model: str, section: str) -> Mapping[str, Any] | None:
    """``section`` of ``model``'s data file; None when the model has no file or the file no such section."""
    path = model_file(model)
    if path is None or not path.is_file():
        return None
    body = _read(path).get(section)
    if body is not None and not isinstance(body, Mapping):
        raise ConfigError(f"{path}: its {section!r} section is not a table; restore the file from the package")
    return body


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} is not a model data file ({exc}); restore it from the package") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a model data file (not a JSON object); restore it from the package")
    return data
