"""The container commands docs/deploy.md gives run as written on the Debian host the project documents: each image
build enables BuildKit (Debian 12's docker.io predates it as default) and names a Dockerfile that takes the base
as a build argument; compose is always Compose v2's `docker compose`, and never asked to build (offline); the
scripts make the directory of a --report file."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
SHELL_BLOCKS = re.findall(r"```(?:sh|bash)\n(.*?)```", DEPLOY, flags=re.S)
LINES = [line.strip() for block in SHELL_BLOCKS for line in block.splitlines() if line.strip() and line[0] != "#"]


def test_every_image_build_enables_buildkit_and_names_a_dockerfile_with_the_base_argument() -> None:
    builds = [line for line in LINES if re.search(r"\bdocker build\b", line)]
    assert builds, "deploy.md shows how to build the images"
    for line in builds:
        assert line.startswith("DOCKER_BUILDKIT=1 "), line
        dockerfile = re.search(r"-f (\S+)", line)
        assert dockerfile is not None, line
        assert "ARG PYTHON_IMAGE" in (ROOT / dockerfile.group(1)).read_text(encoding="utf-8")


def test_compose_is_version_2_and_never_builds() -> None:
    assert not [line for line in LINES if line.startswith("docker-compose")], "Compose v1 cannot run these files"
    assert not [line for line in LINES if re.search(r"docker compose .*\bbuild\b", line)]


def test_the_scripts_make_the_directory_of_their_report() -> None:
    for script in ("compose_smoke.sh", "fault_drill.sh"):
        text = (ROOT / "scripts" / script).read_text(encoding="utf-8")
        assert 'mkdir -p "$(dirname "$report")"' in text, script
