"""benchmarks.membership: names split by which edge's documents hold them, AUC, and what a reply names."""

from __future__ import annotations

import random

from benchmarks.membership import auc, aucs, names, scores, table
from shared.proto.dgrag.v1 import cloud_pb2


def test_members_are_only_in_the_targets_documents_and_non_members_only_elsewhere() -> None:
    texts = {
        "t": ["Ada Lovelace met Alan Turing.", "Grace Hopper spoke."],
        "o": ["Alan Turing wrote. Linus Torvalds coded. Ken Thompson too."],
    }
    members, others = names(texts, "t", 2, random.Random(0))
    assert sorted(members) == ["Ada Lovelace", "Grace Hopper"] and sorted(others) == ["Ken Thompson", "Linus Torvalds"]


def test_auc_is_a_half_for_a_score_that_tells_nothing() -> None:
    assert auc([1.0, 1.0], [0.0, 0.0]) == 1.0 and auc([0.0, 0.0], [0.0, 0.0]) == 0.5


def test_a_reply_that_names_the_target_anywhere_counts() -> None:
    reply = cloud_pb2.GlobalQueryReply(answer="x", summaries=[cloud_pb2.SummaryMatch(edge_id="t", score=0.7)])
    got = scores(reply, "t")
    assert got["named in the reply"] == 1.0 and abs(got["summary score"] - 0.7) < 1e-6 and got["asked"] == 0.0
    assert scores(cloud_pb2.GlobalQueryReply(answer="x"), "t")["named in the reply"] == 0.0


def test_the_table_is_recomputed_from_the_rows_per_level() -> None:
    rows = [
        {"level": "summaries_only", "name": "A B", "member": True, "scores": {"asked": 0.0, "app: seconds": 2.0}},
        {"level": "summaries_only", "name": "C D", "member": False, "scores": {"asked": 0.0, "app: seconds": 1.0}},
        {"level": "chunks", "name": "A B", "member": True, "scores": {"asked": 1.0, "app: seconds": 1.0}},
        {"level": "chunks", "name": "C D", "member": False, "scores": {"asked": 0.0, "app: seconds": 1.0}},
    ]
    got = aucs(rows)
    assert got == {"summaries_only": {"app: seconds": 1.0, "asked": 0.5}, "chunks": {"app: seconds": 0.5, "asked": 1.0}}
    assert table(got).splitlines()[2] == "| app: seconds | 1.000 | 0.500 |"


def test_a_declining_answer_is_a_score() -> None:
    assert scores(cloud_pb2.GlobalQueryReply(answer="Insufficient information."), "t")["answer declines"] == 1.0
