"""The product's wheel ships the product alone; the lab's wheel (lab/pyproject.toml) ships the simulation and the
benchmarks. Both wheels are built from a copy of this checkout (a build leaves build/ directories behind), without
network or dependencies."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PRODUCT = {"dgrag", "shared", "edge_node", "cloud_server"}
LAB = {"simulation", "benchmarks"}


def _top_levels(project: str, tmp: Path) -> set[str]:
    source, out = tmp / "source", tmp / "wheels"
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "bundles")
    source.mkdir()
    for name in ["pyproject.toml", "README.md", "lab", *PRODUCT, *LAB]:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=junk)
        else:
            shutil.copy2(REPO / name, source / name)
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run(
        [*pip_wheel, "-w", str(out), source / project],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        return {n.split("/")[0] for n in z.namelist() if not n.split("/")[0].endswith((".dist-info", ".data"))}


@pytest.mark.parametrize(("project", "expected"), [(".", PRODUCT), ("lab", LAB)], ids=["product", "lab"])
def test_each_wheel_ships_its_own_packages(tmp_path: Path, project: str, expected: set[str]) -> None:
    assert _top_levels(project, tmp_path) == expected
