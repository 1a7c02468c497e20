"""Replicas of a model behind Ray Serve: the server each runs, and the refusals of `dgrag models serve`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dgrag.cli import build_parser
from shared.cli.exit_codes import EXIT_USAGE
from shared.config import ModelConfig
from shared.models import replicas
from shared.models.replicas import ServerSettings, server_command


def test_each_replica_runs_llama_server_where_built_else_llama_cpp_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = ServerSettings(ModelConfig(), threads=2, slots=3, n_ctx=1000)
    python = tmp_path / "python"
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setattr(replicas.shutil, "which", lambda name: None)
    fallback = server_command(settings, "/m.gguf", 9000)
    assert fallback[:3] == [str(python), "-m", "llama_cpp.server"] and "3000" in fallback, "n_ctx is per slot"
    (tmp_path / "llama-server").write_text("")
    native = server_command(settings, "/m.gguf", 9000)
    assert native[0] == str(tmp_path / "llama-server")
    assert native[native.index("--parallel") + 1] == "3" and native[native.index("--host") + 1] == "127.0.0.1"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--host", "0.0.0.0"], "plain HTTP"),
        (["--replicas", "0"], "1 or more"),
    ],
)
def test_serve_refuses_a_host_off_loopback_and_empty_counts(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(["models", "serve", *argv])
    assert args.func(args) == EXIT_USAGE
    assert said in capsys.readouterr().err


def test_one_replica_is_one_server_that_loads_the_checked_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import hashlib
    import os

    from shared.models.verified_file import Expected

    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF weights")
    expected = Expected(hashlib.sha256(model.read_bytes()).hexdigest(), model.stat().st_size)
    monkeypatch.setattr(replicas, "model_file", lambda config: (model, expected))
    monkeypatch.setattr(replicas.shutil, "which", lambda name: "/usr/local/bin/llama-server")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    became: list[list[str]] = []

    def execv(path: str, command: list[str]) -> None:
        fd = int(command[command.index("-m") + 1].rsplit("/", 1)[1])
        assert os.get_inheritable(fd), "the server this process becomes inherits the checked descriptor"
        assert os.read(fd, 4) == b"GGUF"
        became.append(command)
        raise SystemExit(0)

    monkeypatch.setattr(replicas.os, "execv", execv)
    args = build_parser().parse_args(["models", "serve", "--replicas", "1", "--host", "0.0.0.0", "--insecure"])
    with pytest.raises(SystemExit):
        args.func(args)
    assert became[0][0] == "/usr/local/bin/llama-server" and "/proc/self/fd/" in became[0][became[0].index("-m") + 1]
    assert became[0][became[0].index("--host") + 1] == "0.0.0.0", "no Ray: the server itself listens there"
    assert "one model server on 0.0.0.0:18080" in capsys.readouterr().out
