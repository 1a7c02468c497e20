"""The cloud's draft reaches the asker as far as the answer guard allows, never a copied run of a protected text."""

from __future__ import annotations

import re

from cloud_server.answering.draft_stream import DraftRelay

PROTECTED = ["Zephyr Medical was founded by Omar Haddad in Lisbon in the spring of 2011 with three engineers."]


def _relay(draft: str, protected: list[str], question: str = "Who founded Zephyr Medical?") -> tuple[str, DraftRelay]:
    out: list[str] = []
    relay = DraftRelay(question, protected, copy_words=6, sentence=4, out=out.append)
    for piece in re.findall(r"\S+\s*", draft):
        relay(piece)
    return "".join(out), relay


def test_with_nothing_protected_every_piece_passes_at_once() -> None:
    sent, relay = _relay("Omar Haddad founded it in Lisbon.", [])
    assert sent == "Omar Haddad founded it in Lisbon." and not relay.stopped


def test_an_own_draft_is_sent_up_to_the_last_copy_window() -> None:
    draft = "The company started with a small team of engineers who built pumps for local clinics"
    sent, relay = _relay(draft, PROTECTED)
    assert not relay.stopped
    assert draft.startswith(sent) and sent.split() == draft.split()[:-6], "the last six words wait for what follows"


def test_a_draft_copying_a_protected_run_sends_none_of_the_run() -> None:
    draft = "It is known that Omar Haddad in Lisbon in the spring of 2011 started it."
    sent, relay = _relay(draft, PROTECTED)
    assert relay.stopped
    assert "Lisbon in the spring" not in sent
    assert len(sent.split()) < 6, "stopped before any word of the copied run left"


def test_words_the_question_supplied_do_not_stop_the_draft() -> None:
    question = "Is it true that Zephyr Medical was founded by Omar Haddad in Lisbon?"
    draft = "Yes, Zephyr Medical was founded by Omar Haddad in Lisbon, the records say, as its first product shows."
    sent, relay = _relay(draft, PROTECTED, question)
    assert not relay.stopped and sent.startswith("Yes, Zephyr Medical was founded")
