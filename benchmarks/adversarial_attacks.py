"""The attacks of the three security reviews and the tests that perform them (benchmarks.adversarial runs them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attack:
    """One attack and the test that performs it: every test case whose id starts with ``test`` (and contains one
    of ``cases``, when given) counts; ``each_case``: one row per case (its parameter names the attack)."""

    round: int
    what: str
    test: str
    shows: str
    cases: tuple[str, ...] = ()
    each_case: bool = False


ROUND_2_TRANSFORMS = (
    "snake_case",
    "CamelCase",
    "kebab-case",
    "filler after every word",
    "numbered words",
    "letters spelled out",
    "letters with dashes",
    "every word reversed",
    "ROT13",
    "base64",
    "accents added",
    "combining grave accents",
    "variation selectors",
    "combining grapheme joiners",
    "Hangul fillers",
    "tag characters",
    "zero-width joiners",
    "Cyrillic homoglyphs",
    "fullwidth",
    "no spaces",
)
"""The transforms of tests/support/guard_transforms.py the second review tried (the third added two)."""
A = "tests/adversarial/"
C = "tests/component/"
U = "tests/unit/"
ATTACKS: tuple[Attack, ...] = (
    Attack(
        1,
        "protocol attack",
        f"{A}test_protocol_attacks.py::test_the_attack",
        "refused with its status; servers stay up",
        each_case=True,
    ),
    Attack(
        1,
        "62 bad files and bundle rows through `dgrag edge ingest`",
        f"{A}test_bad_inputs.py::test_every_bad_input",
        "one clear line each, no crash, nothing lost",
    ),
    Attack(1, "a disk that fills during an ingest", f"{A}test_disk_full.py::", "stops cleanly; a rerun finishes"),
    Attack(
        2,
        "claim every probe score 1.0",
        f"{C}test_claim_check.py::test_a_lying_edge",
        "distrusted after one checked reply, then not routed",
        cases=("every-claim-1",),
    ),
    Attack(
        2,
        "claim best chunk 0 and every other score 1.0",
        f"{C}test_claim_check.py::test_a_lying_edge",
        "the evidence score and term coverage are checked too",
        cases=("best-chunk-0",),
    ),
    Attack(
        2,
        "return the question (or it and a plant) as a chunk",
        f"{C}test_claim_check.py::test_a_returned_echo",
        "scored without the echo; its claims fail",
    ),
    Attack(
        2,
        "refuse probes, stuff summaries with the question",
        f"{C}test_claim_check.py::test_a_probe_refuser",
        "distrusted once its chunks fall 0.4 below its summary match",
    ),
    Attack(
        2,
        "claim name or lexical coverage 1.0 that nothing returned holds",
        f"{C}test_claim_check.py::test_every_measurable_claim_is_checked",
        "distrusted after three replies",
    ),
    Attack(
        2,
        "restart the cloud to wash out distrust",
        f"{C}test_claim_check.py::test_trust_outlives_a_restart",
        "trust is read back from query.trust_file",
    ),
    Attack(
        2,
        "over-claim only the lexical coverage",
        f"{C}test_claim_check.py::test_a_lexical_claim",
        "bounded to 0.5 above the checked term coverage; not flagged",
    ),
    Attack(
        2,
        "over-claim what one reply cannot re-measure",
        f"{C}test_claim_check.py::test_a_smart_liar",
        "pays its average over-claim on every claim",
    ),
    Attack(
        2,
        "over-claim named extra signals",
        f"{U}cloud_server/routing/test_probe_signals.py::",
        "bounded, weighed only when configured, discounted by trust",
    ),
    Attack(
        2,
        "discredit an edge with duplicated question vectors",
        f"{C}test_query_vectors.py::test_vectors_listing_a_text_twice",
        "refused",
    ),
    Attack(
        2,
        "100 discrediting calls with steering question vectors",
        f"{A}test_discrediting.py::",
        "the honest edge keeps its trust",
        cases=("as-built",),
    ),
    Attack(
        2,
        "score inversion against an edge that may not be quoted",
        f"{C}test_answer_guard.py::test_an_asker_gets_no_number",
        "no score or size reaches an asker",
    ),
    Attack(
        2,
        "20 reversible transforms of a copied passage",
        f"{A}test_guard_transforms.py::test_a_disguised_copy",
        "caught",
        cases=tuple(f"[{name}]" for name in ROUND_2_TRANSFORMS),
    ),
    Attack(
        2,
        "the answer guard as a membership oracle",
        f"{A}test_guard_transforms.py::test_the_guard_answers_a_member",
        "one fixed note for member and non-member",
    ),
    Attack(
        2,
        "one credential holding every query slot",
        f"{U}shared/models/test_fair_slots.py::test_one_caller",
        "at most 8 of 32 per credential",
    ),
    Attack(
        2,
        "a flood of summary deltas in one session",
        f"{C}test_publish_budget.py::test_a_flood",
        "cut off; a replay embeds nothing",
    ),
    Attack(
        2,
        "spend another caller's budget under mutual TLS",
        f"{C}test_tls.py::test_calls_a_certificate_refuses",
        "the budget is spent after the certificate check",
    ),
    Attack(
        2,
        "a TLS key others may read; a symlink planted at a secret's path",
        f"{C}test_tls.py::test_",
        "refused; written beside and renamed",
        cases=("private_key_others_may_read",),
    ),
    Attack(
        2,
        "compute the opaque id of a guessed path",
        f"{C}test_leak_guard.py::test_document_ids",
        "an HMAC under a per-edge key",
    ),
    Attack(
        2,
        "read `summaries_only` edges off `/metrics`",
        f"{C}test_cloud_metrics.py::test_an_unnamed_edge",
        "counted, never named",
    ),
    Attack(
        2,
        "pass data to another edge in the trace id",
        f"{C}test_tracing.py::test_a_callers_trace_is_linked",
        "the cloud starts its own trace, linked",
    ),
    Attack(
        2,
        "a 16 MiB request parsed before its refusal",
        f"{C}test_refused_unparsed.py::",
        "a refused call is never decoded",
    ),
    Attack(
        2,
        "swap a symlink into the ingest roots after the check",
        f"{U}edge_node/ingest/test_readers_hostile.py::test_what_is_opened",
        "the opened file is checked",
    ),
    Attack(
        3,
        "questions that restate, negate or reword an honest edge's sentences",
        f"{A}test_restating_questions.py::test_an_honest_edge",
        "its trust stays >= 0.95",
        cases=("as-built",),
    ),
    Attack(
        3,
        "the second round's echo liar, after the fix above",
        f"{A}test_restating_questions.py::test_the_liars",
        "flagged",
        cases=("[echo]",),
    ),
    Attack(
        3,
        "the second round's smart liar, after the fix above",
        f"{A}test_restating_questions.py::test_the_liars",
        "flagged",
        cases=("[smart]",),
    ),
    Attack(
        3,
        "guess words of an edge that may not be quoted",
        f"{A}test_membership_guesses.py::",
        "identical replies, right guess or wrong",
        cases=("as-built",),
    ),
    Attack(
        3,
        "a model file planted, changed in place or reached by a symlink",
        f"{U}shared/models/test_verified_file.py::",
        "refused at every load",
    ),
    Attack(
        3,
        "an OpenAI-compatible endpoint off the machine over plain HTTP",
        f"{A}test_model_endpoints.py::",
        "gets neither the key nor a text",
    ),
    Attack(
        3,
        "1,000 slow connections to the operators' page",
        f"{A}test_slow_connections.py::",
        "the page answers within 1 s",
    ),
    Attack(
        3,
        "leetspeak and reversed word order past the answer guard",
        f"{A}test_guard_transforms.py::test_a_disguised_copy",
        "caught",
        cases=("[leetspeak]", "[reversed word order]"),
    ),
    Attack(
        3,
        "a reconnect while a delta is being embedded",
        f"{U}cloud_server/routing/test_summary_index.py::test_a_reconnecting_edge",
        "the deletion holds",
    ),
    Attack(
        3,
        "`dgrag certs` against a planted symlink or a dangling `ca.pem`",
        f"{A}test_bad_inputs.py::test_dgrag_certs",
        "never written through; not taken for a CA",
    ),
    Attack(
        3,
        "a probe refuser with summaries stuffed with other edges' names",
        f"{A}test_stuffed_refuser.py::",
        "flagged; stops being asked first; an honest refuser keeps its trust",
    ),
    Attack(
        3,
        "failed logins from rotating IPv6 addresses",
        f"{U}shared/core/test_addresses.py::",
        "one bucket per /64; the buckets stay bounded",
    ),
)
