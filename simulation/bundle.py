"""Benchmark bundles (docs/simulation.md, "The bundle format") and the 'Asked at' rule of the metric definitions."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from shared.core.errors import DgragError
from simulation.metrics import is_unanswerable_gold


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
        raise DgragError(
            f"{bench}/edges.json is missing or malformed ({exc}); see the bundle format in docs/simulation.md"
        ) from exc


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


def consistent_questions(questions: list[Question], edges: list[str]) -> tuple[list[Question], list[Question]]:
    """(usable, inconsistent) questions of a bundle with these ``edges``.

    A home edge the bundle does not have is an error (a typo would otherwise score as a routing miss). A
    question with an answer but no home edge is inconsistent: it would be asked as unanswerable, where no
    reply can match its gold."""
    known = set(edges)
    for q in questions:
        if unknown := sorted(set(q.home_edges) - known):
            raise DgragError(f"question {q.qid}: home edge(s) {unknown} are not in edges.json (it has {edges})")
    inconsistent = [q for q in questions if not q.answerable and not is_unanswerable_gold(q.answer)]
    return [q for q in questions if q not in inconsistent], inconsistent


def _pick(qid: str, salt: str, options: list[str]) -> str:
    digest = hashlib.sha256(f"{qid}\x00{salt}".encode()).digest()
    return sorted(options)[int.from_bytes(digest[:4], "big") % len(options)]


def asked_at(questions: list[Question], edges: list[str]) -> list[Asked]:
    """Every answerable question once at a home edge and once at a non-home edge; unanswerable ones once.
    An answerable question whose home edges are all outside ``edges`` is not asked.

    Both edges are chosen deterministically from the qid, so every run asks the same questions in the same place.
    """
    out: list[Asked] = []
    for q in questions:
        if q.answerable:
            homes = [e for e in q.home_edges if e in edges]
            if not homes:
                continue  # its evidence is on none of these edges: nothing to ask within, nothing to route to
            out.append(Asked(q, _pick(q.qid, "home", homes), "within"))
            others = [e for e in edges if e not in q.home_edges]
            if others:
                out.append(Asked(q, _pick(q.qid, "away", others), "out"))
        else:
            out.append(Asked(q, _pick(q.qid, "none", edges), "unanswerable"))
    return out
