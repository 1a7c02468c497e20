"""README's Python example runs as written, with the embedded models."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.integration
def test_readme_python_example_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert blocks, "README shows a Python example"
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(blocks[0], "README.md", "exec"), {"__name__": "readme_example"})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "memo-1" in out, "the answer names its source document"
    assert "1 document(s);" in out
    assert (tmp_path / "data" / "readme-edge").is_dir()
