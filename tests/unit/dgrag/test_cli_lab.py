"""The dgrag command offers the simulation only where the sim extra is installed: the product runs without the lab."""

from __future__ import annotations

import importlib.util

import pytest

from dgrag import cli


def exit_code(args: list[str]) -> int:
    with pytest.raises(SystemExit) as stopped:
        cli.build_parser().parse_args(args)
    return int(stopped.value.code or 0)


def test_sim_is_offered_where_the_extra_is_installed(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["sim", "--help"]) == 0


def test_without_the_sim_extra_there_is_no_sim_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    assert exit_code(["sim", "--help"]) == 2
    assert "invalid choice: 'sim'" in capsys.readouterr().err
    assert exit_code(["edge", "--help"]) == 0
