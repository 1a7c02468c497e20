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


# --- the container sections, as scripts/deploy_docs_drill.sh runs them ------------------------------------------

DRILL = ROOT / "scripts" / "deploy_docs_drill.sh"
DRILLED = (
    "### The host",
    "### The images",
    "### The same deployment on one Docker host: `--compose`",
    "### Trying it on one machine: the compose file",
)
"""The sections of docs/deploy.md a reader follows on one Debian host, in the page's order."""
TRAILING_COMMENT = re.compile(r"\s{2,}#\s.*$")


def _command(line: str) -> str:
    return TRAILING_COMMENT.sub("", line).strip()


def page_sections(text: str) -> dict[str, list[str]]:
    """Each heading's shell lines (outside code: headings; inside ```sh: commands), comment lines left out."""
    sections: dict[str, list[str]] = {}
    heading, fence = "", ""
    for line in text.splitlines():
        if line.startswith("```"):
            fence = "" if fence else line[3:]
        elif not fence and re.match(r"#+ ", line):
            heading = line
            sections[heading] = []
        elif fence in ("sh", "bash") and line.strip() and not line.lstrip().startswith("#"):
            sections[heading].append(_command(line))
    return sections


def _drilled(line: str) -> bool:
    """A line of the page's, not blank, a comment, the drill's own or its section function's frame."""
    words = line.strip()
    own = words.endswith("# drill") or re.fullmatch(r"section_\w+\(\) \{|\}", words) is not None
    return bool(words) and not words.startswith("#") and not own


def drill_sections(text: str) -> dict[str, list[str]]:
    """The lines between `# >>> docs/deploy.md: HEADING` and `# <<<`, less the drill's own (`# drill`) and the
    function's frame."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if m := re.fullmatch(r"# >>> docs/deploy\.md: (.+)", line):
            current = sections.setdefault(m.group(1), [])
        elif line == "# <<<":
            current = None
        elif current is not None and _drilled(line):
            current.append(_command(line))
    return sections


def test_the_drill_runs_each_container_section_s_commands_as_written() -> None:
    page, drill = page_sections(DEPLOY), drill_sections(DRILL.read_text(encoding="utf-8"))
    assert list(drill) == list(DRILLED), "the drill runs these sections, once each, in this order"
    headings = list(page)
    assert [h for h in headings if h in DRILLED] == list(DRILLED), "the page has them, in this order"
    for heading in DRILLED:
        assert page[heading], f"{heading}: no commands on the page"
        assert drill[heading] == page[heading], f"{heading}: the drill's commands differ from the page's"


def test_the_drilled_sections_run_as_root_without_a_registry_and_with_the_host_s_dgrag() -> None:
    commands = [c for h in DRILLED for c in page_sections(DEPLOY)[h]]
    assert not [c for c in commands if c.startswith("sudo ")], "Debian's root has no sudo: the page says when to add it"
    assert not [c for c in commands if re.search(r"\bdocker (pull|push|login)\b", c)], "no Docker Hub"
    first_init = next(i for i, c in enumerate(commands) if c.startswith("dgrag init"))
    assert any("scripts/install.sh" in c and ".venv/bin/activate" in c for c in commands[:first_init])
    builds = [i for i, c in enumerate(commands) if "docker build" in c]
    assert builds and max(builds) < first_init, "the images are built before a deployment needs them"
    wheel = next(i for i, c in enumerate(commands) if "-d docker/wheels" in c)
    assert wheel < min(builds), "the torch wheel is in docker/wheels/ before the builds"
    tokens = next(i for i, c in enumerate(commands) if c.startswith('echo "DGRAG_TOKENS_FILE='))
    ups = [i for i, c in enumerate(commands) if "-f docker/compose.yaml up" in c]
    assert ups and tokens < min(ups), "docker/compose.yaml gets fresh tokens before it starts"


def test_the_drill_fails_loudly() -> None:
    text = DRILL.read_text(encoding="utf-8")
    assert "set -Eeuo pipefail" in text, "-E: the ERR trap also fires inside the section functions"
    assert re.search(r"trap '.*\$BASH_COMMAND.*' ERR", text), "a failure names the command that failed"
