"""The README's demo runs end to end: two edges and a cloud reading with the larger packaged model, as processes
on loopback with the packaged models. To keep it a few minutes, each edge holds the evidence of the demo's two
questions (chosen by the demo's own rule on the bundled sample) and a handful of its other articles."""

from __future__ import annotations

import html
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from cloud_server.cloud_model import missing_model_sentence
from shared.config import CLOUD_MODEL
from shared.models.packaged import is_fetched

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "demo_network.py"
OTHER_ARTICLES = 3


def _demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_network", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _small_bundle(demo: ModuleType, into: Path) -> dict[str, dict[str, object]]:
    """The demo's questions, their evidence and a few other articles of each demo edge, as a bundle in ``into``."""
    chosen = demo.demo_questions()
    evidence = {d for row in chosen.values() for d in row["evidence_doc_ids"]}
    docs = [json.loads(x) for x in (demo.BUNDLE / "docs.jsonl").read_text(encoding="utf-8").splitlines() if x]
    kept = [d for d in docs if d["doc_id"] in evidence and d["edge_id"] in demo.EDGES]
    for edge in demo.EDGES:
        kept += [d for d in docs if d["edge_id"] == edge and d["doc_id"] not in evidence][:OTHER_ARTICLES]
    into.mkdir()
    (into / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in kept), encoding="utf-8")
    (into / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chosen.values()), encoding="utf-8")
    edges = [{"edge_id": e, "description": f"news articles about {e}"} for e in demo.EDGES]
    (into / "edges.json").write_text(json.dumps(edges), encoding="utf-8")
    return chosen


@pytest.mark.integration
def test_the_demo_answers_at_the_edge_or_routes_to_the_edge_that_knows(tmp_path: Path) -> None:
    demo = _demo()
    bundle = tmp_path / "bundle"
    chosen = _small_bundle(demo, bundle)
    assert demo.demo_questions(bundle) == chosen, "the rule picks the same questions from the small bundle"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--workdir", str(tmp_path / "work"), "--bundle", str(bundle)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    parts = out.split("\n== asked at the business edge, about ")
    assert len(parts) == 3, out
    business, technology = parts[1], parts[2]
    assert business.startswith("business") and technology.startswith("technology")
    model = CLOUD_MODEL if is_fetched(CLOUD_MODEL) else f"SmolLM2-135M. {missing_model_sentence(CLOUD_MODEL)}"
    assert f"it reads with {model}" in out, "the cloud says which model reads, and how to fetch a missing one"
    for part in (business, technology):
        assert "decision: " in part and "short answer: " in part and "\nsources:\n  " in part
        word = part.split("\nconfidence: ", 1)[1].split(" (", 1)[0]
        assert word in ("sure", "likely", "can't tell"), part
    # the technology question's evidence is on the technology edge alone: the business edge must not keep it
    assert "answered by: the cloud" in technology, technology
    cited = technology.split("answered by: the cloud, citing the ", 1)[1].split(" edge(s)", 1)[0]
    assert "technology" in cited.split(", "), technology
    sources = [line for line in technology.split("\nsources:\n", 1)[1].splitlines() if line.startswith("  ")]
    assert any(line.startswith("  technology:mh-") for line in sources), "it cites the technology edge's articles"
    rows = map(json.loads, (bundle / "docs.jsonl").read_text().splitlines())
    titled = {d["doc_id"]: html.unescape(d["title"]) for d in rows}
    for line in sources:  # each source is named as the bundle names it, with its article's title
        doc_id = line.split(":", 1)[1].split()[0]
        assert titled[doc_id][:40] in line, line
