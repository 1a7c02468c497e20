"""Synthetic simulation rows whose every metric is known by hand, for the report's tests."""

from __future__ import annotations

from typing import Any

NO = "Insufficient information."
# qid -> (gold, home edges, evidence docs)
QUESTIONS = {
    "q1": ("Yes", ["A"], ["d1"]),
    "q2": ("No", ["B"], ["d2", "d3"]),
    "q3": ("Yes", ["A"], ["d4"]),
    "q4": ("Paris", ["C"], ["d5"]),
    "q5": (NO, [], []),
    "q6": (NO, [], []),
}


def row(
    qid: str,
    kind: str,
    asked_at: str,
    mode: str = "dgrag",
    *,
    correct: bool,
    decision: str = "local",
    ranked: str = "",
    asked: str = "",
    recall: float | None = None,
    seconds: float = 1.0,
    sent: int = 0,
) -> dict[str, Any]:
    """One answers.jsonl row; ``ranked`` / ``asked`` spell the summary edges / fanned-out edges, one letter each."""
    gold, homes, evidence = QUESTIONS[qid]
    timings = {"keywording": seconds / 4, "retrieval": seconds / 4, "generation": seconds / 2, "total": seconds}
    if decision == "cloud":
        timings |= {"escalation": seconds / 2, "cloud.cloud_generation": seconds / 5}
    return {
        "qid": qid,
        "question": f"question {qid}?",
        "gold": gold,
        "type": "test",
        "kind": kind,
        "asked_at": asked_at,
        "home_edges": homes,
        "evidence_doc_ids": evidence,
        "mode": mode,
        "answer": gold if correct else "something else",
        "short": gold if correct else "something else",
        "decision": decision,
        "escalated": decision != "local",
        "correct": correct,
        "gate": None,
        "sources": [],
        "evidence_recall": recall,
        "summaries": [{"summary_id": f"{e}-{i}", "edge_id": e, "score": 1.0 - i / 10} for i, e in enumerate(ranked)],
        "edges_asked": list(asked),
        "edges_replied": list(asked),
        "edges_failed": [],
        "timings": timings,
        "bytes_left_edges": sent,
    }


def dgrag_rows() -> list[dict[str, Any]]:
    # Local answers take 1..5 s and send nothing; cloud answers take 10..50 s and send 100..500 bytes.
    return [
        row("q1", "within", "A", correct=True, ranked="ABC", recall=1.0, seconds=1),
        row(
            "q2",
            "within",
            "B",
            correct=True,
            decision="cloud",
            ranked="ABC",
            asked="AB",
            recall=0.5,
            seconds=10,
            sent=100,
        ),
        row("q3", "within", "A", correct=False, ranked="CAB", recall=0.0, seconds=2),
        row("q4", "within", "C", correct=True, ranked="CAB", recall=1.0, seconds=3),
        row(
            "q1", "out", "B", correct=True, decision="cloud", ranked="ACB", asked="A", recall=1.0, seconds=20, sent=200
        ),
        row(
            "q2",
            "out",
            "A",
            correct=False,
            decision="cloud",
            ranked="CAB",
            asked="CA",
            recall=0.0,
            seconds=30,
            sent=300,
        ),
        row("q3", "out", "C", correct=True, decision="cloud", ranked="A", asked="A", recall=1.0, seconds=40, sent=400),
        row("q4", "out", "A", correct=False, ranked="ABDEC", recall=0.0, seconds=4),
        row("q5", "unanswerable", "A", correct=True, decision="cloud", ranked="B", asked="B", seconds=50, sent=500),
        row("q6", "unanswerable", "B", correct=False, seconds=5),
    ]


def central_rows() -> list[dict[str, Any]]:
    out = [("q1", True), ("q2", True), ("q3", True), ("q4", False)]
    return [row(q, "within", "central", "central", correct=True) for q, _ in out] + [
        row(q, "out", "central", "central", correct=ok) for q, ok in out
    ]


RUN_INFO: dict[str, Any] = {
    "bench": "synthetic",
    "modes": ["naive", "dgrag", "central"],
    "limit": 6,
    "seed": 7,
    "top_m": 5,
    "top_k": 2,
    "edges": {
        e: {
            "index_seconds": 12.5,
            "storage_bytes": 3 * 1024 * 1024,
            "construction_bytes": 2048,
            "peak_rss_bytes": 300 * 1024 * 1024,
            "documents": 10,
            "chunks": 40,
            "entities": 90,
            "relations": 120,
            "summaries": 6,
            **(
                {"index_cached": True, "query_bytes": 1536, "index_peak_rss_bytes": 400 * 1024 * 1024}
                if e == "B"
                else {}
            ),
        }
        for e in "ABC"
    },
    "central": None,
    "cloud": {"peak_rss_bytes": 500 * 1024 * 1024},
    "config": {"gate": {"threshold": 0.5}},
    "wall_seconds": 600.0,
}
