"""Where the images' torch comes from: the pin of scripts/install.sh, as a CPU build, from docker/wheels/ when a
wheel lies there (torch's index is then never asked, so the builds work offline) and from torch's CPU index
otherwise. The torch step's shell runs here with a stand-in ``pip``."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.support.docker_files import (
    DOCKERFILES,
    REPO,
    Dockerfile,
    dockerignore_rules,
    expand,
    ignored,
)


def test_torch_pin_and_cpu_index_match_the_local_install(image: tuple[str, Dockerfile]) -> None:
    role, df = image
    local = re.search(r"torch==([0-9][0-9.]*)", (REPO / "scripts" / "install.sh").read_text(encoding="utf-8"))
    assert local, "scripts/install.sh pins torch"
    build = df.stages[0]
    args = dict(a.args.partition("=")[::2] for a in build.all("ARG"))
    torch_runs = [expand(i.args, args) for i in build.all("RUN") if "torch==" in i.args]
    assert torch_runs, f"{role}: torch is installed on its own, first"
    assert f"torch=={local.group(1)}" in torch_runs[0], f"{role}: torch pin differs from scripts/install.sh"
    assert "download.pytorch.org/whl/cpu" in torch_runs[0], f"{role}: torch from the CPU index (no CUDA)"


def test_a_local_torch_wheel_keeps_torch_s_index_out_of_the_build(
    image: tuple[str, Dockerfile], tmp_path: Path
) -> None:
    """With a wheel in docker/wheels/ the build installs it and never names torch's index: offline builds work."""
    role, df = image
    build = df.stages[0]
    args = dict(a.args.partition("=")[::2] for a in build.all("ARG"))
    (run,) = [i for i in build.all("RUN") if "torch==" in i.args]
    flags = dict(f.split("=", 1) for f in re.findall(r"--mount=(\S+)", run.args) for f in f.split(","))
    assert flags.get("source") == "docker/wheels" and flags.get("target") == "/wheels", f"{role}: mounts docker/wheels"
    assert (REPO / "docker" / "wheels").is_dir(), "the mount's source must exist, even without a wheel"
    rules = dockerignore_rules(Path(f"{DOCKERFILES[role]}.dockerignore"))
    wheel = f"docker/wheels/torch-{args['TORCH_VERSION']}+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    assert not ignored(rules, wheel), f"{role}: the .dockerignore keeps the wheel from the build"
    script = re.sub(r"^(--mount=\S+ )+", "", run.args)
    bin_dir, wheels = tmp_path / "bin", tmp_path / "wheels"
    bin_dir.mkdir()
    wheels.mkdir()
    (bin_dir / "pip").write_text('#!/bin/sh\necho "$@"\n')
    (bin_dir / "pip").chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", **args}

    def pip_args() -> str:
        done = subprocess.run(
            ["sh", "-c", script.replace("/wheels", str(wheels))], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "download.pytorch.org" in pip_args(), f"{role}: without a wheel, torch's CPU index"
    (wheels / Path(wheel).name).write_bytes(b"")
    installed = pip_args()
    assert "download.pytorch.org" not in installed and f"--find-links {wheels}" in installed, installed
