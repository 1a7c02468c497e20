"""scripts/check_sizes.py: the size limits CI enforces, and no line opting out of the formatter."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from tests.support.paths import REPO

SCRIPT = REPO / "scripts" / "check_sizes.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_sizes", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_long_modules_long_functions_and_formatter_opt_outs_are_problems(tmp_path: Path) -> None:
    check = _script()
    fine = tmp_path / "fine.py"
    fine.write_text("def f() -> int:\n    return 1\n")
    packed = tmp_path / "packed.py"
    packed.write_text("x = [1,\n     2]  # fmt" + ": skip\n")
    long_function = tmp_path / "long.py"
    long_function.write_text("def f() -> None:\n" + "    pass\n" * 60)
    assert list(check.problems(fine)) == []
    assert [p.split(": ", 1)[1] for p in check.problems(packed)] == [
        "opts out of ruff format; format it (split it if it then grows too long)"
    ]
    assert "f is 61 lines" in next(iter(check.problems(long_function)))
    assert check.main([str(REPO / p) for p in check.PACKAGES]) == 0, "the repo passes"
