"""The install self-test: a child that crashes, fails or works, and the portable rebuild flags."""

from __future__ import annotations

import sys

import pytest

from shared.models import runtime_check
from shared.models.runtime_check import CheckResult, fallback_cmake_args, run_check


def test_a_crashing_child_is_reported_as_a_crash_with_what_to_do() -> None:
    result = run_check([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
    assert not result.ok and result.crashed
    assert "crashed with SIGSEGV (segmentation fault) in the step 'start'" in result.message
    assert "rebuild" in result.message and "\n" not in result.message


def test_a_crash_names_the_step_it_stopped() -> None:
    child = (
        "import json, os, signal; print(json.dumps({'step': 'load'})); "
        "print(json.dumps({'step': 'sample 4 answers'}), flush=True); os.kill(os.getpid(), signal.SIGILL)"
    )
    result = run_check([sys.executable, "-c", child])
    assert result.crashed and result.report["step"] == "sample 4 answers"
    assert "SIGILL (illegal instruction) in the step 'sample 4 answers'" in result.message


def test_a_failure_names_its_step() -> None:
    child = "import json, sys; print(json.dumps({'step': 'stream'})); sys.exit('pieces differ')"
    result = run_check([sys.executable, "-c", child])
    assert not result.crashed
    assert result.message == "the model self-test failed in the step 'stream' (exit 1): pieces differ"


def test_a_failing_child_names_its_last_error_line() -> None:
    result = run_check([sys.executable, "-c", "import sys; sys.exit('no model file here')"])
    assert not result.ok and not result.crashed
    assert result.message.endswith("no model file here")


def test_a_working_child_reports_its_json() -> None:
    result = run_check([sys.executable, "-c", "print('noise'); print('{\"generated\": \"blue\"}')"])
    assert result.ok and result.report == {"generated": "blue"}


def test_main_exits_3_on_a_crash_so_install_sh_rebuilds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runtime_check, "run_check", lambda command: CheckResult(False, True, "it crashed", {}))
    assert runtime_check.main([]) == runtime_check.EXIT_CRASHED
    assert capsys.readouterr().err.strip() == "self-test: it crashed"


def test_portable_flags_never_enable_amx_and_follow_the_cpu() -> None:
    amx_cpu = fallback_cmake_args({"avx", "avx2", "fma", "f16c", "avx512f", "amx_tile", "amx_int8"})
    assert "-DGGML_NATIVE=OFF" in amx_cpu and "-DGGML_AVX512=ON" in amx_cpu
    assert "-DGGML_AMX_INT8=OFF" in amx_cpu and "AMX_INT8=ON" not in amx_cpu
    avx2_only = fallback_cmake_args({"avx", "avx2", "fma", "f16c"})
    assert "-DGGML_AVX2=ON" in avx2_only and "-DGGML_AVX512=OFF" in avx2_only
