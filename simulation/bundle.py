"""Benchmark bundles (DESIGN "Benchmark bundles") and the 'Asked at' rule of the metric definitions."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from shared.errors import DgragError


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    answer: str
    type: str
    home_edges: tuple[str, ...]
    evidence_doc_ids: tuple[str, ...]

    @property
    def answerable(self) -> bool:
        return bool(self.home_edges)


ANSWERABLE_KINDS = ("within", "out")
"""The roles of an answerable question's asks: at a home edge, at a non-home edge."""
ASK_KINDS = (*ANSWERABLE_KINDS, "unanswerable")


@dataclass(frozen=True)
class Asked:
    """One question asked at one edge, and in which role."""

    question: Question
    edge: str
    kind: str
    """within (a home edge), out (a non-home edge) or unanswerable."""


def load_edges(bench: Path) -> list[str]:
    try:
        rows = json.loads((bench / "edges.json").read_text(encoding="utf-8"))
        return [str(r["edge_id"]) for r in rows]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DgragError(f"{bench}/edges.json is missing or malformed ({exc}); see DESIGN.md bundle format") from exc


def load_questions(bench: Path) -> list[Question]:
    out: list[Question] = []
    path = bench / "questions.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DgragError(f"cannot read {path}: {exc}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            out.append(
                Question(
                    str(r["qid"]),
                    str(r["question"]),
                    str(r["answer"]),
                    str(r.get("type", "")),
                    tuple(r.get("home_edges", [])),
                    tuple(r.get("evidence_doc_ids", [])),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise DgragError(f"{path}:{number}: malformed question row ({exc})") from exc
    return out


def _pick(qid: str, salt: str, options: list[str]) -> str:
    digest = hashlib.sha256(f"{qid}\x00{salt}".encode()).digest()
    return sorted(options)[int.from_bytes(digest[:4], "big") % len(options)]


def asked_at(questions: list[Question], edges: list[str]) -> list[Asked]:
    """Every answerable question once at a home edge and once at a non-home edge; unanswerable ones once.

    Both edges are chosen deterministically from the qid, so every run asks the same questions in the same place.
    """
    out: list[Asked] = []
    for q in questions:
        if q.answerable:
            homes = [e for e in q.home_edges if e in edges]
            if homes:
                out.append(Asked(q, _pick(q.qid, "home", homes), "within"))
            others = [e for e in edges if e not in q.home_edges]
            if others:
                out.append(Asked(q, _pick(q.qid, "away", others), "out"))
        else:
            out.append(Asked(q, _pick(q.qid, "none", edges), "unanswerable"))
    return out
