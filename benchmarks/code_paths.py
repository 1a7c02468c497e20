"""How far a reader of the code must follow a question: the modules its local path visits and how often it comes
back to one it left, the files the privacy ``answers`` setting crosses, and lines per folder.

    python -m benchmarks.code_paths [--tree DIR]

The local path is traced on a small edge with fake models (hash embeddings, a scripted SLM): every call into a
module of the edge, the cloud or shared is recorded in order; a module entered again after the path went
elsewhere counts as a re-entry. ``--tree`` names the source tree the file and line counts read (default: this
one); run the script from another checkout (PYTHONPATH=DIR) to trace that checkout's path.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

PACKAGES = ("edge_node", "cloud_server", "shared", "dgrag")
ANSWERS_SETTING = re.compile(
    r"AnswerUse|DEFAULT_ANSWER_USE|privacy\.answers|policy\.answers|\.answers\s*[:=]\s*AnswerUse"
)
DOCUMENTS = [
    ("memo-1", "Oslo lab", "Dana Smith runs the Oslo lab. The Oslo lab studies sea ice and opened in 2019."),
    ("memo-2", "Bergen office", "Per Lund leads the Bergen office, which sells ice sensors to the Oslo lab."),
]
QUESTION = "Who runs the Oslo lab?"


def _tokenizer() -> Any:
    for home in ("shared.models.tokenizer", "shared.core.tokenizer"):  # the tokenizer moved in step 3
        try:
            return importlib.import_module(home).RegexTokenizer()
        except ImportError:
            continue
    raise SystemExit("code_paths: no RegexTokenizer in this tree")


def _models() -> Any:
    from edge_node.api import EdgeModels
    from shared.models.fakes import HashEmbedder, ScriptedGenerator

    def slm(request: Any) -> str:
        return "Dana Smith runs the Oslo lab [1]."

    return EdgeModels(ScriptedGenerator(slm), HashEmbedder(16), _tokenizer())


class _Recorder:
    def __init__(self) -> None:
        self.on = False
        self.path: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if not self.on or event != "call":
            return
        module = str(frame.f_globals.get("__name__", ""))
        ours = module.split(".")[0] in PACKAGES and not module.startswith("shared.proto") and module != __name__
        if ours and (not self.path or self.path[-1] != module):
            self.path.append(module)


def traced_local_path() -> list[str]:
    """The modules the local path of QUESTION enters, in order (consecutive calls within one module once)."""
    from edge_node.api import Document, Edge

    recorder = _Recorder()
    with tempfile.TemporaryDirectory() as work:
        with Edge.open(Path(work), edge_id="trace", models=_models()) as edge:
            edge.insert([Document(i, t, x) for i, t, x in DOCUMENTS])
        hook: Callable[..., Any] = recorder
        threading.setprofile(hook)  # the edge's worker thread starts with the next Edge
        sys.setprofile(hook)
        try:
            with Edge.open(Path(work), edge_id="trace", models=_models()) as edge:
                recorder.on = True
                edge.query(QUESTION, mode="local")
                recorder.on = False
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
    return recorder.path


LEAF_PREFIXES = ("edge_node.store.", "shared.config.", "shared.transport.tracing", "shared.models.fakes")
LEAF_NAMES = frozenset(
    "text candidates question_terms lexical ablations vocabulary knowledge trace model_api base query_vectors "
    "verbatim skeleton errors constants".split()
)
"""Utilities, records and storage every step calls (by their names, wherever a tree keeps them): left out of the
second count, which follows the pipeline's own steps (reading, answering, gate, runtime, policy)."""


def _leaf(module: str) -> bool:
    return module.startswith(LEAF_PREFIXES) or module.rsplit(".", 1)[-1] in LEAF_NAMES


def pipeline_steps(path: list[str]) -> list[str]:
    """``path`` without the leaf modules, consecutive repeats merged."""
    out: list[str] = []
    for module in path:
        if not _leaf(module) and (not out or out[-1] != module):
            out.append(module)
    return out


def report_path(path: list[str]) -> str:
    return f"{_counted('local path, every module', path)}\n{_counted('its pipeline steps', pipeline_steps(path))}"


def _counted(label: str, path: list[str]) -> str:
    counts = Counter(path)
    reentries = {m: c - 1 for m, c in counts.items() if c > 1}
    top = ", ".join(f"{m} {n}" for m, n in sorted(reentries.items(), key=lambda x: (-x[1], x[0]))[:8])
    return f"{label}: {len(counts)} modules visited, {sum(reentries.values())} re-entries (most: {top})"


def answers_files(tree: Path) -> list[str]:
    """The source files that read, carry or type the privacy ``answers`` setting."""
    out = []
    for package in PACKAGES:
        for file in sorted((tree / package).rglob("*.py")):
            if ANSWERS_SETTING.search(file.read_text(encoding="utf-8")):
                out.append(file.relative_to(tree).as_posix())
    return out


def lines_per_folder(tree: Path) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for package in PACKAGES:
        for file in (tree / package).rglob("*.py"):
            if "proto" in file.parts:
                continue
            folder = file.parent.relative_to(tree).as_posix()
            counts[folder] += sum(1 for _ in file.open(encoding="utf-8"))
    return dict(sorted(counts.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args(argv)
    path = traced_local_path()
    print(f"traced: {Path(sys.modules[PACKAGES[0]].__file__ or '').parents[1]}")
    print(report_path(path))
    files = answers_files(args.tree)
    print(f"the answers setting: {len(files)} files: {', '.join(files)}")
    print("lines per folder:")
    for folder, lines in lines_per_folder(args.tree).items():
        print(f"  {folder:32} {lines:6d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
