"""Fail when a module is over 400 lines or a function over 60 (generated gRPC stubs excepted), or when a line
opts out of the formatter (``fmt: skip``/``fmt: off``): sizes are met by splitting, not by packing lines.

Run by CI beside ruff, mypy and import-linter: ``python scripts/check_sizes.py [paths...]``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
PACKAGES = ("dgrag", "shared", "edge_node", "cloud_server", "simulation", "benchmarks", "scripts", "tests")
GENERATED = ("shared/proto/",)


def python_files(roots: list[Path]) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
        else:
            yield from sorted(p for p in root.rglob("*.py") if not any(g in p.as_posix() for g in GENERATED))


def problems(path: Path) -> Iterator[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n") + (not text.endswith("\n") and bool(text))
    if lines > MAX_MODULE_LINES:
        yield f"{path}: {lines} lines (at most {MAX_MODULE_LINES}): split it by responsibility"
    for number, line in enumerate(text.splitlines(), start=1):
        if any(f"# fmt: {word}" in line for word in ("skip", "off")):
            yield f"{path}:{number}: opts out of ruff format; format it (split it if it then grows too long)"
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            if length > MAX_FUNCTION_LINES:
                yield f"{path}:{node.lineno}: {node.name} is {length} lines (at most {MAX_FUNCTION_LINES})"


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [Path(p) for p in PACKAGES if Path(p).exists()]
    found = [p for f in python_files(roots) for p in problems(f)]
    for line in found:
        print(line)
    print(f"check_sizes: {len(found)} problem(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
